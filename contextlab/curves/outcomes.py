"""A measured curve's per-question outcomes: the file beside the curve that makes its tests paired.

``contextlab curve --out curve.csv`` writes ``curve.questions.csv`` beside it: one row per
question and condition (``query_id,kind,total_docs,position,correct,answer``), the same questions
under every condition. ``evidence.curve_evidence(..., outcomes=...)`` reads the per-position
yes/no lists from it, so a curve loaded later (``eval --curve``, the lab) keeps its paired tests.

``outcomes_path(curve)`` names the file; ``outcomes_csv(rows)`` writes one; ``parse_outcomes``
reads one, checked at the door (columns, kinds, yes/no values, one row per question and condition,
the same questions under every condition), into ``CurveOutcomes``. ``load_measured_curve(path)``
and ``parse_measured_curve(text, outcomes_text)`` return the curve's ``PositionData`` carrying its
outcomes (checked to be the same run's), so every test read off it is paired. ``file_evidence(path)`` and
``text_evidence(curve_text, outcomes_text)`` give a curve file's ``CurveEvidence`` in one call
(paired when its outcomes are there, else from its points and N).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from ..errors import InvalidInputError, LoadError
from ..validation import message_value, parse_int
from .curve_file import PositionData, load_curve_file, parse_curve_file
from .evidence import CurveEvidence, curve_evidence

__all__ = [
    "OUTCOME_COLUMNS",
    "CurveOutcomes",
    "file_evidence",
    "load_measured_curve",
    "load_outcomes",
    "outcomes_csv",
    "outcomes_path",
    "parse_measured_curve",
    "parse_outcomes",
    "text_evidence",
    "with_outcomes",
]

OUTCOME_COLUMNS = ("query_id", "kind", "total_docs", "position", "correct", "answer")
_KINDS = ("position", "closed_book", "oracle")
_MAX_BYTES = 64 * 1024 * 1024


def outcomes_path(curve: str | Path) -> Path:
    """Return the outcomes file beside the curve file ``curve`` (``curve.csv`` -> ``curve.questions.csv``)."""
    path = Path(curve).expanduser()
    return path.with_name(f"{path.stem}.questions.csv")


@dataclass(frozen=True)
class CurveOutcomes:
    """Yes/no per question under each condition, the questions in one order (``query_ids``)."""

    query_ids: tuple[str, ...]
    #: ``(kind, total_docs, position)`` -> one yes/no per question, in ``query_ids`` order.
    conditions: Mapping[tuple[str, int, int], tuple[bool, ...]]

    def by_position(self, total_docs: int | None = None) -> dict[int, list[bool]]:
        """Return ``{position: outcomes}`` of the position curve at ``total_docs`` (default: the only one)."""
        counts = sorted({n for kind, n, _ in self.conditions if kind == "position"})
        if not counts:
            raise LoadError("the outcomes file has no position rows", field="outcomes")
        count = counts[0] if total_docs is None else total_docs
        if count not in counts:
            raise LoadError(
                f"the outcomes file has positions of {', '.join(map(str, counts))} documents, not {count}",
                field="outcomes",
            )
        return {p: list(v) for (kind, n, p), v in sorted(self.conditions.items()) if kind == "position" and n == count}

    def paired(self, curve: Iterable[tuple[int, float]], total_docs: int) -> dict[int, list[bool]] | None:
        """Return ``{position: outcomes}`` for the curve's points at ``total_docs``, or None when some are missing."""
        positions = [p for p, _ in curve]
        found = {
            p: list(v)
            for (kind, n, p), v in self.conditions.items()
            if kind == "position" and n == total_docs and p in positions
        }
        return found if sorted(found) == sorted(positions) else None


class ScoredAnswer(Protocol):
    """What the outcomes file keeps of one scored answer (``evaluation.curve.CurveAnswer`` is one)."""

    @property
    def query_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def total_docs(self) -> int: ...
    @property
    def position(self) -> int | None: ...
    @property
    def correct(self) -> bool: ...
    @property
    def answer(self) -> str: ...


def outcomes_csv(rows: Iterable[ScoredAnswer]) -> str:
    """Return the outcomes file's text for scored rows (``query_id, kind, total_docs, position, correct, answer``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(OUTCOME_COLUMNS)
    for row in rows:
        position = row.position if row.kind == "position" else ""
        total = row.total_docs if row.kind == "position" else ""
        writer.writerow([row.query_id, row.kind, total, position, int(row.correct), row.answer])
    return buffer.getvalue()


def _condition(row: Mapping[str, str], where: str) -> tuple[str, int, int]:
    kind = (row.get("kind") or "").strip()
    if kind not in _KINDS:
        raise LoadError(
            f"{where}: kind is {message_value(kind)}; expected position, closed_book or oracle", field="outcomes"
        )
    if kind != "position":
        return (kind, 0, 0) if kind == "closed_book" else (kind, 1, 1)
    total, position = (row.get("total_docs") or "").strip(), (row.get("position") or "").strip()
    try:
        n_total = parse_int(total, field="total_docs", low=1)
        n_position = parse_int(position, field="position", low=1, high=n_total)
    except InvalidInputError:
        raise LoadError(
            f"{where}: total_docs {message_value(total)} and position {message_value(position)} must be whole "
            "numbers with 1 <= position <= total_docs",
            field="outcomes",
        ) from None
    return (kind, n_total, n_position)


def parse_outcomes(text: str, *, name: str = "outcomes file") -> CurveOutcomes:
    """Return the ``CurveOutcomes`` in an outcomes file's text, or raise ``LoadError`` naming the line."""
    if len(text) > _MAX_BYTES:
        raise LoadError(f"{name} is larger than {_MAX_BYTES // (1024 * 1024)} MB", field="outcomes")
    reader = csv.DictReader(io.StringIO(text.removeprefix("\ufeff")))
    missing = [c for c in OUTCOME_COLUMNS[:5] if c not in (reader.fieldnames or [])]
    if missing:
        raise LoadError(f"{name} is not an outcomes file: no {', '.join(missing)} column", field="outcomes")
    seen: dict[tuple[str, int, int], dict[str, bool]] = {}
    order: dict[str, None] = {}
    for row in reader:
        where = f"{name} line {reader.line_num}"
        condition = _condition(row, where)
        query_id = (row.get("query_id") or "").strip()
        correct = (row.get("correct") or "").strip()
        if not query_id or correct not in ("0", "1"):
            raise LoadError(
                f"{where}: needs a query_id and correct 0 or 1 (got {message_value(correct)})", field="outcomes"
            )
        marks = seen.setdefault(condition, {})
        if query_id in marks:
            raise LoadError(
                f"{where}: question {message_value(query_id)} is given twice under one condition", field="outcomes"
            )
        marks[query_id] = correct == "1"
        order.setdefault(query_id)
    ids = tuple(order)
    for (kind, total, position), marks in seen.items():
        if len(marks) != len(ids):
            what = f"position {position} of {total}" if kind == "position" else kind
            raise LoadError(
                f"{name}: {what} has {len(marks)} questions, not the {len(ids)} of the others; "
                "paired tests need the same questions under every condition",
                field="outcomes",
            )
    return CurveOutcomes(ids, {c: tuple(marks[q] for q in ids) for c, marks in seen.items()})


def load_outcomes(curve: str | Path) -> CurveOutcomes | None:
    """Return the outcomes beside the curve file ``curve`` (``outcomes_path``), or None when there are none."""
    path = outcomes_path(curve)
    if not path.is_file():
        return None
    try:
        return parse_outcomes(path.read_text(encoding="utf-8"), name=f"outcomes file {path.name!r}")
    except UnicodeDecodeError:
        raise LoadError(f"outcomes file {path.name!r} is not UTF-8 text", field="outcomes") from None


def with_outcomes(data: PositionData, outcomes: CurveOutcomes | None, *, name: str = "curve file") -> PositionData:
    """Return ``data`` carrying ``outcomes`` (so its tests are paired), after checking they are its own.

    Outcomes from another run would give tests of other answers than the curve shows: each
    condition's share of correct answers must be the curve's accuracy (to its one decimal) on
    its N questions, else ``LoadError`` names the first that differs.
    """
    if outcomes is None:
        return data
    n = len(outcomes.query_ids)
    if data.questions is not None and data.questions != n:
        raise LoadError(
            f"{name}: its outcomes hold {n} questions, the curve says {data.questions}; they are from "
            "another run (one `contextlab curve` run writes both)",
            field="outcomes",
        )
    for model in data.models():
        checks = [
            (f"position {p} of {count}", ("position", count, p), acc)
            for count in data.doc_counts(model)
            for p, acc in data.curve(model, count)
        ]
        checks += [
            (what, key, acc)
            for what, key, acc in (
                ("closed book", ("closed_book", 0, 0), data.closed_book(model)),
                ("gold only", ("oracle", 1, 1), data.oracle(model)),
            )
            if acc is not None
        ]
        for what, key, accuracy in checks:
            marks = outcomes.conditions.get(key)
            if marks is None:
                continue
            share = 100.0 * sum(marks) / len(marks)
            if abs(share - accuracy) > 0.05 + 1e-9:
                raise LoadError(
                    f"{name}: its outcomes give {share:.1f}% at {what}, the curve {accuracy:.1f}%; they "
                    "are from another run (one `contextlab curve` run writes both)",
                    field="outcomes",
                )
    return replace(data, outcomes=outcomes)


def load_measured_curve(curve: str | Path) -> PositionData:
    """Return a measured curve file with the outcomes beside it (``outcomes_path``), when there are any."""
    name = f"curve file {Path(curve).name!r}"
    return with_outcomes(load_curve_file(curve), load_outcomes(curve), name=name)


def parse_measured_curve(
    curve_text: str, outcomes_text: str | None = None, *, name: str = "curve file"
) -> PositionData:
    """Return a measured curve from its file's text (an upload) and, when given, its outcomes file's text."""
    data = parse_curve_file(curve_text, name=name)
    outcomes = parse_outcomes(outcomes_text, name=f"outcomes of {name}") if outcomes_text is not None else None
    return with_outcomes(data, outcomes, name=name)


def _evidence(data: PositionData) -> CurveEvidence:
    model = data.models()[0]
    return curve_evidence(data, model, data.doc_counts(model)[0])


def file_evidence(curve: str | Path) -> CurveEvidence:
    """Return what the curve file ``curve`` shows: paired tests when its outcomes file is beside it.

    The file's first model at its fewest documents (a measured curve has one of each). Outcomes
    for other positions than the curve's are not used (the tests are then from the points).
    """
    return _evidence(load_measured_curve(curve))


def text_evidence(curve_text: str, outcomes_text: str | None = None, *, name: str = "curve file") -> CurveEvidence:
    """Return what a curve file's text shows (an upload), paired when its outcomes file's text is given."""
    return _evidence(parse_measured_curve(curve_text, outcomes_text, name=name))
