"""Two runs side by side (``contextlab compare A.json B.json``): the same configurations, paired where questions match.

A run is its ``summary.json``; the per-question rows are read from the ``results.csv`` the
summary names (its path is relative to the summary). Where both runs have their rows and a
question appears in both (same id and same text), the difference B - A is paired question by
question (paired bootstrap; McNemar's exact p for yes/no metrics). Without rows, the difference
of the means is given with an unpaired interval (the two half-widths in quadrature), and says so.
Expected accuracy read from two different curves (two ``--curve`` runs) carries both curves' own
error as well (``(+curves)`` in the table): the questions' bootstrap alone would claim a precision
the curves do not have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInputError
from ..intervals import format_interval
from ..safe_text import terminal_safe
from .saved_runs import COMPARED_METRICS, ComparedRow, LoadedRun, SummaryMean, load_run
from .stats import PairedDifference, combine_intervals, paired_comparison

__all__ = ["ConfigComparison", "MetricComparison", "RunAbout", "RunComparison", "compare_runs", "compare_table"]

# How much of a summary's own text (a label, a set name, a date) one table line shows.
_SHOWN_CHARS = 200


#: Summary metrics written in percent whose rows are 0/1: an unpaired difference is put in row units.
_PERCENT = {"accuracy": 100.0}


@dataclass(frozen=True)
class MetricComparison:
    """B - A on one metric of one configuration: the two means, the difference and its 95% interval.

    ``paired``: over the questions both runs' rows hold (``n`` of them; McNemar's ``p_value`` for a
    yes/no metric), else the difference of the means with an unpaired interval. ``curve_error``:
    the two runs read different curves, whose own error widens the interval.
    """

    a: float | None
    b: float | None
    difference: float
    low: float
    high: float
    n: int | None = None
    p_value: float | None = None
    paired: bool = False
    curve_error: bool = False


@dataclass(frozen=True)
class ConfigComparison:
    """One configuration both runs ran, and B - A on each metric both have."""

    config: str
    metrics: dict[str, MetricComparison]


@dataclass(frozen=True)
class RunAbout:
    """What the comparison says of one run: its file, set, curve, size, date, and whether its rows were read."""

    path: str
    evalset: str | None
    evalset_sha256: str | None
    curve_model: str | None
    answered_by: dict[str, object] | None
    questions: int | None
    created: str | None
    rows: bool
    why_no_rows: str | None


@dataclass(frozen=True)
class RunComparison:
    """Run B against run A (``compare_runs``): per configuration in both, per metric, B - A."""

    a: RunAbout
    b: RunAbout
    configs: list[ConfigComparison]
    #: Questions in both runs' rows (same id and text), None when the comparison is unpaired.
    matched_questions: int | None
    only_in_a: list[str]
    only_in_b: list[str]


def _unpaired(a: SummaryMean, b: SummaryMean, metric: str) -> MetricComparison | None:
    if a.mean is None or b.mean is None:
        return None
    unit = _PERCENT.get(metric, 1.0)
    diff = (b.mean - a.mean) / unit
    halves = [0.0 if s.low is None or s.high is None else (s.high - s.low) / 2 / unit for s in (a, b)]
    half = math.hypot(*halves)
    return MetricComparison(a.mean, b.mean, diff, diff - half, diff + half)


def _paired(
    rows_a: Mapping[str, ComparedRow],
    rows_b: Mapping[str, ComparedRow],
    means: tuple[SummaryMean, SummaryMean],
    metric: str,
    seed: int,
) -> MetricComparison | None:
    """Return B - A over the questions both runs' rows hold (same id and text), None when none has a value."""
    column, yes_no, _ = COMPARED_METRICS[metric]
    same = [q for q in rows_a if q in rows_b and (rows_a[q].query or "") == (rows_b[q].query or "")]
    a = [rows_a[q].values[column] for q in same]
    b = [rows_b[q].values[column] for q in same]
    if not any(v is not None for v in a) or not any(v is not None for v in b):
        return None
    c = paired_comparison(_numbers(a), _numbers(b), yes_no=yes_no, seed=seed)
    if c.n == 0:
        return None
    matched_a, matched_b = [rows_a[q] for q in same], [rows_b[q] for q in same]
    other_curves = metric == "expected_accuracy" and {r.curve for r in matched_a} != {r.curve for r in matched_b}
    if other_curves:
        c = _with_curve_error(c, matched_a, matched_b)
    return MetricComparison(
        means[0].mean, means[1].mean, c.difference, c.low, c.high, c.n, c.p_value, True, other_curves
    )


def _numbers(values: Sequence[float | None]) -> list[float]:
    """Return ``values`` with NaN for None (a question without a value is left out of the pairs)."""
    return [math.nan if v is None else v for v in values]


def _curve_half(rows: Sequence[ComparedRow]) -> tuple[float, float]:
    """Return the mean curve error below and above of ``rows`` that read a curve (0 where none says)."""
    read = [(v["expected_accuracy"], v["curve_low"], v["curve_high"]) for v in (r.values for r in rows)]
    known = [(mean, low, high) for mean, low, high in read if mean is not None and low is not None and high is not None]
    if not known:
        return (0.0, 0.0)
    return (
        sum(mean - low for mean, low, _ in known) / len(known),
        sum(high - mean for mean, _, high in known) / len(known),
    )


def _with_curve_error(
    c: PairedDifference, rows_a: Sequence[ComparedRow], rows_b: Sequence[ComparedRow]
) -> PairedDifference:
    """Return the expected-accuracy difference widened by both curves' own error (runs that read different curves).

    Two runs that read the same curve share its error (it cancels in the difference, as within
    a run); two curves (two measured models, say) each bring their own, which the questions'
    bootstrap does not see: each side adds the two curves' half-widths in quadrature.
    """
    low_a, high_a = _curve_half(rows_a)
    low_b, high_b = _curve_half(rows_b)
    below, above = math.hypot(high_a, low_b), math.hypot(low_a, high_b)
    return c.widened(*combine_intervals(c.difference, (c.low, c.high), (c.difference - below, c.difference + above)))


def compare_runs(a: str | Path, b: str | Path, *, seed: int = 0) -> RunComparison:
    """Return run B against run A: per configuration in both, per metric, the difference B - A and its interval."""
    run_a, run_b = load_run(a), load_run(b)
    by_a = {s.config: s for s in run_a.summary.configs}
    by_b = {s.config: s for s in run_b.summary.configs}
    shared = [label for label in by_a if label in by_b]
    if not shared:
        raise InvalidInputError(f"the two runs share no configuration: {', '.join(by_a)} against {', '.join(by_b)}")
    configs = []
    for label in shared:
        metrics = {}
        for metric in COMPARED_METRICS:
            means = (by_a[label].means[metric], by_b[label].means[metric])
            c = None
            if run_a.rows is not None and run_b.rows is not None and label in run_a.rows and label in run_b.rows:
                c = _paired(run_a.rows[label], run_b.rows[label], means, metric, seed)
            c = c or _unpaired(*means, metric)
            if c is not None:
                metrics[metric] = c
        configs.append(ConfigComparison(label, metrics))
    matched = None
    if run_a.rows is not None and run_b.rows is not None:
        first_a, first_b = run_a.rows.get(shared[0], {}), run_b.rows.get(shared[0], {})
        matched = sum(1 for q in first_a if q in first_b and first_a[q].query == first_b[q].query)
    return RunComparison(
        _about(run_a),
        _about(run_b),
        configs,
        matched,
        [x for x in by_a if x not in by_b],
        [x for x in by_b if x not in by_a],
    )


def _about(run: LoadedRun) -> RunAbout:
    s = run.summary
    return RunAbout(
        run.path,
        s.evalset,
        s.evalset_sha256,
        s.curve_model,
        s.answered_by,
        s.questions,
        s.created,
        run.rows is not None,
        run.why,
    )


def _cell(c: MetricComparison, scale: float) -> str:
    text = format_interval(c.difference * scale, c.low * scale, c.high * scale, signed=True)
    if c.p_value is not None:
        text += f" p={c.p_value:.3g}"
    return text + ("" if c.paired else " (unpaired)") + (" (+curves)" if c.curve_error else "")


def _shown(text: object) -> str:
    """Return a summary's text as one safe line of at most ``_SHOWN_CHARS`` characters."""
    line = terminal_safe(str(text))
    return line if len(line) <= _SHOWN_CHARS else line[:_SHOWN_CHARS] + "..."


def _run_line(side: str, run: RunAbout) -> str:
    """Return ``A: path (set, N questions, created)``: one short line whatever the summary's strings hold."""
    return (
        f"{side}: {terminal_safe(run.path)} ({_shown(run.evalset)}, {run.questions} questions, {_shown(run.created)})"
    )


def compare_table(
    comparison: RunComparison,
    metrics: Sequence[str] = ("gold_in_block", "accuracy", "expected_accuracy", "tokens_used"),
) -> str:
    """Return the comparison as aligned text: one line per configuration, B - A per metric with its interval.

    Every string that comes from the summaries (paths, set names, labels) is one line
    (``terminal_safe``), so no label can print a line of its own.
    """
    a, b = comparison.a, comparison.b
    lines = [_run_line("A", a), _run_line("B", b)]
    if comparison.matched_questions is None:
        side, why = ("A", a.why_no_rows) if a.why_no_rows else ("B", b.why_no_rows)
        lines.append(terminal_safe(f"Unpaired: {side}: {why}; differences of the means, intervals unpaired."))
    else:
        lines.append(f"Paired over {comparison.matched_questions} questions found in both runs (same id and text).")
    shown = [m for m in metrics if any(m in c.metrics for c in comparison.configs)]
    labels = [_shown(c.config) for c in comparison.configs]
    width = max(len(label) for label in labels)
    head = f"{'config':<{width}}  " + "  ".join(f"{'B - A ' + m.replace('_', ' '):>34}" for m in shown)
    lines += [head, "-" * len(head)]
    for label, c in zip(labels, comparison.configs, strict=False):
        cells = [(_cell(c.metrics[m], COMPARED_METRICS[m][2]) if m in c.metrics else "-") for m in shown]
        lines.append(f"{label:<{width}}  " + "  ".join(f"{x:>34}" for x in cells))
    for side, only in (("A", comparison.only_in_a), ("B", comparison.only_in_b)):
        if only:
            lines.append(f"Only in {side}: {', '.join(_shown(x) for x in only)}")
    return "\n".join(lines)
