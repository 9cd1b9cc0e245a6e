"""Placement: the order documents take in the block, and every strategy the lab compares.

Each strategy takes items sorted most relevant first and returns them in block order. An int
n stands for the ranks ``range(n)``, so ``ORDERINGS[key](6)`` gives the block order of ranks
0..5. ``place`` is what the engine calls; the "three or fewer stay in order" rule of seed 000
lives in ``lost_in_the_middle_ordering``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..errors import InvalidInputError
from ..validation import one_of, whole_number

__all__ = [
    "MIN_DOCS_TO_REORDER",
    "ORDERINGS",
    "PLACEMENTS",
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


def llamaindex_long_context_reorder(items: Sequence[T] | int,
                                    scores: Sequence[float] | None = None) -> list[T]:
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

#: The names ``ContextManager(placement=...)`` accepts: every strategy in ``ORDERINGS``.
PLACEMENTS: tuple[str, ...] = tuple(ORDERINGS)


def _ordering(strategy: str) -> Callable[[Sequence[Any]], list[Any]]:
    """Return the ordering function for ``strategy``, or raise naming the known ones."""
    return ORDERINGS[one_of("ordering", strategy, ORDERINGS)]


def ordering_positions(strategy: str, n: int) -> list[int]:
    """Return the 0-based relevance ranks in block order for ``n`` documents under ``strategy``."""
    return _ordering(strategy)(list(range(whole_number("n", n, minimum=1))))


def most_relevant_position(strategy: str, n: int) -> int:
    """Return the 1-based block position of the most relevant of ``n`` documents under ``strategy``.

    ``most_relevant_position("langchain", 6) == 6``: LangChain puts the best document last.
    """
    return ordering_positions(strategy, n).index(0) + 1


def place(strategy: str, items: Sequence[T], scores: Sequence[float] | None = None) -> list[T]:
    """Return ``items`` (most relevant first) in block order under the placement ``strategy``.

    ``scores`` (one per item) matter only to "llamaindex", which sorts by them as LlamaIndex
    does, so tied scores land where LlamaIndex would put them.
    """
    if strategy == "llamaindex":
        return llamaindex_long_context_reorder(items, scores)
    return _ordering(strategy)(items)
