"""Tests for contextlab.window.ranking: seed 002's hybrid score (relevance, recency, importance)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextlab.errors import InvalidInputError
from contextlab.types import Document
from contextlab.window.ranking import HYBRID_SCORE_LABEL, HybridRanking

HOUR = 3600.0
NOW = 1_700_000_000.0


def test_hybrid_ranking_is_re_exported_where_the_readme_imports_it():
    import contextlab
    import contextlab.window

    assert contextlab.window.HybridRanking is HybridRanking is contextlab.HybridRanking
    assert HYBRID_SCORE_LABEL == "hybrid score"


def test_hybrid_ranking_seed_formula():
    doc = Document("x", score=0.8, timestamp=NOW - 24 * HOUR, importance=0.4)
    # 0.5 * 0.8 + 0.25 * 0.5 (one half-life old) + 0.25 * 0.4
    assert HybridRanking().score(doc, NOW) == pytest.approx(0.625)


def test_hybrid_ranking_recency_halves_every_half_life():
    ranking = HybridRanking(half_life_hours=12)
    ages = [0, 12, 24, 36]
    got = [ranking.recency_of(Document("x", timestamp=NOW - a * HOUR), NOW) for a in ages]
    assert got == pytest.approx([1.0, 0.5, 0.25, 0.125])


def test_hybrid_ranking_missing_timestamp_has_zero_recency():
    assert HybridRanking().recency_of(Document("x"), NOW) == 0.0


def test_hybrid_ranking_future_timestamp_counts_as_now():
    assert HybridRanking().recency_of(Document("x", timestamp=NOW + 5 * HOUR), NOW) == 1.0


def test_hybrid_ranking_rank_literal_order():
    docs = [
        Document("old but relevant", score=0.9, source="a", timestamp=NOW - 96 * HOUR),
        Document("fresh and important", score=0.6, source="b", timestamp=NOW, importance=1.0),
        Document("undated", score=0.7, source="c"),
    ]
    # a: .45 + .25*.0625 + .125 = .590625 ; b: .3 + .25 + .25 = .8 ; c: .35 + 0 + .125 = .475
    assert [d.source for d in HybridRanking().rank(docs, NOW)] == ["b", "a", "c"]


def test_hybrid_ranking_rescore_keeps_input_and_original_relevance():
    docs = [Document("x", score=0.9, metadata={"k": 1}, timestamp=NOW)]
    out = HybridRanking().rescore(docs, NOW)
    assert docs[0].score == 0.9 and docs[0].metadata == {"k": 1}
    assert out[0].metadata["k"] == 1
    assert out[0].metadata["hybrid"]["relevance"] == 0.9
    assert out[0].score == pytest.approx(0.5 * 0.9 + 0.25 * 1.0 + 0.25 * 0.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"relevance": -1}, "HybridRanking.relevance must be >= 0"),
        ({"recency": float("inf")}, "HybridRanking.recency must be a finite number"),
        ({"importance": None}, "HybridRanking.importance must be a number"),
        ({"relevance": 0, "recency": 0, "importance": 0}, "weights are all 0"),
        ({"half_life_hours": 0}, "HybridRanking.half_life_hours must be > 0"),
        ({"half_life_hours": float("nan")}, "HybridRanking.half_life_hours must be a finite number"),
    ],
)
def test_hybrid_ranking_rejects_bad_weights(kwargs, match):
    with pytest.raises(ValueError, match=match):
        HybridRanking(**kwargs)


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        (Document("x", score=float("nan")), r"documents\[0\].score must be a finite number"),
        (Document("x", importance=float("inf")), r"documents\[0\].importance must be a finite number"),
        (Document("x", timestamp=float("nan")), r"documents\[0\].timestamp must be a finite number"),
        (Document(None), r"documents\[0\].content must be a string"),
    ],
)
def test_hybrid_ranking_rejects_bad_documents(doc, match):
    with pytest.raises(ValueError, match=match):
        HybridRanking().rescore([doc], NOW)


_doc_strategy = st.builds(
    Document,
    content=st.just("some words here"),
    score=st.floats(0, 1),
    timestamp=st.one_of(st.none(), st.floats(NOW - 500 * HOUR, NOW + HOUR)),
    importance=st.floats(0, 1),
)


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(_doc_strategy, max_size=10))
def test_hybrid_ranking_pure_relevance_weights_reproduce_relevance_order(docs):
    ranked = HybridRanking(relevance=1, recency=0, importance=0).rank(docs, NOW)
    expected = sorted(range(len(docs)), key=lambda i: docs[i].score, reverse=True)
    assert [d.score for d in ranked] == [docs[i].score for i in expected]
    assert [d.metadata["hybrid"]["relevance"] for d in ranked] == [docs[i].score for i in expected]


@pytest.mark.parametrize("documents", ["one text", Document("x")])
def test_hybrid_ranking_rejects_a_single_document_or_text(documents):
    with pytest.raises(InvalidInputError, match="documents must be a list of Document; got a single"):
        HybridRanking().rescore(documents, NOW)


def test_hybrid_ranking_rescore_accepts_none_and_any_sequence():
    docs = (Document("x", score=0.2), Document("y", score=0.9))
    assert HybridRanking().rescore(None, NOW) == []
    assert [d.content for d in HybridRanking().rank(iter(docs), NOW)] == ["y", "x"]


def test_hybrid_ranking_rejects_bad_clock():
    with pytest.raises(InvalidInputError, match="now must be a finite number"):
        HybridRanking().rescore([Document("x")], float("inf"))
