"""Scores under a curve: how much of a block's relevance lands where a model reads well.

``ordering_report`` and ``ordering_score`` read a placement strategy's positions on a published
curve (``published.accuracy_at``); ``compare_orderings`` scores every strategy of
``stages.reorder.ORDERINGS`` on the same ranked documents. Scores are between 0 and 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..stages.reorder import ORDERINGS
from ..validation import is_finite_number, message_value
from .curve_file import PositionData
from .published import accuracy_at, check_doc_count, load_position_curves

__all__ = ["OrderingReport", "PositionRow", "compare_orderings", "ordering_report", "ordering_score"]


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

    def to_dict(self) -> dict[str, object]:
        """Return the report as plain JSON-serialisable data."""
        return {
            "model": self.model,
            "n_docs": self.n_docs,
            "score": self.score,
            "best_score": self.best_score,
            "worst_score": self.worst_score,
            "rows": [{"position": r.position, "relevance": r.relevance, "accuracy": r.accuracy} for r in self.rows],
        }


def _relevances(relevances: Sequence[float], n_docs: int | None) -> tuple[list[float], int]:
    """Return the checked relevances padded with zeros to ``n_docs``, and ``n_docs``."""
    values = list(relevances)
    for i, r in enumerate(values):
        if not is_finite_number(r) or r < 0:
            raise InvalidInputError(f"relevances[{i}] must be a finite number >= 0, got {message_value(r)}")
    n = len(values) if n_docs is None else check_doc_count(n_docs)
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
    return sum(r * a for r, a in zip(values, accuracies, strict=False)) / (total * max(accuracies))


def ordering_report(
    relevances: Sequence[float], model: str, n_docs: int | None = None, *, data: PositionData | None = None
) -> OrderingReport:
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
        rows=[PositionRow(p, r, a) for p, (r, a) in enumerate(zip(values, accuracies, strict=False), start=1)],
        score=_score(values, accuracies),
        best_score=_score(ranked, by_accuracy),
        worst_score=_score(ranked[::-1], by_accuracy),
    )


def ordering_score(
    relevances: Sequence[float], model: str, n_docs: int | None = None, *, data: PositionData | None = None
) -> float:
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


def compare_orderings(
    ranked_relevances: Sequence[float], model: str, n_docs: int | None = None, *, data: PositionData | None = None
) -> dict[str, float]:
    """Return ``ordering_score`` of every strategy in ``ORDERINGS`` for relevances sorted best first."""
    ranked = list(ranked_relevances)
    return {key: ordering_score(fn(ranked), model, n_docs, data=data) for key, fn in ORDERINGS.items()}
