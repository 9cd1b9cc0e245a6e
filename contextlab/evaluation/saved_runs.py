"""A saved run read back: its ``summary.json`` and the ``results.csv`` it names, checked at the door.

What ``contextlab compare`` reads of a run, turned into the library's own values: the summary's
configurations with each metric's mean and interval (``RunSummary``), and the per-question rows
(``ComparedRow``) when the summary names a results CSV beside it whose SHA-256 it recorded.
Everything read is checked here (types, sizes, paths that stay in the summary's folder); past
``load_run`` the values are trusted.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LoadError
from ..validation import is_finite_number, message_value
from .report import file_sha256

__all__ = [
    "COMPARED_METRICS",
    "ComparedRow",
    "LoadedRun",
    "ResultsRecord",
    "RunSummary",
    "SummaryConfig",
    "SummaryMean",
    "load_run",
]

#: Summary metric -> (row column, yes/no?, scale for printing).
COMPARED_METRICS: dict[str, tuple[str, bool, float]] = {
    "accuracy": ("correct", True, 100.0),
    "gold_in_block": ("gold_in_block", True, 100.0),
    "answer_in_block": ("answer_in_block", True, 100.0),
    "gold_recall": ("gold_recall", False, 100.0),
    "expected_accuracy": ("expected_accuracy", False, 1.0),
    "tokens_used": ("tokens_used", False, 1.0),
}


#: The columns of a row's curve reading: its own 95% interval (the curve's error, not the questions').
_CURVE_BOUNDS = ("curve_low", "curve_high")

#: The largest summary and results CSV ``contextlab compare`` reads (a run's files are far smaller).
MAX_SUMMARY_BYTES = 32 * 1024 * 1024
MAX_RESULTS_BYTES = 512 * 1024 * 1024
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _number(text: str | None, where: str, column: str, yes_no: bool) -> float | None:
    """Return a results cell as a number (None when empty), or raise naming the file, row and column."""
    if text is None or text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or (yes_no and value not in (0.0, 1.0)):
        wanted = "0 or 1" if yes_no else "a finite number"
        raise LoadError(
            f"{where}: {column} is {message_value(text)}, not {wanted}; give the results CSV of a contextlab eval run"
        )
    return value


@dataclass(frozen=True)
class ComparedRow:
    """One results CSV row as ``contextlab compare`` reads it: the question's text, the curve read, the numbers."""

    query: str | None
    curve: str
    #: Column -> number (None where the cell is empty): every ``COMPARED_METRICS`` column and the curve's bounds.
    values: dict[str, float | None]


def _read_rows(csv_path: Path) -> dict[str, dict[str, ComparedRow]]:
    """Return ``{config: {query_id: row}}`` from a results CSV, numbers parsed and checked."""
    rows: dict[str, dict[str, ComparedRow]] = {}
    try:
        with csv_path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in ("config", "query_id") if c not in (reader.fieldnames or [])]
            if missing:
                raise LoadError(
                    f"{csv_path}: no {' and no '.join(missing)} column; give the results CSV of a contextlab eval run"
                )
            for row in reader:
                where = f"{csv_path} line {reader.line_num}"
                values = {
                    column: _number(row.get(column), where, column, yes_no)
                    for column, yes_no, _ in COMPARED_METRICS.values()
                }
                values.update((column, _number(row.get(column), where, column, False)) for column in _CURVE_BOUNDS)
                parsed = ComparedRow(row.get("query"), row.get("curve") or "", values)
                rows.setdefault(row["config"] or "", {})[row["query_id"] or ""] = parsed
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise LoadError(f"{csv_path}: cannot be read as a contextlab results CSV ({exc})") from None
    return rows


def _read_json(path: Path) -> Any:
    """Return the JSON in ``path`` (at most ``MAX_SUMMARY_BYTES``; NaN and Infinity refused)."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_SUMMARY_BYTES + 1)
    except OSError as exc:
        raise LoadError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_SUMMARY_BYTES:
        raise LoadError(f"{path}: larger than {MAX_SUMMARY_BYTES:,} bytes; not the summary of a contextlab eval run")
    try:
        return json.loads(raw.decode("utf-8-sig"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as exc:
        raise LoadError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise LoadError(f"{path}: not JSON ({exc.msg}); give the --summary file of a contextlab eval run") from None
    except (ValueError, RecursionError) as exc:
        raise LoadError(f"{path}: not a summary of a contextlab eval run ({exc})") from None


@dataclass(frozen=True)
class SummaryMean:
    """One metric of one configuration in a summary: its mean and 95% interval (None where not given)."""

    mean: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class SummaryConfig:
    """One configuration of a summary, as ``contextlab compare`` reads it: its label and each metric's mean."""

    config: str
    means: dict[str, SummaryMean]


@dataclass(frozen=True)
class ResultsRecord:
    """Where a summary says its results CSV is (relative to the summary) and the SHA-256 it had."""

    path: str
    sha256: str | None


@dataclass(frozen=True)
class RunSummary:
    """The parts of a ``summary.json`` that ``contextlab compare`` reads, checked."""

    configs: list[SummaryConfig]
    evalset: str | None = None
    evalset_sha256: str | None = None
    curve_model: str | None = None
    created: str | None = None
    questions: int | None = None
    results_csv: ResultsRecord | None = None
    answered_by: dict[str, object] | None = None


def _check_config(entry: object, i: int, path: Path) -> SummaryConfig:
    """Return ``configs[i]`` when it has a label and numbers (or nulls) where ``contextlab compare`` reads them."""
    where = f"{path}: configs[{i}]"
    if not isinstance(entry, dict):
        raise LoadError(f"{where} is {type(entry).__name__} {message_value(entry)}, not an object")
    label = entry.get("config")
    if not isinstance(label, str) or not label:
        raise LoadError(f"{where}.config is {message_value(label)}, not a configuration's label")
    means = {}
    for metric in COMPARED_METRICS:
        for key in (metric, f"{metric}_low", f"{metric}_high"):
            value = entry.get(key)
            if value is not None and not is_finite_number(value):
                raise LoadError(f"{where}.{key} is {message_value(value)}, not a number")
        low, high = entry.get(f"{metric}_low"), entry.get(f"{metric}_high")
        if low is not None and high is not None and low > high:  # an unpaired interval would hold everything
            raise LoadError(
                f"{where}: {metric}_low {message_value(low)} is above {metric}_high "
                f"{message_value(high)}, not an interval"
            )
        means[metric] = SummaryMean(entry.get(metric), low, high)
    return SummaryConfig(label, means)


def _text_field(summary: dict[str, object], key: str, path: Path) -> str | None:
    value = summary.get(key)
    if value is not None and not isinstance(value, str):
        raise LoadError(f"{path}: {key} is {message_value(value)}, not text")
    return value


def _check_summary(summary: object, path: Path) -> RunSummary:
    """Return ``summary`` when it is a contextlab eval summary with the types ``contextlab compare`` reads."""
    if not isinstance(summary, dict) or "contextlab_eval" not in summary or "configs" not in summary:
        raise LoadError(f"{path}: not the summary of a contextlab eval run (no 'contextlab_eval' and 'configs')")
    configs = summary["configs"]
    if not isinstance(configs, list) or not configs:
        raise LoadError(f"{path}: configs is {message_value(configs)}, not a list of configurations")
    checked = [_check_config(entry, i, path) for i, entry in enumerate(configs)]
    labels = [c.config for c in checked]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise LoadError(f"{path}: configuration {message_value(twice[0])} appears more than once in configs")
    texts = {key: _text_field(summary, key, path) for key in ("evalset", "evalset_sha256", "curve_model", "created")}
    questions = summary.get("questions")
    if questions is not None and (isinstance(questions, bool) or not isinstance(questions, int) or questions < 0):
        raise LoadError(f"{path}: questions is {message_value(questions)}, not a count")
    record = summary.get("results_csv")
    if record is not None and not (
        isinstance(record, dict)
        and isinstance(record.get("path"), str)
        and isinstance(record.get("sha256"), (str, type(None)))
    ):
        raise LoadError(f"{path}: results_csv is {message_value(record)}, not {{path, sha256}}")
    answered = summary.get("answered_by")
    if answered is not None and not isinstance(answered, dict):
        raise LoadError(f"{path}: answered_by is {message_value(answered)}, not an object")
    return RunSummary(
        checked,
        questions=questions,
        results_csv=None if record is None else ResultsRecord(record["path"], record.get("sha256")),
        answered_by=answered,
        **texts,
    )


def _results_file(path: Path, record: ResultsRecord | None) -> tuple[Path | None, str | None]:
    """Return the results CSV a summary names, inside the summary's own folder, or None and why not.

    A path that leads outside the summary's folder (absolute, ``..``, or a link out) is refused:
    a summary is data, and must not make ``contextlab compare`` open any other file.
    """
    if record is None or not record.path:
        return None, "the summary names no results CSV"
    if "\x00" in record.path:
        raise LoadError(f"{path}: results_csv.path {message_value(record.path)} holds a NUL, not a file name")
    folder = path.parent.resolve()
    named = Path(record.path)
    target = (folder / named).resolve()
    if named.is_absolute() or not target.is_relative_to(folder) or target == folder:
        raise LoadError(
            f"{path}: results_csv.path {message_value(record.path)} leads outside the summary's "
            f"folder; contextlab compare reads only the results CSV beside its summary"
        )
    if not target.is_file():
        return None, f"{target} is not there"
    if target.stat().st_size > MAX_RESULTS_BYTES:
        raise LoadError(
            f"{target}: larger than {MAX_RESULTS_BYTES:,} bytes; contextlab compare reads results CSVs up to that size"
        )
    recorded = record.sha256
    if recorded is None or not _SHA256.fullmatch(recorded):
        return None, f"the summary records no SHA-256 for {target.name}, so its rows cannot be trusted to be the run's"
    if file_sha256(target) != recorded:
        return None, (
            f"{target.name} differs from the SHA-256 its summary recorded (changed after the run), "
            "so its rows are not used"
        )
    return target, None


@dataclass(frozen=True)
class LoadedRun:
    """A run as ``contextlab compare`` reads it: its checked summary, its rows by configuration, or why not."""

    path: str
    summary: RunSummary
    #: ``{config: {query_id: row}}``, None when the results CSV cannot be used (``why`` says why).
    rows: dict[str, dict[str, ComparedRow]] | None
    why: str | None


def load_run(path: str | Path) -> LoadedRun:
    """Return a run: its summary, its rows by configuration (or None) and why not.

    The summary is checked (the fields ``contextlab compare`` reads have their types); the rows are
    read when the summary names a results CSV beside it (inside its folder) whose SHA-256 is
    the one the summary recorded; otherwise ``why`` says why not.
    """
    path = Path(path).expanduser()
    summary = _check_summary(_read_json(path), path)
    csv_path, why = _results_file(path, summary.results_csv)
    rows = _read_rows(csv_path) if csv_path is not None else None
    return LoadedRun(str(path), summary, rows, why)
