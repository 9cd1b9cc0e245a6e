"""The bundled NaturalQuestions-Open set: 300 questions, two budgets, checked against an independent BM25."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from contextlab.evaluation import METRIC_COLUMNS, load_bundled_set
from contextlab.evaluation.sets import _bundled_passages, bundled_set_path

pytestmark = pytest.mark.slow

_WORD = re.compile(r"[^\W_]+")
# Function words carry no topic; the short list any BM25 walkthrough drops.
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "he",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "to",
        "was",
        "were",
        "will",
        "with",
        "who",
        "what",
        "when",
        "where",
        "which",
        "how",
        "did",
        "does",
        "do",
    ]
)


def _terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


class OkapiBM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) in pure Python, scored exhaustively: no SQLite, no stemming."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(_terms(t)) for t in texts]
        self.lengths = [sum(c.values()) for c in self.docs]
        self.avg = sum(self.lengths) / len(self.docs)
        df = Counter(w for c in self.docs for w in c)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.postings: dict[str, list[int]] = {}
        for i, c in enumerate(self.docs):
            for w in c:
                self.postings.setdefault(w, []).append(i)

    def top(self, query: str, k: int) -> list[int]:
        """Return the indices of the ``k`` best texts for ``query``, best first."""
        scores: dict[int, float] = {}
        for w in set(_terms(query)):
            for i in self.postings.get(w, ()):
                tf = self.docs[i][w]
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] = scores.get(i, 0.0) + self.idf[w] * tf * (self.k1 + 1) / norm
        return sorted(scores, key=lambda i: (-scores[i], i))[:k]


@pytest.fixture
def run300(bundled_run300):
    """The suite's one 300-question run (tests/conftest.py), shared with the CLI's acceptance test."""
    return bundled_run300


def test_bundled_set_has_every_question_and_passage():
    evalset = load_bundled_set()
    gold, passages = _bundled_passages(str(bundled_set_path()))
    assert len(evalset) == 2655 and len(gold) == 2655
    assert len(passages) == 2600  # 49 passages answer more than one question
    assert all(q.answers and len(q.gold_ids) == 1 for q in evalset.questions)


def test_bundled_retrieval_shows_titles_as_sources():
    evalset = load_bundled_set()
    docs = evalset.retriever.retrieve(evalset.questions[0].query, 20)
    assert len(docs) == 20 and all(d.source and d.metadata["id"].startswith("nq-p") for d in docs)
    assert [d.score for d in docs] == sorted((d.score for d in docs), reverse=True)
    assert not docs[0].content.startswith(docs[0].source + "\n")  # the title is the source, not the text


def test_bundled_eval_writes_600_rows_with_the_issue_columns(run300):
    assert len(run300.rows) == 600
    assert run300.columns == ["config", "query_id", "query", "max_context_tokens", *METRIC_COLUMNS]
    assert {r.config for r in run300.rows} == {"max_context_tokens=256", "max_context_tokens=1024"}
    assert all(r.metrics.tokens_used <= r.settings["max_context_tokens"] for r in run300.rows)


def test_bundled_larger_budget_never_lowers_gold_in_block(run300):
    by = {(r.query_id, r.settings["max_context_tokens"]): r for r in run300.rows}
    for qid in {r.query_id for r in run300.rows}:
        assert by[(qid, 1024)].metrics.gold_in_block >= by[(qid, 256)].metrics.gold_in_block, qid
    small, large = run300.summaries()
    assert large["gold_in_block"] > small["gold_in_block"]


def test_bundled_gold_retrieved_rate_matches_an_independent_bm25(run300):
    path = str(bundled_set_path())
    gold, passages = _bundled_passages(path)
    ids = list(passages)
    bm25 = OkapiBM25([f"{title}\n{text}" for title, text in passages.values()])
    questions = load_bundled_set().questions[:300]
    independent = sum(gold[i] in {ids[j] for j in bm25.top(q.query, 20)} for i, q in enumerate(questions)) / 300
    ours = sum(r.metrics.gold_retrieved for r in run300.rows if r.settings["max_context_tokens"] == 256) / 300
    assert abs(ours - independent) <= 0.04, (ours, independent)
    assert ours > 0.85


def test_bundled_expected_accuracy_is_closed_book_exactly_when_gold_is_out(run300):
    closed = 56.1  # GPT-3.5-Turbo closed-book, Liu et al. (2024) table
    for r in run300.rows:
        if not r.metrics.gold_in_block:
            assert r.metrics.expected_accuracy == closed and r.metrics.gold_position is None
        else:
            assert 1 <= r.metrics.gold_position <= r.metrics.in_block
