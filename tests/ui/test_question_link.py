"""A link to a question opened from Evaluate reproduces it: its retrieved documents, query and gold."""

from __future__ import annotations

import pytest

from .conftest import open_lab, texts, unescape

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_question_link_reopens_the_bundled_questions_documents_and_marks_its_gold():
    at = open_lab(question="nq-0", top_k="20", max_context_tokens="512", view="placement")
    assert at.session_state["doc_source"] == "table"
    assert len(at.session_state["table_documents"]) == 20
    assert at.session_state["cfg_query"] == "who got the first nobel prize in physics"
    assert at.session_state["cfg_max_context_tokens"] == 512
    assert not [w.value for w in at.warning if "cannot" in unescape(w.value)]
    # the gold passage nq-p0 is the answer document, wherever the build put it
    assert "The document that holds the answer" in texts(at)
    # and the link written back names the question again, not "source=table"
    assert at.query_params["question"] == "nq-0" and "source" not in at.query_params


def test_question_link_to_an_unknown_question_says_so():
    at = open_lab(question="nq-nope")
    assert any("question='nq-nope': no such question in the bundled set" in unescape(w.value) for w in at.warning)
