"""The first stage: drop documents too short to be worth a citation."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["filter_short_documents"]


def filter_short_documents(token_counts: Sequence[int], min_tokens: int) -> tuple[list[int], list[int]]:
    """Return (kept, dropped) indices: a document is dropped when it has fewer than ``min_tokens``."""
    kept: list[int] = []
    dropped: list[int] = []
    for i, n in enumerate(token_counts):
        (kept if n >= min_tokens else dropped).append(i)
    return kept, dropped
