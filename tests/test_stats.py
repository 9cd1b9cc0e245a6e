"""contextlab.evaluation.stats against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import pytest

from contextlab.errors import InvalidInputError
from contextlab.evaluation.recommendation import recommend
from contextlab.evaluation.stats import (
    budget_gains,
    combine_intervals,
    knee_index,
    paired_bootstrap,
    paired_comparison,
    questions_needed,
)
from contextlab.intervals import format_interval, wilson_interval
from contextlab.paired import mcnemar_exact, paired_rate_interval


@pytest.mark.parametrize(
    "successes, n, low, high",
    [
        # p = 1, z^2 = 3.8416: centre (1 + 0.19208) / 1.38416 = 0.86123, half 1.96 * 0.098 / 1.38416 = 0.13877
        (10, 10, 0.72246, 1.0),
        (0, 10, 0.0, 0.27754),
        # p = 0.5: centre 0.5, half 1.96 * sqrt(0.025 + 0.009604) / 1.38416 = 0.26341
        (5, 10, 0.23659, 0.76341),
    ],
)
def test_wilson_interval_matches_hand_values(successes, n, low, high):
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=1e-5)


def test_wilson_interval_never_zero_width_and_empty_is_nan():
    low, high = wilson_interval(10, 10)
    assert high - low > 0.27
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(InvalidInputError, match="successes"):
        wilson_interval(11, 10)


@pytest.mark.parametrize(
    "only_a, only_b, p",
    [
        (1, 5, 14 / 64),  # 2 * (C(6,0) + C(6,1)) / 2^6 = 2 * 7 / 64
        (5, 1, 14 / 64),  # symmetric
        (0, 10, 2 / 1024),  # 2 * C(10,0) / 2^10
        (2, 8, 112 / 1024),  # 2 * (1 + 10 + 45) / 1024
        (3, 3, 1.0),  # 2 * P(X <= 3 | n=6) = 2 * 42/64 > 1, capped
        (0, 0, 1.0),  # nothing discordant
    ],
)
def test_mcnemar_exact_matches_hand_values(only_a, only_b, p):
    assert mcnemar_exact(only_a, only_b) == pytest.approx(p, rel=1e-12)


def test_mcnemar_exact_rejects_non_counts():
    with pytest.raises(InvalidInputError, match="only_a"):
        mcnemar_exact(-1, 3)
    with pytest.raises(InvalidInputError, match="only_b"):
        mcnemar_exact(1, 2.5)


def test_paired_bootstrap_matches_hand_values():
    # d = b - a = [0, 0, 0, 1]: the resampled mean is k/4 with k ~ Binomial(4, 1/4).
    # P(mean = 0) = 0.316 > 2.5%, so the low end is 0; P(mean >= 0.75) = 0.051 > 2.5% but
    # P(mean = 1) = 0.004 < 2.5%, so the high end is 0.75.
    assert paired_bootstrap([0, 0, 0, 0], [0, 0, 0, 1]) == (0.25, 0.0, 0.75)
    # d = [0, 1]: means 0, 1/2, 1 with 1/4, 1/2, 1/4 -> both ends reached.
    assert paired_bootstrap([0, 0], [0, 1]) == (0.5, 0.0, 1.0)
    # A constant difference has nothing to resample; undefined pairs (None, NaN) are left out.
    assert paired_bootstrap([1, 2, None, 4], [3, 4, 9, math.nan]) == (2.0, 2.0, 2.0)


def test_paired_bootstrap_is_seeded_and_needs_equal_lengths():
    a, b = [0, 1, 0, 1, 1, 0, 0, 1], [1, 1, 0, 1, 0, 1, 1, 1]
    assert paired_bootstrap(a, b, seed=4) == paired_bootstrap(a, b, seed=4)
    with pytest.raises(InvalidInputError, match="same questions"):
        paired_bootstrap([1, 2], [1])
    assert all(math.isnan(v) for v in paired_bootstrap([None], [1]))


def test_paired_rate_interval_is_bonett_price():
    # No discordant pair in 10: p_a = p_b = 1/12, half = 1.96 * sqrt((2/12) / 12) = 0.230988
    assert paired_rate_interval(0, 0, 10) == pytest.approx((-0.230988, 0.230988), abs=1e-6)
    # 0 vs 4 of 10: p_b - p_a = 4/12 = 0.3333, half = 1.96 * sqrt((6/12 - 1/9) / 12) = 1.96 * 0.180020 = 0.352840;
    # centred as wide as that around both 0.4 (observed) and 0.3333 (adjusted).
    assert paired_rate_interval(0, 4, 10) == pytest.approx((0.333333 - 0.352840, 0.4 + 0.352840), abs=1e-6)


def test_paired_comparison_of_equal_yes_no_columns_is_not_zero_width():
    same = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    c = paired_comparison(same, same, yes_no=True)
    assert (c.difference, c.n, c.p_value, c.only_a, c.only_b) == (0.0, 10, 1.0, 0, 0)
    assert c.low == pytest.approx(-0.230988, abs=1e-6) and c.high == pytest.approx(0.230988, abs=1e-6)


def test_questions_needed_by_hand():
    # d = [1, 0, 1, 0]: mean 0.5, sd 0.57735; ((1.96 + 0.8416) * 0.57735 / 0.5)^2 = 10.46 -> 11
    assert questions_needed([1, 0, 1, 0]) == 11
    assert questions_needed([0, 0, 0]) is None


def test_combine_intervals_adds_half_widths_in_quadrature_per_side():
    # below: hypot(2, 3) = 3.60555; above: hypot(2, 1) = 2.23607
    assert combine_intervals(50.0, (48.0, 52.0), (47.0, 51.0)) == pytest.approx((46.39445, 52.23607), abs=1e-5)
    assert combine_intervals(50.0, (50.0, 50.0), (48.0, 52.0)) == (48.0, 52.0)


def test_knee_index_is_where_the_curve_bends_most():
    # scaled: x = 0, 1/3, 2/3, 1; y = 0, 0.8, 0.9, 1 -> y - x = 0.467 at index 1, 0.233 at index 2
    assert knee_index([0, 1, 2, 3], [0, 8, 9, 10]) == 1
    assert knee_index([0, 1, 2], [0, 1, 2]) is None  # a straight line has no knee
    assert knee_index([0, 1], [0, 1]) is None


def test_knee_index_names_no_knee_where_a_later_step_gains_more():
    # gains per token: 0.6, 0.1, 0.25 -- Kneedle's furthest point is index 1 (512), but 768 -> 1024
    # gains more than 512 -> 768, so the curve does not flatten there: no knee
    xs, ys = [256, 512, 768, 1024], [40.0, 193.6, 219.2, 283.2]
    assert knee_index(xs, ys) is None
    # the same gains falling steadily after 512: the knee is 512
    assert knee_index(xs, [40.0, 193.6, 219.2, 227.0]) == 1


def _summary(label, budget, rate, tokens):
    return {"config": label, "max_context_tokens": budget, "gold_in_block": rate, "tokens_used": tokens}


def test_budget_gains_per_100_tokens_and_knee():
    summaries = [
        _summary("a", 256, 0.50, 250),
        _summary("b", 512, 0.80, 500),
        _summary("c", 1024, 0.90, 1000),
        _summary("d", 2048, 0.95, 2000),
    ]
    (curve,) = budget_gains(summaries, ["max_context_tokens"])
    # (0.80 - 0.50) * 100 points / 250 tokens * 100 = 12.0; then 10 / 500 * 100 = 2.0; 5 / 1000 * 100 = 0.5
    assert [s["gain_per_100"] for s in curve["steps"]] == pytest.approx([12.0, 2.0, 0.5])
    assert curve["knee"] == 512 and curve["key"] == "max_context_tokens" and curve["settings"] == {}
    assert budget_gains(summaries, ["placement"]) == []


def test_gains_lines_say_why_there_is_no_knee():
    from contextlab.evaluation import gains_lines

    summaries = [
        _summary("a", 256, 0.40, 256),
        _summary("b", 512, 0.55, 512),
        _summary("c", 768, 0.58, 768),
        _summary("d", 1024, 0.64, 1024),
    ]
    (curve,) = budget_gains(summaries, ["max_context_tokens"])
    assert curve["knee"] is None  # 512 -> 768 gains 1.17 per 100 tokens, 768 -> 1024 more: 2.34
    (line,) = gains_lines([curve])
    assert line.endswith("; no knee (768->1024 gains more per 100 tokens than 512->768)")


def test_recommend_takes_the_cheapest_not_credibly_below_the_best():
    best = [1] * 40 + [0] * 10  # 80%
    close = [1] * 39 + [0] * 11  # 78%: one question fewer; McNemar p = 1
    poor = [0] * 30 + [1] * 10 + [0] * 10  # 20%: 30 questions fewer; McNemar p = 2 / 2^30
    summaries = [_summary("big", 1024, 0.80, 1000), _summary("mid", 512, 0.78, 500), _summary("small", 128, 0.20, 120)]
    out = recommend(summaries, {"big": best, "mid": close, "small": poor}, "gold_in_block", yes_no=True)
    assert (out.config, out.best, out.cheapest, out.told_apart) == ("mid", "big", "small", True)
    assert out.text.startswith("On gold in block (no model answered): take mid: 500 tokens")
    assert "McNemar p = 1" in out.text


def test_recommend_says_when_configurations_cannot_be_told_apart():
    a = [1, 0] * 10  # 50% on 20
    b = [1, 0] * 9 + [1, 1]  # 55%: one question more
    summaries = [
        {"config": "cheap", "accuracy": 0.50, "tokens_used": 250},
        {"config": "dear", "accuracy": 0.55, "tokens_used": 500},
    ]
    out = recommend(summaries, {"cheap": a, "dear": b}, "accuracy", yes_no=True)
    assert out.config == "cheap" and out.told_apart is False and out.metric == "accuracy"
    # d = one 1 in 20: mean 0.05, sd 0.22361 -> ((2.8016 * 0.22361) / 0.05)^2 = 156.98 -> 157
    assert out.questions_needed == 157
    assert out.text.startswith(
        "On measured accuracy (a model answered): these 2 configurations cannot be told "
        "apart on 20 questions: about 157 would be needed"
    )


def test_recommend_with_one_configuration_says_it_is_the_only_one():
    out = recommend([_summary("only", 512, 0.5, 480)], {"only": [1, 0]}, "gold_in_block", yes_no=True)
    assert out.text == (
        "On gold in block (no model answered): take only: 480 tokens on average, gold in block "
        "50.0%, the only configuration run (2 questions)."
    )


@pytest.mark.parametrize(
    "args, kwargs, expected",
    [
        ((13.333, 5.31, 29.7), {}, "13.3 [5.3, 29.7]"),
        ((6.7, -8.1, 21.4), {"signed": True}, "+6.7 [-8.1, +21.4]"),
        ((0.5, 0.25, 0.75), {"digits": 2, "width": 5}, " 0.50 [ 0.25,  0.75]"),
    ],
)
def test_format_interval_writes_value_and_bounds(args, kwargs, expected):
    assert format_interval(*args, **kwargs) == expected


def test_format_bounds_writes_the_bounds_as_format_interval_does():
    from contextlab.intervals import format_bounds

    assert format_bounds(-8.1, 21.4, signed=True) == "[-8.1, +21.4]"
    assert format_interval(6.7, -8.1, 21.4, signed=True).endswith(format_bounds(-8.1, 21.4, signed=True))
