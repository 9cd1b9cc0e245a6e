"""Placement: the order documents take in the block, and every strategy the lab compares.

Each strategy takes items sorted most relevant first and returns them in block order. An int
n stands for the ranks ``range(n)``, so ``ORDERINGS[key](6)`` gives the block order of ranks
0..5. ``place`` is what the engine calls; the "three or fewer stay in order" rule of seed 000
lives in ``lost_in_the_middle_ordering``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import InvalidInputError
from ..validation import is_finite_number, one_of, whole_number

__all__ = [
    "MIN_DOCS_TO_REORDER",
    "ORDERINGS",
    "PLACEMENTS",
    "PositionCurve",
    "curve_ordering",
    "langchain_long_context_reorder",
    "llamaindex_long_context_reorder",
    "lost_in_the_middle_order",
    "lost_in_the_middle_ordering",
    "most_relevant_position",
    "ordering_positions",
    "place",
    "relevance_ordering",
    "reorder_lost_in_the_middle",
    "reversed_ordering",
]

T = TypeVar("T")

#: Seed 000 leaves three or fewer documents in relevance order.
MIN_DOCS_TO_REORDER = 4


def lost_in_the_middle_order(n: int) -> list[int]:
    """Return the relevance ranks (0-based) in block order for ``n`` documents.

    Rank 0 goes first, rank 1 last, rank 2 second, rank 3 second to last, and so on, so
    the least relevant documents meet in the middle: for 10 documents the block holds
    ranks ``0 2 4 6 8 9 7 5 3 1``.
    """
    whole_number("n", n, minimum=0)
    order: list[int] = [0] * n
    left, right = 0, n - 1
    for rank in range(n):
        if rank % 2 == 0:
            order[left] = rank
            left += 1
        else:
            order[right] = rank
            right -= 1
    return order


def reorder_lost_in_the_middle(items: Sequence[T]) -> list[T]:
    """Return ``items`` (sorted most relevant first) placed lost-in-the-middle style, at any count."""
    return [items[rank] for rank in lost_in_the_middle_order(len(items))]


def _items(items: Sequence[T] | int) -> list[Any]:
    """Return ``items`` as a list; an int n becomes the ranks ``[0, 1, ..., n - 1]``."""
    if isinstance(items, bool):
        raise InvalidInputError(f"expected a sequence of items or a count, got {items!r}")
    if isinstance(items, int):
        return list(range(whole_number("n", items, minimum=0)))
    return list(items)


def lost_in_the_middle_ordering(items: Sequence[T] | int) -> list[T]:
    """Return ``items`` placed as contextlab's engine places them: rank 0 first, rank 1 last, ...

    As in seed 000, three or fewer items stay in relevance order.
    """
    seq = _items(items)
    if len(seq) < MIN_DOCS_TO_REORDER:
        return seq
    return reorder_lost_in_the_middle(seq)


def relevance_ordering(items: Sequence[T] | int) -> list[T]:
    """Return ``items`` unchanged: the most relevant first (no reordering)."""
    return _items(items)


def reversed_ordering(items: Sequence[T] | int) -> list[T]:
    """Return ``items`` reversed: the most relevant last, next to the question."""
    return _items(items)[::-1]


def langchain_long_context_reorder(items: Sequence[T] | int) -> list[T]:
    """Return ``items`` as LangChain's ``LongContextReorder`` places them.

    LangChain reverses the list, then walks it inserting even steps at the front and appending
    odd steps. For an even count the most relevant item therefore ends up LAST (1..6 becomes
    ``2 4 6 5 3 1``); for an odd count it is first (1..7 becomes ``1 3 5 7 6 4 2``).
    """
    result: list[Any] = []
    for i, value in enumerate(reversed(_items(items))):
        if i % 2 == 1:
            result.append(value)
        else:
            result.insert(0, value)
    return result


def llamaindex_long_context_reorder(items: Sequence[T] | int, scores: Sequence[float] | None = None) -> list[T]:
    """Return ``items`` as LlamaIndex's ``LongContextReorder`` postprocessor places them.

    LlamaIndex sorts by score ascending (a stable sort), then inserts even steps at the front and
    appends odd steps. Without ``scores`` the items are taken as strictly decreasing in
    relevance, and the result equals LangChain's; with tied scores the two differ, because the
    stable sort keeps tied items in input order where LangChain's reversal flips them.
    """
    seq = _items(items)
    if scores is None:
        keys: list[float] = [-float(i) for i in range(len(seq))]
    else:
        if len(scores) != len(seq):
            raise InvalidInputError(f"scores has {len(scores)} values for {len(seq)} items; give one per item")
        keys = [float(s) for s in scores]
    ascending = [seq[i] for i in sorted(range(len(seq)), key=lambda i: keys[i])]
    result: list[Any] = []
    for i, value in enumerate(ascending):
        if i % 2 == 0:
            result.insert(0, value)
        else:
            result.append(value)
    return result


#: Every placement strategy the lab compares, by key.
ORDERINGS: dict[str, Callable[[Sequence[Any]], list[Any]]] = {
    "lost_in_the_middle": lost_in_the_middle_ordering,
    "relevance": relevance_ordering,
    "reversed": reversed_ordering,
    "langchain": langchain_long_context_reorder,
    "llamaindex": llamaindex_long_context_reorder,
}


@dataclass(frozen=True)
class PositionCurve:
    """How well a model reads each depth of a block: what the ``"curve"`` placement follows.

    ``points`` are ``(depth, accuracy)`` pairs, depth 0 the first document and 1 the last
    (position p of n is at (p - 1) / (n - 1)); accuracy is in any unit, higher is better. Between
    points it is linear, outside them flat. The engine takes the curve as data; where it comes
    from (a published study, or your model measured with ``contextlab curve``) is the caller's
    choice (``contextlab.curves.published.position_curve`` makes one).
    """

    points: tuple[tuple[float, float], ...]
    label: str = ""

    def __post_init__(self) -> None:
        points = tuple((float(d), float(a)) for d, a in self.points)
        if not points:
            raise InvalidInputError("position_curve needs at least one (depth, accuracy) point", field="position_curve")
        for depth, accuracy in points:
            if not (is_finite_number(depth) and is_finite_number(accuracy) and 0.0 <= depth <= 1.0):
                raise InvalidInputError(
                    f"position_curve points must be (depth in [0, 1], finite accuracy); got {(depth, accuracy)!r}",
                    field="position_curve",
                )
        object.__setattr__(self, "points", tuple(sorted(points)))

    @classmethod
    def from_accuracies(cls, accuracies: Sequence[float], label: str = "") -> PositionCurve:
        """Return the curve of accuracies measured at positions 1..K of a K-document block."""
        values = list(accuracies)
        k = len(values)
        if k == 0:
            raise InvalidInputError("position_curve needs at least one accuracy", field="position_curve")
        return cls(tuple((0.0 if k == 1 else i / (k - 1), a) for i, a in enumerate(values)), label)

    def accuracy(self, depth: float) -> float:
        """Return the accuracy at ``depth`` (0 first, 1 last), linear between points."""
        pts = self.points
        if depth <= pts[0][0]:
            return pts[0][1]
        for (d0, a0), (d1, a1) in zip(pts, pts[1:], strict=False):
            if depth <= d1:
                return a1 if d1 == d0 else a0 + (a1 - a0) * (depth - d0) / (d1 - d0)
        return pts[-1][1]

    def best_positions(self, n: int) -> list[int]:
        """Return the 0-based positions of an ``n``-document block, best read first (ties: earlier)."""
        whole_number("n", n, minimum=0)
        depth = [0.0 if n == 1 else p / (n - 1) for p in range(n)]
        return sorted(range(n), key=lambda p: (-round(self.accuracy(depth[p]), 9), p))


def curve_ordering(items: Sequence[T] | int, curve: PositionCurve) -> list[T]:
    """Return ``items`` (most relevant first) placed where ``curve`` reads best, in that order.

    The most relevant goes to the best-read position, the next to the next best, and so on:
    a recency-biased curve puts the best document last; the published GPT-3.5 curve fills the
    front first, then the end.
    """
    seq = _items(items)
    block: list[Any] = [None] * len(seq)
    for rank, position in enumerate(curve.best_positions(len(seq))):
        block[position] = seq[rank]
    return block


#: The names ``ContextManager(placement=...)`` accepts: every strategy in ``ORDERINGS``, and
#: ``"curve"``, which needs the manager's ``position_curve``.
PLACEMENTS: tuple[str, ...] = (*ORDERINGS, "curve")


def _ordering(strategy: str) -> Callable[[Sequence[Any]], list[Any]]:
    """Return the ordering function for ``strategy``, or raise naming the known ones."""
    return ORDERINGS[one_of("ordering", strategy, ORDERINGS)]


def ordering_positions(strategy: str, n: int, curve: PositionCurve | None = None) -> list[int]:
    """Return the 0-based relevance ranks in block order for ``n`` documents under ``strategy``.

    ``curve`` is what "curve" follows (required for it, ignored by the others).
    """
    ranks = list(range(whole_number("n", n, minimum=1)))
    if strategy == "curve":
        return place("curve", ranks, curve=curve)
    return _ordering(strategy)(ranks)


def most_relevant_position(strategy: str, n: int) -> int:
    """Return the 1-based block position of the most relevant of ``n`` documents under ``strategy``.

    ``most_relevant_position("langchain", 6) == 6``: LangChain puts the best document last.
    """
    return ordering_positions(strategy, n).index(0) + 1


def place(
    strategy: str, items: Sequence[T], scores: Sequence[float] | None = None, curve: PositionCurve | None = None
) -> list[T]:
    """Return ``items`` (most relevant first) in block order under the placement ``strategy``.

    ``scores`` (one per item) matter only to "llamaindex", which sorts by them as LlamaIndex
    does, so tied scores land where LlamaIndex would put them. ``curve`` is what "curve" follows.
    """
    if strategy == "llamaindex":
        return llamaindex_long_context_reorder(items, scores)
    if strategy == "curve":
        if curve is None:
            raise InvalidInputError(
                "placement 'curve' needs position_curve: the accuracy the model reads each position with",
                field="position_curve",
            )
        return curve_ordering(items, curve)
    return _ordering(strategy)(items)
