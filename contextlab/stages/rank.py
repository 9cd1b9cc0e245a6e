"""Relevance ranking: most relevant first, ties kept in input order."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["rank_by_score"]


def rank_by_score(scores: Sequence[float], indices: Sequence[int] | None = None) -> list[int]:
    """Return ``indices`` (default: all) ordered by score, highest first; the sort is stable."""
    if indices is None:
        indices = range(len(scores))
    # sorted(..., reverse=True) keeps equal keys in their original order, as the seed does.
    return sorted(indices, key=scores.__getitem__, reverse=True)
