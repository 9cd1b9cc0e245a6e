"""Per-configuration aggregates of a run: means with honest 95% intervals, paired differences, a recommendation.

Rows arrive chunk by chunk (``Aggregator.add``); ``Aggregator.report`` gives what the summary
JSON, the printed table and the lab show:

- rates (gold in block, ...): Wilson intervals, right on ten questions as on ten thousand;
- ``expected_accuracy``: the questions resampled *and* the published curve's own error (each
  point a rate on 2,655 questions), combined side by side (``stats.combine_intervals``);
- other means: a 1,000-resample percentile bootstrap (normal above ``BOOTSTRAP_MAX_QUESTIONS``);
- per configuration and metric, the paired difference against the baseline over the same
  questions (paired bootstrap; yes/no metrics: McNemar's exact p);
- the recommendation (``recommendation.recommend``) on measured accuracy when a model answered, else on
  gold in block; and what each extra 100 tokens of budget gains (``stats.budget_gains``).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..curves.reading import CURVE_QUESTIONS
from ..errors import InvalidInputError
from ..intervals import Z_95, wilson_interval
from ..validation import bool_text, message_value
from .analysis import settings_without_effect
from .metrics import RATE_METRICS, SUMMARY_METRICS
from .recommendation import METRIC_WORDS, Recommendation, recommend
from .rows import EvalRow, SettingValue
from .stats import (
    BOOTSTRAP_SAMPLES,
    BudgetCurve,
    bootstrap_interval,
    budget_gains,
    combine_intervals,
    paired_comparison,
)

__all__ = [
    "Aggregator",
    "RunReport",
    "BOOTSTRAP_MAX_QUESTIONS",
    "PAIRED_METRICS",
    "aggregate",
    "recommendation_metric",
    "INTERVALS",
]

#: Above this many questions an interval is the normal approximation (mean ± Z_95 standard
#: errors), which the bootstrap of a mean equals at that size; paired differences need the
#: per-question values, kept up to this many questions.
BOOTSTRAP_MAX_QUESTIONS = 100_000
#: Summary metric -> the row column it is read from (a model's answers: ``correct``).
_SOURCES: dict[str, str] = {**{m: m for m in SUMMARY_METRICS}, "accuracy": "correct"}
_RATES = frozenset(RATE_METRICS) | {"accuracy"}
# Means of values in [0, 1] that are not yes/no: Wilson's interval on their sum is conservative
# (their variance is at most p(1 - p)) and, unlike a bootstrap, never zero width on a few questions.
_BOUNDED = frozenset({"gold_recall"})
# Measured accuracy is written in percent, as expected_accuracy is (and as the model's own
# summary says it); the other rates stay fractions. Paired differences stay in row units (0/1).
_PERCENT = frozenset({"accuracy"})
#: The metrics compared with the baseline, question by question.
PAIRED_METRICS: tuple[str, ...] = (
    "accuracy",
    "gold_in_block",
    "gold_recall",
    "answer_in_block",
    "expected_accuracy",
    "tokens_used",
)
#: How the summary's intervals were made, in words (written into the summary JSON).
INTERVALS: dict[str, str | float] = {
    "level": 0.95,
    "rates": "Wilson score interval (accuracy in percent, the other rates as fractions)",
    "means": f"percentile bootstrap, {BOOTSTRAP_SAMPLES} resamples of the questions (seeded)",
    "expected_accuracy": "bootstrap of the questions combined (root sum of squares, per side) with the "
    "published curve's own Wilson interval (2,655 questions per point; never narrower "
    "than one 2,655-question rate at the estimate's value)",
    "paired": "paired percentile bootstrap of the per-question differences (B - baseline); yes/no metrics: "
    "widened where narrower to Bonett-Price's adjusted interval, McNemar's exact p; a difference of "
    "expected_accuracy holds the published curve fixed (both configurations read the same curve)",
    "above": f"{BOOTSTRAP_MAX_QUESTIONS:,} questions: normal approximation, no paired differences",
}


def _normal_interval(n: int, total: float, squares: float) -> tuple[float, float, float]:
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    variance = max(0.0, squares / n - mean * mean) * n / max(1, n - 1)
    half = Z_95 * math.sqrt(variance / n)
    return (mean, mean - half, mean + half)


def _round(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 6)


def _significant(value: float | None) -> float | None:
    """Return a p-value to 4 significant digits (2e-37 stays 2e-37, where 6 decimals would make it 0)."""
    return None if value is None or math.isnan(value) else float(f"{value:.4g}")


def recommendation_metric(summaries: Sequence[Mapping[str, Any]]) -> str:
    """Return the metric a recommendation uses: ``accuracy`` when a model answered, else ``gold_in_block``."""
    return "accuracy" if any(s.get("accuracy") is not None for s in summaries) else "gold_in_block"


def _curve_interval(mean: float, sums: Sequence[float], n: int) -> tuple[float, float]:
    """Return the published curve's own 95% interval around an expected-accuracy mean ``mean`` (%).

    The mean of the rows' curve bounds (each the Wilson interval of the points it read, 2,655
    questions each), floored at the Wilson interval of one 2,655-question rate at ``mean``
    itself: an average of readings never claims more precision than one curve point has.
    """
    floor_low, floor_high = (100.0 * v for v in wilson_interval(mean / 100.0 * CURVE_QUESTIONS, CURVE_QUESTIONS))
    return (min(sums[0] / n, floor_low), max(sums[1] / n, floor_high))


@dataclass(frozen=True)
class RunReport:
    """A run's statistics: the baseline, one summary per configuration, the recommendation, what budget buys.

    ``configs`` are the summary JSON's objects (``config``, the grid's settings, each metric's
    mean with ``_low``/``_high``/``_n``, ``vs_baseline``); ``budget_gains`` those of
    ``stats.budget_gains``.
    """

    baseline: str | None
    configs: list[dict[str, Any]]
    recommendation: Recommendation
    budget_gains: list[BudgetCurve]

    @property
    def metric(self) -> str:
        """Return the metric the recommendation and the paired differences shown are on."""
        return self.recommendation.metric


@dataclass
class _Running:
    """A running count, sum and sum of squares of one metric's defined values."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, value: float) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value


def _per_metric_values() -> dict[str, array[float]]:
    return {m: array("d") for m in _SOURCES}


@dataclass
class _Tally:
    """One configuration's rows so far: its settings, counts, running sums and (while kept) per-question values."""

    settings: dict[str, SettingValue]
    questions: int = 0
    #: Each kept value's question, as an index into ``Aggregator._questions``.
    index: array[int] = field(default_factory=lambda: array("q"))
    values: dict[str, array[float]] = field(default_factory=_per_metric_values)
    stats: dict[str, _Running] = field(default_factory=lambda: {m: _Running() for m in _SOURCES})
    #: Sums of the rows' curve bounds (their mean is the curve's own interval).
    curve_low: float = 0.0
    curve_high: float = 0.0
    outside: int = 0
    #: False once past ``max_bootstrap`` questions: the per-question values are dropped.
    kept: bool = True


class Aggregator:
    """Collects rows chunk by chunk; ``report()`` gives each configuration's means, intervals and paired differences.

    Per configuration and metric it keeps a running count, sum and sum of squares, plus the
    per-question values (for bootstraps and pairing) up to ``max_bootstrap`` questions.
    """

    def __init__(self, grid_keys: Sequence[str], *, max_bootstrap: int = BOOTSTRAP_MAX_QUESTIONS) -> None:
        self.grid_keys = list(grid_keys)
        self.max_bootstrap = max_bootstrap
        self._questions: dict[str, int] = {}
        self._configs: dict[str, _Tally] = {}

    def _entry(self, row: EvalRow) -> _Tally:
        entry = self._configs.get(row.config)
        if entry is None:
            entry = self._configs[row.config] = _Tally({k: row.settings[k] for k in self.grid_keys})
        return entry

    def add(self, rows: Sequence[EvalRow]) -> Aggregator:
        """Count ``rows`` in (any number, any configurations, questions in any order); return self."""
        for row in rows:
            entry = self._entry(row)
            entry.questions += 1
            if entry.kept:
                entry.index.append(self._questions.setdefault(row.query_id, len(self._questions)))
            for metric, column in _SOURCES.items():
                value = row.number(column)
                if value is not None:
                    entry.stats[metric].add(value)
                if entry.kept:
                    entry.values[metric].append(math.nan if value is None else value)
            read = row.metrics
            if read.expected_accuracy is not None and read.curve_low is not None and read.curve_high is not None:
                entry.curve_low += read.curve_low
                entry.curve_high += read.curve_high
            entry.outside += (read.curve or "").startswith("outside")
            if entry.kept and entry.questions > self.max_bootstrap:
                entry.kept = False
                entry.values, entry.index = {}, array("q")
        return self

    def _dense(self, label: str, metric: str) -> Any:
        """Return ``label``'s values of ``metric`` by question (NaN where undefined or not run)."""
        import numpy as np

        entry = self._configs[label]
        out = np.full(len(self._questions), np.nan)
        out[np.frombuffer(entry.index, dtype=np.int64)] = np.frombuffer(entry.values[metric], dtype=float)
        return out

    def _interval(self, entry: _Tally, metric: str, seed: int) -> tuple[float, float, float]:
        running = entry.stats[metric]
        n, total, squares = running.n, running.total, running.squares
        if n == 0:
            return (math.nan, math.nan, math.nan)
        if metric in _RATES or metric in _BOUNDED:
            scale = 100.0 if metric in _PERCENT else 1.0
            low, high = wilson_interval(min(max(total, 0.0), n), n)
            return (scale * total / n, scale * low, scale * high)
        if entry.kept:
            import numpy as np

            values = np.frombuffer(entry.values[metric], dtype=float)
            mean, low, high = bootstrap_interval(values[~np.isnan(values)], seed=seed)
        else:
            mean, low, high = _normal_interval(n, total, squares)
        if metric == "expected_accuracy":
            low, high = combine_intervals(
                mean, (low, high), _curve_interval(mean, (entry.curve_low, entry.curve_high), n)
            )
        return (mean, low, high)

    def baseline_label(self, baseline: str | None = None) -> str | None:
        """Return the baseline's label: ``baseline`` when it is a configuration here, the first when None."""
        if baseline is None:
            return next(iter(self._configs), None)
        if baseline not in self._configs:
            raise InvalidInputError(
                f"baseline {message_value(baseline)} is not a configuration of this run; "
                f"choose one of: {', '.join(self._configs)}",
                field="baseline",
            )
        return baseline

    def _paired(self, label: str, baseline: str, seed: int) -> dict[str, dict[str, float | int | None]] | None:
        if not (self._configs[label].kept and self._configs[baseline].kept):
            return None
        out: dict[str, dict[str, float | int | None]] = {}
        for metric in PAIRED_METRICS:
            if not self._configs[label].stats[metric].n:
                continue
            c = paired_comparison(
                self._dense(baseline, metric), self._dense(label, metric), yes_no=metric in _RATES, seed=seed
            )
            shown = c.to_dict()  # NaN (no pair) as null, six decimals, p to four significant digits
            shown.update(
                difference=_round(c.difference), low=_round(c.low), high=_round(c.high), p_value=_significant(c.p_value)
            )
            out[metric] = shown
        return out

    def summaries(self, *, seed: int = 0, baseline: str | None = None) -> list[dict[str, Any]]:
        """Return one summary per configuration, in first-seen order (see ``aggregate``)."""
        base = self.baseline_label(baseline)
        out = []
        for label, entry in self._configs.items():
            summary: dict[str, Any] = {"config": label, **entry.settings, "questions": entry.questions}
            for metric in _SOURCES:
                mean, low, high = self._interval(entry, metric, seed)
                summary[metric], summary[f"{metric}_low"], summary[f"{metric}_high"] = (
                    _round(mean),
                    _round(low),
                    _round(high),
                )
                summary[f"{metric}_n"] = entry.stats[metric].n
            summary["outside_curves"] = entry.outside
            summary["vs_baseline"] = None if base is None or label == base else self._paired(label, base, seed)
            out.append(summary)
        return out

    def _curve_evidence(
        self, summaries: Sequence[Mapping[str, Any]]
    ) -> tuple[dict[str, Sequence[float]], dict[str, tuple[float, float]]]:
        """Return each configuration's per-question expected accuracy and its curve's error (below, above)."""
        expected: dict[str, Sequence[float]] = {}
        errors: dict[str, tuple[float, float]] = {}
        for s in summaries:
            entry, mean = self._configs[s["config"]], s.get("expected_accuracy")
            n = entry.stats["expected_accuracy"].n
            if mean is None or not n:
                continue
            low, high = _curve_interval(mean, (entry.curve_low, entry.curve_high), n)
            expected[s["config"]] = self._dense(s["config"], "expected_accuracy")
            errors[s["config"]] = (mean - low, high - mean)
        return expected, errors

    def report(self, *, seed: int = 0, baseline: str | None = None) -> RunReport:
        """Return the run's statistics (``RunReport``): summaries, the recommendation, what budget buys."""
        summaries = self.summaries(seed=seed, baseline=baseline)
        metric = recommendation_metric(summaries)
        if all(e.kept for e in self._configs.values()):
            values = {label: self._dense(label, metric) for label in self._configs}
            expected, errors = self._curve_evidence(summaries) if metric == "gold_in_block" else (None, None)
            advice = recommend(
                summaries,
                values,
                metric,
                yes_no=True,
                seed=seed,
                percent=metric in _PERCENT,
                expected=expected,
                curve_error=errors,
            )
            settings = {label: entry.settings for label, entry in self._configs.items()}
            advice = _note_no_effect(advice, settings_without_effect(settings, values, self.grid_keys), settings)
        else:
            advice = Recommendation(
                metric,
                "No recommendation: paired comparisons need the "
                f"per-question values, kept up to {self.max_bootstrap:,} questions.",
            )
        return RunReport(
            self.baseline_label(baseline), summaries, advice, budget_gains(summaries, self.grid_keys, "gold_in_block")
        )


def _note_no_effect(
    advice: Recommendation, quiet: Sequence[str], settings: Mapping[str, Mapping[str, Any]]
) -> Recommendation:
    """Return ``advice`` saying which settings made no difference (the recommendation's value of one is a tie-break)."""
    if not quiet or advice.config is None:
        return advice
    words = METRIC_WORDS.get(advice.metric, advice.metric)
    said = []
    for key in quiet:
        values = [bool_text(v) for v in dict.fromkeys(s[key] for s in settings.values())]
        tried = ", ".join(values[:-1]) + " and " + values[-1]
        why = (
            "; the choice between them rests on the curve's expected accuracy above"
            if advice.decided_by == "expected_accuracy" and advice.told_apart
            else f", so the {key} named above is a tie-break, not a finding"
        )
        said.append(
            f"{key} made no difference to {words} here: every question's {words} is the same under {tried}{why}"
        )
    sentence = "; ".join(said)
    return replace(advice, no_effect=tuple(quiet), text=f"{advice.text} {sentence[:1].upper()}{sentence[1:]}.")


def aggregate(
    rows: Sequence[EvalRow], grid_keys: Sequence[str], *, seed: int = 0, baseline: str | None = None
) -> list[dict[str, Any]]:
    """Return one summary per configuration (in first-seen order): each metric's mean and 95% interval.

    Rates (gold_in_block, ...) are fractions; expected_accuracy is in percent. A metric's mean
    is over the questions where it is defined (gold_position only where the gold is in the block).
    ``vs_baseline`` holds the paired differences against ``baseline`` (default: the first).
    """
    return Aggregator(grid_keys).add(rows).summaries(seed=seed, baseline=baseline)
