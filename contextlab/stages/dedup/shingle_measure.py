"""Seed 000's measure, made fast: md5 exact duplicates and 5-word shingle Jaccard.

Seed-compatible mode (``ContextManager.seed_compatible()``) dedups with it, to the character:
see the package doc for the prefix filter, ``prefix_filter.py`` for its numpy side.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from ...types import DuplicatePair
from .outcome import DedupOutcome
from .prefix_filter import SHINGLE_SIZE, Shingled, near_pairs, shingle_texts

__all__ = ["content_hash", "shingles", "jaccard", "find_shingle_duplicates"]

_WHITESPACE = re.compile(r"\s+")

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


def _windows(words: list[str], k: int):
    if k == 5:  # spelled out: measurably faster than the general form on the hot path
        return zip(words, words[1:], words[2:], words[3:], words[4:], strict=False)
    return zip(*(words[i:] for i in range(k)), strict=False)


def _word_shingles(words: list[str], k: int = SHINGLE_SIZE) -> frozenset[Shingle]:
    if len(words) >= k:
        return frozenset(map(" ".join, _windows(words, k)))
    return frozenset((" ".join(words),)) if words else frozenset()


def _exact_key(text: str) -> tuple[bool, bool, list[str]]:
    # Equal exactly when the seed's md5 of re.sub(r"\s+", " ", text.lower()) is equal
    # (both split on str.isspace()), without the regex, the join and the digest.
    return text[:1].isspace(), text[-1:].isspace(), text.lower().split()


class _Views:
    """What the greedy pass needs of a text now and then, each built once."""

    def __init__(self, texts: Sequence[str], sh: Shingled, threshold: float) -> None:
        self.texts, self.sh, self.threshold = texts, sh, threshold
        self._tokens: dict[int, frozenset[int]] = {}
        self._keys: dict[int, tuple[bool, bool, list[str]]] = {}

    def tokens(self, i: int) -> frozenset[int]:
        """Return text ``i``'s shingle tokens as a set."""
        found = self._tokens.get(i)
        if found is None:
            start = int(self.sh.offsets[i])
            found = frozenset(self.sh.tokens[start : start + int(self.sh.sizes[i])].tolist())
            self._tokens[i] = found
        return found

    def exact_twin(self, i: int, kept: list[int]) -> int:
        """Return the kept text whose exact-duplicate key equals text ``i``'s, or -1."""
        text = self.texts[i]
        for k in kept:
            if self.texts[k] == text:  # the common case, and cheaper than any key
                return k
        key = _exact_key(text)
        for k in kept:
            if k not in self._keys:
                self._keys[k] = _exact_key(self.texts[k])
            if self._keys[k] == key:
                return k
        return -1

    def crowded(self, i: int, kept: set[int]) -> list[tuple[int, float]]:
        """Return (kept text, token similarity) at or above the threshold among ``kept``."""
        t, sizes, mine = self.threshold, self.sh.sizes, self.tokens(i)
        size, found = int(sizes[i]), []
        for j in kept:
            other = int(sizes[j])
            if min(size, other) / max(size, other) >= t:  # Jaccard <= min/max of the sizes
                inter = len(mine & self.tokens(j))
                sim = inter / (size + other - inter)
                if sim >= t:
                    found.append((j, sim))
        return found


def find_shingle_duplicates(texts: Sequence[str], threshold: float) -> DedupOutcome:
    """Return the ``DedupOutcome`` of seed 000's greedy pass (shingle Jaccard), by prefix filtering."""
    import numpy as np

    outcome = DedupOutcome()
    if not texts:
        return outcome
    sh = shingle_texts(texts)
    earlier, crowds = near_pairs(sh, threshold)
    # A text with no earlier candidate, no crowded prefix token and a text hash of its own is
    # kept whatever else happens; only the others need the greedy pass.
    _, group, size = np.unique(sh.text_hashes, return_inverse=True, return_counts=True)
    busy = size[group] > 1
    busy[list(earlier)] = True
    busy[list(crowds)] = True
    kept = bytearray((~busy).astype(np.uint8).tobytes())
    views = _Views(texts, sh, threshold)
    kept_by_hash: dict[int, list[int]] = {}
    index: dict[int, list[int]] = {}  # crowded token -> kept texts holding it in their prefix
    order = np.flatnonzero(busy)
    for i, text_hash in zip(order.tolist(), sh.text_hashes[order].tolist(), strict=False):
        twins = kept_by_hash.get(text_hash)
        if twins is not None:
            first = views.exact_twin(i, twins)
            if first >= 0:
                outcome.pairs.append(DuplicatePair(first, i, 1.0, "exact"))
                continue
        # Candidates come most similar first (the earliest on a tie): the first kept one wins.
        best = next(((a, sim) for a, sim in earlier.get(i, ()) if kept[a]), None)
        probe = crowds.get(i)
        if probe:
            holders = {j for token in probe for j in index.get(token, ())}
            matches = views.crowded(i, holders) + ([best] if best else [])
            best = min(matches, key=lambda m: (-m[1], m[0])) if matches else None
        if best is not None:
            outcome.pairs.append(DuplicatePair(best[0], i, best[1], "near"))
            continue
        kept[i] = 1
        kept_by_hash.setdefault(text_hash, []).append(i)
        for token in probe or ():
            index.setdefault(token, []).append(i)
    outcome.kept = np.flatnonzero(np.frombuffer(kept, dtype=np.uint8)).tolist()
    return outcome
