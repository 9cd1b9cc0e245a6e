"""The reorder stage: lost in the middle, and every placement strategy beside it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextlab.errors import InvalidInputError
from contextlab.stages.reorder import (
    ORDERINGS,
    PLACEMENTS,
    PositionCurve,
    langchain_long_context_reorder,
    llamaindex_long_context_reorder,
    lost_in_the_middle_order,
    most_relevant_position,
    ordering_positions,
    place,
    reorder_lost_in_the_middle,
)


def _one_based(order: list[int]) -> list[int]:
    return [rank + 1 for rank in order]


def test_reorder_order_odd():
    assert reorder_lost_in_the_middle(list(range(1, 10))) == [1, 3, 5, 7, 9, 8, 6, 4, 2]


def test_reorder_order_even():
    assert reorder_lost_in_the_middle(list(range(1, 11))) == [1, 3, 5, 7, 9, 10, 8, 6, 4, 2]


@pytest.mark.parametrize(("n", "expected"), [(0, []), (1, [0]), (2, [0, 1]), (3, [0, 2, 1]), (4, [0, 2, 3, 1])])
def test_reorder_small_counts(n, expected):
    assert lost_in_the_middle_order(n) == expected


def test_reorder_negative_count_raises():
    with pytest.raises(InvalidInputError, match="n must be a whole number >= 0"):
        lost_in_the_middle_order(-1)


# -- the placement strategies -----------------------------------------------------------------------------------


def test_orderings_keys_are_the_five_strategies():
    assert list(ORDERINGS) == ["lost_in_the_middle", "relevance", "reversed", "langchain", "llamaindex"]


def test_lost_in_the_middle_ordering_even():
    assert _one_based(ORDERINGS["lost_in_the_middle"](list(range(10)))) == [1, 3, 5, 7, 9, 10, 8, 6, 4, 2]


def test_lost_in_the_middle_ordering_odd():
    assert _one_based(ORDERINGS["lost_in_the_middle"](list(range(9)))) == [1, 3, 5, 7, 9, 8, 6, 4, 2]


def test_lost_in_the_middle_ordering_keeps_three_or_fewer_like_the_engine():
    assert ORDERINGS["lost_in_the_middle"](["a", "b", "c"]) == ["a", "b", "c"]


def test_langchain_long_context_reorder_six_puts_best_last():
    assert langchain_long_context_reorder([1, 2, 3, 4, 5, 6]) == [2, 4, 6, 5, 3, 1]


def test_langchain_long_context_reorder_seven_puts_best_first():
    assert langchain_long_context_reorder([1, 2, 3, 4, 5, 6, 7]) == [1, 3, 5, 7, 6, 4, 2]


def test_llamaindex_long_context_reorder_sorts_by_score():
    docs = ["c", "a", "d", "b"]
    scores = [0.3, 0.9, 0.1, 0.5]
    # ascending: d(0.1) c(0.3) b(0.5) a(0.9) -> front, back, front, back
    assert llamaindex_long_context_reorder(docs, scores) == ["b", "d", "c", "a"]


def test_llamaindex_long_context_reorder_ties_differ_from_langchain():
    items = ["x", "y", "z"]
    assert llamaindex_long_context_reorder(items, [1.0, 1.0, 1.0]) == ["z", "x", "y"]
    assert langchain_long_context_reorder(items) == ["x", "z", "y"]


def test_llamaindex_long_context_reorder_without_scores_matches_langchain():
    for n in range(12):
        assert llamaindex_long_context_reorder(list(range(n))) == langchain_long_context_reorder(list(range(n)))


def test_reversed_and_relevance_orderings():
    assert ORDERINGS["relevance"]("abc") == ["a", "b", "c"]
    assert ORDERINGS["reversed"]("abc") == ["c", "b", "a"]


def test_orderings_accept_a_count_for_ranks():
    assert ORDERINGS["langchain"](4) == [1, 3, 2, 0]
    assert ordering_positions("lost_in_the_middle", 5) == [0, 2, 4, 3, 1]


@given(st.lists(st.integers(), max_size=40))
def test_orderings_are_permutations(items):
    for fn in ORDERINGS.values():
        assert sorted(fn(items)) == sorted(items)


def test_orderings_do_not_mutate_input():
    items = [3, 2, 1, 0]
    for fn in ORDERINGS.values():
        fn(items)
    assert items == [3, 2, 1, 0]


@pytest.mark.parametrize(
    ("strategy", "n", "expected"),
    [
        ("langchain", 6, 6),
        ("langchain", 7, 1),
        ("llamaindex", 6, 6),
        ("lost_in_the_middle", 6, 1),
        ("relevance", 6, 1),
        ("reversed", 6, 6),
        ("langchain", 1, 1),
    ],
)
def test_most_relevant_position(strategy, n, expected):
    assert most_relevant_position(strategy, n) == expected


def test_most_relevant_position_unknown_strategy_raises():
    with pytest.raises(InvalidInputError, match=r"unknown ordering 'haystack'; choose one of: lost_in_the_middle"):
        most_relevant_position("haystack", 5)


# -- place: what the engine calls -----------------------------------------------------------------


def test_reorder_placements_are_the_orderings_and_curve():
    # "curve" follows a position curve given as data (tests/test_curve_placement.py)
    assert (*ORDERINGS, "curve") == PLACEMENTS


@pytest.mark.parametrize(
    ("strategy", "seven", "six"),
    [
        ("lost_in_the_middle", "acegfdb", "acefdb"),
        ("relevance", "abcdefg", "abcdef"),
        ("reversed", "gfedcba", "fedcba"),
        ("langchain", "acegfdb", "bdfeca"),  # LongContextReorder: reverse, then alternate front/back
        ("llamaindex", "acegfdb", "bdfeca"),
    ],
)
def test_reorder_place_gives_each_strategys_order(strategy, seven, six):
    # Items come most relevant first (a); the expected block orders are written out by hand.
    assert "".join(place(strategy, list("abcdefg"))) == seven
    assert "".join(place(strategy, list("abcdef"))) == six


def test_reorder_literal_cases_cover_every_ordering():
    assert set(ORDERINGS) == {"lost_in_the_middle", "relevance", "reversed", "langchain", "llamaindex"}


def test_reorder_place_keeps_three_or_fewer_in_order_for_lost_in_the_middle():
    assert place("lost_in_the_middle", ["a", "b", "c"]) == ["a", "b", "c"]
    assert place("lost_in_the_middle", ["a", "b", "c", "d"]) == ["a", "c", "d", "b"]


def test_reorder_place_llamaindex_uses_scores():
    assert place("llamaindex", ["x", "y", "z"], [1.0, 1.0, 1.0]) == ["z", "x", "y"]
    assert place("llamaindex", ["x", "y", "z"]) == langchain_long_context_reorder(["x", "y", "z"])


def test_reorder_place_unknown_strategy_raises():
    with pytest.raises(InvalidInputError, match=r"unknown ordering 'middle'; choose one of: lost_in_the_middle"):
        place("middle", [1, 2])


@given(st.sampled_from(PLACEMENTS), st.lists(st.integers(), max_size=40))
def test_reorder_place_is_a_permutation(strategy, items):
    curve = PositionCurve.from_accuracies([70.0, 50.0, 60.0])
    assert sorted(place(strategy, items, [0.5] * len(items), curve)) == sorted(items)
