"""Verification: pairs measured exactly up to their bound, by the C loop on the word hashes
(Ukkonen's diagonals) or by rapidfuzz on words numbered by hash once (equal exactly when the
hashes are equal), long ones within a quarter of their bound first."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from contextlab.stages.dedup import verify, word_hashing
from contextlab.stages.dedup.verify import Verifier, _Vocabulary
from contextlab.stages.dedup.word_runs import hash_words

LOOPS = word_hashing.KERNELS
needs_loops = pytest.mark.skipif(LOOPS is None, reason="the C loops are not built here")


def _edited_pairs(count: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """Pairs of word sequences, the second an edit of the first: short and long, few words and
    many (a two-word alphabet repeats itself everywhere), empty ones too."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        n, alphabet = rng.choice([0, 1, 2, 3, 5, 8, 20, 60, 200, 700]), rng.choice([2, 3, 10, 1000])
        a = [rng.randrange(alphabet) for _ in range(n)]
        b = list(a)
        for _ in range(rng.randrange(0, n // 3 + 2)):
            at, op = rng.randrange(len(b) + 1), rng.random()
            if op < 0.33 and at < len(b):
                b[at] = rng.randrange(alphabet)
            elif op < 0.66:
                b.insert(at, rng.randrange(alphabet))
            elif at < len(b):
                del b[at]
        pairs.append((b, a) if rng.random() < 0.5 else (a, b))
    return pairs


def _bounded(pairs, bounds, factor=16):
    """Run the C loop on ``pairs`` of word sequences laid end to end."""
    words, first, second, at = [], [], [], 0
    for a, b in pairs:
        first.append(at)
        second.append(at + len(a))
        words += a + b
        at += len(a) + len(b)
    out = np.empty(len(pairs), dtype=np.int64)
    ints = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    LOOPS.bounded_distances(
        np.array(words, dtype=np.uint64),
        ints(first),
        ints(second),
        ints([len(a) for a, _ in pairs]),
        ints([len(b) for _, b in pairs]),
        ints(bounds),
        out,
        0,
        len(pairs),
        factor,
    )
    return out


@needs_loops
def test_dedup_verify_diagonals_give_the_distance_up_to_the_bound_and_bound_plus_one_past_it():
    pairs = _edited_pairs(6000, seed=1)
    rng = random.Random(2)
    bounds = [rng.randrange(0, max(len(a), len(b)) + 3) for a, b in pairs]
    out = _bounded(pairs, bounds)
    true = [Levenshtein.distance(a, b) for a, b in pairs]
    assert out.tolist() == [d if d <= k else k + 1 for d, k in zip(true, bounds, strict=False)]
    words = np.array([x for a, b in pairs[:600] for x in a + b], dtype=np.uint64)
    at, one = 0, []
    for (a, b), k in zip(pairs[:600], bounds, strict=False):  # the one-pair call gives the same
        one.append(LOOPS.bounded_distance(words, at, len(a), at + len(a), len(b), k, 16))
        at += len(a) + len(b)
    assert one == out[:600].tolist()
    # Shared ends cost nothing, and a length difference past the bound is decided at once.
    assert _bounded([([1, 2, 3], [1, 2, 3]), ([1] * 50, [1] * 10), ([], [4, 5])], [0, 3, 2]).tolist() == [0, 4, 2]


@needs_loops
def test_dedup_verify_a_pair_past_the_loops_budget_is_handed_back_and_measured_by_rapidfuzz(monkeypatch):
    pairs = [(a, b) for a, b in _edited_pairs(400, seed=3) if a or b]  # a text with words
    bounds = [max(len(a), len(b)) for a, b in pairs]
    out = _bounded(pairs, bounds, factor=0)  # a budget of 0: only a pair settled by its ends
    assert (out == -1).sum() > len(pairs) // 4
    assert all(d == Levenshtein.distance(a, b) for (a, b), d in zip(pairs, out.tolist(), strict=False) if d >= 0)
    texts = [" ".join(f"w{x}" for x in a) for pair in pairs for a in pair]
    wh = hash_words(texts)
    a, b = np.arange(0, len(texts), 2), np.arange(1, len(texts), 2)
    expected = Verifier(wh, 0.6).similarities(a, b)
    monkeypatch.setattr(verify, "_BUDGET_FACTOR", 0)  # every pair not settled by its ends goes to rapidfuzz
    handed_back = Verifier(wh, 0.6)
    got = handed_back.similarities(a, b)
    assert handed_back._texts  # rapidfuzz measured some
    keep = expected >= 0.6
    assert np.array_equal(got >= 0.6, keep) and np.array_equal(got[keep], expected[keep])
    one = np.array([Verifier(wh, 0.6).similarity(int(x), int(y)) for x, y in zip(a, b, strict=False)])  # a pair a call
    assert np.array_equal(one >= 0.6, keep) and np.array_equal(one[keep], expected[keep])


@needs_loops
def test_dedup_verify_bounded_distances_refuse_pairs_outside_the_words():
    words, one = np.zeros(4, dtype=np.uint64), np.ones(1, dtype=np.int64)
    with pytest.raises(ValueError, match="outside the words"):
        LOOPS.bounded_distances(words, one * 3, one, one * 2, one, one, np.empty(1, dtype=np.int64), 0, 1, 16)
    with pytest.raises(ValueError, match="inconsistent"):
        LOOPS.bounded_distances(words, one, one, one, one, one, np.empty(1, dtype=np.int64), 0, 2, 16)
    with pytest.raises(ValueError, match="outside the words"):
        LOOPS.bounded_distance(words, 3, 2, 0, 1, 1, 16)


def test_dedup_verify_vocabulary_numbers_equal_hashes_alike_and_slot_sharers_apart():
    vocabulary = _Vocabulary()
    # 5 and 7 share their top bits (one table slot), as do the two large values.
    words = np.array([5, 7, 5, 2**63 + 1, 2**63 + 2, 7, 2**63 + 1, 0], dtype=np.uint64)
    # New words are numbered after the words seen before, in order of hash.
    assert vocabulary.number(words).tolist() == [1, 2, 1, 3, 4, 2, 3, 0]
    assert vocabulary.number(np.array([2**63 + 2, 9, 5], dtype=np.uint64)).tolist() == [4, 5, 1]


def test_dedup_verify_vocabulary_keeps_its_numbers_as_it_grows():
    rng = np.random.default_rng(7)
    distinct = rng.integers(0, 2**63, 100_000, dtype=np.int64).astype(np.uint64)
    vocabulary = _Vocabulary()
    first = vocabulary.number(distinct[:1000])
    assert sorted(first.tolist()) == list(range(1000))
    drawn = rng.integers(0, 100_000, 300_000)
    numbers = vocabulary.number(distinct[drawn])  # the table grows past 2**16 slots on the way
    again = vocabulary.number(distinct)
    assert vocabulary.number(distinct[:1000]).tolist() == first.tolist() == again[:1000].tolist()
    assert len(set(again.tolist())) == 100_000 == vocabulary.size
    assert numbers.tolist() == again[drawn].tolist()


def test_dedup_verify_long_near_copies_are_measured_exactly():
    base = [f"w{i % 997}" for i in range(2000)]
    copy = list(base)
    for k in range(0, 2000, 50):  # 40 words replaced: far inside a quarter of the bound (300)
        copy[k] = "other"
    far = list(base[::-1])
    wh = hash_words([" ".join(base), " ".join(copy), " ".join(far)])
    verifier = Verifier(wh, 0.85)
    sims = verifier.similarities(np.array([1, 2]), np.array([0, 0]))
    assert sims[0] == 1 - 40 / 2000 and sims[1] < 0.85
    assert verifier.similarity(1, 0) == 1 - 40 / 2000
