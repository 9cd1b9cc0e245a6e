"""Verification: words numbered by hash once (equal exactly when the hashes are equal), pairs
measured exactly, long ones within a quarter of their bound first."""

from __future__ import annotations

import numpy as np

from contextlab.stages.dedup.verify import Verifier, _Vocabulary
from contextlab.stages.dedup.word_runs import hash_words


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
