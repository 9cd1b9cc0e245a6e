"""Writing a run: ``results.csv`` and ``summary.json``, all or nothing; a progress bar on stderr."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from ..errors import InvalidInputError
from .metrics import DEFAULT_MODEL, METRIC_COLUMNS, Aggregator
from .run import DEFAULT_TOP_K, EvalResult, plan_run
from .sets import load_eval_set

__all__ = ["results_csv", "write_results", "evaluate_to_files", "summary_table", "ProgressBar"]


def _cell(value: Any) -> Any:
    # Yes/no metrics as 1/0 so a spreadsheet's AVERAGE is the rate; undefined stays empty.
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    return value


def _csv_rows(rows: Sequence[dict[str, Any]], columns: Sequence[str], grid: Mapping[str, Any]) -> list[list[Any]]:
    # Grid settings are written as given (true/false for booleans); metrics through _cell.
    return [[(str(row[c]).lower() if isinstance(row[c], bool) else row[c]) if c in grid else _cell(row[c])
             for c in columns] for row in rows]


def results_csv(result: EvalResult) -> str:
    """Return the rows of ``result`` as CSV text (the header is ``result.columns``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(result.columns)
    writer.writerows(_csv_rows(result.rows, result.columns, result.grid))
    return buffer.getvalue()


def _check_target(path: Path, what: str) -> Path:
    path = path.expanduser()
    if path.is_dir():
        raise InvalidInputError(f"{what} {str(path)!r} is a folder; give a file name")
    if not path.parent.is_dir():
        raise InvalidInputError(f"{what} {str(path)!r}: folder {str(path.parent)!r} does not exist")
    return path


def _file_mode(path: Path) -> int:
    """Return the mode a plain ``open(path, "w")`` would give: the old file's, or 0o666 less the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_temp(path: Path, text: str) -> str:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); the results are an ordinary output file.
        os.fchmod(fd, _file_mode(path))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_results(result: EvalResult, out: str | Path, summary: str | Path | None = None,
                  *, seed: int = 0) -> None:
    """Write ``results.csv`` (and ``summary.json``): to temporary files first, then renamed.

    A failure leaves no half-written file behind and any earlier file untouched.
    """
    targets = [(_check_target(Path(out), "--out"), results_csv(result))]
    if summary is not None:
        text = json.dumps(result.summary(seed=seed), indent=2, allow_nan=False) + "\n"
        targets.append((_check_target(Path(summary), "--summary"), text))
    temps: list[str] = []
    try:
        for path, text in targets:
            temps.append(_write_temp(path, text))
        for (path, _), tmp in zip(targets, temps):
            os.replace(tmp, path)
    finally:
        for tmp in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)


def evaluate_to_files(evalset: str | Path | None, out: str | Path, summary: str | Path | None = None, *,
                      grid: Sequence[str] | None = None, top_k: int = DEFAULT_TOP_K, limit: int | None = None,
                      model: str = DEFAULT_MODEL, store: str | Path | None = None, workers: int | None = None,
                      scheduler: str | None = None, progress: Any = None) -> EvalResult:
    """Return the run of ``evalset`` (a JSONL path; None = the bundled set), streamed to ``out``.

    What ``contextlab eval`` does. The output paths are checked before the run starts, so a
    typo costs nothing. Rows go to a temporary file chunk by chunk as they are computed (memory
    does not grow with the number of questions; the result keeps the per-configuration
    aggregates, not the rows); the files get their names only once everything is written.
    """
    out_path = _check_target(Path(out), "--out")
    summary_path = _check_target(Path(summary), "--summary") if summary is not None else None
    if evalset is None and store is not None:
        raise InvalidInputError(f"--store {str(store)!r} is not used: the bundled set retrieves from its own "
                                "passages; give an evaluation set whose questions have no documents")
    loaded = None if evalset is None else load_eval_set(evalset, store=store)
    plan = plan_run(loaded, grid, top_k=top_k, limit=limit, model=model, workers=workers, scheduler=scheduler)
    columns = ["config", "query_id", *plan.grid, *METRIC_COLUMNS]
    aggregator = Aggregator(list(plan.grid))
    written = 0
    temps: list[str] = []
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".tmp", dir=out_path.parent)
        temps.append(tmp)
        os.fchmod(fd, _file_mode(out_path))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(columns)
            for rows in plan.chunks(progress):
                writer.writerows(_csv_rows(rows, columns, plan.grid))
                aggregator.add(rows)
                written += len(rows)
        result = plan.result([], aggregates=aggregator.summaries(), question_count=len(plan.evalset),
                             row_count=written)
        targets = [(out_path, tmp)]
        if summary_path is not None:
            text = json.dumps(result.summary(), indent=2, allow_nan=False) + "\n"
            targets.append((summary_path, _write_temp(summary_path, text)))
            temps.append(targets[-1][1])
        for path, temp in targets:
            os.replace(temp, path)
    finally:
        for temp in temps:
            if os.path.exists(temp):
                os.unlink(temp)
    return result


def summary_table(result: EvalResult) -> str:
    """Return one aligned line per configuration: its rates and mean tokens, with 95% intervals."""
    lines = [f"{result.n_questions} questions x {len(result.configs)} configurations "
             f"({result.evalset}); expected accuracy: {result.model}, estimated from Liu et al. (2024)"]
    width = max(len(c.label) for c in result.configs)
    head = f"{'config':<{width}}  {'gold in block':>20}  {'answer in block':>20}  {'expected acc. %':>20}  {'tokens':>7}"
    lines += [head, "-" * len(head)]
    for s in result.summaries():
        def cell(metric: str, scale: float = 100.0) -> str:
            if s[metric] is None:
                return f"{'-':>20}"
            return f"{s[metric] * scale:5.1f} [{s[metric + '_low'] * scale:5.1f}, {s[metric + '_high'] * scale:5.1f}]".rjust(20)
        lines.append(f"{s['config']:<{width}}  {cell('gold_in_block')}  {cell('answer_in_block')}  "
                     f"{cell('expected_accuracy', 1.0)}  {s['tokens_used']:7.0f}")
    return "\n".join(lines)


class ProgressBar:
    """A one-line progress bar: ``[#####.....] 120/300 questions 4.1 s``; silent off a terminal."""

    def __init__(self, stream: TextIO | None = None, *, width: int = 30, label: str = "questions",
                 enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.label = label
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start = time.monotonic()
        self._last = -1.0

    def __call__(self, done: int, total: int) -> None:
        """Redraw the bar (at most ten times a second, and always at the end)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r[{bar}] {done}/{total} {self.label} {now - self.start:.1f} s{end}")
        self.stream.flush()
