"""Exact and near-duplicate detection.

Exact duplicates share the md5 of their lowercased, whitespace-collapsed text. Near
duplicates have a Jaccard similarity of 5-word shingles at or above the threshold with a
document already kept; the first kept wins.

Seed 000 compares every document with every kept one (O(n²) pairs). ``find_duplicates``
returns the same kept set without that scan, by prefix filtering (Chaudhuri et al. 2006;
Bayardo et al., "All-pairs similarity search", 2007): order each shingle set by one global
order and index only a prefix of it. Two sets with Jaccard >= t share at least
``ceil(t * |x|)`` shingles, so their prefixes of length ``|x| - ceil(t * |x|) + 1`` must
overlap; only documents meeting in the prefix index are compared at all, and each match is
confirmed with the exact Jaccard the seed computes. The order puts the shingles found in one
text only first: they can match nothing, and for all but near-duplicates they fill the whole
prefix, so most texts are neither looked up nor indexed. ``benchmarks/bench_build.py``
measures it against the seed's scan.
"""

from __future__ import annotations

import gc
import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

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

# A shingle is its words joined by single spaces, as in the seed; strings (unlike tuples)
# are not tracked by the garbage collector, which matters with millions of them.
Shingle = str


def content_hash(text: str) -> str:
    """Return the md5 hex digest of ``text`` lowercased with runs of whitespace collapsed."""
    return hashlib.md5(_WHITESPACE.sub(" ", text.lower()).encode()).hexdigest()


def shingles(text: str, k: int = SHINGLE_SIZE) -> frozenset[Shingle]:
    """Return the set of ``k``-word windows of the lowercased, whitespace-split text.

    A text of fewer than ``k`` words is one shingle of all its words; an empty text has none.
    """
    return _word_shingles(text.lower().split(), k)


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


def _windows(words: list[str], k: int):
    if k == 5:  # spelled out: measurably faster than the general form on the hot path
        return zip(words, words[1:], words[2:], words[3:], words[4:])
    return zip(*(words[i:] for i in range(k)))


def _word_shingles(words: list[str], k: int = SHINGLE_SIZE) -> frozenset[Shingle]:
    if len(words) >= k:
        return frozenset(map(" ".join, _windows(words, k)))
    return frozenset((" ".join(words),)) if words else frozenset()


def _hashed_shingles(words: list[str], k: int = SHINGLE_SIZE) -> frozenset[int]:
    if len(words) >= k:
        return frozenset(map(hash, _windows(words, k)))
    return frozenset((hash(tuple(words)),)) if words else frozenset()


def _repeated_shingles(hashed: Sequence[frozenset[int]]) -> tuple[set[int], list[int]]:
    """Return the shingles two or more texts have, and how many of them each text has.

    Counted with numpy in one sort of every text's hashes: a set-based pass costs a hash
    probe per shingle per step, and that is most of the time dedup takes.
    """
    import numpy as np

    sizes = np.fromiter(map(len, hashed), dtype=np.int64, count=len(hashed))
    total = int(sizes.sum())
    if total == 0:
        return set(), [0] * len(hashed)
    flat = np.fromiter(chain.from_iterable(hashed), dtype=np.int64, count=total)
    values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
    in_repeated = counts[inverse] > 1
    ends = np.cumsum(sizes)
    running = np.concatenate(([0], np.cumsum(in_repeated)))
    per_text = running[ends] - running[ends - sizes]
    return set(values[counts > 1].tolist()), per_text.tolist()


def _exact_key(text: str, words: list[str]) -> tuple[bool, bool, str]:
    # Equal exactly when the seed's md5 of re.sub(r"\s+", " ", text.lower()) is equal
    # (both split on str.isspace()), without the regex and the digest.
    return text[:1].isspace(), text[-1:].isspace(), " ".join(words)


def find_duplicates(texts: Sequence[str], threshold: float) -> DedupOutcome:
    """Return the kept positions of ``texts`` and the duplicate pairs, first kept wins.

    Pairs name positions in ``texts``; a near duplicate names the kept text it is most
    similar to (the earliest on a tie), with the exact Jaccard similarity. The kept set is
    the one a comparison against every kept text gives (the candidate search runs on
    64-bit shingle hashes, so only a hash collision, ~1e-7 per million shingles, could
    hide a candidate).
    """
    # The lists and sets built here would set off the cyclic garbage collector again and
    # again, each full pass walking everything alive: quadratic in n. None makes a cycle.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _find_duplicates(texts, threshold)
    finally:
        if was_enabled:
            gc.enable()


def _find_duplicates(texts: Sequence[str], threshold: float) -> DedupOutcome:
    outcome = DedupOutcome()
    # One pass: each text's words, its hashed shingle set, and which shingles two or more
    # texts share (a shingle of one text only can match nothing).
    keys: list[tuple[bool, bool, str]] = []
    hashed: list[frozenset[int]] = []
    for text in texts:
        words = text.lower().split()
        hashed.append(_hashed_shingles(words))
        keys.append(_exact_key(text, words))
    repeated, n_shared = _repeated_shingles(hashed)
    exact: dict[int, frozenset[tuple[str, ...]]] = {}

    def exact_set(i: int) -> frozenset[tuple[str, ...]]:
        # Word tuples, not joined strings: the same sets, built faster (the collector is off).
        s = exact.get(i)
        if s is None:
            words = texts[i].lower().split()
            if len(words) >= SHINGLE_SIZE:
                s = frozenset(_windows(words, SHINGLE_SIZE))
            else:
                s = frozenset((tuple(words),)) if words else frozenset()
            exact[i] = s
        return s

    kept_by_key: dict[tuple[bool, bool, str], int] = {}
    index: dict[int, list[int]] = {}
    for i, key in enumerate(keys):
        first = kept_by_key.get(key)
        if first is not None:
            outcome.pairs.append(DuplicatePair(first, i, 1.0, "exact"))
            continue
        h = hashed[i]
        prefix: list[int] = []
        if h:
            # The global order: shingles of one text only first (they can match nothing,
            # so they are neither looked up nor indexed), then the shared ones by hash value.
            # Most texts have so few shared shingles that their prefix holds none of them.
            room = _prefix_length(len(h), threshold) - (len(h) - n_shared[i])
            if room > 0:
                prefix = sorted(h & repeated)[:room]
            candidates: set[int] = set()
            for sh in prefix:
                postings = index.get(sh)
                if postings:
                    candidates.update(postings)
            best, best_sim = -1, -1.0
            for j in sorted(candidates):
                other = hashed[j]
                inter = len(h & other)
                if inter / (len(h) + len(other) - inter) >= threshold:
                    # Confirm on the shingles themselves: the similarity reported is exact.
                    sim = jaccard(exact_set(i), exact_set(j))
                    if sim >= threshold and sim > best_sim:
                        best, best_sim = j, sim
            if best >= 0:
                outcome.pairs.append(DuplicatePair(best, i, best_sim, "near"))
                continue
        kept_by_key[key] = i
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
        if words and " ".join(lowered) in theirs:
            marked = [True] * len(words)
        return list(zip(words, marked))
    for start in range(len(words) - k + 1):
        if " ".join(lowered[start : start + k]) in theirs:
            for w in range(start, start + k):
                marked[w] = True
    return list(zip(words, marked))
