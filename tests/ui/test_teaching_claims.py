"""Learn's sentences about data, each decided from the numbers, tested at the boundary."""

from __future__ import annotations

import pytest

from contextlab.lab.teaching import (
    ScoreRange,
    closed_book_sentence,
    cut_sentence,
    position_side,
    ranking_sentence,
    ranking_verdicts,
    score_range,
    step_sentence,
)

# -- "a buried answer is worse than none" --------------------------------------------------


def test_closed_book_claim_made_just_inside_the_boundary() -> None:
    said = closed_book_sentence(53.3, 56.0)
    assert said.endswith("a buried answer is worse than none.")
    assert "p = 0.048" in said


def test_closed_book_claim_withheld_just_outside_the_boundary() -> None:
    said = closed_book_sentence(53.4, 56.0)
    assert "worse than none" not in said
    assert "2,655 questions cannot tell the two apart (95% interval [-0.1, 5.3], p = 0.057)" in said


def test_closed_book_claim_withheld_for_the_published_gpt35_curve_at_20_documents() -> None:
    # GPT-3.5-Turbo with 20 documents: 53.8% at its low point, 56.1% closed book.
    said = closed_book_sentence(53.8, 56.1)
    assert "worse than none" not in said and "p = 0.092" in said


def test_closed_book_sentence_is_empty_when_the_low_point_is_not_below() -> None:
    assert closed_book_sentence(56.0, 56.0) == ""


# -- placement scores with intervals ----------------------------------------------------------


def test_score_range_carries_the_curve_uncertainty() -> None:
    assert score_range([1.0, 0.0], [50.0, 50.0], questions=100) == ScoreRange(1.0, pytest.approx(0.804), 1.0)


def test_score_range_without_relevance_is_zero() -> None:
    assert score_range([0.0, 0.0], [50.0, 60.0]) == ScoreRange(0.0, 0.0, 0.0)


def test_ranges_that_touch_overlap_and_ranges_apart_do_not() -> None:
    assert ScoreRange(0.5, 0.4, 0.6).overlaps(ScoreRange(0.7, 0.6, 0.8))
    assert not ScoreRange(0.5, 0.4, 0.6).overlaps(ScoreRange(0.7, 0.61, 0.8))


def test_ranking_says_cannot_tell_when_intervals_overlap() -> None:
    ranges = [("A", ScoreRange(0.960, 0.950, 0.970)), ("B", ScoreRange(0.955, 0.945, 0.965))]
    assert ranking_verdicts(ranges) == {"A": "highest", "B": "cannot tell"}
    assert ranking_sentence(ranges) == (
        "These data cannot tell the orderings apart: every interval overlaps the best one's."
    )


def test_ranking_names_a_clear_winner_only_when_its_interval_clears_the_rest() -> None:
    ranges = [("A", ScoreRange(0.96, 0.95, 0.97)), ("B", ScoreRange(0.90, 0.89, 0.91))]
    assert ranking_sentence(ranges) == "A scores best, and its interval clears every other ordering's."


def test_ranking_names_the_orderings_it_cannot_tell_from_the_best() -> None:
    ranges = [
        ("A", ScoreRange(0.96, 0.95, 0.97)),
        ("B", ScoreRange(0.955, 0.945, 0.965)),
        ("C", ScoreRange(0.80, 0.79, 0.81)),
    ]
    assert ranking_verdicts(ranges) == {"A": "highest", "B": "cannot tell", "C": "lower"}
    assert ranking_sentence(ranges) == (
        "A scores highest, but these data cannot tell it from B: their intervals overlap. The others score lower."
    )


# -- where a position lies ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("slot", "n", "side"),
    [
        (1, 21, "first"),
        (7, 21, "near the front"),
        (8, 21, "in the middle"),
        (11, 21, "in the middle"),
        (14, 21, "in the middle"),
        (15, 21, "near the back"),
        (21, 21, "last"),
        (2, 2, "last"),
        (2, 3, "in the middle"),
    ],
)
def test_position_side_names_the_middle_third(slot: int, n: int, side: str) -> None:
    assert position_side(slot, n) == side


def test_step_sentence_never_puts_the_middle_at_the_front() -> None:
    order = list(range(21))
    said = step_sentence(11, order, [f"d{i}" for i in range(21)], [50.0] * 21, "M")
    assert "goes to pos 11 of 21 (in the middle)" in said
    assert "front" not in said


# -- a cut document ----------------------------------------------------------------------------


def test_cut_sentence_says_the_answer_was_cut_when_only_the_cut_part_holds_it() -> None:
    original = "Refunds are handled by billing. The refund window is 30 days."
    assert cut_sentence("Refunds are handled by billing. [...]", original, ["30 days"]) == (
        "The answer was cut: it is in the part the budget left out."
    )


def test_cut_sentence_says_the_answer_survived_when_the_kept_part_holds_it() -> None:
    original = "The refund window is 30 days. Refunds are handled by billing."
    assert cut_sentence("The refund window is 30 days. [...]", original, ["30 days"]) == (
        "It was cut to fit, but the answer is still in the part that was kept."
    )


def test_cut_sentence_claims_nothing_about_an_answer_it_does_not_know() -> None:
    assert cut_sentence("Some text [...]", "Some text and more", []) == (
        "It was cut to fit: the budget kept only its start."
    )
