"""The recommendation: which configuration to take, decided from paired tests, said in words.

``recommend`` takes the cheapest configuration not credibly below the best on the run's metric
(measured accuracy when a model answered, else gold in block). Configurations that tie there
(placements always do on gold in block: reordering never changes what is in the block) are
then decided on the curve's expected accuracy, with the curve's own error in the interval of
every difference, when no model answered; where that cannot tell them apart either, it says so.

The order configurations are listed in never changes the answer: every comparison is made
against the best, every tie is broken by value, then by cost, then by label. Token costs
within ``COST_TIE`` of each other are the same cost (2016.59 against 2016.62 tokens is no reason
to prefer one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..intervals import format_interval
from ..paired import ALPHA
from .stats import combine_intervals, paired_comparison

__all__ = ["COST_TIE", "METRIC_REASONS", "METRIC_WORDS", "recommend"]

#: How a recommendation names its metric, and why that metric.
METRIC_WORDS: dict[str, str] = {"accuracy": "measured accuracy", "gold_in_block": "gold in block"}
METRIC_REASONS: dict[str, str] = {"accuracy": "a model answered", "gold_in_block": "no model answered"}
#: Costs within this share of the cheapest count as the same cost.
COST_TIE = 0.01


def _points(value: float | None, rate: bool, percent: bool = False) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.1f}%" if percent else (f"{value * 100:.1f}%" if rate else f"{value:.1f}")


def _diff_words(c: Mapping[str, Any], scale: float, unit: str) -> str:
    text = format_interval(c["difference"] * scale, c["low"] * scale, c["high"] * scale, signed=True) + unit
    return text + (f", McNemar p = {c['p_value']:.3g}" if c.get("p_value") is not None else "")


def _below(c: Mapping[str, Any]) -> bool:
    """True when a difference (other - best) is credibly below 0: interval below, and McNemar's p < α where given."""
    return c["high"] < 0 and (c.get("p_value") is None or c["p_value"] < ALPHA)


def _expected_comparison(
    best: Sequence[float],
    other: Sequence[float],
    best_error: tuple[float, float],
    other_error: tuple[float, float],
    seed: int,
) -> dict[str, Any]:
    """Return ``other - best`` on expected accuracy: the questions' paired interval widened by both curves' error.

    The curve's own error is not the questions': two placements read different points of it, so
    each side's half-width is the root sum of squares of the paired bootstrap's and of the two
    configurations' curve errors (taken as independent: the conservative reading).
    """
    c = paired_comparison(best, other, yes_no=False, seed=seed)
    below = math.hypot(best_error[1], other_error[0])
    above = math.hypot(best_error[0], other_error[1])
    low, high = combine_intervals(
        c["difference"], (c["low"], c["high"]), (c["difference"] - below, c["difference"] + above)
    )
    return {**c, "low": low, "high": high}


def _cheapest(members: Sequence[Mapping[str, Any]], cost: str, keys: Sequence[str]) -> Mapping[str, Any]:
    """Return the cheapest of ``members`` (costs within ``COST_TIE`` equal), best on ``keys`` among equals."""
    floor = min(s[cost] for s in members)
    near = [s for s in members if s[cost] <= floor + abs(floor) * COST_TIE]
    return max(near, key=lambda s: (*(s.get(k) if s.get(k) is not None else -math.inf for k in keys), -s[cost]))


def _tie_text(
    fine: Sequence[Mapping[str, Any]],
    best: Mapping[str, Any],
    compared: Mapping[str, Any],
    choice: Mapping[str, Any],
    decided: bool,
    n: int,
    cost: str,
    words: str,
) -> str:
    """Return the recommendation for configurations that tie on ``words``, decided (or not) on the curve."""
    shown = "; ".join(f"{s['config']} {_expected_cell(s)}" for s in fine)
    if decided:
        against = min((s for s in fine if s is not choice), key=lambda s: compared[s["config"]]["difference"])
        worst = compared[against["config"]] if choice is best else compared[choice["config"]]
        return (
            f"the {len(fine)} configurations tie on {words} on {n} questions, so the curve's expected accuracy "
            f"decides: take {choice['config']}: {choice[cost]:.0f} tokens on average, expected accuracy "
            f"{_expected_cell(choice)} ({shown}; {against['config'] if choice is best else choice['config']} "
            f"against {best['config']}: {_diff_words(worst, 1.0, ' points')}, the curve's own error included)"
        )
    worst = min((compared[s["config"]] for s in fine if s is not best), key=lambda c: c["difference"])
    return (
        f"these {len(fine)} configurations cannot be told apart on {n} questions, on {words} nor on the "
        f"curve's expected accuracy ({shown}; the largest difference {_diff_words(worst, 1.0, ' points')}, "
        f"the curve's own error included). On this evidence any is as good: take {choice['config']}: "
        f"{choice[cost]:.0f} tokens on average, the one the curve reads best"
    )


def _expected_cell(s: Mapping[str, Any]) -> str:
    low, high = s.get("expected_accuracy_low"), s.get("expected_accuracy_high")
    if low is None or high is None:
        return f"{s['expected_accuracy']:.1f}%"
    return format_interval(s["expected_accuracy"], low, high) + "%"


def _on_curve(
    fine: Sequence[Mapping[str, Any]],
    expected: Mapping[str, Sequence[float]],
    curve_error: Mapping[str, tuple[float, float]],
    n: int,
    cost: str,
    words: str,
    seed: int,
) -> dict[str, Any] | None:
    """Return the choice among configurations tied on the metric, made on expected accuracy (None: no curve)."""
    if not all(
        s["config"] in expected and s["config"] in curve_error and s.get("expected_accuracy") is not None for s in fine
    ):
        return None
    best = max(fine, key=lambda s: (s["expected_accuracy"], -s[cost]))
    on_curve = {
        s["config"]: _expected_comparison(
            expected[best["config"]], expected[s["config"]], curve_error[best["config"]], curve_error[s["config"]], seed
        )
        for s in fine
    }
    kept = [s for s in fine if not _below(on_curve[s["config"]])]
    choice = _cheapest(kept, cost, ["expected_accuracy"])
    decided = len(kept) < len(fine)
    return {
        "config": choice["config"],
        "best": best["config"],
        "told_apart": decided,
        "decided_by": "expected_accuracy" if decided else None,
        "text": _tie_text(fine, best, on_curve, choice, decided, n, cost, words),
    }


def recommend(
    summaries: Sequence[Mapping[str, Any]],
    values: Mapping[str, Sequence[float]],
    metric: str,
    *,
    yes_no: bool,
    cost: str = "tokens_used",
    seed: int = 0,
    percent: bool = False,
    expected: Mapping[str, Sequence[float]] | None = None,
    curve_error: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Return the recommendation in words: the cheapest configuration not credibly below the best on ``metric``.

    ``summaries`` give each configuration's mean ``metric`` and ``cost``; ``values`` each
    configuration's per-question values in the same question order (0/1 for a yes/no metric;
    ``percent``: the summaries' means are percentages). Every configuration is compared with the
    best, paired; "credibly below" means its 95% interval of the difference lies below 0 (and,
    for yes/no metrics, McNemar's p < 0.05). ``expected`` (per-question expected accuracy %) and
    ``curve_error`` (each configuration's curve error below and above its mean, points) decide
    among those that tie on ``metric``. Keys: ``metric``, ``config``, ``best``, ``cheapest``,
    ``questions``, ``told_apart``, ``questions_needed``, ``decided_by``, ``text``.
    """
    rated = sorted(
        (s for s in summaries if s.get(metric) is not None and s.get(cost) is not None and s["config"] in values),
        key=lambda s: s["config"],
    )
    words = METRIC_WORDS.get(metric, metric)
    on = f"On {words}" + (f" ({METRIC_REASONS[metric]})" if metric in METRIC_REASONS else "")
    if not rated:
        return {
            "metric": metric,
            "config": None,
            "best": None,
            "cheapest": None,
            "questions": 0,
            "told_apart": False,
            "questions_needed": None,
            "decided_by": metric,
            "text": f"{on}: no configuration has a value.",
        }
    best = max(rated, key=lambda s: (s[metric], -s[cost]))
    compared = {
        s["config"]: paired_comparison(values[best["config"]], values[s["config"]], yes_no=yes_no, seed=seed)
        for s in rated
    }
    fine = [s for s in rated if not _below(compared[s["config"]])]
    n = compared[best["config"]]["n"]
    cheapest = _cheapest(rated, cost, [metric])
    needed = compared[cheapest["config"]]["questions_needed"]
    told_apart = len(fine) < len(rated)
    base = {
        "metric": metric,
        "best": best["config"],
        "cheapest": cheapest["config"],
        "questions": n,
        "told_apart": told_apart,
        "questions_needed": needed,
        "decided_by": metric,
    }
    if len(fine) > 1 and expected is not None and curve_error is not None:
        tie = _on_curve(fine, expected, curve_error, n, cost, words, seed)
        if tie is not None:
            return {
                **base,
                **tie,
                "told_apart": told_apart or tie["told_apart"],
                "decided_by": tie["decided_by"] or metric,
                "text": f"{on}: {tie['text']}.",
            }
    choice = _cheapest(fine, cost, [metric])
    text = (
        f"take {choice['config']}: {choice[cost]:.0f} tokens on average, {words} "
        f"{_points(choice[metric], yes_no, percent)}"
    )
    scale, unit = (100.0, " points") if yes_no else (1.0, "")
    if len(rated) == 1:
        text += f", the only configuration run ({n} questions)"
    elif choice is best:
        text += f", the best of {len(rated)} configurations on {n} questions"
    else:
        text += (
            f", not credibly below the best ({best['config']}, {_points(best[metric], yes_no, percent)}; "
            f"difference {_diff_words(compared[choice['config']], scale, unit)}) on {n} questions"
        )
    if not told_apart and len(rated) > 1:
        more = (
            f"about {needed:,} would be needed to tell the best from the cheapest at the difference seen"
            if needed is not None and needed > n
            else "no difference was seen between the best and the cheapest"
        )
        text = (
            f"these {len(rated)} configurations cannot be told apart on {n} questions: {more}. "
            f"On this evidence the cheapest is as good as any: " + text
        )
    return {**base, "config": choice["config"], "text": f"{on}: {text}."}
