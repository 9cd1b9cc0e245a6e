"""Position-bias curves from Liu et al. (2024) and the score of a document ordering under them.

The shipped CSV holds the paper's multi-document QA accuracy by the position of the answer
document (10, 20 and 30 documents; six models), plus closed-book and oracle accuracy.
``accuracy_at`` interpolates it to any document count and position; ``ordering_score`` says how
much of the relevance lands where models read well under a placement strategy (the strategies,
``ORDERINGS``, live in ``contextlab.stages.reorder`` and are re-exported here).

Accuracies are percentages (0-100), as in the paper.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from .errors import InvalidInputError
from .manager import ContextManager
from .settings import DEFAULT_CURVE_MODEL, EngineSettings
# The placement strategies live with the reorder stage; they are re-exported here because
# this module published them first.
from .stages.reorder import (
    ORDERINGS,
    PositionCurve,
    langchain_long_context_reorder,
    llamaindex_long_context_reorder,
    lost_in_the_middle_ordering,
    most_relevant_position,
    ordering_positions,
    relevance_ordering,
    reversed_ordering,
)
from .validation import is_finite_number, whole_number

__all__ = [
    "CITATION",
    "CITATION_URL",
    "DATA_FILE",
    "INTERPOLATION_METHOD",
    "ORDERINGS",
    "OrderingReport",
    "PositionCurve",
    "PositionData",
    "PositionRow",
    "accuracy_at",
    "accuracy_curve",
    "compare_orderings",
    "curve_models",
    "langchain_long_context_reorder",
    "llamaindex_long_context_reorder",
    "load_position_curves",
    "lost_in_the_middle_ordering",
    "most_relevant_position",
    "ordering_positions",
    "ordering_report",
    "ordering_score",
    "parse_position_csv",
    "position_curve",
    "manager_for",
    "relevance_ordering",
    "reversed_ordering",
]

#: The study the curves come from.
CITATION = (
    "Nelson F. Liu, Kevin Lin, John Hewitt, Ashwin Paranjape, Michele Bevilacqua, Fabio Petroni "
    "and Percy Liang. \"Lost in the Middle: How Language Models Use Long Contexts\". Transactions "
    "of the Association for Computational Linguistics 12:157-173, 2024. arXiv:2307.03172."
)
CITATION_URL = "https://arxiv.org/abs/2307.03172"

#: The CSV inside the package (``contextlab/data/``).
DATA_FILE = "lost_in_the_middle_liu2024.csv"

#: How ``accuracy_at`` fills the gaps between measured points; the lab shows this text.
INTERPOLATION_METHOD = (
    "Position p of n documents is mapped to its relative depth (p - 1) / (n - 1) (0 = first, "
    "1 = last; a single document is at depth 0). On each measured curve (10, 20 and 30 "
    "documents) accuracy is interpolated linearly between the measured depths. For a document "
    "count between two measured counts, the two curves' values at that depth are interpolated "
    "linearly in the count; below the smallest or above the largest measured count, the nearest "
    "measured curve is used unchanged (no extrapolation). At measured points the result is the "
    "published number."
)


# -- the data ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PositionData:
    """The published accuracies: per model, per document count, (position, accuracy %) points."""

    curves: Mapping[str, Mapping[int, tuple[tuple[int, float], ...]]]
    closed_book_accuracy: Mapping[str, float] = field(default_factory=dict)
    oracle_accuracy: Mapping[str, float] = field(default_factory=dict)
    citation: str = CITATION

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
        raise InvalidInputError(
            f"unknown model {model!r}; choose one of: {', '.join(self.models())}"
        )

    def doc_counts(self, model: str) -> list[int]:
        """Return the document counts measured for ``model``, ascending (e.g. ``[10, 20, 30]``)."""
        return sorted(self.curves[self.resolve_model(model)])

    def curve(self, model: str, total_docs: int) -> list[tuple[int, float]]:
        """Return the measured ``(position, accuracy %)`` points of ``model`` at ``total_docs`` documents."""
        name = self.resolve_model(model)
        if total_docs not in self.curves[name]:
            raise InvalidInputError(
                f"{name} was measured with {', '.join(map(str, self.doc_counts(name)))} documents, "
                f"not {total_docs!r}; use accuracy_at() to interpolate other counts"
            )
        return list(self.curves[name][total_docs])

    def closed_book(self, model: str) -> float | None:
        """Return ``model``'s closed-book accuracy % (no documents given), or None if unmeasured."""
        return self.closed_book_accuracy.get(self.resolve_model(model))

    def oracle(self, model: str) -> float | None:
        """Return ``model``'s oracle accuracy % (only the answer document given), or None."""
        return self.oracle_accuracy.get(self.resolve_model(model))


def parse_position_csv(text: str, *, name: str = DATA_FILE) -> PositionData:
    """Return the ``PositionData`` in CSV ``text`` of the bundled format (a measured curve too).

    Columns ``model,total_docs,position,accuracy,kind``; others (a measured curve's ``questions``
    and interval) are ignored; ``#`` lines are comments. ``name`` is the file errors mention.
    """
    return _parse_csv(text, name)


def _parse_csv(text: str, name: str = DATA_FILE) -> PositionData:
    """Return the ``PositionData`` in the CSV ``text`` (``#`` lines are comments)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    curves: dict[str, dict[int, list[tuple[int, float]]]] = {}
    closed: dict[str, float] = {}
    oracle: dict[str, float] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        model, kind, accuracy = row["model"], row["kind"], float(row["accuracy"])
        if kind == "position":
            curves.setdefault(model, {}).setdefault(int(row["total_docs"]), []).append(
                (int(row["position"]), accuracy)
            )
        elif kind == "closed_book":
            closed[model] = accuracy
        elif kind == "oracle":
            oracle[model] = accuracy
        else:
            raise InvalidInputError(f"{name}: unknown row kind {kind!r}; expected position, "
                                    "closed_book or oracle")
    # Read-only views: the parsed data is cached and shared by every caller.
    frozen = MappingProxyType({
        m: MappingProxyType({n: tuple(sorted(pts)) for n, pts in by_n.items()})
        for m, by_n in curves.items()
    })
    return PositionData(curves=frozen, closed_book_accuracy=MappingProxyType(closed),
                        oracle_accuracy=MappingProxyType(oracle))


@lru_cache(maxsize=1)
def load_position_curves() -> PositionData:
    """Return the curves of Liu et al. (2024) from the CSV shipped in the package (read once)."""
    text = resources.files("contextlab").joinpath("data", DATA_FILE).read_text(encoding="utf-8")
    return _parse_csv(text)


def curve_models(data: PositionData | None = None) -> list[str]:
    """Return the model names that have position curves (the lab's model picker)."""
    return (data or load_position_curves()).models()


# -- interpolation -----------------------------------------------------------------------------


def _depth(position: float, n_docs: int) -> float:
    """Return the relative depth of ``position`` among ``n_docs``: 0 first, 1 last."""
    return 0.0 if n_docs == 1 else (position - 1) / (n_docs - 1)


def _on_curve(points: Sequence[tuple[int, float]], count: int, depth: float) -> float:
    """Return the accuracy at ``depth`` on one measured curve, linear between measured depths."""
    knots = [(_depth(p, count), acc) for p, acc in points]
    if depth <= knots[0][0]:
        return knots[0][1]
    for (d0, a0), (d1, a1) in zip(knots, knots[1:]):
        if depth == d1:
            return a1
        if depth < d1:
            return a0 + (a1 - a0) * (depth - d0) / (d1 - d0)
    return knots[-1][1]


def _check_count(n_docs: Any, name: str = "n_docs") -> int:
    """Return ``n_docs`` when it is a whole number >= 1, else raise."""
    return whole_number(name, n_docs, minimum=1)


def accuracy_at(model: str, n_docs: int, position: float, *, data: PositionData | None = None) -> float:
    """Return the expected accuracy % of ``model`` when the answer is at ``position`` of ``n_docs``.

    Method: position p of n documents is mapped to its relative depth (p - 1) / (n - 1).
    Each measured curve (10, 20, 30 documents) is interpolated linearly between its measured
    depths; for a count between two measured counts, the two curves' values at that depth are
    interpolated linearly in the count; outside the measured counts the nearest curve is used
    (clamped, never extrapolated). At a measured (count, position) the published value is
    returned exactly. ``position`` is 1-based and may be fractional.
    """
    data = data or load_position_curves()
    name = data.resolve_model(model)
    n = _check_count(n_docs)
    if not is_finite_number(position) or not 1 <= position <= n:
        raise InvalidInputError(f"position must be between 1 and n_docs={n}, got {position!r}")
    depth = _depth(position, n)
    by_count = data.curves[name]
    counts = sorted(by_count)
    if n in by_count:
        return _on_curve(by_count[n], n, depth)
    if n < counts[0]:
        return _on_curve(by_count[counts[0]], counts[0], depth)
    if n > counts[-1]:
        return _on_curve(by_count[counts[-1]], counts[-1], depth)
    hi = next(c for c in counts if c > n)
    lo = max(c for c in counts if c < n)
    weight = (n - lo) / (hi - lo)
    low, high = _on_curve(by_count[lo], lo, depth), _on_curve(by_count[hi], hi, depth)
    return low + (high - low) * weight


def accuracy_curve(model: str, n_docs: int, *, data: PositionData | None = None) -> list[float]:
    """Return ``accuracy_at`` for positions 1..``n_docs``: element k is position k + 1."""
    n = _check_count(n_docs)
    return [accuracy_at(model, n, p, data=data) for p in range(1, n + 1)]


def position_curve(model: str, total_docs: int | None = None, *, data: PositionData | None = None) -> PositionCurve:
    """Return ``model``'s accuracy by depth as the ``PositionCurve`` the "curve" placement follows.

    The curve measured with ``total_docs`` documents (default: the fewest measured, 10 for the
    published curves, K for a curve from ``contextlab curve``), at its measured positions.
    """
    data = data or load_position_curves()
    name = data.resolve_model(model)
    counts = data.doc_counts(name)
    count = counts[0] if total_docs is None else _check_count(total_docs, "total_docs")
    if count not in counts:
        raise InvalidInputError(f"{name} was measured with {', '.join(map(str, counts))} documents, not {count}",
                                field="total_docs")
    points = data.curve(name, count)
    return PositionCurve(tuple((_depth(p, count), acc) for p, acc in points), label=f"{name}, {count} documents")


# -- scoring an ordering -----------------------------------------------------------------------


@dataclass(frozen=True)
class PositionRow:
    """One block position: the relevance placed there and the model's accuracy at it."""

    position: int
    relevance: float
    accuracy: float

    @property
    def weighted(self) -> float:
        """Return relevance times accuracy % (this position's share of the score's numerator)."""
        return self.relevance * self.accuracy


@dataclass(frozen=True)
class OrderingReport:
    """An ordering scored under one model's curve, with the rows the lab charts."""

    model: str
    n_docs: int
    rows: list[PositionRow]
    score: float
    best_score: float
    worst_score: float

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-serialisable data."""
        return {
            "model": self.model, "n_docs": self.n_docs, "score": self.score,
            "best_score": self.best_score, "worst_score": self.worst_score,
            "rows": [{"position": r.position, "relevance": r.relevance, "accuracy": r.accuracy}
                     for r in self.rows],
        }


def _relevances(relevances: Sequence[float], n_docs: int | None) -> tuple[list[float], int]:
    """Return the checked relevances padded with zeros to ``n_docs``, and ``n_docs``."""
    values = list(relevances)
    for i, r in enumerate(values):
        if not is_finite_number(r) or r < 0:
            raise InvalidInputError(f"relevances[{i}] must be a finite number >= 0, got {r!r}")
    n = len(values) if n_docs is None else _check_count(n_docs)
    if n < 1:
        raise InvalidInputError("relevances is empty; give one relevance per block position")
    if len(values) > n:
        raise InvalidInputError(f"{len(values)} relevances do not fit in n_docs={n}; raise n_docs or drop some")
    return [float(r) for r in values] + [0.0] * (n - len(values)), n


def _score(values: Sequence[float], accuracies: Sequence[float]) -> float:
    """Return sum(relevance x accuracy) / (sum(relevance) x max accuracy), 0.0 without relevance."""
    total = sum(values)
    if total == 0:
        return 0.0
    return sum(r * a for r, a in zip(values, accuracies)) / (total * max(accuracies))


def ordering_report(relevances: Sequence[float], model: str, n_docs: int | None = None, *,
                    data: PositionData | None = None) -> OrderingReport:
    """Return per-position rows and the score of ``relevances`` (in block order) under ``model``.

    ``best_score`` and ``worst_score`` are the scores of the same relevances placed best and
    worst (most relevant at the most and least accurate positions), bounding what reordering can do.
    """
    data = data or load_position_curves()
    name = data.resolve_model(model)
    values, n = _relevances(relevances, n_docs)
    accuracies = [accuracy_at(name, n, p, data=data) for p in range(1, n + 1)]
    by_accuracy = sorted(accuracies, reverse=True)
    ranked = sorted(values, reverse=True)
    return OrderingReport(
        model=name,
        n_docs=n,
        rows=[PositionRow(p, r, a) for p, (r, a) in enumerate(zip(values, accuracies), start=1)],
        score=_score(values, accuracies),
        best_score=_score(ranked, by_accuracy),
        worst_score=_score(ranked[::-1], by_accuracy),
    )


def ordering_score(relevances: Sequence[float], model: str, n_docs: int | None = None, *,
                   data: PositionData | None = None) -> float:
    """Return the share of relevance that lands in high-accuracy positions, in [0, 1].

    ``relevances[i]`` is the relevance of the document at block position i + 1 (non-negative,
    e.g. retrieval scores). The score is sum_i relevance_i x accuracy(i) divided by
    sum_i relevance_i x max accuracy, with accuracy from ``accuracy_at(model, n_docs, i)``:
    1.0 means all relevance sits at the best-read position, and the score falls as relevance
    moves to positions the model reads worse. ``n_docs`` (default: one per relevance) may be
    larger, for a block whose remaining positions hold irrelevant documents. With zero total
    relevance the score is 0.0.
    """
    return ordering_report(relevances, model, n_docs, data=data).score


def compare_orderings(ranked_relevances: Sequence[float], model: str, n_docs: int | None = None, *,
                      data: PositionData | None = None) -> dict[str, float]:
    """Return ``ordering_score`` of every strategy in ``ORDERINGS`` for relevances sorted best first."""
    ranked = list(ranked_relevances)
    return {key: ordering_score(fn(ranked), model, n_docs, data=data) for key, fn in ORDERINGS.items()}


def manager_for(settings: EngineSettings, curve: PositionCurve | None = None) -> ContextManager:
    """Return the ``ContextManager`` ``settings`` describe, with the curve placement "curve" follows.

    That curve is ``curve`` (one you measured) or, by default, the published curve of
    ``settings.DEFAULT_CURVE_MODEL``; other placements need none. What ``LabConfig``, evaluation
    grids, captured runs and the framework components build with.
    """
    if settings.placement == "curve" and curve is None:
        curve = position_curve(DEFAULT_CURVE_MODEL)
    return ContextManager.from_settings(settings, position_curve=curve)
