"""A curve file (the bundled curves' CSV format), read and checked at the door.

The format: ``#`` comment lines, then the columns ``model,total_docs,position,accuracy,kind``
(a measured curve adds ``questions,accuracy_low,accuracy_high``). The published curves, a curve
``contextlab curve`` wrote, and a file a user loads (``eval --curve``, the lab's uploads) are all
read by ``parse_position_csv``, which refuses, in one line naming the file, the line and the
value: an accuracy that is not a number from 0 to 100 (NaN, inf, negative, above 100), a
document count that is not a whole number from 1 to ``MAX_TOTAL_DOCS``, a position outside
1..total_docs, the same point given twice (never silently averaged), an interval that does not
hold its accuracy, a model name with control characters, more than ``MAX_CURVE_ROWS`` rows or
``MAX_CURVE_BYTES`` bytes. A UTF-8 byte-order mark (Excel's CSV) is accepted.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import InvalidInputError, LoadError
from ..safe_text import UNSAFE_CHARS
from ..validation import message_value, parse_int

__all__ = [
    "MAX_CURVE_BYTES",
    "MAX_CURVE_ROWS",
    "MAX_TOTAL_DOCS",
    "KINDS",
    "PositionData",
    "load_curve_file",
    "parse_curve_file",
    "parse_position_csv",
]

#: The largest curve file read (a curve has a few dozen rows; the published file is 4 KB).
MAX_CURVE_BYTES = 1024 * 1024
#: The most data rows a curve file may hold.
MAX_CURVE_ROWS = 10_000
#: The most documents a curve may be measured with.
MAX_TOTAL_DOCS = 1000
#: The kinds of row: a point of a position curve, closed-book accuracy, gold-only accuracy.
KINDS = ("position", "closed_book", "oracle")
_REQUIRED = ("model", "total_docs", "position", "accuracy", "kind")
_MAX_MODEL_CHARS = 200
_MAX_QUESTIONS = 10_000_000


@dataclass(frozen=True)
class PositionData:
    """The published accuracies: per model, per document count, (position, accuracy %) points."""

    curves: Mapping[str, Mapping[int, tuple[tuple[int, float], ...]]]
    closed_book_accuracy: Mapping[str, float] = field(default_factory=dict)
    oracle_accuracy: Mapping[str, float] = field(default_factory=dict)
    #: The study the curves come from (the published ones); empty for a curve you measured.
    citation: str = ""
    #: N: the fewest questions a point was measured on, when the file says (a measured curve's ``questions``).
    questions: int | None = None
    #: The per-question outcomes beside a measured curve (``curves.outcomes.CurveOutcomes``), when loaded
    #: with it (``curves.outcomes.load_measured_curve``): they make every test of the curve paired.
    outcomes: Any = field(default=None, compare=False, repr=False)

    def models(self) -> list[str]:
        """Return the model names with measured position curves, in the order of the CSV."""
        return list(self.curves)

    def resolve_model(self, model: str) -> str:
        """Return the canonical spelling of ``model`` (case-insensitive), or raise naming the known ones."""
        if model in self.curves:
            return model
        if isinstance(model, str):
            folded = {name.casefold(): name for name in self.curves}
            if model.strip().casefold() in folded:
                return folded[model.strip().casefold()]
        raise InvalidInputError(f"unknown model {message_value(model)}; choose one of: {', '.join(self.models())}")

    def doc_counts(self, model: str) -> list[int]:
        """Return the document counts measured for ``model``, ascending (e.g. ``[10, 20, 30]``)."""
        return sorted(self.curves[self.resolve_model(model)])

    def curve(self, model: str, total_docs: int) -> list[tuple[int, float]]:
        """Return the measured ``(position, accuracy %)`` points of ``model`` at ``total_docs`` documents."""
        name = self.resolve_model(model)
        if total_docs not in self.curves[name]:
            raise InvalidInputError(
                f"{name} was measured with {', '.join(map(str, self.doc_counts(name)))} documents, "
                f"not {message_value(total_docs)}; use accuracy_at() to interpolate other counts"
            )
        return list(self.curves[name][total_docs])

    def closed_book(self, model: str) -> float | None:
        """Return ``model``'s closed-book accuracy % (no documents given), or None if unmeasured."""
        return self.closed_book_accuracy.get(self.resolve_model(model))

    def oracle(self, model: str) -> float | None:
        """Return ``model``'s oracle accuracy % (only the answer document given), or None."""
        return self.oracle_accuracy.get(self.resolve_model(model))


#: The longest line a curve file may hold (a model's name, seven numbers and their commas).
_MAX_LINE_CHARS = 4_096


def _next_row(reader: Any, numbered: list[tuple[int, str]], name: str) -> list[str] | None:
    """Return the reader's next row (None at the end), or raise naming the line the CSV module could not read."""
    first = reader.line_num
    try:
        return next(reader, None)
    except csv.Error as exc:  # a cell over the module's field limit, a quote left open
        line = numbered[min(first, len(numbered) - 1)][0]
        raise LoadError(f"{name} line {line}: not CSV a curve file can hold ({exc})", field="curve") from None


def _rows(text: str, name: str) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line number, row)`` for each data row of the CSV ``text`` (comments and blank lines skipped)."""
    numbered = [
        (i, line)
        for i, line in enumerate(text.splitlines(keepends=True), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    # The csv module's field limit is process-wide (the document loaders raise it), so a curve
    # file's own bound on a line is checked here: no row of a curve is longer than this.
    for i, line in numbered:
        if len(line) > _MAX_LINE_CHARS:
            raise LoadError(
                f"{name} line {i}: a line of {len(line):,} characters; a curve file's lines are under "
                f"{_MAX_LINE_CHARS:,}",
                field="curve",
            )
    reader = csv.reader(line for _, line in numbered)
    header = _next_row(reader, numbered, name) or []
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        raise LoadError(
            f"{name} is not in the curves' format (model,total_docs,position,accuracy,kind): "
            f"no {', '.join(missing)} column",
            field="curve",
        )
    twice = sorted({c for c in header if c and header.count(c) > 1})
    if twice:
        raise LoadError(
            f"{name}: the column {twice[0]} appears more than once in the header; give each once", field="curve"
        )
    count = 0
    while True:
        first = reader.line_num  # lines read so far: the index of the row's first line in ``numbered``
        cells = _next_row(reader, numbered, name)
        if cells is None:
            return
        count += 1
        if count > MAX_CURVE_ROWS:
            raise LoadError(
                f"{name} holds more than {MAX_CURVE_ROWS:,} rows; a curve file has a few dozen", field="curve"
            )
        # A row's line is where it starts (a quoted cell may run on over several).
        yield numbered[first][0], dict(zip(header, cells, strict=False))


def _number(row: dict[str, str], column: str, where: str) -> float | None:
    """Return a percentage cell (None when empty), or raise unless it is a number from 0 to 100."""
    cell = (row.get(column) or "").strip()
    if not cell:
        return None
    try:
        value = float(cell)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0.0 <= value <= 100.0:
        raise LoadError(f"{where}: {column} is {message_value(cell)}, not a percentage from 0 to 100", field="curve")
    return value


def _whole(row: dict[str, str], column: str, where: str, most: int) -> int:
    cell = (row.get(column) or "").strip()
    try:
        return parse_int(cell, field=column, low=1, high=most)
    except InvalidInputError:
        raise LoadError(
            f"{where}: {column} is {message_value(cell)}, not a whole number from 1 to {most:,}", field="curve"
        ) from None


def _checked_row(row: dict[str, str], where: str) -> tuple[str, str, float, int | None, int | None, int | None]:
    """Return ``(model, kind, accuracy, total_docs, position, questions)`` of one row, every value checked."""
    model = (row.get("model") or "").strip()
    if not model or len(model) > _MAX_MODEL_CHARS or UNSAFE_CHARS.search(model):
        raise LoadError(
            f"{where}: model is {message_value(model)}; give a name of 1 to {_MAX_MODEL_CHARS} characters on one line",
            field="curve",
        )
    kind = (row.get("kind") or "").strip()
    if kind not in KINDS:
        raise LoadError(
            f"{where}: unknown row kind {message_value(kind)}; expected position, closed_book or oracle", field="curve"
        )
    accuracy = _number(row, "accuracy", where)
    if accuracy is None:
        raise LoadError(f"{where}: accuracy is empty, not a percentage from 0 to 100", field="curve")
    low, high = _number(row, "accuracy_low", where), _number(row, "accuracy_high", where)
    if (low is not None and low > accuracy) or (high is not None and high < accuracy):
        raise LoadError(f"{where}: the interval [{low}, {high}] does not hold the accuracy {accuracy}", field="curve")
    questions = _whole(row, "questions", where, _MAX_QUESTIONS) if (row.get("questions") or "").strip() else None
    if kind != "position":
        return model, kind, accuracy, None, None, questions
    total = _whole(row, "total_docs", where, MAX_TOTAL_DOCS)
    return model, kind, accuracy, total, _whole(row, "position", where, total), questions


def parse_position_csv(text: str, *, name: str = "curve file") -> PositionData:
    """Return the ``PositionData`` in CSV ``text`` of the bundled format (a measured curve too), checked.

    ``name`` is the file errors mention; every error is a ``LoadError`` naming it, the line and
    the value (see the module docstring for what is refused).
    """
    if len(text) > MAX_CURVE_BYTES:
        raise LoadError(
            f"{name} is larger than {MAX_CURVE_BYTES // 1024:,} KB; a curve file has a few dozen rows", field="curve"
        )
    curves: dict[str, dict[int, dict[int, float]]] = {}
    singles: dict[str, dict[str, float]] = {"closed_book": {}, "oracle": {}}
    seen: dict[tuple[Any, ...], int] = {}
    counts: list[int] = []
    for line, row in _rows(text.removeprefix("\ufeff"), name):
        where = f"{name} line {line}"
        model, kind, accuracy, total, position, questions = _checked_row(row, where)
        point = (model, kind, total, position)
        if point in seen:
            what = f"position {position} of {total}" if kind == "position" else kind
            raise LoadError(
                f"{where}: {model}'s {what} is given twice (first on line {seen[point]}); give each point once",
                field="curve",
            )
        seen[point] = line
        if questions is not None:
            counts.append(questions)
        if total is not None and position is not None:  # a position row: both checked whole numbers
            curves.setdefault(model, {}).setdefault(total, {})[position] = accuracy
        else:
            singles[kind][model] = accuracy
    # Read-only views: the parsed data may be cached and shared by every caller.
    frozen = MappingProxyType(
        {m: MappingProxyType({n: tuple(sorted(pts.items())) for n, pts in by_n.items()}) for m, by_n in curves.items()}
    )
    return PositionData(
        curves=frozen,
        closed_book_accuracy=MappingProxyType(singles["closed_book"]),
        oracle_accuracy=MappingProxyType(singles["oracle"]),
        questions=min(counts) if counts else None,
    )


def parse_curve_file(text: str, *, name: str) -> PositionData:
    """Return the curves in the text of a curve file named ``name``: checked, with a position curve at least.

    What ``load_curve_file`` and the lab's uploads read; a file with no position rows (only
    closed-book or gold-only accuracy) is refused: nothing could be placed by it.
    """
    data = parse_position_csv(text, name=name)
    if not data.models():
        raise LoadError(f"{name} has no position rows; `contextlab curve` writes them", field="curve")
    return data


def load_curve_file(path: str | Path) -> PositionData:
    """Return the curves in a curve file (a measured curve, or the published file), checked at the door.

    Raises ``InvalidInputError`` naming the file when it is missing, too large, not UTF-8, not
    in the format, holds a value the module docstring lists as refused, or no position rows.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise InvalidInputError(
            f"curve file {str(file)!r} does not exist; `contextlab curve` writes one", field="curve"
        )
    try:
        with file.open("rb") as fh:
            raw = fh.read(MAX_CURVE_BYTES + 1)
        if len(raw) > MAX_CURVE_BYTES:
            raise LoadError(
                f"curve file {file.name!r} is larger than {MAX_CURVE_BYTES // 1024:,} KB; a curve "
                "file has a few dozen rows",
                field="curve",
            )
        return parse_curve_file(raw.decode("utf-8"), name=f"curve file {file.name!r}")
    except UnicodeDecodeError:
        raise LoadError(f"curve file {file.name!r} is not UTF-8 text", field="curve") from None
    except OSError as exc:
        raise LoadError(f"curve file {file.name!r} cannot be read ({exc.strerror or exc})", field="curve") from None
