"""Two runs side by side (``contextlab eval compare A.json B.json``): the same configurations, paired where the questions match.

A run is its ``summary.json``; the per-question rows are read from the ``results.csv`` the
summary names (its path is relative to the summary). Where both runs have their rows and a
question appears in both (same id and same text), the difference B - A is paired question by
question (paired bootstrap; McNemar's exact p for yes/no metrics). Without rows, the difference
of the means is given with an unpaired interval (the two half-widths in quadrature), and says so.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, LoadError
from .stats import paired_comparison

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


def _number(text: str | None) -> float | None:
    if text is None or text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _read_rows(csv_path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Return ``{config: {query_id: row}}`` from a results CSV, numbers parsed."""
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    try:
        with csv_path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                parsed: dict[str, Any] = {"query": row.get("query")}
                for column, _, _ in COMPARED_METRICS.values():
                    parsed[column] = _number(row.get(column))
                rows.setdefault(row["config"], {})[row["query_id"]] = parsed
    except (OSError, UnicodeDecodeError, KeyError, csv.Error) as exc:
        raise LoadError(f"{csv_path}: cannot be read as a contextlab results CSV ({exc})") from None
    return rows


def load_run(path: str | Path) -> dict[str, Any]:
    """Return a run: its summary (``summary``), its rows by configuration (``rows``, or None) and why not.

    The rows are read when the summary names a results CSV that exists next to it.
    """
    path = Path(path).expanduser()
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LoadError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise LoadError(f"{path}: not JSON ({exc.msg}); give the --summary file of a contextlab eval run") from None
    if not isinstance(summary, dict) or "contextlab_eval" not in summary or "configs" not in summary:
        raise LoadError(f"{path}: not the summary of a contextlab eval run (no 'contextlab_eval' and 'configs')")
    record = summary.get("results_csv") or {}
    csv_path = (path.parent / record["path"]) if record.get("path") else None
    if csv_path is None:
        return {"path": str(path), "summary": summary, "rows": None, "why": "the summary names no results CSV"}
    if not csv_path.is_file():
        return {"path": str(path), "summary": summary, "rows": None, "why": f"{csv_path} is not there"}
    return {"path": str(path), "summary": summary, "rows": _read_rows(csv_path), "why": None}


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


def _paired(rows_a: Mapping[str, Mapping[str, Any]], rows_b: Mapping[str, Mapping[str, Any]], metric: str,
            seed: int) -> dict[str, Any] | None:
    column, yes_no, _ = COMPARED_METRICS[metric]
    same = [q for q in rows_a if q in rows_b and (rows_a[q]["query"] or "") == (rows_b[q]["query"] or "")]
    a = [rows_a[q][column] for q in same]
    b = [rows_b[q][column] for q in same]
    if not any(v is not None for v in a) or not any(v is not None for v in b):
        return None
    c = paired_comparison(a, b, yes_no=yes_no, seed=seed)
    if c["n"] == 0:
        return None
    return {**c, "paired": True}


def compare_runs(a: str | Path, b: str | Path, *, seed: int = 0) -> dict[str, Any]:
    """Return run B against run A: per configuration in both, per metric, the difference B - A and its interval.

    Keys: ``a``/``b`` (path, set, its SHA-256, model, questions, created), ``configs`` (label,
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
    return {"a": _about(run_a), "b": _about(run_b), "configs": configs, "matched_questions": matched,
            "only_in_a": [x for x in by_a if x not in by_b], "only_in_b": [x for x in by_b if x not in by_a]}


def _about(run: Mapping[str, Any]) -> dict[str, Any]:
    s = run["summary"]
    return {"path": run["path"], "evalset": s.get("evalset"), "evalset_sha256": s.get("evalset_sha256"),
            "model": s.get("model"), "answered_by": s.get("answered_by"), "questions": s.get("questions"),
            "created": s.get("created"), "rows": run["rows"] is not None, "why_no_rows": run["why"]}


def _cell(c: Mapping[str, Any], scale: float) -> str:
    text = f"{c['difference'] * scale:+.1f} [{c['low'] * scale:+.1f}, {c['high'] * scale:+.1f}]"
    if c.get("p_value") is not None:
        text += f" p={c['p_value']:.3g}"
    return text + ("" if c.get("paired") else " (unpaired)")


def compare_table(comparison: Mapping[str, Any], metrics: Sequence[str] = ("gold_in_block", "accuracy",
                                                                           "expected_accuracy", "tokens_used")) -> str:
    """Return the comparison as aligned text: one line per configuration, B - A per metric with its interval."""
    a, b = comparison["a"], comparison["b"]
    lines = [f"A: {a['path']} ({a['evalset']}, {a['questions']} questions, {a['created']})",
             f"B: {b['path']} ({b['evalset']}, {b['questions']} questions, {b['created']})"]
    if comparison["matched_questions"] is None:
        why = a["why_no_rows"] or b["why_no_rows"]
        lines.append(f"Unpaired: {why}; differences of the means, intervals unpaired.")
    else:
        lines.append(f"Paired over {comparison['matched_questions']} questions found in both runs (same id and text).")
    shown = [m for m in metrics if any(m in c["metrics"] for c in comparison["configs"])]
    width = max(len(c["config"]) for c in comparison["configs"])
    head = f"{'config':<{width}}  " + "  ".join(f"{'B - A ' + m.replace('_', ' '):>34}" for m in shown)
    lines += [head, "-" * len(head)]
    for c in comparison["configs"]:
        cells = [(_cell(c["metrics"][m], COMPARED_METRICS[m][2]) if m in c["metrics"] else "-") for m in shown]
        lines.append(f"{c['config']:<{width}}  " + "  ".join(f"{x:>34}" for x in cells))
    for side, labels in (("A", comparison["only_in_a"]), ("B", comparison["only_in_b"])):
        if labels:
            lines.append(f"Only in {side}: {', '.join(labels)}")
    return "\n".join(lines)
