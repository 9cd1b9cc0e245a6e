"""The rank stage: most relevant first, ties in input order."""

from __future__ import annotations

from contextlab.stages.rank import rank_by_score


def test_rank_stable_descending():
    assert rank_by_score([0.5, 0.9, 0.5, 0.9, 0.1]) == [1, 3, 0, 2, 4]


def test_rank_only_the_given_indices():
    assert rank_by_score([0.5, 0.9, 0.7], [0, 2]) == [2, 0]


def test_rank_negative_scores_rank_last():
    assert rank_by_score([-1.0, 0.0, 2.5]) == [2, 1, 0]
