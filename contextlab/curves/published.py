"""Position-bias curves from Liu et al. (2024) and the score of a document ordering under them.

The shipped CSV holds the paper's multi-document QA accuracy by the position of the answer
document (10, 20 and 30 documents; six models), plus closed-book and oracle accuracy.
``accuracy_at`` interpolates it to any document count and position; ``ordering_score`` says how
much of the relevance lands where models read well under a placement strategy (the strategies,
``ORDERINGS``, live in ``contextlab.stages.reorder`` and are re-exported here).

Accuracies are percentages (0-100), as in the paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import InvalidInputError
from ..stages.reorder import PositionCurve
from ..validation import is_finite_number, message_value, whole_number
from .curve_file import PositionData, parse_position_csv

__all__ = [
    "check_doc_count",
    "CITATION",
    "CITATION_URL",
    "DATA_FILE",
    "INTERPOLATION_METHOD",
    "PositionCurve",
    "accuracy_at",
    "accuracy_curve",
    "curve_models",
    "load_position_curves",
    "position_curve",
]

#: The study the curves come from.
CITATION = (
    "Nelson F. Liu, Kevin Lin, John Hewitt, Ashwin Paranjape, Michele Bevilacqua, Fabio Petroni "
    'and Percy Liang. "Lost in the Middle: How Language Models Use Long Contexts". Transactions '
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


@lru_cache(maxsize=1)
def load_position_curves() -> PositionData:
    """Return the curves of Liu et al. (2024) from the CSV shipped in the package (read once)."""
    text = resources.files("contextlab").joinpath("data").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return replace(parse_position_csv(text, name=DATA_FILE), citation=CITATION)


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
    for (d0, a0), (d1, a1) in zip(knots, knots[1:], strict=False):
        if depth == d1:
            return a1
        if depth < d1:
            return a0 + (a1 - a0) * (depth - d0) / (d1 - d0)
    return knots[-1][1]


def check_doc_count(n_docs: Any, name: str = "n_docs") -> int:
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
    n = check_doc_count(n_docs)
    if not is_finite_number(position) or not 1 <= position <= n:
        raise InvalidInputError(f"position must be between 1 and n_docs={n}, got {message_value(position)}")
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
    n = check_doc_count(n_docs)
    return [accuracy_at(model, n, p, data=data) for p in range(1, n + 1)]


def position_curve(model: str, total_docs: int | None = None, *, data: PositionData | None = None) -> PositionCurve:
    """Return ``model``'s accuracy by depth as the ``PositionCurve`` the "curve" placement follows.

    The curve measured with ``total_docs`` documents (default: the fewest measured, 10 for the
    published curves, K for a curve from ``contextlab curve``), at its measured positions.
    """
    data = data or load_position_curves()
    name = data.resolve_model(model)
    counts = data.doc_counts(name)
    count = counts[0] if total_docs is None else check_doc_count(total_docs, "total_docs")
    if count not in counts:
        raise InvalidInputError(
            f"{name} was measured with {', '.join(map(str, counts))} documents, not {count}", field="total_docs"
        )
    points = data.curve(name, count)
    return PositionCurve(tuple((_depth(p, count), acc) for p, acc in points), label=f"{name}, {count} documents")


# -- scoring an ordering -----------------------------------------------------------------------
