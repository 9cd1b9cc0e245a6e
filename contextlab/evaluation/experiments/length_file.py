"""A length curve (``contextlab curve --vary length``'s file), read at the door, and what it shows.

``parse_length_curve`` keeps the file's ``kind`` = ``length`` rows: ``context_tokens``, ``accuracy``
(percent) and ``questions``, each checked; the 95% interval of each point is Wilson's, from the
accuracy and the questions. ``parse_length_outcomes`` reads the answers written beside it
(``length.questions.csv``), so ``length_claims`` can test the lengths question by question, as the
command did; without them it says only what the intervals show (``length_verdict``).
``bundled_length_curve`` is the bundled model's curve, measured by the command.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from ...curves.curve_file import MAX_CURVE_BYTES, MAX_CURVE_ROWS
from ...errors import InvalidInputError
from ...intervals import wilson_interval
from ...validation import message_value, parse_int
from .evidence import level_effect

__all__ = [
    "BUNDLED_LENGTH_CURVE",
    "LengthCurve",
    "LengthPoint",
    "bundled_length_curve",
    "length_claims",
    "length_verdict",
    "parse_length_curve",
    "parse_length_outcomes",
]

#: The bundled model's length curve, and its answers beside it, in ``contextlab/data``.
BUNDLED_LENGTH_CURVE = "gemma3_270m_length.csv"

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
    return parse_int(value, field=f"{where}: {column}", low=1)


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


def _outcome_row(row: dict[str, str | None], where: str) -> tuple[str, int, bool]:
    query_id = (row.get("query_id") or "").strip()
    if not query_id:
        raise _bad(where, "query_id is empty")
    level = parse_int(row.get("level") or "", field=f"{where}: level", low=1)
    correct = (row.get("correct") or "").strip()
    if correct not in ("0", "1"):
        raise _bad(where, f"correct is {message_value(correct)}; give 1 (right) or 0 (wrong)")
    return query_id, level, correct == "1"


def parse_length_outcomes(text: str, *, name: str = "questions file") -> dict[int, list[bool]]:
    """Return ``{context tokens: right or wrong per question}`` from a length curve's answers file.

    The same questions must be answered at every length, once each; they come back in one order.
    """
    if len(text.encode("utf-8")) > 64 * MAX_CURVE_BYTES:
        raise _bad(name, f"larger than {64 * MAX_CURVE_BYTES // 1024} KB")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [c for c in ("query_id", "kind", "level", "correct") if c not in (reader.fieldnames or [])]
    if missing:
        raise _bad(name, f"no column {', '.join(missing)}; give the .questions.csv written beside the curve")
    seen: dict[int, dict[str, bool]] = {}
    try:
        for number, row in enumerate(reader, start=2):
            if (row.get("kind") or "").strip() != "length":
                continue
            query_id, level, correct = _outcome_row(row, f"{name}, row {number}")
            if query_id in seen.setdefault(level, {}):
                raise _bad(f"{name}, row {number}", f"question {message_value(query_id)} is answered twice at {level}")
            seen[level][query_id] = correct
    except csv.Error as exc:
        raise _bad(name, f"not a CSV file ({exc})") from None
    if not seen:
        raise _bad(name, f"no rows of kind length; {_MAKE_ONE}")
    order = sorted(next(iter(seen.values())))
    if any(sorted(answers) != order for answers in seen.values()):
        raise _bad(name, "the lengths were not answered on the same questions; give one run's file")
    return {level: [seen[level][q] for q in order] for level in sorted(seen)}


@dataclass(frozen=True)
class LengthCurve:
    """A length curve's points (shortest first) and, when its answers came with it, each question's outcomes."""

    points: tuple[LengthPoint, ...]
    outcomes: dict[int, list[bool]] | None = None


def read_length_curve(text: str, outcomes_text: str | None = None, *, name: str = "length curve") -> LengthCurve:
    """Return the ``LengthCurve`` of a curve file's ``text`` and, if given, its answers file, checked to agree."""
    points = tuple(parse_length_curve(text, name=name))
    if outcomes_text is None:
        return LengthCurve(points)
    outcomes = parse_length_outcomes(outcomes_text, name=name.removesuffix(".csv") + ".questions.csv")
    for point in points:
        answers = outcomes.get(point.context_tokens)
        if (
            answers is None
            or len(answers) != point.questions
            or round(100 * sum(answers) / len(answers), 1) != round(point.accuracy, 1)
        ):
            raise _bad(
                name,
                f"its answers file does not match the curve at {point.context_tokens:,} tokens; "
                "give the .questions.csv written beside it",
            )
    return LengthCurve(points, {p.context_tokens: outcomes[p.context_tokens] for p in points})


def bundled_length_curve() -> LengthCurve:
    """Return the bundled model's length curve with its answers, as ``contextlab curve --vary length`` wrote them."""
    data = resources.files("contextlab") / "data"
    curve = (data / BUNDLED_LENGTH_CURVE).read_text(encoding="utf-8")
    answers = (data / BUNDLED_LENGTH_CURVE.replace(".csv", ".questions.csv")).read_text(encoding="utf-8")
    return read_length_curve(curve, answers, name=BUNDLED_LENGTH_CURVE)


def length_claims(curve: LengthCurve) -> list[str]:
    """Return what ``curve`` shows, in sentences: paired tests when its answers are known, else its intervals.

    With the answers, each length is tested against the shortest on the same questions (McNemar,
    Holm-corrected), and a difference not told apart says about how many questions would.
    """
    if curve.outcomes is None or len(curve.points) < 2:
        return [length_verdict(curve.points)]
    labels = {p.context_tokens: f"{p.context_tokens:,} tokens" for p in curve.points}
    evidence = level_effect(curve.outcomes, labels)
    head, *rest = evidence.lines()
    return [head[0].upper() + head[1:] + ".", *(line[0].upper() + line[1:] + "." for line in rest)]
