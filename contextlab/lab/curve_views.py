"""A position curve as the lab's views draw it: accuracy per block position, its 95% band, what it earns.

Learn, Placement and Evaluate draw the published curves (Liu et al.: 2,655 questions a point) and
a measured one (the bundled model's, a file loaded, one ``contextlab curve`` just wrote) the same
way: ``block_curve`` reads a curve for a block of ``n`` documents with the band its N gives
(interpolated as the values are), and ``measured_points`` gives a measured curve's own points with
their Wilson intervals and the evidence (``contextlab.curves.evidence``) that decides every
sentence about its shape. A curve whose file does not say its N carries no band and no claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from ..curves.curve_file import PositionData
from ..curves.evidence import CurveEvidence, curve_evidence
from ..curves.published import accuracy_curve
from ..curves.reading import curve_bounds

__all__ = [
    "BlockCurve",
    "MeasuredPoints",
    "block_curve",
    "measured_points",
    "measured_label",
    "move_undecided",
    "said_of",
]

#: The shapes whose sentence is a verb phrase about the model ("misses the middle: ..."); the others
#: are sentences of their own ("no position effect shown ...") and follow the model's name after a colon.
_VERB_SHAPES = (
    "misses_the_middle",
    "reads_the_end_best",
    "reads_the_beginning_best",
    "end_over_beginning",
    "beginning_over_end",
)


@dataclass(frozen=True)
class BlockCurve:
    """Accuracy (%) at each position 1..n of a block, the 95% band around it (or None), and its name."""

    name: str
    values: list[float]
    band: tuple[list[float], list[float]] | None
    measured: bool  # a curve someone measured (with its own, wide, intervals), not the published one


@dataclass(frozen=True)
class MeasuredPoints:
    """A measured curve's own points (position, accuracy %), their band, and what its tests show."""

    model: str
    total_docs: int
    points: list[tuple[int, float]]
    band: tuple[list[float], list[float]] | None
    evidence: CurveEvidence


def said_of(model: str, evidence: CurveEvidence) -> str:
    """Return every sentence ``evidence`` earns, about ``model``, in one line (the headline first)."""
    claims = "; ".join(evidence.claims)
    return f"{model} {claims}" if evidence.shape in _VERB_SHAPES else f"{model}: {claims}"


def measured_label(data: PositionData) -> str:
    """Return how the lab names a measured curve: its model and the questions each point was measured on."""
    model = data.models()[0]
    n = f"{data.questions:,} questions" if data.questions else "N unknown"
    return f"{model} (measured, {n})"


def _bound(data: PositionData, model: str, evidence: CurveEvidence, side: int) -> PositionData:
    """Return ``data`` with ``model``'s curve replaced by its Wilson bound (0 low, 1 high) at each point."""
    bounds = tuple((p.position, p.low if side == 0 else p.high) for p in evidence.points)
    return PositionData(
        curves=MappingProxyType({model: MappingProxyType({evidence.total_docs: bounds})}), questions=data.questions
    )


def measured_points(data: PositionData) -> MeasuredPoints:
    """Return the first model's curve in ``data`` (a measured file) at its measured count, band and evidence."""
    model = data.models()[0]
    evidence = curve_evidence(data, model)
    # The file's own numbers (one decimal), as `contextlab curve` printed them; the band and the
    # tests come from the evidence (the exact counts, when the outcomes are loaded).
    points = data.curve(model, evidence.total_docs)
    band = None
    if evidence.questions is not None:
        band = ([p.low for p in evidence.points], [p.high for p in evidence.points])
    return MeasuredPoints(model, evidence.total_docs, points, band, evidence)


def block_curve(n: int, model: str | None = None, measured: PositionData | None = None) -> BlockCurve:
    """Return the curve for a block of ``n`` documents: the published ``model``'s, or the ``measured`` one.

    Values are read as the published curves are (relative depth, nearest measured count); so is
    the band, from each point's 95% Wilson interval (2,655 questions for the published curves,
    the file's N for a measured one; none when a measured file does not say its N).
    """
    if measured is None:
        assert model is not None
        values = accuracy_curve(model, n)
        band: tuple[list[float], list[float]] | None = (
            accuracy_curve(model, n, data=curve_bounds(0)),
            accuracy_curve(model, n, data=curve_bounds(1)),
        )
        return BlockCurve(model, values, band, measured=False)
    name = measured.models()[0]
    values = accuracy_curve(name, n, data=measured)
    shown = measured_points(measured)
    band = None
    if shown.band is not None:
        band = (
            accuracy_curve(name, n, data=_bound(measured, name, shown.evidence, 0)),
            accuracy_curve(name, n, data=_bound(measured, name, shown.evidence, 1)),
        )
    return BlockCurve(measured_label(measured), values, band, measured=True)


def _nearest_measured(position: int, n: int, evidence: CurveEvidence) -> int:
    """Return the measured position nearest block position ``position`` of ``n``, by relative depth."""
    depth = 0.0 if n <= 1 else (position - 1) / (n - 1)
    span = max(evidence.total_docs - 1, 1)
    return min((p.position for p in evidence.points), key=lambda p: (abs((p - 1) / span - depth), p))


def move_undecided(evidence: CurveEvidence, n: int, before: int, after: int) -> str | None:
    """Return why a measured curve cannot say whether moving a document from ``before`` to ``after`` of ``n`` helps.

    None when it can: the measured positions nearest the two (by relative depth, as the curve is
    read) differ, and the test of that pair (paired when the curve's outcomes are loaded)
    resolves it. Otherwise the sentence says what the data show instead.
    """
    if before == after:
        return None
    first, second = sorted((_nearest_measured(before, n, evidence), _nearest_measured(after, n, evidence)))
    if first == second:
        return (
            f"both positions read off the curve nearest its measured pos {first}, and one measured "
            f"position cannot tell two apart"
        )
    tested = evidence.difference(first, second)
    if tested is None:
        return f"the curve's tests do not compare its measured positions {first} and {second}"
    return None if tested.resolved else tested.sentence()
