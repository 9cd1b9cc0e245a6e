"""The store ranks by BM25 and its [0, 1] score follows that order (issue 18, point 5)."""

from __future__ import annotations

import re
import sqlite3
from importlib.resources import files

import pytest

from contextlab.evaluation.sets import BundledCorpus, load_bundled_set
from contextlab.loaders import load_file
from contextlab.retrieval import STOPWORDS, SQLiteBackend

_DEPTH = 10
# The store indexes "Sarah's" as "sarah" (contextlab.retrieval.terms): the reference drops the
# same clitics so both count the same document lengths.
_CLITIC = re.compile(r"['\u2019\u02bc](?:s|m|re|ve|ll|d)\b", re.IGNORECASE)


def test_sqlite_backend_ranks_the_bundled_samples_by_bm25_not_by_capped_coverage():
    # Capped coverage put delete-workspace.md first and the refund pages behind it; FTS5's
    # bm25() over these samples puts the two refund pages first.
    store = SQLiteBackend()
    for name in ("support_faq.json", "eng_postmortems.json", "clinical_abstracts.json"):
        path = files("contextlab") / "data" / "sample_data" / name
        store.index(load_file(str(path)), origin=name)
    hits = store.retrieve("refund policy", top_k=10)
    assert [h.source for h in hits[:3]] == [
        "help-center/archive/2024/refunds.md",
        "support/macros/refund-annual-request.md",
        "help-center/account/delete-workspace.md",
    ]
    bm25 = [h.metadata["bm25"] for h in hits]
    assert bm25 == sorted(bm25, reverse=True)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < s < 1.0 for s in scores)
    assert scores[0] > scores[1]


def _independent_ranks(titles_texts: list[tuple[str, str]], queries: list[str]) -> list[list[float]]:
    """Return, per query, every passage's -bm25() from a plain FTS5 table over the same text."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE p USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')")
    conn.executemany(
        "INSERT INTO p (rowid, body) VALUES (?, ?)",
        [(i, _CLITIC.sub("", f"{t}\n{x}")) for i, (t, x) in enumerate(titles_texts)],
    )
    out = []
    for q in queries:
        words = [w for w in dict.fromkeys(re.findall(r"[^\W_]+", q.lower())) if w not in STOPWORDS]
        scores = [0.0] * len(titles_texts)
        if words:
            match = " OR ".join(f'"{w}"' for w in words)
            for rowid, s in conn.execute("SELECT rowid, -bm25(p) FROM p WHERE p MATCH ?", (match,)):
                scores[rowid] = s
        out.append(scores)
    return out


@pytest.mark.slow
def test_bundled_set_gold_rank_matches_an_independent_fts5_bm25():
    evalset = load_bundled_set()
    corpus = BundledCorpus()
    from contextlab.evaluation.sets import _bundled_index, bundled_set_path

    _, passages = _bundled_index(str(bundled_set_path()))
    ids = list(passages)
    # Questions whose words carry no apostrophe, so both sides split them into the same words.
    questions = [q for q in evalset.questions if "'" not in q.query and "\u2019" not in q.query]
    assert len(questions) > 2000
    reference = _independent_ranks([passages[i] for i in ids], [q.query for q in questions])
    compared = mismatched = 0
    for q, scores in zip(questions, reference, strict=False):
        [gold] = q.gold_ids
        gold_score = scores[ids.index(gold)]
        if gold_score == 0.0:
            continue
        above = sum(s > gold_score * (1 + 1e-9) for s in scores)
        tied = sum(abs(s - gold_score) <= gold_score * 1e-9 for s in scores)
        if above >= _DEPTH:
            continue
        got = [d.metadata["id"] for d in corpus.retrieve(q.query, _DEPTH + tied)]
        rank = got.index(gold) if gold in got else None
        compared += 1
        if rank is None or not above <= rank < above + tied:
            mismatched += 1
    assert compared > 1500
    assert mismatched == 0
