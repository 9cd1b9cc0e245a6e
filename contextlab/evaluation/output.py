"""Writing a run: ``results.csv`` and ``summary.json``, all or nothing; a progress bar on stderr."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from ..errors import InvalidInputError
from .run import EvalResult

__all__ = ["results_csv", "write_results", "ProgressBar"]


def _cell(value: Any) -> Any:
    # Yes/no metrics as 1/0 so a spreadsheet's AVERAGE is the rate; undefined stays empty.
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    return value


def results_csv(result: EvalResult) -> str:
    """Return the rows of ``result`` as CSV text (the header is ``result.columns``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = result.columns
    writer.writerow(columns)
    for row in result.rows:
        writer.writerow([
            (str(row[c]).lower() if isinstance(row[c], bool) else row[c]) if c in result.grid else _cell(row[c])
            for c in columns
        ])
    return buffer.getvalue()


def _check_target(path: Path, what: str) -> Path:
    path = path.expanduser()
    if path.is_dir():
        raise InvalidInputError(f"{what} {str(path)!r} is a folder; give a file name")
    if not path.parent.is_dir():
        raise InvalidInputError(f"{what} {str(path)!r}: folder {str(path.parent)!r} does not exist")
    return path


def _write_temp(path: Path, text: str) -> str:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
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


class ProgressBar:
    """A one-line progress bar for a terminal: ``[#####.....] 120/300 questions 4.1 s``."""

    def __init__(self, stream: TextIO | None = None, *, width: int = 30, label: str = "questions") -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.label = label
        self.start = time.monotonic()
        self._last = -1.0

    def __call__(self, done: int, total: int) -> None:
        """Redraw the bar (at most ten times a second, and always at the end)."""
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r[{bar}] {done}/{total} {self.label} {now - self.start:.1f} s{end}")
        self.stream.flush()
