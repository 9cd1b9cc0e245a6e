"""dense_numbers: one number per distinct 64-bit value, also when values share a table slot."""

from __future__ import annotations

import numpy as np

from contextlab.stages.dedup.word_hashing import dense_numbers


def test_equal_values_get_equal_numbers_and_slot_sharers_differ():
    # 5 and 7 share their top bits (one table slot), as do the two large values.
    values = np.array([5, 7, 5, 2**63 + 1, 2**63 + 2, 7, 2**63 + 1, 0], dtype=np.uint64)
    number, seen = dense_numbers(values)
    assert sorted(set(number.tolist())) == [0, 1, 2, 3, 4]
    same = [[int(number[i] == number[j]) for j in range(8)] for i in range(8)]
    assert same == [[int(values[i] == values[j]) for j in range(8)] for i in range(8)]
    assert sorted(seen.tolist()) == [1, 1, 2, 2, 2]


def test_many_values_match_a_sort():
    rng = np.random.default_rng(7)
    vocabulary = rng.integers(0, 2**64 - 1, 30_000, dtype=np.uint64)
    values = vocabulary[rng.integers(0, 30_000, 200_000)]
    number, seen = dense_numbers(values)
    distinct, inverse = np.unique(values, return_inverse=True)
    assert seen.size == distinct.size
    assert len(set(zip(number.tolist(), inverse.ravel().tolist()))) == distinct.size
    assert int(seen.sum()) == 200_000
