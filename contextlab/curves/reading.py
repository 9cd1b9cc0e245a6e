"""Reading the published accuracy curves for one block: which curve, its value, and its own uncertainty.

Liu et al. (2024) measured every point of their curves on the same 2,655 NaturalQuestions-Open
questions: a point is itself a rate with a binomial error. A reading carries that error as the
Wilson interval of the points it interpolates (interpolated the same way), so an estimate built
on the curve can never claim more precision than the curve has.

Which curve a block calls for: a block of one document holding the gold is the paper's
gold-only ("oracle") setting; 2-9 documents lie between that point and the 10-document curve
and are interpolated in the count; 10-30 documents are the measured curves (interpolated between
them); a block of more than 30 documents is outside every curve and read on the 30-document one,
which the reading says. A gold not in the block reads the closed-book accuracy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from ..intervals import wilson_interval
from .curve_file import PositionData
from .published import accuracy_at, load_position_curves

__all__ = ["CURVE_QUESTIONS", "CurveReading", "read_curve", "curve_bounds"]

#: How many questions each published point was measured on (NaturalQuestions-Open, Liu et al.).
CURVE_QUESTIONS = 2655


@dataclass(frozen=True)
class CurveReading:
    """One reading of the published curve: accuracy %, its 95% interval, the curve read, and whether outside."""

    value: float
    low: float
    high: float
    curve: str
    outside: bool = False


def _bound(accuracy: float, side: int) -> float:
    return 100.0 * wilson_interval(accuracy / 100.0 * CURVE_QUESTIONS, CURVE_QUESTIONS)[side]


@lru_cache(maxsize=2)
def curve_bounds(side: int) -> PositionData:
    """Return the published curves with every point replaced by its Wilson bound (0 = low, 1 = high)."""
    data = load_position_curves()
    curves = MappingProxyType(
        {
            model: MappingProxyType({n: tuple((p, _bound(a, side)) for p, a in points) for n, points in by_n.items()})
            for model, by_n in data.curves.items()
        }
    )
    return PositionData(
        curves=curves,
        closed_book_accuracy=MappingProxyType({m: _bound(a, side) for m, a in data.closed_book_accuracy.items()}),
        oracle_accuracy=MappingProxyType({m: _bound(a, side) for m, a in data.oracle_accuracy.items()}),
    )


def _read(data: PositionData, model: str, n_docs: int, position: int) -> float:
    """Return the accuracy % at ``position`` of ``n_docs`` on ``data`` (gold-only point below 10)."""
    smallest = data.doc_counts(model)[0]
    oracle = data.oracle(model)
    if n_docs >= smallest or oracle is None:
        return accuracy_at(model, n_docs, position, data=data)
    if n_docs == 1:
        return oracle
    depth = (position - 1) / (n_docs - 1)
    on_curve = accuracy_at(model, smallest, 1 + depth * (smallest - 1), data=data)
    return oracle + (on_curve - oracle) * (n_docs - 1) / (smallest - 1)


def _curve_name(data: PositionData, model: str, n_docs: int) -> tuple[str, bool]:
    counts = data.doc_counts(model)
    has_oracle = data.oracle(model) is not None
    if n_docs in counts:
        return f"{n_docs} documents", False
    if n_docs == 1 and has_oracle:
        return "gold only", False
    if n_docs < counts[0]:
        if has_oracle:
            return f"between gold only and {counts[0]} documents", False
        return f"outside every curve: {n_docs} documents, read on the {counts[0]}-document curve", True
    if n_docs > counts[-1]:
        return f"outside every curve: {n_docs} documents, read on the {counts[-1]}-document curve", True
    lo = max(c for c in counts if c < n_docs)
    hi = min(c for c in counts if c > n_docs)
    return f"between {lo} and {hi} documents", False


@lru_cache(maxsize=8192)
def read_curve(model: str, n_docs: int, position: int | None) -> CurveReading:
    """Return the published accuracy for a gold at ``position`` of a block of ``n_docs`` (None: not in it).

    Values are percentages rounded to 3 decimals; ``low``/``high`` are the interpolated Wilson
    bounds of the points read (2,655 questions each).
    """
    data = load_position_curves()
    low_data, high_data = curve_bounds(0), curve_bounds(1)
    if position is None:
        value, low, high = (d.closed_book(model) for d in (data, low_data, high_data))
        if value is None or low is None or high is None:
            raise ValueError(f"{model} has no closed-book accuracy in the published data")
        return CurveReading(value, round(low, 3), round(high, 3), "closed book")
    name, outside = _curve_name(data, model, n_docs)
    return CurveReading(
        round(_read(data, model, n_docs, position), 3),
        round(_read(low_data, model, n_docs, position), 3),
        round(_read(high_data, model, n_docs, position), 3),
        name,
        outside,
    )
