"""The filter stage: drop documents too short to cite."""

from __future__ import annotations

from contextlab.stages.filtering import filter_short_documents


def test_filtering_drops_below_min():
    assert filter_short_documents([5, 4, 0, 9], 5) == ([0, 3], [1, 2])


def test_filtering_min_zero_keeps_everything():
    assert filter_short_documents([0, 0, 3], 0) == ([0, 1, 2], [])


def test_filtering_empty_input():
    assert filter_short_documents([], 5) == ([], [])
