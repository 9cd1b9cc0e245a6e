"""A long query keeps its most informative words and says how many it left out (issue 18, point 6)."""

from __future__ import annotations

from contextlab.retrieval import SQLiteBackend, score_unscored
from contextlab.types import Document

# 70 distinct words no document holds, then the one word that matters.
_FILLER = " ".join(f"zz{i}q" for i in range(70))


def _store() -> SQLiteBackend:
    store = SQLiteBackend()
    store.add(
        [
            Document("Refunds are paid to the original card within five days.", source="refund.md"),
            Document("Shipping is free over fifty dollars.", source="shipping.md"),
            Document("Shipping to islands takes longer.", source="islands.md"),
        ]
    )
    return store


def test_search_finds_a_word_after_the_64th():
    outcome = _store().search(f"{_FILLER} refunds", top_k=5)
    assert [h.source for h in outcome.results] == ["refund.md"]
    assert outcome.searched == ("refunds",)
    assert outcome.left_out == 70
    assert outcome.note == (
        "the query has 71 search words; the 1 most informative (held by the "
        "fewest stored documents) were searched, 70 left out"
    )


def test_search_keeps_the_rarest_words_when_more_than_64_are_found():
    # 80 words every document holds, then "islands", which one holds: the rare word is kept.
    common = [f"w{i}x" for i in range(80)]
    store = SQLiteBackend()
    store.add(
        [Document(" ".join(common) + extra, source=name) for name, extra in (("a", ""), ("b", " islands"), ("c", ""))]
    )
    outcome = store.search(" ".join(common) + " islands", top_k=3)
    assert "islands" in outcome.searched and len(outcome.searched) == 64
    assert outcome.left_out == 17
    assert outcome.results[0].source == "b"


def test_search_with_few_words_leaves_none_out():
    outcome = _store().search("shipping islands", top_k=5)
    assert outcome.searched == ("shipping", "islands") and outcome.left_out == 0
    assert outcome.note is None
    assert [h.source for h in outcome.results] == ["islands.md", "shipping.md"]


def test_score_unscored_scores_a_word_after_the_64th_and_says_what_was_left_out():
    docs = [
        Document("Refunds are paid within five days.", metadata={"score_missing": True}),
        Document("Shipping is free.", metadata={"score_missing": True}),
    ]
    outcome = score_unscored(docs, f"{_FILLER} refunds")
    assert outcome.documents[0].score > 0.0 and outcome.documents[1].score == 0.0
    assert outcome.note == (
        "2 document(s) had no score and were scored against the query (BM25, "
        "0-1); the query has 71 search words; the 1 most informative (held by "
        "the fewest stored documents) were searched, 70 left out"
    )


def test_a_ten_thousand_word_query_is_searched_in_bounded_words():
    query = " ".join(f"word{i}" for i in range(10_000)) + " refunds"
    outcome = _store().search(query, top_k=5)
    assert [h.source for h in outcome.results] == ["refund.md"]
    assert outcome.left_out == 10_000


def test_cli_search_says_what_it_left_out(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "kb.jsonl").write_text(
        json.dumps({"text": "Refunds take five days.", "source": "r.md"}) + "\n", encoding="utf-8"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    run = [sys.executable, "-m", "contextlab.cli"]
    assert subprocess.run([*run, "index", "kb.db", "kb.jsonl"], cwd=tmp_path, env=env).returncode == 0
    proc = subprocess.run(
        [*run, "search", "kb.db", f"{_FILLER} refunds"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.stdout.splitlines()[0].endswith("r.md  Refunds take five days.")
    assert proc.stderr == (
        "contextlab: note: the query has 71 search words; the 1 most informative "
        "(held by the fewest stored documents) were searched, 70 left out\n"
    )
