"""The lab says what the engine noted about the input: scores outside 0-1 (issue 18, point 8)."""

from __future__ import annotations

import json
import re

import pytest

from .conftest import open_lab, run

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration


def _unescaped(shown: str) -> str:
    """Return the text of a message the lab showed as text (markdown characters escaped)."""
    return re.sub(r"\\(.)", r"\1", shown)


def test_lab_says_scores_outside_0_1_are_shown_as_given():
    at = open_lab(view="final")
    at.radio(key="doc_source").set_value("paste")
    run(at)
    at.text_area(key="paste_text").input(
        json.dumps(
            [
                {"text": "Annual plans are refunded pro rata within six months.", "score": 7.5, "source": "a.md"},
                {"text": "Our office dog is called Biscuit and loves long walks.", "score": -3, "source": "b.md"},
            ]
        )
    )
    run(at)
    assert (
        "2 document(s) have scores outside 0-1 (7.5, -3): they rank as given (highest first), and "
        "their headers show the score as given, marked 'outside 0-1'"
    ) in [_unescaped(i.value) for i in at.info]
    assert "(relevance: 7.50, outside 0-1)" in at.code[0].value
