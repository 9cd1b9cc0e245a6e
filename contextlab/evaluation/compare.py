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

import csv
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, LoadError
from ..intervals import format_interval
from ..safe_text import terminal_safe
from ..validation import is_finite_number, message_value
from .report import file_sha256
from .stats import combine_intervals, paired_comparison

__all__ = ["COMPARED_METRICS", "load_run", "compare_runs", "compare_table"]

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
# How much of a summary's own text (a label, a set name, a date) one table line shows.
_SHOWN_CHARS = 200


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


def _read_rows(csv_path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Return ``{config: {query_id: row}}`` from a results CSV, numbers parsed and checked."""
    rows: dict[str, dict[str, dict[str, Any]]] = {}
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
                parsed: dict[str, Any] = {"query": row.get("query"), "curve": row.get("curve") or ""}
                for column, yes_no, _ in COMPARED_METRICS.values():
                    parsed[column] = _number(row.get(column), where, column, yes_no)
                for column in _CURVE_BOUNDS:
                    parsed[column] = _number(row.get(column), where, column, False)
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


def _check_config(entry: Any, i: int, path: Path) -> dict[str, Any]:
    """Return ``configs[i]`` when it has a label and numbers (or nulls) where ``contextlab compare`` reads them."""
    where = f"{path}: configs[{i}]"
    if not isinstance(entry, dict):
        raise LoadError(f"{where} is {type(entry).__name__} {message_value(entry)}, not an object")
    label = entry.get("config")
    if not isinstance(label, str) or not label:
        raise LoadError(f"{where}.config is {message_value(label)}, not a configuration's label")
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
    return entry


def _check_summary(summary: Any, path: Path) -> dict[str, Any]:
    """Return ``summary`` when it is a contextlab eval summary with the types ``contextlab compare`` reads."""
    if not isinstance(summary, dict) or "contextlab_eval" not in summary or "configs" not in summary:
        raise LoadError(f"{path}: not the summary of a contextlab eval run (no 'contextlab_eval' and 'configs')")
    configs = summary["configs"]
    if not isinstance(configs, list) or not configs:
        raise LoadError(f"{path}: configs is {message_value(configs)}, not a list of configurations")
    checked = [_check_config(entry, i, path) for i, entry in enumerate(configs)]
    labels = [c["config"] for c in checked]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise LoadError(f"{path}: configuration {message_value(twice[0])} appears more than once in configs")
    for key in ("evalset", "evalset_sha256", "curve_model", "created"):
        if summary.get(key) is not None and not isinstance(summary[key], str):
            raise LoadError(f"{path}: {key} is {message_value(summary[key])}, not text")
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
    return summary


def _results_file(path: Path, record: Mapping[str, Any] | None) -> tuple[Path | None, str | None]:
    """Return the results CSV a summary names, inside the summary's own folder, or None and why not.

    A path that leads outside the summary's folder (absolute, ``..``, or a link out) is refused:
    a summary is data, and must not make ``contextlab compare`` open any other file.
    """
    if not record or not record.get("path"):
        return None, "the summary names no results CSV"
    if "\x00" in record["path"]:
        raise LoadError(f"{path}: results_csv.path {message_value(record['path'])} holds a NUL, not a file name")
    folder = path.parent.resolve()
    named = Path(record["path"])
    target = (folder / named).resolve()
    if named.is_absolute() or not target.is_relative_to(folder) or target == folder:
        raise LoadError(
            f"{path}: results_csv.path {message_value(record['path'])} leads outside the summary's "
            f"folder; contextlab compare reads only the results CSV beside its summary"
        )
    if not target.is_file():
        return None, f"{target} is not there"
    if target.stat().st_size > MAX_RESULTS_BYTES:
        raise LoadError(
            f"{target}: larger than {MAX_RESULTS_BYTES:,} bytes; contextlab compare reads results CSVs up to that size"
        )
    recorded = record.get("sha256")
    if not isinstance(recorded, str) or not _SHA256.fullmatch(recorded):
        return None, f"the summary records no SHA-256 for {target.name}, so its rows cannot be trusted to be the run's"
    if file_sha256(target) != recorded:
        return None, (
            f"{target.name} differs from the SHA-256 its summary recorded (changed after the run), "
            "so its rows are not used"
        )
    return target, None


def load_run(path: str | Path) -> dict[str, Any]:
    """Return a run: its summary (``summary``), its rows by configuration (``rows``, or None) and why not.

    The summary is checked (the fields ``contextlab compare`` reads have their types); the rows are
    read when the summary names a results CSV beside it (inside its folder) whose SHA-256 is
    the one the summary recorded; otherwise ``why`` says why not.
    """
    path = Path(path).expanduser()
    summary = _check_summary(_read_json(path), path)
    csv_path, why = _results_file(path, summary.get("results_csv"))
    rows = _read_rows(csv_path) if csv_path is not None else None
    return {"path": str(path), "summary": summary, "rows": rows, "why": why}


#: Summary metrics written in percent whose rows are 0/1: an unpaired difference is put in row units.
_PERCENT = {"accuracy": 100.0}


def _unpaired(a: Mapping[str, Any], b: Mapping[str, Any], metric: str) -> dict[str, Any] | None:
    if a.get(metric) is None or b.get(metric) is None:
        return None
    unit = _PERCENT.get(metric, 1.0)
    diff = (b[metric] - a[metric]) / unit
    halves = []
    for s in (a, b):
        low, high = s.get(f"{metric}_low"), s.get(f"{metric}_high")
        halves.append(0.0 if low is None or high is None else (high - low) / 2 / unit)
    half = math.hypot(*halves)
    return {"difference": diff, "low": diff - half, "high": diff + half, "n": None, "p_value": None, "paired": False}


def _paired(
    rows_a: Mapping[str, Mapping[str, Any]], rows_b: Mapping[str, Mapping[str, Any]], metric: str, seed: int
) -> dict[str, Any] | None:
    column, yes_no, _ = COMPARED_METRICS[metric]
    same = [q for q in rows_a if q in rows_b and (rows_a[q]["query"] or "") == (rows_b[q]["query"] or "")]
    a = [rows_a[q][column] for q in same]
    b = [rows_b[q][column] for q in same]
    if not any(v is not None for v in a) or not any(v is not None for v in b):
        return None
    c = paired_comparison(a, b, yes_no=yes_no, seed=seed)
    if c["n"] == 0:
        return None
    if metric == "expected_accuracy":
        c = _with_curve_error(c, [rows_a[q] for q in same], [rows_b[q] for q in same])
    return {**c, "paired": True}


def _curve_half(rows: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """Return the mean curve error below and above of ``rows`` that read a curve (0 where none says)."""
    read = [
        r
        for r in rows
        if r["expected_accuracy"] is not None and r["curve_low"] is not None and r["curve_high"] is not None
    ]
    if not read:
        return (0.0, 0.0)
    return (
        sum(r["expected_accuracy"] - r["curve_low"] for r in read) / len(read),
        sum(r["curve_high"] - r["expected_accuracy"] for r in read) / len(read),
    )


def _with_curve_error(
    c: Mapping[str, Any], rows_a: Sequence[Mapping[str, Any]], rows_b: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Return the expected-accuracy difference widened by both curves' own error when the runs read different curves.

    Two runs that read the same curve share its error (it cancels in the difference, as within
    a run); two curves (two measured models, say) each bring their own, which the questions'
    bootstrap does not see: each side adds the two curves' half-widths in quadrature.
    """
    if {r["curve"] for r in rows_a} == {r["curve"] for r in rows_b}:
        return {**c, "curve_error": False}
    low_a, high_a = _curve_half(rows_a)
    low_b, high_b = _curve_half(rows_b)
    below, above = math.hypot(high_a, low_b), math.hypot(low_a, high_b)
    low, high = combine_intervals(
        c["difference"], (c["low"], c["high"]), (c["difference"] - below, c["difference"] + above)
    )
    return {**c, "low": low, "high": high, "curve_error": True}


def compare_runs(a: str | Path, b: str | Path, *, seed: int = 0) -> dict[str, Any]:
    """Return run B against run A: per configuration in both, per metric, the difference B - A and its interval.

    Keys: ``a``/``b`` (path, set, its SHA-256, curve_model, questions, created), ``configs`` (label,
    ``metrics``: {metric: {a, b, difference, low, high, n, p_value, paired}}), ``only_in_a``,
    ``only_in_b``, ``matched_questions`` (questions in both runs' rows, by id and text, or None).
    """
    run_a, run_b = load_run(a), load_run(b)
    by_a = {s["config"]: s for s in run_a["summary"]["configs"]}
    by_b = {s["config"]: s for s in run_b["summary"]["configs"]}
    shared = [label for label in by_a if label in by_b]
    if not shared:
        raise InvalidInputError(f"the two runs share no configuration: {', '.join(by_a)} against {', '.join(by_b)}")
    paired = run_a["rows"] is not None and run_b["rows"] is not None
    configs = []
    for label in shared:
        metrics: dict[str, Any] = {}
        for metric in COMPARED_METRICS:
            c = None
            if paired and label in run_a["rows"] and label in run_b["rows"]:
                c = _paired(run_a["rows"][label], run_b["rows"][label], metric, seed)
            c = c or _unpaired(by_a[label], by_b[label], metric)
            if c is not None:
                metrics[metric] = {"a": by_a[label].get(metric), "b": by_b[label].get(metric), **c}
        configs.append({"config": label, "metrics": metrics})
    matched = None
    if paired:
        first_a, first_b = run_a["rows"][shared[0]], run_b["rows"].get(shared[0], {})
        matched = sum(1 for q in first_a if q in first_b and first_a[q]["query"] == first_b[q]["query"])
    return {
        "a": _about(run_a),
        "b": _about(run_b),
        "configs": configs,
        "matched_questions": matched,
        "only_in_a": [x for x in by_a if x not in by_b],
        "only_in_b": [x for x in by_b if x not in by_a],
    }


def _about(run: Mapping[str, Any]) -> dict[str, Any]:
    s = run["summary"]
    return {
        "path": run["path"],
        "evalset": s.get("evalset"),
        "evalset_sha256": s.get("evalset_sha256"),
        "curve_model": s.get("curve_model"),
        "answered_by": s.get("answered_by"),
        "questions": s.get("questions"),
        "created": s.get("created"),
        "rows": run["rows"] is not None,
        "why_no_rows": run["why"],
    }


def _cell(c: Mapping[str, Any], scale: float) -> str:
    text = format_interval(c["difference"] * scale, c["low"] * scale, c["high"] * scale, signed=True)
    if c.get("p_value") is not None:
        text += f" p={c['p_value']:.3g}"
    return text + ("" if c.get("paired") else " (unpaired)") + (" (+curves)" if c.get("curve_error") else "")


def _shown(text: object) -> str:
    """Return a summary's text as one safe line of at most ``_SHOWN_CHARS`` characters."""
    line = terminal_safe(str(text))
    return line if len(line) <= _SHOWN_CHARS else line[:_SHOWN_CHARS] + "..."


def _run_line(side: str, run: Mapping[str, Any]) -> str:
    """Return ``A: path (set, N questions, created)``: one short line whatever the summary's strings hold."""
    return (
        f"{side}: {terminal_safe(run['path'])} ({_shown(run['evalset'])}, {run['questions']} questions, "
        f"{_shown(run['created'])})"
    )


def compare_table(
    comparison: Mapping[str, Any],
    metrics: Sequence[str] = ("gold_in_block", "accuracy", "expected_accuracy", "tokens_used"),
) -> str:
    """Return the comparison as aligned text: one line per configuration, B - A per metric with its interval.

    Every string that comes from the summaries (paths, set names, labels) is one line
    (``terminal_safe``), so no label can print a line of its own.
    """
    a, b = comparison["a"], comparison["b"]
    lines = [_run_line("A", a), _run_line("B", b)]
    if comparison["matched_questions"] is None:
        side, why = ("A", a["why_no_rows"]) if a["why_no_rows"] else ("B", b["why_no_rows"])
        lines.append(terminal_safe(f"Unpaired: {side}: {why}; differences of the means, intervals unpaired."))
    else:
        lines.append(f"Paired over {comparison['matched_questions']} questions found in both runs (same id and text).")
    shown = [m for m in metrics if any(m in c["metrics"] for c in comparison["configs"])]
    labels = [_shown(c["config"]) for c in comparison["configs"]]
    width = max(len(label) for label in labels)
    head = f"{'config':<{width}}  " + "  ".join(f"{'B - A ' + m.replace('_', ' '):>34}" for m in shown)
    lines += [head, "-" * len(head)]
    for label, c in zip(labels, comparison["configs"], strict=False):
        cells = [(_cell(c["metrics"][m], COMPARED_METRICS[m][2]) if m in c["metrics"] else "-") for m in shown]
        lines.append(f"{label:<{width}}  " + "  ".join(f"{x:>34}" for x in cells))
    for side, only in (("A", comparison["only_in_a"]), ("B", comparison["only_in_b"])):
        if only:
            lines.append(f"Only in {side}: {', '.join(_shown(x) for x in only)}")
    return "\n".join(lines)
