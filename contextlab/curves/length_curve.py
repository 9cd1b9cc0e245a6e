"""A length curve (``contextlab curve --vary length``'s file), read at the door, and what it shows.

``parse_length_curve`` keeps the file's ``kind`` = ``length`` rows: ``context_tokens``, ``accuracy``
(percent) and ``questions``, each checked; the 95% interval of each point is Wilson's, from the
accuracy and the questions. ``length_verdict`` says in one sentence what the points show, only
when the intervals of the shortest and the longest context do not overlap.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..intervals import wilson_interval
from ..validation import message_value
from .curve_file import MAX_CURVE_BYTES, MAX_CURVE_ROWS

__all__ = ["LengthPoint", "length_verdict", "parse_length_curve"]

_COLUMNS = ("kind", "accuracy", "questions", "context_tokens")
_MAKE_ONE = "make one with contextlab curve --vary length"


@dataclass(frozen=True)
class LengthPoint:
    """Accuracy (percent) at one context length, with its 95% Wilson interval, over ``questions`` questions."""

    context_tokens: int
    accuracy: float
    questions: int
    low: float
    high: float


def _bad(name: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"{name}: {what}", field="length curve")


def _whole(value: str, column: str, where: str) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        raise _bad(where, f"{column} is {message_value(value)}, not a whole number") from None
    if number < 1:
        raise _bad(where, f"{column} is {number}; give a whole number of at least 1")
    return number


def _point(row: dict[str, str], where: str) -> LengthPoint:
    tokens = _whole(row["context_tokens"] or "", "context_tokens", where)
    questions = _whole(row["questions"] or "", "questions", where)
    try:
        accuracy = float((row["accuracy"] or "").strip())
    except ValueError:
        raise _bad(where, f"accuracy is {message_value(row['accuracy'])}, not a number") from None
    if not math.isfinite(accuracy) or not 0.0 <= accuracy <= 100.0:
        raise _bad(where, f"accuracy is {message_value(row['accuracy'])}; give a percent from 0 to 100")
    low, high = wilson_interval(accuracy / 100.0 * questions, questions)
    return LengthPoint(tokens, accuracy, questions, 100.0 * low, 100.0 * high)


def parse_length_curve(text: str, *, name: str = "length curve") -> list[LengthPoint]:
    """Return the length points of a curve file's ``text``, shortest context first; raise naming ``name`` if bad."""
    if len(text.encode("utf-8")) > MAX_CURVE_BYTES:
        raise _bad(name, f"larger than {MAX_CURVE_BYTES // 1024} KB; a length curve has a few rows")
    lines = [line for line in text.lstrip("\ufeff").splitlines() if not line.startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    try:
        fields = reader.fieldnames
    except csv.Error as exc:
        raise _bad(name, f"not a CSV file ({exc})") from None
    missing = [c for c in _COLUMNS if c not in (fields or [])]
    if missing:
        raise _bad(name, f"no column {', '.join(missing)}; {_MAKE_ONE}")
    try:
        return _points(reader, name)
    except csv.Error as exc:
        raise _bad(name, f"not a CSV file ({exc})") from None


def _points(reader: csv.DictReader[str], name: str) -> list[LengthPoint]:
    points: dict[int, LengthPoint] = {}
    for number, row in enumerate(reader, start=2):
        if number > MAX_CURVE_ROWS + 1:
            raise _bad(name, f"more than {MAX_CURVE_ROWS:,} rows")
        if (row["kind"] or "").strip() != "length":
            continue
        point = _point(row, f"{name}, row {number}")
        if point.context_tokens in points:
            raise _bad(f"{name}, row {number}", f"context_tokens {point.context_tokens} is given twice")
        points[point.context_tokens] = point
    if not points:
        raise _bad(name, f"no rows of kind length; {_MAKE_ONE}")
    return sorted(points.values(), key=lambda p: p.context_tokens)


def length_verdict(points: Sequence[LengthPoint]) -> str:
    """Return what ``points`` show in one sentence: a fall or a rise only when the 95% intervals say so.

    The shortest and the longest context are compared: accuracy "falls as the context grows" when
    the longest one's interval lies wholly below the shortest one's, "rises" when wholly above;
    otherwise the questions cannot tell.
    """
    if len(points) < 2:
        return "One length only: measure two or more to see what length does."
    short, long = min(points, key=lambda p: p.context_tokens), max(points, key=lambda p: p.context_tokens)
    n = min(p.questions for p in points)
    both = (
        f"{short.accuracy:.0f}% at {short.context_tokens:,} tokens, "
        f"{long.accuracy:.0f}% at {long.context_tokens:,} tokens"
    )
    if long.high < short.low:
        return f"Accuracy falls as the context grows: {both}, and the 95% intervals do not overlap."
    if long.low > short.high:
        return f"Accuracy rises as the context grows: {both}, and the 95% intervals do not overlap."
    return f"Cannot tell on {n} questions whether the length changes accuracy: {both}, and the 95% intervals overlap."
