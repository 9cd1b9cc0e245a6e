"""The recommendation: which configuration to take, decided from paired tests, said in words.

``recommend`` takes the cheapest configuration not credibly below the best on the run's metric
(measured accuracy when a model answered, else gold in block). Configurations that tie there
(placements always do on gold in block: reordering never changes what is in the block) are
then decided on the curve's expected accuracy, with the curve's own error in the interval of
every difference, when no model answered; where that cannot tell them apart either, it says so.
Whether two configurations differ is decided by ``verdict.verdict`` alone. Nothing is
recommended when no configuration scored on any question, or on fewer than ``MIN_PAIRS``
questions (one question carries no interval).

The order configurations are listed in never changes the answer: every comparison is made
against the best, every tie is broken by value, then by cost, then by label. Token costs
within ``COST_TIE`` of each other are the same cost (2016.59 against 2016.62 tokens is no reason
to prefer one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, TypedDict

from ..intervals import format_interval
from .stats import PairedDifference, combine_intervals, paired_comparison
from .verdict import MIN_PAIRS, verdict, verdict_words

__all__ = ["COST_TIE", "METRIC_REASONS", "METRIC_WORDS", "Recommendation", "RecommendationJSON", "recommend"]

#: How a recommendation names its metric, and why that metric.
METRIC_WORDS: dict[str, str] = {"accuracy": "measured accuracy", "gold_in_block": "gold in block"}
METRIC_REASONS: dict[str, str] = {"accuracy": "a model answered", "gold_in_block": "no model answered"}
#: What it means that every configuration scored 0 on a metric.
_NONE_SCORED: dict[str, str] = {
    "accuracy": "the model answered no question right under any configuration",
    "gold_in_block": "the gold reached no configuration's block",
}
#: Costs within this share of the cheapest count as the same cost.
COST_TIE = 0.01

#: A configuration's summary as ``recommend`` reads it: ``config``, the metric, the cost, and
#: ``expected_accuracy`` with its ``_low``/``_high`` (the summary JSON's keys).
Summary = Mapping[str, Any]


class RecommendationJSON(TypedDict):
    """The recommendation as the summary JSON holds it."""

    metric: str
    config: str | None
    best: str | None
    cheapest: str | None
    questions: int
    told_apart: bool
    questions_needed: int | None
    decided_by: str | None
    text: str
    no_effect: list[str]


@dataclass(frozen=True)
class Recommendation:
    """Which configuration to take (``config``, None for none) on ``metric``, and why in words (``text``).

    ``best`` scored highest, ``cheapest`` cost least; ``questions`` were paired; ``told_apart``
    says whether any configuration was credibly below the best; ``decided_by`` is the metric
    that decided (``expected_accuracy`` when the curve broke a tie); ``no_effect`` the settings
    that changed no question's value.
    """

    metric: str
    text: str
    config: str | None = None
    best: str | None = None
    cheapest: str | None = None
    questions: int = 0
    told_apart: bool = False
    questions_needed: int | None = None
    decided_by: str | None = None
    no_effect: tuple[str, ...] = ()

    def to_dict(self) -> RecommendationJSON:
        """Return the recommendation as the summary JSON holds it."""
        out = asdict(self)
        return RecommendationJSON(
            metric=self.metric,
            config=self.config,
            best=self.best,
            cheapest=self.cheapest,
            questions=self.questions,
            told_apart=self.told_apart,
            questions_needed=self.questions_needed,
            decided_by=self.decided_by,
            text=self.text,
            no_effect=list(out["no_effect"]),
        )


def _points(value: float | None, rate: bool, percent: bool = False) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.1f}%" if percent else (f"{value * 100:.1f}%" if rate else f"{value:.1f}")


def _diff_words(c: PairedDifference, scale: float, unit: str) -> str:
    text = format_interval(c.difference * scale, c.low * scale, c.high * scale, signed=True) + unit
    return text + (f", McNemar p = {c.p_value:.3g}" if c.p_value is not None else "")


def _below(c: PairedDifference) -> bool:
    """True when a difference (other - best) is credibly below 0 (``verdict``)."""
    return verdict(c) == "below"


def _expected_comparison(
    best: Sequence[float],
    other: Sequence[float],
    best_error: tuple[float, float],
    other_error: tuple[float, float],
    seed: int,
) -> PairedDifference:
    """Return ``other - best`` on expected accuracy: the questions' paired interval widened by both curves' error.

    The curve's own error is not the questions': two placements read different points of it, so
    each side's half-width is the root sum of squares of the paired bootstrap's and of the two
    configurations' curve errors (taken as independent: the conservative reading).
    """
    c = paired_comparison(best, other, yes_no=False, seed=seed)
    below = math.hypot(best_error[1], other_error[0])
    above = math.hypot(best_error[0], other_error[1])
    return c.widened(*combine_intervals(c.difference, (c.low, c.high), (c.difference - below, c.difference + above)))


def _cheapest(members: Sequence[Summary], cost: str, keys: Sequence[str]) -> Summary:
    """Return the cheapest of ``members`` (costs within ``COST_TIE`` equal), best on ``keys`` among equals."""
    floor = min(s[cost] for s in members)
    near = [s for s in members if s[cost] <= floor + abs(floor) * COST_TIE]
    return max(near, key=lambda s: (*(s.get(k) if s.get(k) is not None else -math.inf for k in keys), -s[cost]))


def _expected_cell(s: Summary) -> str:
    low, high = s.get("expected_accuracy_low"), s.get("expected_accuracy_high")
    if low is None or high is None:
        return f"{s['expected_accuracy']:.1f}%"
    return format_interval(s["expected_accuracy"], low, high) + "%"


@dataclass(frozen=True)
class _Tie:
    """Configurations not told apart on the metric: who, on how many questions, and whether none differed."""

    fine: Sequence[Summary]
    n: int
    same: bool
    cost: str
    words: str


def _tie_text(
    tie: _Tie, best: Summary, compared: Mapping[str, PairedDifference], choice: Summary, decided: bool
) -> str:
    """Return the recommendation for configurations that tie on the metric, decided (or not) on the curve."""
    fine, n, cost, words = tie.fine, tie.n, tie.cost, tie.words
    shown = "; ".join(f"{s['config']} {_expected_cell(s)}" for s in fine)
    if decided:
        against = min((s for s in fine if s is not choice), key=lambda s: compared[s["config"]].difference)
        worst = compared[against["config"]] if choice is best else compared[choice["config"]]
        how = f"tie on {words} on {n} questions" if tie.same else f"cannot be told apart on {words} on {n} questions"
        return (
            f"the {len(fine)} configurations {how}, so the curve's expected accuracy "
            f"decides: take {choice['config']}: {choice[cost]:.0f} tokens on average, expected accuracy "
            f"{_expected_cell(choice)} ({shown}; {against['config'] if choice is best else choice['config']} "
            f"against {best['config']}: {_diff_words(worst, 1.0, ' points')}, the curve's own error included)"
        )
    worst = min((compared[s["config"]] for s in fine if s is not best), key=lambda c: c.difference)
    return (
        f"these {len(fine)} configurations cannot be told apart on {n} questions, on {words} nor on the "
        f"curve's expected accuracy ({shown}; the largest difference {_diff_words(worst, 1.0, ' points')}, "
        f"the curve's own error included). On this evidence any is as good: take {choice['config']}: "
        f"{choice[cost]:.0f} tokens on average, the one the curve reads best"
    )


def _on_curve(
    tie: _Tie, expected: Mapping[str, Sequence[float]], curve_error: Mapping[str, tuple[float, float]], seed: int
) -> tuple[Summary, Summary, bool, str] | None:
    """Return ``(choice, best, decided, text)`` among configurations tied on the metric (None: no curve)."""
    fine, cost = tie.fine, tie.cost
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
    return choice, best, decided, _tie_text(tie, best, on_curve, choice, decided)


def _plain_text(
    rated: Sequence[Summary],
    choice: Summary,
    best: Summary,
    compared: Mapping[str, PairedDifference],
    metric: str,
    *,
    yes_no: bool,
    percent: bool,
    cost: str,
) -> str:
    """Return "take X: ..." for a choice made on the metric alone, saying how it stands against the best."""
    n, words = compared[best["config"]].n, METRIC_WORDS.get(metric, metric)
    text = (
        f"take {choice['config']}: {choice[cost]:.0f} tokens on average, {words} "
        f"{_points(choice[metric], yes_no, percent)}"
    )
    scale, unit = (100.0, " points") if yes_no else (1.0, "")
    if len(rated) == 1:
        return text + f", the only configuration run ({n} questions)"
    if choice is best:
        return text + f", the best of {len(rated)} configurations on {n} questions"
    return text + (
        f", not credibly below the best ({best['config']}, {_points(best[metric], yes_no, percent)}; "
        f"difference {_diff_words(compared[choice['config']], scale, unit)}) on {n} questions"
    )


def _undecided_lead(rated: Sequence[Summary], n: int, cheapest: PairedDifference) -> str:
    """Return why configurations none of which is credibly below the best cannot be told apart."""
    needed = cheapest.questions_needed
    if verdict(cheapest) == "same":
        more = "no difference was seen between the best and the cheapest"
    elif needed is not None and needed > n:
        more = f"about {needed:,} would be needed to tell the best from the cheapest at the difference seen"
    else:
        more = "the difference seen between the best and the cheapest is within the noise"
    return (
        f"these {len(rated)} configurations cannot be told apart on {n} questions: {more}. "
        "On this evidence the cheapest is as good as any: "
    )


def _nothing_to_recommend(
    rated: Sequence[Summary], compared: Mapping[str, PairedDifference], metric: str, *, yes_no: bool, percent: bool
) -> str | None:
    """Return why no configuration is recommended (none scored, or too few questions), or None when one can be."""
    words = METRIC_WORDS.get(metric, metric)
    n = max(c.n for c in compared.values())
    questions = "the 1 question" if n == 1 else f"any of the {n:,} questions"
    if all(s[metric] == 0 for s in rated):
        why = _NONE_SCORED.get(metric, f"every configuration scored 0 on {words}")
        return f"{why} on {questions}, so none is recommended"
    if n < MIN_PAIRS:
        shown = " against ".join(f"{s['config']} {_points(s[metric], yes_no, percent)}" for s in rated)
        return (
            f"{verdict_words('cannot_tell', n)}: {shown} on {n} question; one question carries no interval, "
            "so none is recommended; run more questions"
        )
    return None


def recommend(
    summaries: Sequence[Summary],
    values: Mapping[str, Sequence[float]],
    metric: str,
    *,
    yes_no: bool,
    cost: str = "tokens_used",
    seed: int = 0,
    percent: bool = False,
    expected: Mapping[str, Sequence[float]] | None = None,
    curve_error: Mapping[str, tuple[float, float]] | None = None,
) -> Recommendation:
    """Return the recommendation: the cheapest configuration not credibly below the best on ``metric``.

    ``summaries`` give each configuration's mean ``metric`` and ``cost``; ``values`` each
    configuration's per-question values in the same question order (0/1 for a yes/no metric;
    ``percent``: the summaries' means are percentages). Every configuration is compared with the
    best, paired; "credibly below" is ``verdict``'s ``below``. ``expected`` (per-question expected
    accuracy %) and ``curve_error`` (each configuration's curve error below and above its mean,
    points) decide among those that tie on ``metric``.
    """
    rated = sorted(
        (s for s in summaries if s.get(metric) is not None and s.get(cost) is not None and s["config"] in values),
        key=lambda s: s["config"],
    )
    words = METRIC_WORDS.get(metric, metric)
    on = f"On {words}" + (f" ({METRIC_REASONS[metric]})" if metric in METRIC_REASONS else "")
    if not rated:
        return Recommendation(metric, f"{on}: no configuration has a value.", decided_by=metric)
    best = max(rated, key=lambda s: (s[metric], -s[cost]))
    compared = {
        s["config"]: paired_comparison(values[best["config"]], values[s["config"]], yes_no=yes_no, seed=seed)
        for s in rated
    }
    fine = [s for s in rated if not _below(compared[s["config"]])]
    n = compared[best["config"]].n
    cheapest = _cheapest(rated, cost, [metric])
    base = Recommendation(
        metric,
        "",
        best=best["config"],
        cheapest=cheapest["config"],
        questions=n,
        told_apart=len(fine) < len(rated),
        questions_needed=compared[cheapest["config"]].questions_needed,
        decided_by=metric,
    )
    nothing = _nothing_to_recommend(rated, compared, metric, yes_no=yes_no, percent=percent)
    if nothing is not None:
        return replace(base, text=f"{on}: {nothing}.")
    if len(fine) > 1 and expected is not None and curve_error is not None:
        same = all(verdict(compared[s["config"]]) == "same" for s in fine if s is not best)
        tie = _on_curve(_Tie(fine, n, same, cost, words), expected, curve_error, seed)
        if tie is not None:
            choice, curve_best, decided, text = tie
            return replace(
                base,
                config=choice["config"],
                best=curve_best["config"],
                told_apart=base.told_apart or decided,
                decided_by="expected_accuracy" if decided else metric,
                text=f"{on}: {text}.",
            )
    choice = _cheapest(fine, cost, [metric])
    text = _plain_text(rated, choice, best, compared, metric, yes_no=yes_no, percent=percent, cost=cost)
    if not base.told_apart and len(rated) > 1:
        text = _undecided_lead(rated, n, compared[cheapest["config"]]) + text
    return replace(base, config=choice["config"], text=f"{on}: {text}.")
