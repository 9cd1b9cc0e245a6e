"""Evaluation-set input: compressed files are bounded by what they inflate to (issue 18, point 4)
and gold that names no document is said (point 11)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from contextlab.errors import LoadError
from contextlab.evaluation.sets import load_eval_bytes, load_eval_set, parse_eval_records
from contextlab.retrieval import SQLiteBackend
from contextlab.types import Document

ROOT = Path(__file__).resolve().parents[1]
# About 100 KB of gzip that inflates to 100 MB of blank lines (a "zip bomb" of an eval set).
_BOMB_SIZE = 100_000_000


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip.compress(b"\n" * _BOMB_SIZE, compresslevel=9)


def _bounded(call) -> tuple[LoadError, float, int]:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(LoadError) as caught:
            call()
        return caught.value, time.perf_counter() - started, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_load_eval_bytes_stops_inflating_at_the_byte_limit(bomb: bytes):
    assert len(bomb) < 200_000
    error, seconds, peak = _bounded(lambda: load_eval_bytes(bomb, "bomb.jsonl.gz", max_bytes=5_000_000))
    assert str(error) == (
        "bomb.jsonl.gz: decompresses to more than 5,000,000 bytes, over the "
        "5,000,000-byte limit (reading stopped there); split it or raise the "
        "limit (max_bytes=N)"
    )
    assert error.field == "max_bytes"
    assert peak < 40_000_000 and seconds < 5


def test_load_eval_set_file_stops_inflating_at_the_default_limit(bomb: bytes, tmp_path: Path):
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(bomb)
    error, _, peak = _bounded(lambda: load_eval_set(path))
    assert str(error).startswith("bomb.jsonl.gz: decompresses to more than 20,000,000 bytes")
    assert peak < 100_000_000


def test_load_eval_set_plain_file_over_the_limit_is_refused(tmp_path: Path):
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"query": "q", "answers": ["a"], "documents": ["a " * 600]}) + "\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"^big\.jsonl is 1,2\d\d bytes, over the 1,000-byte limit"):
        load_eval_set(path, max_bytes=1_000)


def test_load_eval_bytes_within_the_limit_still_reads_gzip():
    line = (
        json.dumps({"query": "refund window", "answers": ["30 days"], "documents": ["Refunds within 30 days."]}) + "\n"
    )
    assert len(load_eval_bytes(gzip.compress(line.encode()), "ok.jsonl.gz", max_bytes=1_000)) == 1


# -- gold that names no document (point 11) --------------------------------------------------


def _line(query: str, gold: list[str], docs: list[dict]) -> dict:
    return {"query": query, "gold_sources": gold, "documents": docs}


def test_parse_eval_records_names_the_questions_whose_gold_matches_nothing():
    docs = [
        {"text": "Refunds take five days.", "source": "refunds.md"},
        {"text": "Shipping is free.", "source": "shipping.md"},
    ]
    records = [
        _line("refund time", ["refunds.md"], docs) | {"id": "q1"},
        _line("shipping cost", ["shiping.md"], docs) | {"id": "q2"},
        _line("returns", ["returns.md"], docs) | {"id": "q3"},
    ]
    evalset = parse_eval_records(records, name="set.jsonl")
    assert evalset.notes == [
        "set.jsonl: 2 of 3 questions name gold that matches none of their documents (q2, q3), so "
        'their gold cannot reach the block; check "gold_sources" against the documents\' '
        "sources or ids"
    ]
    assert evalset.limited(2).notes == evalset.notes


def test_parse_eval_records_fails_when_no_question_s_gold_matches():
    docs = [{"text": "Refunds take five days.", "source": "refunds.md"}]
    with pytest.raises(
        LoadError,
        match=r"^set\.jsonl: no question's gold matches any of its "
        r"documents \(first: q1\)",
    ):
        parse_eval_records([_line("refund time", ["Refunds.md"], docs) | {"id": "q1"}], name="set.jsonl")


def test_parse_eval_records_checks_gold_against_the_store(tmp_path: Path):
    store = SQLiteBackend(tmp_path / "kb.db")
    store.add(
        [
            Document("Refunds take five days.", source="refunds.md"),
            Document("Shipping is free.", metadata={"id": "ship-1"}),
        ]
    )
    store.close()
    records = [
        {"id": "a", "query": "refunds", "gold_sources": ["refunds.md"]},
        {"id": "b", "query": "shipping", "gold_sources": ["ship-1"]},
        {"id": "c", "query": "returns", "gold_sources": ["returns.md"]},
    ]
    evalset = parse_eval_records(records, name="s.jsonl", store=tmp_path / "kb.db")
    assert evalset.notes == [
        "s.jsonl: 1 of 3 questions name gold that matches nothing in the store (c), so their "
        'gold cannot reach the block; check "gold_sources" against the documents\' sources '
        "or ids"
    ]


def test_parse_eval_records_with_matching_gold_has_no_notes():
    docs = [{"text": "Refunds take five days.", "source": "refunds.md"}]
    assert parse_eval_records([_line("refunds", ["refunds.md"], docs)], name="s").notes == []


# -- the command line ----------------------------------------------------------------------


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "contextlab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_cli_eval_says_which_questions_gold_matches_nothing(tmp_path: Path):
    docs = [{"text": "Refunds take five days.", "source": "refunds.md"}]
    lines = [
        _line("refund time", ["refunds.md"], docs) | {"id": "q1"},
        _line("returns", ["returns.md"], docs) | {"id": "q2"},
    ]
    (tmp_path / "set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    proc = _cli("eval", "set.jsonl", "--out", "r.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "contextlab: note: set.jsonl: 1 of 2 questions name gold that matches none of their "
        'documents (q2), so their gold cannot reach the block; check "gold_sources" against the '
        "documents' sources or ids"
    )


def test_cli_eval_of_a_gzip_bomb_names_the_flag(tmp_path: Path, bomb: bytes):
    (tmp_path / "bomb.jsonl.gz").write_bytes(bomb)
    proc = _cli("eval", "bomb.jsonl.gz", "--out", "r.csv", "--max-bytes", "1000000", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == (
        "contextlab: error: bomb.jsonl.gz: decompresses to more than 1,000,000 bytes, "
        "over the 1,000,000-byte limit (reading stopped there); split it or raise the "
        "limit (--max-bytes N)\n"
    )
