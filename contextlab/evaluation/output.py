"""Writing a run: ``results.csv`` and ``summary.json``, all or nothing (``contextlab.atomic``)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from ..atomic import StagedFile, check_target, write_files
from ..intervals import format_interval
from ..progress import Progress
from ..validation import bool_text
from .aggregate import Aggregator
from .options import RunOptions
from .report import ResultsFile
from .rows import EvalRow
from .run import EvalResult, RunPlan, plan_run
from .sets import EvalSet
from .stats import BudgetCurve, rising_step

__all__ = ["results_csv", "write_results", "stream_to_files", "evaluate_to_files", "summary_table", "gains_lines"]


def _cell(value: Any) -> Any:
    # Yes/no metrics as 1/0 so a spreadsheet's AVERAGE is the rate; undefined stays empty.
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    return value


def _csv_rows(
    rows: Sequence[EvalRow], columns: Sequence[str], grid: Mapping[str, Any], questions: Mapping[str, str]
) -> list[list[Any]]:
    # Grid settings are written as given (true/false for booleans); metrics through _cell; the
    # question's text comes from the set, so a row reads without the library.
    def value(row: EvalRow, c: str) -> Any:
        if c == "query":
            return questions.get(row.query_id, "")
        cell = row.value(c)
        if c in grid:
            return bool_text(cell) if isinstance(cell, bool) else cell
        return _cell(cell)

    return [[value(row, c) for c in columns] for row in rows]


def results_csv(result: EvalResult) -> str:
    """Return the rows of ``result`` as CSV text (the header is ``result.columns``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(result.columns)
    writer.writerows(_csv_rows(result.rows, result.columns, result.grid, result.questions))
    return buffer.getvalue()


def write_results(result: EvalResult, out: str | Path, summary: str | Path | None = None, *, seed: int = 0) -> None:
    """Write ``results.csv`` (and ``summary.json``): to temporary files first, then renamed.

    A failure leaves no half-written file behind and any earlier file untouched. The summary
    records where the CSV is (relative to the summary) and its SHA-256, for ``contextlab compare``.
    """
    csv_text = results_csv(result)
    out_path = check_target(out, "out")
    texts: dict[str | os.PathLike[str], str] = {out_path: csv_text}
    if summary is not None:
        summary_path = check_target(summary, "summary")
        result.provenance["results_csv"] = _csv_record(
            out_path, summary_path, hashlib.sha256(csv_text.encode("utf-8")).hexdigest()
        )
        texts[summary_path] = json.dumps(result.summary(seed=seed), indent=2, allow_nan=False) + "\n"
    write_files(texts)


def stream_to_files(
    plan: RunPlan, out: str | Path, summary: str | Path | None = None, *, progress: Progress | None = None
) -> EvalResult:
    """Return the run of ``plan`` (``plan_run``), its rows streamed to ``out`` as they are made.

    The output paths are checked before the first question, so a typo costs nothing. Rows go
    to a temporary file chunk by chunk (memory does not grow with the number of questions; the
    result keeps the per-configuration aggregates, not the rows); the files get their names only
    once everything is written, ``summary`` (the JSON) with them.
    """
    out_path = check_target(out, "out")
    summary_path = check_target(summary, "summary") if summary is not None else None
    columns = plan.result([]).columns
    texts = {q.query_id: q.query for q in plan.evalset.questions}
    aggregator = Aggregator(list(plan.grid))
    digest = hashlib.sha256()
    written = 0
    with StagedFile(out_path) as staged_csv:
        writer = _HashingWriter(staged_csv.handle, digest)
        writer.writerow(columns)
        for rows in plan.chunks(progress):
            writer.writerows(_csv_rows(rows, columns, plan.grid, texts))
            aggregator.add(rows)
            written += len(rows)
        staged_csv.close()
        result = plan.result(
            [],
            analysis=aggregator.report(baseline=plan.options.baseline),
            question_count=len(plan.evalset),
            row_count=written,
        )
        if summary_path is None:
            staged_csv.commit()
            return result
        result.provenance["results_csv"] = _csv_record(out_path, summary_path, digest.hexdigest())
        with StagedFile(summary_path) as staged_summary:
            staged_summary.write(json.dumps(result.summary(), indent=2, allow_nan=False) + "\n")
            staged_summary.close()
            staged_csv.commit()
            staged_summary.commit()
    return result


def evaluate_to_files(
    evalset: EvalSet | str | Path | None,
    out: str | Path,
    summary: str | Path | None = None,
    *,
    grid: Sequence[str] | Mapping[str, Sequence[Any]] | None = None,
    options: RunOptions | None = None,
    progress: Progress | None = None,
) -> EvalResult:
    """Return the run of ``evalset`` x ``grid`` (``plan_run``), streamed to ``out`` (``stream_to_files``)."""
    return stream_to_files(plan_run(evalset, grid, options), out, summary, progress=progress)


class _HashingWriter:
    """A CSV writer that also feeds every line it writes to a SHA-256 (the file's digest, as written)."""

    def __init__(self, fh: IO[str], digest: Any) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\n")
        self._fh, self._digest = fh, digest

    def _flush(self) -> None:
        text = self._buffer.getvalue()
        self._fh.write(text)
        self._digest.update(text.encode("utf-8"))
        self._buffer.seek(0)
        self._buffer.truncate()

    def writerow(self, row: Sequence[Any]) -> None:
        """Write one row."""
        self._writer.writerow(row)
        self._flush()

    def writerows(self, rows: Sequence[Sequence[Any]]) -> None:
        """Write many rows."""
        self._writer.writerows(rows)
        self._flush()


def _csv_record(csv_path: Path, summary_path: Path, sha256: str) -> ResultsFile:
    """Return where the results CSV is, relative to the summary's folder, and its SHA-256."""
    where = os.path.relpath(csv_path.resolve(), summary_path.resolve().parent)
    return ResultsFile(path=where, sha256=sha256)


def _interval_cell(s: Mapping[str, Any], metric: str, scale: float) -> str:
    if s.get(metric) is None:
        return f"{'-':>20}"
    low, high = s[metric + "_low"] * scale, s[metric + "_high"] * scale
    return format_interval(s[metric] * scale, low, high, width=5).rjust(20)


def _difference_cells(s: Mapping[str, Any], metric: str, scale: float) -> str:
    """Return the paired difference against the baseline and its p-value, as two aligned cells."""
    paired = s.get("vs_baseline")
    if paired is None:
        return f"{'baseline':>22}  {'':>8}"
    c = paired.get(metric)
    if not c or c.get("difference") is None:
        return f"{'-':>22}  {'-':>8}"
    text = format_interval(c["difference"] * scale, c["low"] * scale, c["high"] * scale, signed=True, width=5)
    p = "-" if c.get("p_value") is None else f"{c['p_value']:.3g}"
    return f"{text:>22}  {p:>8}"


def gains_lines(gains: Sequence[BudgetCurve]) -> list[str]:
    """Return one line per budget curve: points of gold in block per extra 100 tokens, and the knee."""
    lines = []
    for curve in gains:
        steps = "; ".join(
            f"{st['from']}->{st['to']}: " + ("-" if st["gain_per_100"] is None else f"{st['gain_per_100']:+.2f}")
            for st in curve["steps"]
        )
        where = " ".join(f"{k}={bool_text(v)}" for k, v in curve["settings"].items())
        knee = f"; knee at {curve['key']}={curve['knee']}" if curve["knee"] is not None else "; no knee"
        rises = rising_step([st["gain_per_100"] for st in curve["steps"]]) if curve["knee"] is None else None
        if rises is not None:  # say why: returns do not diminish, a later step gains more
            up, down = curve["steps"][rises], curve["steps"][rises - 1]
            knee += f" ({up['from']}->{up['to']} gains more per 100 tokens than {down['from']}->{down['to']})"
        lines.append(f"gold in block gained per extra 100 tokens{' (' + where + ')' if where else ''}: {steps}{knee}")
    return lines


def summary_table(result: EvalResult) -> str:
    """Return one aligned line per configuration: rates, tokens, 95% intervals, paired differences, p-values.

    The differences are against the baseline on the recommendation's metric (measured accuracy
    when a model answered, else gold in block), in points; then the recommendation in words
    and what each extra 100 tokens of budget gains.
    """
    report = result.report()
    metric = report.metric
    words = "accuracy" if metric == "accuracy" else "gold in block"
    lines = [
        f"{result.n_questions} questions x {len(result.configs)} configurations "
        f"({result.evalset}); expected accuracy: {result.curve_model}, estimated from Liu et al. (2024); "
        f"baseline: {report.baseline}"
    ]
    width = max(len(c.label) for c in result.configs)
    measured = metric == "accuracy"
    head = (
        f"{'config':<{width}}  {'gold in block %':>20}  {'answer in block %':>20}  "
        + (f"{'accuracy %':>20}  " if measured else "")
        + f"{'expected acc. %':>20}  {'tokens':>7}  {('d ' + words + ' vs base'):>22}  {'p':>8}"
    )
    lines += [head, "-" * len(head)]
    for s in report.configs:
        lines.append(
            f"{s['config']:<{width}}  {_interval_cell(s, 'gold_in_block', 100)}  "
            f"{_interval_cell(s, 'answer_in_block', 100)}  "
            + (f"{_interval_cell(s, 'accuracy', 1.0)}  " if measured else "")
            + f"{_interval_cell(s, 'expected_accuracy', 1.0)}  {s['tokens_used']:7.0f}  "
            f"{_difference_cells(s, metric, 100)}"
        )
    outside = sum(s.get("outside_curves") or 0 for s in report.configs)
    if outside:
        lines.append(
            f"{outside:,} rows read outside every curve: their blocks hold more documents than any "
            f"published curve ({result.curve_model}), so expected_accuracy reads the largest (column curve)."
        )
    lines.append(f"Recommendation. {report.recommendation.text}")
    lines += gains_lines(report.budget_gains)
    return "\n".join(lines)
