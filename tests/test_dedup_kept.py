"""The default measure's greedy pass looks candidates up among kept texts only, and keeps the
definition's answer: blocks, split blocks and crowded segments change the work, never the result."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextlab.stages.dedup import find_duplicates
from contextlab.stages.dedup.edit_measure import _filtered
from contextlab.stages.dedup.outcome import DedupOutcome
from contextlab.types import DuplicatePair
from tests.test_dedup import overlapping_chunks, prose_words
from tests.test_dedup_edit import brute_force
from tests.test_properties import edited_texts

RECORD = "short doc {} about refunds and billing item"  # 8 words: one differs, 0.875 apart


def _verified_pairs(monkeypatch) -> list[int]:
    """Count the pairs the pass measures (a list holding the running total)."""
    from contextlab.stages.dedup import verify

    seen = [0]
    batch, single = verify.Verifier.similarities, verify.Verifier.similarity

    def similarities(self, a, b):
        seen[0] += a.size
        return batch(self, a, b)

    def similarity(self, a, b):
        seen[0] += 1
        return single(self, a, b)

    monkeypatch.setattr(verify.Verifier, "similarities", similarities)
    monkeypatch.setattr(verify.Verifier, "similarity", similarity)
    return seen


def test_dedup_kept_templated_records_keep_the_first_and_drop_the_rest():
    texts = [RECORD.format(i) for i in range(50)]
    outcome = find_duplicates(texts, 0.85)
    assert outcome.kept == [0]
    assert outcome.pairs[:2] == [DuplicatePair(0, 1, 0.875, "near"), DuplicatePair(0, 2, 0.875, "near")]
    assert len(outcome.pairs) == 49


def test_dedup_kept_measures_only_pairs_of_a_new_text_and_a_kept_one(monkeypatch):
    seen = _verified_pairs(monkeypatch)
    outcome = find_duplicates([RECORD.format(i) for i in range(3000)], 0.85)
    assert outcome.kept == [0]
    assert seen[0] == 2999  # each record against the one kept text, never against another copy


def test_dedup_kept_identical_texts_are_exact_copies_of_the_first(monkeypatch):
    seen = _verified_pairs(monkeypatch)
    text = " ".join(prose_words()[:150])
    outcome = find_duplicates([text] * 5000, 0.85)
    assert outcome.kept == [0] and {p.kind for p in outcome.pairs} == {"exact"}
    assert seen[0] < 5000


@pytest.mark.parametrize("block_words, min_split", [(1 << 18, 32), (40, 2), (7, 1)])
def test_dedup_kept_blocks_and_splits_give_the_definitions_answer(monkeypatch, block_words, min_split):
    from contextlab.stages.dedup import kept_pass

    monkeypatch.setattr(kept_pass, "_BLOCK_WORDS", block_words)
    monkeypatch.setattr(kept_pass, "_MIN_SPLIT", min_split)
    monkeypatch.setattr(kept_pass, "_BUDGET_FLOOR", 2)  # tiny blocks split on a handful of matches
    texts = overlapping_chunks(prose_words(), size=30, stride=24, seed=3)[:90]
    texts += [RECORD.format(i) for i in range(20)] + [texts[5]] * 3
    for threshold in (0.8, 0.85, 0.95):
        expected = brute_force(texts, threshold)
        outcome = find_duplicates(texts, threshold)
        assert (outcome.kept, outcome.pairs) == expected
        assert any(p.kind == "near" for p in expected[1])


def test_dedup_kept_crowded_segments_are_credited_not_lost(monkeypatch):
    from contextlab.stages.dedup import segment_index

    monkeypatch.setattr(segment_index, "_CROWD", 1)  # any hash two segments share is crowded
    footer = "all requests go to the billing team and are answered within two working days"
    texts = [f"{t} {footer}" for t in overlapping_chunks(prose_words(), size=25, stride=20, seed=6)[:80]]
    added = []
    original = segment_index.SegmentIndex.add

    def add(self, keys):
        original(self, keys)
        added.append(int(self.extra.sum()))

    monkeypatch.setattr(segment_index.SegmentIndex, "add", add)
    for threshold in (0.8, 0.9):
        outcome = find_duplicates(texts, threshold)
        assert (outcome.kept, outcome.pairs) == brute_force(texts, threshold)
    assert max(added) > 0  # segments were left out and credited


@pytest.mark.parametrize("loops", ["numpy", "c"])
def test_dedup_kept_directory_searches_give_the_definitions_answer(monkeypatch, loops):
    from contextlab.stages.dedup import segment_index, word_hashing

    # Every index, however small, searched through a directory (of 256 buckets at least, so
    # buckets hold several keys and a crowded one many: the binary search inside them runs).
    monkeypatch.setattr(segment_index, "_DIRECTORY_FROM", 0)
    searched = []
    if loops == "numpy":
        monkeypatch.setattr(word_hashing, "KERNELS", None)
        original = segment_index._Directory.search

        def search(self, keys, values, side):
            searched.append(values.size)
            return original(self, keys, values, side)

        monkeypatch.setattr(segment_index._Directory, "search", search)
    else:
        if word_hashing.KERNELS is None:
            pytest.skip("the C loops are not built here (tests/test_dedup_kernels.py says why)")
        kernels = word_hashing.KERNELS

        class Counted:  # the C loops, counting the windows and values searched through a directory
            def __getattr__(self, name):
                return getattr(kernels, name)

            def join_slice(self, hashes, positions, lo, length, bitmap, shift, keys, directory, *rest):
                searched.append(hashes.size if directory is not None else 0)
                return kernels.join_slice(hashes, positions, lo, length, bitmap, shift, keys, directory, *rest)

            def search_keys(self, keys, begins, *rest):
                searched.append(rest[1].size if begins is not None else 0)
                return kernels.search_keys(keys, begins, *rest)

        monkeypatch.setattr(word_hashing, "KERNELS", Counted())
    footer = "all requests go to the billing team and are answered within two working days"
    texts = overlapping_chunks(prose_words(), size=30, stride=24, seed=3)[:90]
    texts += [f"{t} {footer}" for t in texts[:40]] + [RECORD.format(i) for i in range(40)] + [texts[5]] * 3
    for threshold in (0.8, 0.85, 0.95):
        outcome = find_duplicates(texts, threshold)
        assert (outcome.kept, outcome.pairs) == brute_force(texts, threshold)
    assert sum(searched) > 1000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edited_texts(max_size=50),
    st.sampled_from([0.75, 0.8, 0.85, 0.9, 0.95]),
    st.sampled_from([(1 << 18, 32), (25, 2), (5, 1)]),
    st.sampled_from([1 << 16, 0]),
)
def test_dedup_kept_property_tiny_blocks_equal_brute_force(raw, threshold, blocks, directory_from):
    from contextlab.stages.dedup import kept_pass, segment_index

    saved = kept_pass._BLOCK_WORDS, kept_pass._MIN_SPLIT, kept_pass._BUDGET_FLOOR, segment_index._DIRECTORY_FROM
    kept_pass._BLOCK_WORDS, kept_pass._MIN_SPLIT, kept_pass._BUDGET_FLOOR = (*blocks, 2)
    segment_index._DIRECTORY_FROM = directory_from  # 0: every index searched through a directory
    try:
        filtered = DedupOutcome()
        _filtered(raw, threshold, filtered)
    finally:
        kept_pass._BLOCK_WORDS, kept_pass._MIN_SPLIT, kept_pass._BUDGET_FLOOR, segment_index._DIRECTORY_FROM = saved
    assert (filtered.kept, filtered.pairs) == brute_force(raw, threshold)


def test_dedup_kept_low_threshold_scan_compares_with_kept_texts_only(monkeypatch):
    from rapidfuzz import process

    from contextlab.stages.dedup import edit_measure

    cells = [0]
    cdist = process.cdist

    def counted(a, b, **kwargs):
        cells[0] += len(a) * len(b)
        return cdist(a, b, **kwargs)

    monkeypatch.setattr(process, "cdist", counted)
    monkeypatch.setattr(edit_measure, "_SCAN_ROWS", 100)
    outcome = find_duplicates([RECORD.format(i) for i in range(1000)], 0.6)
    assert outcome.kept == [0]
    # Ten blocks of 100 rows, each against the one kept text and against itself.
    assert cells[0] == 9 * 100 * 1 + 10 * 100 * 100


def test_dedup_kept_sixty_thousand_templated_records_take_seconds_not_minutes():
    """A generous bound for a loaded machine: quadratic work took 59 s for 8,000 records."""
    twenty = "order {} for the customer account was billed on the first day of the month and paid in full today"
    for template in (RECORD, twenty):
        texts = [template.format(i) for i in range(60_000)]
        started = time.perf_counter()
        outcome = find_duplicates(texts, 0.85)
        assert time.perf_counter() - started < 30
        assert outcome.kept == [0] and len(outcome.pairs) == 59_999


@pytest.mark.slow
def test_dedup_kept_cli_builds_sixty_thousand_records_past_the_document_limit(tmp_path):
    """What the 50,000-document limit's message recommends (--max-documents) finishes."""
    path = tmp_path / "records.jsonl"
    path.write_text(
        "".join(json.dumps({"content": RECORD.format(i), "score": 0.5}) + "\n" for i in range(60_000)), encoding="utf-8"
    )
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "build", str(path), "--max-documents", "100000", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert time.perf_counter() - started < 60
    result = json.loads(proc.stdout)
    assert result["duplicates_removed"] == 59_999
    assert np.unique([p["kept_index"] for p in result["duplicate_pairs"]]).tolist() == [0]


def test_dedup_kept_exact_groups_survive_a_sequence_hash_collision():
    from contextlab.stages.dedup.edit_measure import WordCodes, _exact_groups
    from contextlab.stages.dedup.word_runs import hash_words

    texts = ["a b c", "x y", "A  b C", "x y", "a b d", ""]
    wh = hash_words(texts)
    assert _exact_groups(texts, wh, WordCodes(texts)).tolist() == [0, 1, 0, 1, 4, 5]
    wh.sequences[:] = 7  # every text's sequence hash the same: words decide
    assert _exact_groups(texts, wh, WordCodes(texts)).tolist() == [0, 1, 0, 1, 4, 5]
