"""contextlab.paired against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import pytest

from contextlab.errors import InvalidInputError
from contextlab.paired import (
    cochran_q,
    detectable_difference,
    holm_adjust,
    look_alpha,
    mcnemar_power,
    questions_for_difference,
    rate_difference,
    z_for,
)


def test_cochran_q_statistic_and_permutation_p_by_hand():
    # Columns 4, 2, 1 (T = 7); rows 2, 1, 0, 3, 0, 1 (sum of squares 15).
    # Q = 2 * (3 * 21 - 49) / (21 - 15) = 28 / 6. The three discordant rows (2, 1 and 1 yes answers)
    # have 3 * 3 * 3 = 27 equally likely arrangements; 6 of them give a sum of squared columns >= 21.
    q, df, p = cochran_q([[1, 1, 0, 1, 0, 1], [1, 0, 0, 1, 0, 0], [0, 0, 0, 1, 0, 0]])
    assert q == pytest.approx(4.666667, abs=1e-6)
    assert df == 2
    assert p == pytest.approx(6 / 27, abs=0.01)


def test_cochran_q_two_conditions_is_mcnemar_exact():
    # 0 against 6 discordant questions: McNemar's exact p = 2 / 2**6.
    first = [True] * 4 + [False] * 26
    second = [True] * 10 + [False] * 20
    q, df, p = cochran_q([first, second])
    assert (q, df) == (6.0, 1)
    assert p == 0.03125


def test_cochran_q_without_discordance_is_one_and_rejects_ragged_input():
    assert cochran_q([[True, False], [True, False]]) == (0.0, 1, 1.0)
    with pytest.raises(InvalidInputError, match="same questions"):
        cochran_q([[True, False], [True]])
    with pytest.raises(InvalidInputError, match="two conditions"):
        cochran_q([[True]])


def test_rate_difference_is_newcombe_method_10():
    # Newcombe (1998), table II example (b): 56/70 against 48/80 -> 0.2000 [0.0524, 0.3339].
    diff, low, high, p = rate_difference(48, 80, 56, 70)
    assert (diff, low, high) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)
    # Pooled z: p = 104/150, se = sqrt(0.6933 * 0.3067 * (1/80 + 1/70)) = 0.07549; z = 2.649.
    assert p == pytest.approx(0.00805, abs=1e-4)


def test_holm_adjust_steps_down_and_stays_monotone():
    # Sorted 0.01, 0.03, 0.04: 3 * 0.01, max(0.03, 2 * 0.03), max(0.06, 1 * 0.04).
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm_adjust([0.5, 0.9]) == [1.0, 1.0]


def test_questions_for_difference_is_connors_formula():
    # psi 0.25, delta 0.1: (1.96 * 0.5 + 0.8416 * sqrt(0.24))^2 / 0.01 = 193.85 -> 194.
    assert questions_for_difference(0.1, 0.25) == 194
    # Fewer questions answered differently, cheaper to show:
    # (1.96 * sqrt(0.15) + 0.8416 * sqrt(0.14))^2 / 0.01 = (0.7591 + 0.3149)^2 / 0.01 = 115.35 -> 116.
    assert questions_for_difference(0.1, 0.15) == 116
    with pytest.raises(InvalidInputError, match="at most the discordance"):
        questions_for_difference(0.3, 0.25)


def test_detectable_difference_inverts_the_power():
    assert mcnemar_power(0.1, 0.25, 194) == pytest.approx(0.8003, abs=1e-4)
    assert detectable_difference(194, 0.25) == pytest.approx(0.1, abs=1e-3)
    # Too few questions: no difference up to the discordance reaches 80% power.
    assert detectable_difference(10, 0.25) is None


def test_look_alpha_splits_alpha_over_the_looks():
    assert look_alpha(4) == 0.0125
    assert z_for(0.05) == pytest.approx(1.959964, abs=1e-6)
    with pytest.raises(InvalidInputError, match="looks"):
        look_alpha(0)
