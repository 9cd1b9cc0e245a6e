"""The seed-compatible measure: exact duplicates by md5, near duplicates by 5-word shingle Jaccard.

A document is an exact duplicate of a kept one with the same md5 of its lowercased,
whitespace-collapsed text, and a near duplicate when the Jaccard similarity of its shingle set
with ANY kept document's is ``>= threshold`` (the most similar kept one is named, the earliest on a tie).

Prefix filtering (Bayardo et al. 2007): under one order of shingles (rarest first, Xiao et al.
2008), two sets with Jaccard >= t share ``ceil(t * |x|)`` shingles, so their prefixes of
``|x| - ceil(t * |x|) + 1`` meet. A hash collision only adds a candidate, compared on its shingles.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Hashable, Sequence, Set

import numpy as np

from ...types import DuplicatePair
from .edit_measure import DedupOutcome

__all__ = ["SHINGLE_SIZE", "content_hash", "find_shingle_duplicates", "jaccard", "shingles"]

#: Words in a shingle.
SHINGLE_SIZE = 5
_EPS = 1e-9


def _exact_key(text: str) -> str:
    r"""Return ``re.sub(r"\s+", " ", text.lower())`` (``\s`` is ``str.isspace``), without the regex."""
    lowered = text.lower()
    words = lowered.split()
    if not words:
        return " " if lowered else ""
    return " " * lowered[0].isspace() + " ".join(words) + " " * lowered[-1].isspace()


def content_hash(text: str) -> str:
    """Return the md5 hex digest of ``text`` lowercased with runs of whitespace collapsed.

    A lone surrogate (text read from broken UTF-16) is encoded as itself, not refused.
    """
    return hashlib.md5(_exact_key(text).encode("utf-8", "surrogatepass")).hexdigest()


def _windows(text: str, k: int = SHINGLE_SIZE) -> frozenset[tuple[str, ...]]:
    """Return ``shingles(text, k)`` as tuples of words (one-to-one: words hold no space)."""
    words = text.lower().split()
    if len(words) < k:
        return frozenset([tuple(words)] if words else [])
    return frozenset(zip(*(words[i:] for i in range(k)), strict=False))


def shingles(text: str, k: int = SHINGLE_SIZE) -> frozenset[str]:
    """Return the set of ``k``-word windows of the lowercased, whitespace-split text.

    A text of fewer than ``k`` words is one shingle of all its words; an empty text has none.
    """
    return frozenset(map(" ".join, _windows(text, k)))


def jaccard(a: Set[Hashable], b: Set[Hashable]) -> float:
    """Return |a ∩ b| / |a ∪ b|, and 0.0 when both are empty."""
    if not a and not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def _prefixes(texts: Sequence[str], threshold: float) -> tuple[list[list[int]], list[int]]:
    """Return each text's prefix (its shingles' hashes, rarest first) and its shingle count."""
    hashes, sizes = [], []
    for text in texts:
        windows = _windows(text)
        own = set(map(hash, windows))
        hashes.append(np.fromiter(own, dtype=np.int64, count=len(own)))
        sizes.append(len(windows))
    flat = np.concatenate(hashes) if hashes else np.zeros(0, dtype=np.int64)
    _, inverse, held = np.unique(flat, return_inverse=True, return_counts=True)
    owner = np.repeat(np.arange(len(texts)), [h.size for h in hashes])
    order = np.lexsort((flat, held[inverse.ravel()], owner))  # by text, then rarest, then hash
    flat = flat[order]
    begin = np.cumsum(sizes) - np.array(sizes, dtype=np.int64)
    prefixes = []
    for start, size, text_size in zip(begin.tolist(), [h.size for h in hashes], sizes, strict=True):
        length = text_size - math.ceil(threshold * text_size - _EPS) + 1 if text_size else 0
        prefixes.append(flat[start : start + min(length, size)].tolist())
    return prefixes, sizes


def find_shingle_duplicates(texts: Sequence[str], threshold: float) -> DedupOutcome:
    """Return the ``DedupOutcome`` of the seed's greedy pass (shingle Jaccard), by prefix filtering."""
    outcome = DedupOutcome()
    prefixes, sizes = _prefixes(texts, threshold)
    sets: dict[int, frozenset[tuple[str, ...]]] = {}
    kept_keys: dict[str, int] = {}
    index: dict[int, list[int]] = {}  # a prefix shingle's hash -> kept texts whose prefix holds it
    for i, text in enumerate(texts):
        key = _exact_key(text)
        twin = kept_keys.get(key)
        if twin is not None:
            outcome.pairs.append(DuplicatePair(twin, i, 1.0, "exact"))
            continue
        best, best_sim = -1, threshold
        candidates = sorted({k for h in prefixes[i] for k in index.get(h, ())})
        for k in candidates:
            if min(sizes[k], sizes[i]) < threshold * max(sizes[k], sizes[i]) - _EPS:
                continue  # Jaccard is at most the smaller set's size over the larger's
            mine = sets.get(i) or sets.setdefault(i, _windows(text))
            similarity = jaccard(sets.get(k) or sets.setdefault(k, _windows(texts[k])), mine)
            if similarity >= best_sim and (best < 0 or similarity > best_sim):
                best, best_sim = k, similarity
        sets.pop(i, None)
        if best >= 0:
            outcome.pairs.append(DuplicatePair(best, i, best_sim, "near"))
            continue
        outcome.kept.append(i)
        kept_keys[key] = i
        for h in prefixes[i]:
            index.setdefault(h, []).append(i)
    return outcome
