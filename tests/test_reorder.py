from __future__ import annotations

import pytest

from contextlab.stages.reorder import lost_in_the_middle_order, reorder_lost_in_the_middle


def test_reorder_order_odd():
    assert reorder_lost_in_the_middle(list(range(1, 10))) == [1, 3, 5, 7, 9, 8, 6, 4, 2]


def test_reorder_order_even():
    assert reorder_lost_in_the_middle(list(range(1, 11))) == [1, 3, 5, 7, 9, 10, 8, 6, 4, 2]


@pytest.mark.parametrize(("n", "expected"), [(0, []), (1, [0]), (2, [0, 1]), (3, [0, 2, 1]), (4, [0, 2, 3, 1])])
def test_reorder_small_counts(n, expected):
    assert lost_in_the_middle_order(n) == expected


def test_reorder_negative_count_raises():
    with pytest.raises(ValueError, match="n must be a whole number >= 0"):
        lost_in_the_middle_order(-1)
