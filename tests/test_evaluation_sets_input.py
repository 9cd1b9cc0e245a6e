"""Evaluation-set input: compressed files are bounded by what they inflate to (issue 18, point 4)
and gold that names no document is said (point 11)."""

from __future__ import annotations

import gzip
import json
import time
import tracemalloc
from pathlib import Path

import pytest

from contextlab.errors import LoadError
from contextlab.evaluation.sets import load_eval_bytes, load_eval_set

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
    assert str(error) == ("bomb.jsonl.gz: decompresses to more than 5,000,000 bytes, over the "
                          "5,000,000-byte limit (reading stopped there); split it or raise the "
                          "limit (max_bytes=N)")
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
    path.write_text(json.dumps({"query": "q", "answers": ["a"], "documents": ["a " * 600]}) + "\n",
                    encoding="utf-8")
    with pytest.raises(LoadError, match=r"^big\.jsonl is 1,2\d\d bytes, over the 1,000-byte limit"):
        load_eval_set(path, max_bytes=1_000)


def test_load_eval_bytes_within_the_limit_still_reads_gzip():
    line = json.dumps({"query": "refund window", "answers": ["30 days"],
                       "documents": ["Refunds within 30 days."]}) + "\n"
    assert len(load_eval_bytes(gzip.compress(line.encode()), "ok.jsonl.gz", max_bytes=1_000)) == 1
