"""BM25 scores for documents that came without one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextlab.retrieval.scoring import needs_scoring, score_documents, score_unscored
from contextlab.types import Document

# -- score_documents / needs_scoring -------------------------------------------------------


def test_score_documents_scores_new_copies_in_input_order():
    docs = [
        Document("nothing relevant here", metadata={"score_missing": True}),
        Document("solar panels on roofs", metadata={"score_missing": True, "k": 1}),
        Document("solar", score=0.3, metadata={}),
    ]
    before = [Document(d.content, d.score, d.source, dict(d.metadata)) for d in docs]
    scored = score_documents(docs, "solar panels")
    assert docs == before
    assert [d.content for d in scored] == [d.content for d in docs]
    assert scored[0].score == 0.0
    assert 0.0 < scored[1].score <= 1.0
    assert scored[1].metadata == {"k": 1, "score_source": "bm25"}
    assert scored[2] is docs[2]


def test_score_documents_keeps_every_given_score():
    docs = [
        Document("refunds are processed in five days", score=0.5, source="given"),
        Document("refunds refunds refunds", metadata={"score_missing": True}),
        Document("shipping is free", score=0.0, source="zero"),
    ]
    scored = score_documents(docs, "refunds")
    assert (scored[0].score, scored[2].score) == (0.5, 0.0)
    assert scored[0].metadata == {} and scored[1].metadata == {"score_source": "bm25"}


def test_score_documents_can_still_rescore_everything():
    docs = [Document("solar panels", score=0.3), Document("wind farms", score=0.9)]
    scored = score_documents(docs, "solar panels", only_missing=False)
    assert scored[0].score == 0.454545 and scored[1].score == 0.0  # 1 / (k1 + 1): once each
    assert scored[1].metadata == {"input_score": 0.9, "score_source": "bm25"}


def test_score_unscored_says_how_many_and_warns_about_scales():
    mixed = score_unscored(
        [
            Document("refunds", score=0.5),
            Document("refunds take days", metadata={"score_missing": True}),
            Document("shipping", metadata={"score_missing": True}),
        ],
        "refunds",
    )
    assert mixed.scored == 2
    assert mixed.note.startswith("2 of 3 documents had no score and were scored against the query")
    assert "different" not in mixed.note and "do not compare directly" in mixed.note
    alone = score_unscored([Document("refunds", metadata={"score_missing": True})], "refunds")
    assert alone.note == "1 document(s) had no score and were scored against the query (BM25, 0-1)"
    given = score_unscored([Document("refunds", score=0.5)], "")
    assert given.scored == 0 and given.note is None


def test_score_documents_scores_duplicates_alike_and_publishes_nothing(received):
    docs = [
        Document("same words here", metadata={"score_missing": True}),
        Document("same words here", metadata={"score_missing": True}),
    ]
    scored = score_documents(docs, "words")
    assert scored[0].score == scored[1].score > 0
    assert received == []


def test_score_documents_empty_input():
    assert score_documents([], "anything") == []


@pytest.mark.parametrize(
    "query,match",
    [
        ("", "the query has no words"),
        ("?!", "the query has no words"),
        (None, "query must be a string"),
    ],
)
def test_score_documents_rejects_wordless_query(query, match):
    with pytest.raises(ValueError, match=match):
        score_documents([Document("x", metadata={"score_missing": True})], query)


def test_needs_scoring():
    assert needs_scoring([Document("a"), Document("b", metadata={"score_missing": True})])
    assert not needs_scoring([Document("a", score=0.4)])
    assert not needs_scoring([])


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6), query=st.text(min_size=1, max_size=30))
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
