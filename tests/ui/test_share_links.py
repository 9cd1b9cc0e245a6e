"""A share link always opens the lab: a value no widget can hold falls back, with a short warning naming it."""

from __future__ import annotations

import pytest

from .conftest import open_lab, run, unescape

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration


def test_share_link_with_values_no_widget_can_hold_opens_on_the_defaults_and_says_which():
    at = open_lab(
        dedup_threshold="0.005",  # below the slider's minimum
        max_context_tokens="1" * 5000,  # more digits than int() reads
        min_doc_tokens="\u00b2",  # "²".isdigit() is True, int("²") fails
        limit="\u00b2",
        top_k="\u00b2",
        view="budget",
        question="q" * 5000,
    )
    warnings = [unescape(w.value) for w in at.warning]
    assert "ignored URL parameter dedup_threshold='0.005': a number from 0.01 to 1" in warnings
    assert (
        "ignored URL parameter max_context_tokens='11111111111111111...111111111111111111' (5,000 characters): "
        "a whole number from 0 to 10,000,000"
    ) in warnings
    assert "ignored URL parameter min_doc_tokens='\u00b2': a whole number from 0 to 100,000" in warnings
    assert "ignored URL parameter limit='\u00b2': a whole number from 1 to 1,000,000" in warnings
    assert "ignored URL parameter top_k='\u00b2': a whole number from 1 to 100" in warnings
    assert (
        "ignored URL parameter question='qqqqqqqqqqqqqqqqq...qqqqqqqqqqqqqqqqqq' (5,000 characters): "
        "no such question in the bundled set"
    ) in warnings
    assert all(len(w) < 200 for w in warnings)
    # Each falls back to its default; what the link got right still applies.
    assert at.slider(key="cfg_dedup_threshold").value == 0.85
    assert at.slider(key="cfg_min_doc_tokens").value == 5
    assert at.select_slider(key="budget_step").value == 1024  # what support_faq opens at
    assert at.segmented_control(key="view").value == "budget"
    run(at)
    assert not at.warning


def test_share_link_takes_the_ends_of_each_settings_range():
    at = open_lab(dedup_threshold="0.01", max_context_tokens="10000000", min_doc_tokens="100000")
    assert not at.warning
    assert at.slider(key="cfg_dedup_threshold").value == 0.01
    assert at.slider(key="cfg_min_doc_tokens").value == 100_000
    assert at.number_input(key="budget_exact").value == 10_000_000
