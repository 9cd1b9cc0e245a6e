"""contextlab.lab.teaching: what the teaching views say, as pure functions with literal answers."""

from __future__ import annotations

import pytest

from contextlab.errors import InvalidInputError
from contextlab.lab.teaching import (
    curve_name,
    middle_zone,
    parse_order,
    reorder_verdict,
    score_change_text,
    score_text,
)

#: A curve whose last point reads below its second (the old rule said "cannot help" for any document).
_SAGGING = [70.0, 60.0, 50.0, 52.0, 54.8, 55.0, 58.1, 54.0, 54.8, 51.0]


def test_teaching_reorder_verdict_follows_the_answers_own_positions_not_the_curves_shape():
    # the answer moves from pos 9 (54.8%) to pos 7 (58.1%): the reorder helps it, whatever the last point reads
    helps = reorder_verdict(_SAGGING, 9, 7, "M", what="the answer")
    assert helps.helps and helps.gain == 3.3
    assert helps.text == (
        "Here the reorder helps: it moves the answer from pos 9 in relevance order (54.8%) "
        "to pos 7 (58.1%), which M reads 3.3 points better."
    )
    hurts = reorder_verdict(_SAGGING, 2, 10, "M", what="the answer")
    assert not hurts.helps and hurts.text.startswith(
        "Here a reorder cannot beat relevance order: the reorder moves the answer from pos 2 (60.0%) to pos 10 "
        "(51.0%), which M reads 9.0 points worse. A reorder pays off when the answer sits deep in the ranking"
    )


def test_teaching_reorder_verdict_at_the_boundary_of_a_tenth_of_a_point():
    curve = [60.0, 50.0, 50.09, 50.04]
    assert reorder_verdict(curve, 2, 3, "M").gain == 0.1 and reorder_verdict(curve, 2, 3, "M").helps
    same = reorder_verdict(curve, 2, 4, "M")  # +0.04: below the curves' one decimal, no difference
    assert same.gain == 0.0 and not same.helps
    assert "which M reads about the same (50.0% and 50.0%): here it neither helps nor hurts." in same.text


def test_teaching_reorder_verdict_for_a_document_that_stays_and_for_a_reorder_not_applied():
    stays = reorder_verdict(_SAGGING, 1, 1, "M", what="the most relevant document (D3)")
    assert not stays.helps
    assert stays.text.startswith(
        "The reorder leaves the most relevant document (D3) where relevance order puts "
        "it, at pos 1 (70.0%): here it can neither help nor hurt."
    )
    would = reorder_verdict(_SAGGING, 9, 7, "M", reorder="the lost-in-the-middle reorder", would=True)
    assert would.text.startswith("Here the lost-in-the-middle reorder would help: it would move the answer")
    with pytest.raises(InvalidInputError, match=r"within the curve's 1\.\.10; got 0 and 3"):
        reorder_verdict(_SAGGING, 0, 3, "M")


def test_teaching_placement_scores_have_one_format():
    assert score_text(0.8612) == "86.1%" and score_text(1.0) == "100.0%"
    assert score_change_text(0.0123) == "+1.2 points" and score_change_text(-0.004) == "-0.4 points"
    assert score_change_text(0.0004) == "0.0 points"


def test_teaching_curve_name_says_interpolated_between_published_counts():
    assert curve_name("GPT-3.5-Turbo", 20) == "measured accuracy at this position"
    assert curve_name("GPT-3.5-Turbo", 7) == "accuracy at this position (interpolated from the published points)"


def test_teaching_middle_zone_is_the_middle_third():
    assert middle_zone(9) == (4, 6) and middle_zone(2) is None


def test_teaching_parse_order_is_bad_input_naming_the_field():
    assert parse_order("3, 1 2", 3) == [2, 0, 1]
    with pytest.raises(
        InvalidInputError, match=r"^order: give each rank 1..3 exactly once \(repeated: \[1\]; missing: \[3\]\)$"
    ):
        parse_order("1 1 2", 3)


def test_teaching_reorder_verdict_on_a_curve_whose_tests_tell_nothing_claims_nothing():
    said = reorder_verdict([13.3, 13.3, 13.3, 15.5, 20.0], 2, 5, "Gemma", undecided="no position effect shown")
    assert not said.helps and said.gain == 0.0
    assert said.text == (
        "The reorder moves the answer from pos 2 in relevance order (13.3%) to pos 5 (20.0%) on "
        "this curve, but whether that helps these data cannot tell: no position effect shown."
    )
