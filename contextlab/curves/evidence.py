"""What a position curve shows, decided from its numbers: points with intervals, tests, and earned sentences.

Every sentence contextlab says about a curve's shape ("misses the middle", "reads the end best",
"no position effect shown") comes from here, and only when a test resolves it; otherwise the
sentence says what these questions cannot tell and about how many would.

API
---
``position_effect(points=None, *, outcomes=None, total_docs, label="", alpha=0.05) -> CurveEvidence``
    ``outcomes``: ``{position: [yes/no per question]}``, the same questions in the same order at
    every position (``contextlab curve`` keeps them): paired tests (McNemar's exact p, Bonett and
    Price's interval, Cochran's Q). ``points``: ``CurvePoint(position, accuracy %, questions)``
    without per-question outcomes (a curve file, a published curve): Newcombe's interval and the
    pooled z test, which for the same questions at every position (answers positively
    correlated) is the conservative stand-in for the paired test.
``curve_evidence(data, model, total_docs=None, *, questions=None, outcomes=None, alpha=0.05) -> CurveEvidence``
    The same for one curve of a ``PositionData`` (paired with ``data.outcomes`` when it has them).
``published_evidence(model, total_docs) -> CurveEvidence``
    Liu et al.'s curve of ``model`` at 10, 20 or 30 documents, N = 2,655 per point as they measured.

``CurveEvidence``: ``points`` (``PointEvidence``: position, accuracy %, 95% Wilson ``low``/``high``,
``questions``), ``differences`` (``PositionDifference``: each position against the first, and each
middle position against the last; ``sentence()`` says it in words), ``no_effect`` (Cochran's Q,
df, p; paired only), ``shape`` (one of ``SHAPES``; ``shapes``: every one shown), ``claims`` (the
sentences to show, the first the headline), ``misses_middle`` / ``reads_end_best`` (booleans a caption may
test), ``detectable`` (the smallest difference in points these questions detect with
80% power) and ``to_dict()``.

The rule: the family of differences is corrected by Holm's step-down method; a difference is
resolved when its adjusted p is below ``alpha`` and its 95% interval excludes 0. A middle position
"misses the middle" when it is resolved below both the first and the last; the end (beginning) is
"read best" when it is resolved above every other position measured.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

from ..errors import InvalidInputError
from ..intervals import wilson_interval
from ..paired import (
    ALPHA,
    DEFAULT_DISCORDANCE,
    cochran_q,
    detectable_difference,
)
from ..validation import message_value
from .curve_file import PositionData
from .position_tests import CurvePoint, PositionDifference, differences, p_text
from .published import load_position_curves
from .reading import CURVE_QUESTIONS

__all__ = [
    "SHAPES",
    "CurveEvidence",
    "PointEvidence",
    "curve_evidence",
    "position_effect",
    "published_evidence",
]

#: Every ``CurveEvidence.shape``: what the tests resolved, strongest first.
SHAPES = (
    "misses_the_middle",
    "reads_the_end_best",
    "reads_the_beginning_best",
    "end_over_beginning",
    "beginning_over_end",
    "positions_differ",
    "differs_overall",
    "no_effect_shown",
    "one_position",
    "unknown_questions",
)


@dataclass(frozen=True)
class PointEvidence:
    """A point with its 95% Wilson interval (percent; NaN bounds when N is unknown)."""

    position: int
    accuracy: float
    low: float
    high: float
    questions: int | None


@dataclass(frozen=True)
class CurveEvidence:
    """What one curve shows: points, differences, Cochran's Q, its shape and the sentences it earns."""

    label: str
    total_docs: int
    points: tuple[PointEvidence, ...]
    differences: tuple[PositionDifference, ...]
    paired: bool
    no_effect: tuple[float, int, float] | None
    shape: str
    claims: tuple[str, ...]
    alpha: float
    discordance: float
    detectable: float | None
    questions: int | None
    #: Every shape the tests show (``SHAPES``), strongest first; ``shape`` is the first.
    shapes: tuple[str, ...] = ()

    @property
    def headline(self) -> str:
        """Return the first claim: the one sentence a caption shows."""
        return self.claims[0]

    @property
    def misses_middle(self) -> bool:
        """True when a middle position is resolved below both ends."""
        return self.shape == "misses_the_middle"

    @property
    def reads_end_best(self) -> bool:
        """True when the last position is resolved above every other."""
        return "reads_the_end_best" in self.shapes

    def point(self, position: int) -> PointEvidence:
        """Return the point at ``position``, or raise naming the positions measured."""
        for p in self.points:
            if p.position == position:
                return p
        raise InvalidInputError(
            f"position {message_value(position)} was not measured; "
            f"the curve has {', '.join(str(p.position) for p in self.points)}",
            field="position",
        )

    def difference(self, first: int, second: int) -> PositionDifference | None:
        """Return the tested difference between two positions (either order), or None if not in the family."""
        for d in self.differences:
            if (d.first, d.second) == (first, second):
                return d
            if (d.first, d.second) == (second, first):
                return PositionDifference(
                    second,
                    first,
                    -d.difference,
                    -d.high,
                    -d.low,
                    d.p_value,
                    d.adjusted_p,
                    d.comparisons,
                    d.questions,
                    d.paired,
                    d.resolved,
                    d.questions_needed,
                    d.only_second,
                    d.only_first,
                )
        return None

    def to_dict(self) -> dict[str, object]:
        """Return the evidence as plain JSON-serialisable data (NaN bounds as None)."""

        out = asdict(self)
        out["points"] = [
            {**asdict(p), "low": None if math.isnan(p.low) else p.low, "high": None if math.isnan(p.high) else p.high}
            for p in self.points
        ]
        out["differences"] = [
            {**d, "sentence": s.sentence()} for d, s in zip(out["differences"], self.differences, strict=False)
        ]
        out["no_effect"] = (
            None if self.no_effect is None else dict(zip(("q", "df", "p_value"), self.no_effect, strict=False))
        )
        out["claims"] = list(self.claims)
        return out


# -- the shape, in words -----------------------------------------------------------------------


def _direction(diffs: Sequence[PositionDifference], first: int, second: int) -> int:
    """Return +1 when ``second`` is resolved above ``first``, -1 when below, 0 when not told apart."""
    for d in diffs:
        if (d.first, d.second) in ((first, second), (second, first)) and d.resolved:
            sign = 1 if d.difference > 0 else -1
            return sign if (d.first, d.second) == (first, second) else -sign
    return 0


def _acc(points: Mapping[int, PointEvidence], position: int) -> str:
    return f"{points[position].accuracy:.1f}%"


def _shown(points: Sequence[PointEvidence], diffs: Sequence[PositionDifference]) -> list[tuple[str, str]]:
    """Return ``(shape, sentence)`` for every shape the resolved differences show, strongest first."""
    at = {p.position: p for p in points}
    first, last = points[0].position, points[-1].position
    middles = [p.position for p in points[1:-1]]
    ends = _direction(diffs, first, last)
    n = min(d.questions for d in diffs)
    shown: list[tuple[str, str]] = []
    dips = [m for m in middles if _direction(diffs, first, m) == -1 and _direction(diffs, m, last) == 1]
    if dips:
        where = ", ".join(f"position {m} ({_acc(at, m)})" for m in dips)
        shown.append(
            (
                "misses_the_middle",
                f"misses the middle: {where} read worse than both the first "
                f"({_acc(at, first)}) and the last ({_acc(at, last)}), on {n:,} questions",
            )
        )
    if ends == 1 and all(_direction(diffs, m, last) == 1 for m in middles):
        shown.append(
            (
                "reads_the_end_best",
                f"reads the end best: position {last} ({_acc(at, last)}) above every "
                f"other position measured, on {n:,} questions",
            )
        )
    elif ends == 1:
        shown.append(
            (
                "end_over_beginning",
                f"reads the end better than the beginning: position {last} "
                f"({_acc(at, last)}) above position {first} ({_acc(at, first)}), on {n:,} questions",
            )
        )
    if ends == -1 and all(_direction(diffs, first, m) == -1 for m in middles):
        shown.append(
            (
                "reads_the_beginning_best",
                f"reads the beginning best: position {first} ({_acc(at, first)}) "
                f"above every other position measured, on {n:,} questions",
            )
        )
    elif ends == -1:
        shown.append(
            (
                "beginning_over_end",
                f"reads the beginning better than the end: position {first} "
                f"({_acc(at, first)}) above position {last} ({_acc(at, last)}), on {n:,} questions",
            )
        )
    if not shown:
        shown += [("positions_differ", d.sentence()) for d in diffs if d.resolved]
    return shown


def _not_shown(
    diffs: Sequence[PositionDifference],
    no_effect: tuple[float, int, float] | None,
    alpha: float,
    detectable: float | None,
    discordance: float,
    assumed: bool,
) -> tuple[str, str]:
    """Return ``(shape, sentence)`` when no difference is resolved: what was seen and what N would tell."""
    n = min(d.questions for d in diffs)
    widest = max(diffs, key=lambda d: abs(d.difference))
    basis = (
        f"assuming {100 * discordance:.0f}% of questions are answered differently at two positions"
        if assumed
        else f"at the {100 * discordance:.0f}% of questions answered differently here"
    )
    over = f"α = {alpha:g} split over {len(diffs)} comparisons, " if len(diffs) > 1 else f"α = {alpha:g}, "
    power = (
        f"{n:,} questions detect a difference of {detectable:.1f} points or more (80% power, {over}{basis})"
        if detectable is not None
        else f"{n:,} questions cannot detect any difference with 80% power ({over}{basis})"
    )
    seen = f"the largest difference seen, {widest.sentence()}"
    if no_effect is not None and no_effect[2] < alpha:
        return (
            "differs_overall",
            f"the positions differ overall (Cochran's Q = {no_effect[0]:.1f}, "
            f"{p_text(no_effect[2])}), but no two are told apart on {n:,} questions: {seen}; {power}",
        )
    overall = "" if no_effect is None else f" (Cochran's Q = {no_effect[0]:.1f}, {p_text(no_effect[2])})"
    return ("no_effect_shown", f"no position effect shown on {n:,} questions{overall}: {seen}; {power}")


# -- the entry points --------------------------------------------------------------------------


def _check_outcomes(outcomes: Mapping[int, Sequence[bool]]) -> dict[int, list[bool]]:
    checked = {int(p): [bool(v) for v in marks] for p, marks in sorted(outcomes.items())}
    sizes = {len(marks) for marks in checked.values()}
    if not checked or 0 in sizes:
        raise InvalidInputError("outcomes must give each position's yes/no answers, none empty", field="outcomes")
    if len(sizes) > 1:
        raise InvalidInputError(
            "outcomes must hold the same questions at every position: "
            f"{ {p: len(m) for p, m in checked.items()} } answers",
            field="outcomes",
        )
    return checked


def _point(p: CurvePoint) -> PointEvidence:
    if p.questions is None:
        return PointEvidence(p.position, p.accuracy, math.nan, math.nan, None)
    low, high = wilson_interval(p.accuracy / 100.0 * p.questions, p.questions)
    return PointEvidence(p.position, p.accuracy, 100.0 * low, 100.0 * high, p.questions)


def position_effect(
    points: Sequence[CurvePoint] | None = None,
    *,
    outcomes: Mapping[int, Sequence[bool]] | None = None,
    total_docs: int,
    label: str = "",
    alpha: float = ALPHA,
) -> CurveEvidence:
    """Return the ``CurveEvidence`` of one curve: from per-question ``outcomes`` (paired) or ``points``."""
    checked = None if outcomes is None else _check_outcomes(outcomes)
    if checked is not None:
        points = [CurvePoint(p, 100.0 * sum(m) / len(m), len(m)) for p, m in checked.items()]
    if not points:
        raise InvalidInputError("a curve needs at least one point (points or outcomes)", field="points")
    ordered = sorted(points, key=lambda p: p.position)
    shown_points = tuple(_point(p) for p in ordered)
    known = [p.questions for p in ordered if p.questions is not None]
    base = CurveEvidence(
        label=label,
        total_docs=total_docs,
        points=shown_points,
        differences=(),
        paired=checked is not None,
        no_effect=None,
        shape="",
        claims=(),
        alpha=alpha,
        discordance=DEFAULT_DISCORDANCE,
        detectable=None,
        questions=None,
    )
    if len(ordered) == 1 or len(known) < len(ordered):
        shape, claim = (
            ("one_position", "one position measured: a position effect needs two or more")
            if len(ordered) == 1
            else (
                "unknown_questions",
                "the curve does not say how many questions each point was measured "
                "on, so it carries no interval and no claim; `contextlab curve` writes them",
            )
        )
        return replace(base, shape=shape, claims=(claim,), questions=min(known) if known else None, shapes=(shape,))
    diffs, discordances = differences(ordered, checked, alpha)
    no_effect = cochran_q([checked[p.position] for p in ordered]) if checked is not None else None
    observed = sum(discordances) / len(discordances)
    assumed = checked is None or observed == 0
    discordance = DEFAULT_DISCORDANCE if checked is not None and observed == 0 else observed
    n = min(known)
    found = detectable_difference(n, discordance, alpha=alpha / len(diffs))
    detectable = None if found is None else 100.0 * found
    shown = _shown(shown_points, diffs)
    if not shown:
        shown = [_not_shown(diffs, no_effect, alpha, detectable, discordance, assumed)]
    return replace(
        base,
        differences=tuple(diffs),
        no_effect=no_effect,
        shape=shown[0][0],
        claims=tuple(s for _, s in shown),
        discordance=discordance,
        detectable=detectable,
        questions=n,
        shapes=tuple(k for k, _ in shown),
    )


def curve_evidence(
    data: PositionData,
    model: str,
    total_docs: int | None = None,
    *,
    questions: int | None = None,
    outcomes: Mapping[int, Sequence[bool]] | None = None,
    alpha: float = ALPHA,
) -> CurveEvidence:
    """Return the ``CurveEvidence`` of ``model``'s curve at ``total_docs`` (default: its fewest) in ``data``.

    ``questions``: N per point (default ``data.questions``; None: unknown, so no interval and no claim).
    ``outcomes`` (per question, same order at every position; default ``data.outcomes``) make the tests paired.
    """
    name = data.resolve_model(model)
    count = data.doc_counts(name)[0] if total_docs is None else total_docs
    curve = data.curve(name, count)
    if outcomes is None and questions is None and data.outcomes is not None:
        outcomes = data.outcomes.paired(curve, count)
    if outcomes is not None:
        if sorted(int(p) for p in outcomes) != [p for p, _ in curve]:
            raise InvalidInputError(
                f"outcomes are for positions {sorted(outcomes)}, the curve has {[p for p, _ in curve]}",
                field="outcomes",
            )
        return position_effect(outcomes=outcomes, total_docs=count, label=name, alpha=alpha)
    n = questions if questions is not None else data.questions
    points = [CurvePoint(p, acc, n) for p, acc in curve]
    return position_effect(points, total_docs=count, label=name, alpha=alpha)


def published_evidence(model: str, total_docs: int) -> CurveEvidence:
    """Return the ``CurveEvidence`` of Liu et al.'s curve of ``model`` at 10, 20 or 30 documents (N = 2,655)."""
    return curve_evidence(load_position_curves(), model, total_docs, questions=CURVE_QUESTIONS)
