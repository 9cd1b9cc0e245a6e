"""BM25 scores for documents that came without one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextlab import events
from contextlab.retrieval.scoring import needs_scoring, score_documents
from contextlab.types import Document


@pytest.fixture
def received():
    """Collect every retrieval event sent while the test runs."""
    got: list[tuple[object, dict]] = []

    def receiver(sender, payload):
        got.append((sender, payload))

    events.memory_retrieve.connect(receiver)
    yield got
    events.memory_retrieve.disconnect(receiver)


# -- score_documents / needs_scoring -------------------------------------------------------


def test_score_documents_scores_new_copies_in_input_order():
    docs = [Document("nothing relevant here", metadata={"score_missing": True}),
            Document("solar panels on roofs", metadata={"score_missing": True, "k": 1}),
            Document("solar", score=0.3, metadata={})]
    before = [Document(d.content, d.score, d.source, dict(d.metadata)) for d in docs]
    scored = score_documents(docs, "solar panels")
    assert docs == before
    assert [d.content for d in scored] == [d.content for d in docs]
    assert scored[0].score == 0.0
    assert 0.0 < scored[2].score < scored[1].score <= 1.0
    assert scored[1].metadata == {"k": 1, "score_source": "bm25"}
    assert scored[2].metadata == {"input_score": 0.3, "score_source": "bm25"}


def test_score_documents_scores_duplicates_alike_and_publishes_nothing(received):
    docs = [Document("same words here"), Document("same words here")]
    scored = score_documents(docs, "words")
    assert scored[0].score == scored[1].score > 0
    assert received == []


def test_score_documents_empty_input():
    assert score_documents([], "anything") == []


@pytest.mark.parametrize("query,match", [
    ("", "the query has no words"),
    ("?!", "the query has no words"),
    (None, "query must be text"),
])
def test_score_documents_rejects_wordless_query(query, match):
    with pytest.raises(ValueError, match=match):
        score_documents([Document("x")], query)


def test_needs_scoring():
    assert needs_scoring([Document("a"), Document("b", metadata={"score_missing": True})])
    assert not needs_scoring([Document("a", score=0.4)])
    assert not needs_scoring([])


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6),
       query=st.text(min_size=1, max_size=30))
def test_score_documents_is_a_scored_copy(texts, query):
    docs = [Document(t, metadata={"score_missing": True}) for t in texts]
    try:
        scored = score_documents(docs, query)
    except ValueError as exc:
        assert "no words" in str(exc)
        return
    assert [d.content for d in scored] == texts
    assert all(0.0 <= d.score <= 1.0 and d.metadata == {"score_source": "bm25"} for d in scored)
    assert all(d.metadata == {"score_missing": True} for d in docs)
