"""Lost-in-the-middle placement: the most relevant documents at both ends of the block."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["lost_in_the_middle_order", "reorder_lost_in_the_middle", "MIN_DOCS_TO_REORDER"]

T = TypeVar("T")

#: Seed 000 leaves three or fewer documents in relevance order.
MIN_DOCS_TO_REORDER = 4


def lost_in_the_middle_order(n: int) -> list[int]:
    """Return the relevance ranks (0-based) in block order for ``n`` documents.

    Rank 0 goes first, rank 1 last, rank 2 second, rank 3 second to last, and so on, so
    the least relevant documents meet in the middle: for 10 documents the block holds
    ranks ``0 2 4 6 8 9 7 5 3 1``.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
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
    """Return ``items`` (sorted most relevant first) placed lost-in-the-middle style."""
    return [items[rank] for rank in lost_in_the_middle_order(len(items))]
