"""contextlab.curves.evidence: every sentence about a curve's shape, at the boundary of what its tests resolve."""

from __future__ import annotations

import math

import pytest

from contextlab.curves.curve_file import parse_position_csv
from contextlab.curves.evidence import (
    curve_evidence,
    position_effect,
    published_evidence,
)
from contextlab.curves.position_tests import CurvePoint
from contextlab.errors import InvalidInputError


def outcomes(n: int, correct: dict[int, range]) -> dict[int, list[bool]]:
    """Return per-question outcomes: at each position, questions ``correct[position]`` answered right."""
    return {p: [i in right for i in range(n)] for p, right in correct.items()}


def test_evidence_six_discordant_questions_tell_two_positions_apart():
    # 0 against 6 discordant of 30: McNemar p = 2 / 64; Bonett-Price [0.1875 - 0.1606, 0.2 + 0.1606].
    e = position_effect(outcomes=outcomes(30, {1: range(4), 5: range(10)}), total_docs=5)
    assert e.differences[0].sentence() == (
        "positions 1 and 5 differ by +20.0 [+2.7, +36.1] points, p = 0.031: told apart on 30 questions"
    )
    assert e.shape == "reads_the_end_best"
    assert e.claims == ("reads the end best: position 5 (33.3%) above every other position measured, on 30 questions",)
    assert e.reads_end_best and not e.misses_middle


def test_evidence_five_discordant_questions_do_not_and_say_what_would():
    # 0 against 5: p = 2 / 32 = 0.0625 (the interval's low end, +0.4, alone would not be enough).
    # Needed at psi = delta = 1/6: (1.96 * 0.4082 + 0.8416 * 0.3727)^2 / 0.02778 = 44.7 -> 45.
    e = position_effect(outcomes=outcomes(30, {1: range(4), 5: range(9)}), total_docs=5)
    d = e.differences[0]
    assert not d.resolved and d.questions_needed == 45
    assert d.sentence() == (
        "positions 1 and 5 differ by +16.7 [+0.4, +31.9] points, p = 0.062: not told apart "
        "on 30 questions; about 45 would tell a difference this size apart"
    )
    assert e.shape == "no_effect_shown"
    assert not e.reads_end_best
    assert e.headline.startswith(
        "no position effect shown on 30 questions (Cochran's Q = 5.0, p = 0.062): "
        "the largest difference seen, positions 1 and 5 differ by +16.7"
    )


def test_evidence_holm_correction_withholds_a_raw_p_below_alpha():
    # Three positions, three comparisons. 0 against 7 discordant: p = 2 / 128 = 0.0156, x3 = 0.047 < 0.05.
    shown = position_effect(outcomes=outcomes(40, {1: range(3), 3: range(3), 5: range(10)}), total_docs=5)
    assert shown.shape == "reads_the_end_best"
    # 0 against 6: p = 0.031 < 0.05, but x3 = 0.094: not shown.
    withheld = position_effect(outcomes=outcomes(40, {1: range(3), 3: range(3), 5: range(9)}), total_docs=5)
    d = withheld.difference(1, 5)
    assert d is not None and d.p_value == 0.03125 and d.adjusted_p == pytest.approx(0.09375)
    assert not d.resolved
    assert withheld.shape in ("no_effect_shown", "differs_overall")
    assert "Holm-adjusted for 3 comparisons: p = 0.094" in d.sentence()


def test_evidence_misses_the_middle_only_when_below_both_ends():
    # Middle 3 loses 8 questions against each end (p = 2 / 256, x3 = 0.023); the ends are equal.
    e = position_effect(outcomes=outcomes(40, {1: range(10), 3: range(2), 5: range(10)}), total_docs=5)
    assert e.shape == "misses_the_middle" and e.misses_middle
    assert e.claims == (
        "misses the middle: position 3 (5.0%) read worse than both the first (25.0%) and the "
        "last (25.0%), on 40 questions",
    )
    # Below the first only: the middle is not "missed".
    e = position_effect(outcomes=outcomes(40, {1: range(10), 3: range(2), 5: range(5)}), total_docs=5)
    assert not e.misses_middle


def test_evidence_points_carry_wilson_intervals():
    e = position_effect(outcomes=outcomes(30, {1: range(4), 5: range(6)}), total_docs=5)
    # 4 of 30: Wilson [5.3, 29.7] percent (the shipped curve's N = 30 point).
    p = e.point(1)
    assert (p.accuracy, round(p.low, 1), round(p.high, 1), p.questions) == (
        pytest.approx(13.333, abs=1e-3),
        5.3,
        29.7,
        30,
    )
    with pytest.raises(InvalidInputError, match="position 3 was not measured"):
        e.point(3)


def test_evidence_published_curve_misses_the_middle_on_its_2655_questions():
    e = published_evidence("GPT-3.5-Turbo", 20)
    assert not e.paired and e.questions == 2655
    assert e.shape == "misses_the_middle"
    assert e.point(10).accuracy == pytest.approx(53.8)
    # 53.8% of 2,655: Wilson half-width about 1.9 points.
    assert (round(e.point(10).low, 1), round(e.point(10).high, 1)) == (51.9, 55.7)


def test_evidence_unpaired_points_at_n30_show_nothing():
    # The old shipped curve: 13.3, 13.3, 20.0 on 30 questions each, no per-question outcomes.
    e = position_effect([CurvePoint(1, 13.3, 30), CurvePoint(3, 13.3, 30), CurvePoint(5, 20.0, 30)], total_docs=5)
    assert e.shape == "no_effect_shown" and not e.paired
    assert "(unpaired test)" in e.headline
    assert not e.misses_middle


def test_evidence_file_without_questions_makes_no_claim():
    text = "model,total_docs,position,accuracy,kind\nm,5,1,10.0,position\nm,5,5,90.0,position\n"
    e = curve_evidence(parse_position_csv(text), "m")
    assert e.shape == "unknown_questions"
    assert math.isnan(e.point(1).low)
    assert e.differences == ()


def test_evidence_measured_file_reads_n_from_its_questions_column():
    text = "model,total_docs,position,accuracy,kind,questions\nm,5,1,10.0,position,400\nm,5,5,30.0,position,400\n"
    e = curve_evidence(parse_position_csv(text), "m")
    assert e.questions == 400 and e.shape == "reads_the_end_best"


def test_evidence_rejects_outcomes_of_unequal_questions():
    with pytest.raises(InvalidInputError, match="same questions at every position"):
        position_effect(outcomes={1: [True, False], 5: [True]}, total_docs=5)


def test_evidence_to_dict_is_plain_data():
    out = position_effect(outcomes=outcomes(30, {1: range(4), 5: range(10)}), total_docs=5, label="m").to_dict()
    assert out["shape"] == "reads_the_end_best"
    assert out["differences"][0]["sentence"].startswith("positions 1 and 5 differ by +20.0")
    assert out["no_effect"]["p_value"] == 0.03125
