"""Exact and near-duplicate detection.

Exact duplicates share the md5 of their lowercased, whitespace-collapsed text. Near
duplicates have a Jaccard similarity of 5-word shingles at or above the threshold with a
document already kept; the first kept wins.

Seed 000 compares every document with every kept one (O(n²) pairs). ``find_duplicates``
returns the same kept set without that scan, by prefix filtering (Chaudhuri et al. 2006;
Bayardo et al., "All-pairs similarity search", 2007): order each shingle set by a global
order (rarest shingle first), and index only a prefix of it. Two sets with Jaccard >= t
share at least ``ceil(t * |x|)`` shingles, so their prefixes of length
``|x| - ceil(t * |x|) + 1`` must overlap; only documents meeting in the prefix index are
compared at all, and each comparison is the exact Jaccard the seed computes.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..types import DuplicatePair

__all__ = [
    "SHINGLE_SIZE",
    "content_hash",
    "shingles",
    "jaccard",
    "find_duplicates",
    "DedupOutcome",
    "similarity_matrix",
    "pair_similarities",
    "shared_word_mask",
]

SHINGLE_SIZE = 5
_WHITESPACE = re.compile(r"\s+")
# Guard against t * |x| landing a hair above an integer through float rounding: a shorter
# ceil only lengthens the prefix, which is always safe.
_EPS = 1e-9

Shingle = tuple[str, ...]


def content_hash(text: str) -> str:
    """Return the md5 hex digest of ``text`` lowercased with runs of whitespace collapsed."""
    return hashlib.md5(_WHITESPACE.sub(" ", text.lower()).encode()).hexdigest()


def shingles(text: str, k: int = SHINGLE_SIZE) -> frozenset[Shingle]:
    """Return the set of ``k``-word windows of the lowercased, whitespace-split text.

    A text of fewer than ``k`` words is one shingle of all its words; an empty text has none.
    """
    words = text.lower().split()
    if not words:
        return frozenset()
    if len(words) < k:
        return frozenset((tuple(words),))
    return frozenset(zip(*(words[i:] for i in range(k))))


def jaccard(a: frozenset | set, b: frozenset | set) -> float:
    """Return |a ∩ b| / |a ∪ b|, and 0.0 when both are empty."""
    if not a and not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


@dataclass
class DedupOutcome:
    """Which positions of the input were kept, and a pair for each one dropped."""

    kept: list[int] = field(default_factory=list)
    pairs: list[DuplicatePair] = field(default_factory=list)


def _prefix_length(size: int, threshold: float) -> int:
    return size - math.ceil(threshold * size - _EPS) + 1


def find_duplicates(texts: Sequence[str], threshold: float) -> DedupOutcome:
    """Return the kept positions of ``texts`` and the duplicate pairs, first kept wins.

    Pairs name positions in ``texts``; a near duplicate names the kept text it is most
    similar to (the earliest on a tie). Same result as comparing against every kept text.
    """
    outcome = DedupOutcome()
    if not texts:
        return outcome
    sets = [shingles(t) for t in texts]
    frequency: Counter[Shingle] = Counter()
    for s in sets:
        frequency.update(s)
    order_key = lambda sh: (frequency[sh], sh)  # noqa: E731 - a total order: rarest first

    kept_by_hash: dict[str, int] = {}
    index: dict[Shingle, list[int]] = {}
    for i, text in enumerate(texts):
        digest = content_hash(text)
        first = kept_by_hash.get(digest)
        if first is not None:
            outcome.pairs.append(DuplicatePair(first, i, 1.0, "exact"))
            continue
        s = sets[i]
        prefix: list[Shingle] = []
        if s:
            size = len(s)
            prefix = sorted(s, key=order_key)[: _prefix_length(size, threshold)]
            best, best_sim = -1, -1.0
            seen: set[int] = set()
            for sh in prefix:
                for j in index.get(sh, ()):
                    if j in seen:
                        continue
                    seen.add(j)
                    other = sets[j]
                    inter = len(s & other)
                    sim = inter / (size + len(other) - inter)
                    if sim >= threshold and (sim > best_sim or (sim == best_sim and j < best)):
                        best, best_sim = j, sim
            if best >= 0:
                outcome.pairs.append(DuplicatePair(best, i, best_sim, "near"))
                continue
        kept_by_hash[digest] = i
        outcome.kept.append(i)
        for sh in prefix:
            index.setdefault(sh, []).append(i)
    return outcome


def similarity_matrix(texts: Sequence[str]) -> list[list[float]]:
    """Return the symmetric matrix of shingle Jaccard similarities (1.0 on the diagonal).

    All pairs: meant for the few dozen documents a person looks at, not for dedup itself.
    """
    sets = [shingles(t) for t in texts]
    n = len(sets)
    matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        matrix[i][i] = 1.0
        for j in range(i + 1, n):
            matrix[i][j] = matrix[j][i] = jaccard(sets[i], sets[j])
    return matrix


def pair_similarities(texts: Sequence[str]) -> list[tuple[int, int, float]]:
    """Return (i, j, similarity) for every pair i < j, for the threshold histogram."""
    matrix = similarity_matrix(texts)
    return [(i, j, matrix[i][j]) for i in range(len(texts)) for j in range(i + 1, len(texts))]


def shared_word_mask(text: str, other: str, k: int = SHINGLE_SIZE) -> list[tuple[str, bool]]:
    """Return the words of ``text`` (as split) each marked True when inside a shingle ``other`` shares.

    This is what the lab highlights in the side-by-side view of a duplicate pair.
    """
    words = text.split()
    lowered = [w.lower() for w in words]
    theirs = shingles(other, k)
    marked = [False] * len(words)
    if len(words) < k:
        if words and tuple(lowered) in theirs:
            marked = [True] * len(words)
        return list(zip(words, marked))
    for start in range(len(words) - k + 1):
        if tuple(lowered[start : start + k]) in theirs:
            for w in range(start, start + k):
                marked[w] = True
    return list(zip(words, marked))
