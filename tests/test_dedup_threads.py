"""Dedup's C loops split their work across cores (``contextlab/stages/dedup/cores.py``); the
answer must not depend on how many: the same word hashes, the same candidate pairs, the same
kept texts and pairs, with one thread or several, every split forced down to the smallest
inputs. A forked child gets a pool of its own (a pool's threads do not survive a fork).
"""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextlab.stages.dedup import (
    cores,
    find_duplicates,
    kept_pass,
    parallel_join,
    segment_index,
    verify,
    word_hashing,
    word_runs,
)
from contextlab.stages.dedup.segment_index import candidate_pairs
from tests.test_dedup import overlapping_chunks, prose_words
from tests.test_properties import edited_texts

pytestmark = pytest.mark.skipif(word_hashing.KERNELS is None, reason="only the C loops run on several threads")


@pytest.fixture
def split_everything(monkeypatch):
    """Split every call that can be split, however small (a batch a text, a window a thread)."""
    monkeypatch.setattr(word_hashing, "_BATCH_CHARS", 64)
    monkeypatch.setattr(word_runs, "_MIN_BATCHES_A_RUN", 1)
    monkeypatch.setattr(word_runs, "_MIN_WINDOWS_A_PART", 1)
    monkeypatch.setattr(parallel_join, "_MIN_WINDOWS_A_PART", 1)
    monkeypatch.setattr(verify, "_PAIRS_A_THREAD", 1)

    def on(threads: int, run):
        monkeypatch.setattr(cores, "THREADS", threads)
        return run()

    return on


def _corpus() -> list[str]:
    footer = "all requests go to the billing team and are answered within two working days"
    texts = overlapping_chunks(prose_words(), size=30, stride=24, seed=7)[:250]
    texts += [f"{t} {footer}" for t in texts[:60]] + [f"record {i} about refunds and billing" for i in range(150)]
    return (
        texts
        + ["Ünïcödé text, with an İ", "ünïcödé TEXT, with an i̇", "\U0001f600 astral words \U0001f600"]
        + texts[:25]
    )


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_dedup_threads_hash_the_same_words(split_everything, threads):
    texts = [t.lower() for t in _corpus()] + ["", " ", "x"]
    one = split_everything(1, lambda: word_runs.hash_words(texts))
    many = split_everything(threads, lambda: word_runs.hash_words(texts))
    assert np.array_equal(one.words, many.words) and np.array_equal(one.counts, many.counts)
    assert np.array_equal(one.sequences, many.sequences)
    windows = [split_everything(t, lambda: one.window_hashes(5, one.size - 4, 4)) for t in (1, threads)]
    assert np.array_equal(*windows)


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("threshold", [0.76, 0.85, 0.95])
def test_dedup_threads_find_the_same_duplicates(split_everything, threads, threshold):
    texts = _corpus()
    one = split_everything(1, lambda: find_duplicates(texts, threshold))
    many = split_everything(threads, lambda: find_duplicates(texts, threshold))
    assert (one.kept, one.pairs) == (many.kept, many.pairs)
    assert len(one.pairs) > 25


def test_dedup_threads_block_splits_and_limits_change_nothing(split_everything, monkeypatch):
    # Small blocks that split (the join's limit is passed part by part), a directory always.
    monkeypatch.setattr(kept_pass, "_BLOCK_WORDS", 25)
    monkeypatch.setattr(kept_pass, "_MIN_SPLIT", 2)
    monkeypatch.setattr(kept_pass, "_BUDGET_FLOOR", 2)
    monkeypatch.setattr(segment_index, "_DIRECTORY_FROM", 0)
    texts = _corpus() + [f"order {i} for the account was billed on the first day" for i in range(120)]
    one = split_everything(1, lambda: find_duplicates(texts, 0.85))
    many = split_everything(2, lambda: find_duplicates(texts, 0.85))
    assert (one.kept, one.pairs) == (many.kept, many.pairs)
    wh = word_runs.hash_words([t.lower() for t in texts])
    pairs = [split_everything(t, lambda: candidate_pairs(wh, 0.85)) for t in (1, 2)]
    assert np.array_equal(*pairs) and pairs[0].size > 100


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(edited_texts(max_size=60), st.sampled_from([0.75, 0.85, 0.95]))
def test_dedup_threads_property_same_answer(split_everything, raw, threshold):
    from contextlab.stages.dedup.edit_measure import _filtered
    from contextlab.stages.dedup.outcome import DedupOutcome

    answers = []
    for threads in (1, 2):
        outcome = DedupOutcome()
        split_everything(threads, lambda: _filtered(raw, threshold, outcome))  # the filtered pass always
        answers.append((outcome.kept, outcome.pairs))
    assert answers[0] == answers[1]


def _in_child(queue) -> None:
    outcome = find_duplicates(_corpus(), 0.85)
    queue.put((len(outcome.kept), len(outcome.pairs), os.getpid()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_dedup_threads_a_forked_child_makes_its_own_pool(split_everything):
    expected = split_everything(2, lambda: find_duplicates(_corpus(), 0.85))
    assert cores.pool() is cores.pool()  # made here, in the parent, and kept
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_in_child, args=(queue,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("find_duplicates in a forked child did not finish in 60 s: it waited on the parent's pool")
    kept, pairs, pid = queue.get(timeout=5)
    assert (kept, pairs) == (len(expected.kept), len(expected.pairs)) and pid != os.getpid()
