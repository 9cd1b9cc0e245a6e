"""The greedy pass's view of words: a character a word from the word's hash, made by numpy.

Texts are normalised, joined and read as code points; words are the runs between whitespace
(``str.isspace``, as ``str.split``), each hashed by a polynomial over its code points. Equal
words get equal characters, so two texts' characters are never further apart than their words:
a pair they reject is rejected. A pair they accept is confirmed on the words (each run the
alignment calls equal is compared), or measured exactly (``WordCodes``) if a collision broke one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

from .edit_measure import WordCodes
from .normalize import normalized_text, normalized_words

__all__ = ["HashedWords"]

Ints = npt.NDArray[np.int64]
_BASE = 0x9E3779B97F4A7C15  # odd: invertible modulo 2**64
_CHARS = 0x110000 - 0x800  # code points that are not surrogates
_SURROGATES = 0xD800
_BATCH_CHARS = 1 << 20


@lru_cache(maxsize=1)
def _spaces() -> npt.NDArray[np.bool_]:
    """Return, for every code point, whether ``str.split`` breaks words on it."""
    return np.array([chr(c).isspace() for c in range(0x110000)], dtype=np.bool_)


def _hash_batch(
    texts: list[str], powers: Callable[[int], tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]]
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64], npt.NDArray[np.uint64]]:
    """Return the character of every word of ``texts`` (end to end), each text's word count,
    and a hash of each text's characters."""
    joined = " ".join(texts)
    points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    space = np.concatenate(([True], _spaces()[points], [True]))
    edges = np.flatnonzero(space[1:] != space[:-1])  # a word's start, its end, the next start...
    starts, ends = edges[0::2], edges[1::2]
    up, down = powers(points.size + 1)
    low = np.zeros(points.size + 1, dtype=np.uint32)  # words' hashes modulo 2**32 are enough
    np.cumsum(points * up[: points.size].astype(np.uint32), out=low[1:])
    hashed = (low[ends] - low[starts]) * down[starts].astype(np.uint32)
    folded = (hashed.astype(np.uint64) * np.uint64(_CHARS) >> np.uint64(32)).astype(np.uint32)  # below _CHARS
    folded += (folded >= _SURROGATES) * np.uint32(0x800)  # characters skip the surrogates
    running = np.zeros(folded.size + 1, dtype=np.uint64)
    sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1
    first = np.searchsorted(starts, np.cumsum(sizes) - sizes)
    counts = np.diff(first, append=starts.size)
    np.cumsum(folded * up[: folded.size], out=running[1:])
    keys = (running[first + counts] - running[first]) * down[first] + counts.astype(np.uint64)
    return folded, counts, keys


class HashedWords(WordCodes):
    """Texts' normalised words as characters from their hashes (see the module doc)."""

    def __init__(self, texts: Sequence[str]) -> None:
        super().__init__(texts)
        self._up = self._down = np.ones(0, dtype=np.uint64)
        parts, batch, size = [], [], 0
        for text in texts:
            batch.append(normalized_text(text))
            size += len(batch[-1]) + 1
            if size >= _BATCH_CHARS:
                parts.append(_hash_batch(batch, self.powers))
                batch, size = [], 0
        parts.append(_hash_batch(batch, self.powers))
        self.chars = "".join(p[0].tobytes().decode("utf-32-le") for p in parts)  # every text's, end to end
        self.counts, self.keys = (np.concatenate([p[x] for p in parts]) for x in (1, 2))
        self.begin = np.cumsum(self.counts) - self.counts
        self._begins, self._ends = self.begin.tolist(), (self.begin + self.counts).tolist()
        self._exact = WordCodes(texts)

    def code(self, i: int) -> str:
        """Return text ``i``'s characters, one a word."""
        return self.chars[self._begins[i] : self._ends[i]]

    def powers(self, size: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """Return the base's powers ``0..size-1`` and their inverses modulo 2**64 (or more)."""
        if self._up.size < size:
            up = np.full(max(size, 2 * self._up.size), _BASE, dtype=np.uint64)
            down = np.full(up.size, pow(_BASE, -1, 1 << 64), dtype=np.uint64)
            up[0] = down[0] = 1
            self._up, self._down = np.cumprod(up), np.cumprod(down)  # products wrap modulo 2**64
        return self._up, self._down

    def groups(self) -> Ints:
        """Return each text's exact group: the first text with the same normalised words (texts
        with the same characters are compared on their words: a collision is told apart)."""
        group = np.arange(len(self.texts), dtype=np.int64)
        _, inverse, held = np.unique(self.keys, return_inverse=True, return_counts=True)
        firsts: dict[int, list[int]] = {}
        texts, words = self.texts, normalized_words
        for i in np.flatnonzero(held[inverse.ravel()] > 1).tolist():  # texts whose hash another has
            same = firsts.setdefault(int(inverse[i]), [])
            twin = next((f for f in same if texts[f] == texts[i] or words(texts[f]) == words(texts[i])), -1)
            if twin < 0:
                same.append(i)
            group[i] = twin if twin >= 0 else i
        return group

    def matches(self, kept: Ints, new: Ints, threshold: float) -> list[tuple[int, int, float | None]]:
        """Return each pair ``kept[x]``, ``new[x]`` with its similarity when it reaches ``threshold``,
        else None: one call of rapidfuzz, then each pair it accepts confirmed."""
        chars, begins, ends, kept_at, new_at = self.chars, self._begins, self._ends, kept.tolist(), new.tolist()
        a, b = [chars[begins[i] : ends[i]] for i in kept_at], [chars[begins[j] : ends[j]] for j in new_at]
        longer = np.maximum(self.counts[kept], self.counts[new])
        bound = np.floor((1.0 - threshold) * longer + 1e-9).astype(np.int64)  # edit_bound, pair by pair
        cutoff = int(bound.max(initial=0))
        distance = cpdist(a, b, scorer=Levenshtein.distance, score_cutoff=cutoff, score_hint=min(cutoff, 8), workers=1)
        similarity = (1.0 - distance / np.maximum(longer, 1)).tolist()
        good = ((distance <= bound) & (np.array(similarity) >= threshold)).tolist()
        pairs = zip(kept_at, new_at, a, b, similarity, good, strict=True)
        return [(k, i, self._confirmed(k, i, x, y, threshold, s) if ok else None) for k, i, x, y, s, ok in pairs]

    def match(self, kept: int, new: int, threshold: float) -> float | None:
        """Return the similarity of texts ``kept`` and ``new`` when it reaches ``threshold``, else None."""
        return self.matches(np.array([kept]), np.array([new]), threshold)[0][2]

    def _confirmed(self, k: int, i: int, a: str, b: str, threshold: float, similarity: float) -> float | None:
        """Return ``similarity`` when the words of texts ``k`` and ``i`` are equal wherever their
        characters ``a`` and ``b``'s cheapest alignment says so (then it is theirs), else measure."""
        first, second = normalized_words(self.texts[k]), normalized_words(self.texts[i])
        for op in Levenshtein.opcodes(a, b):
            if op.tag == "equal" and first[op.src_start : op.src_end] != second[op.dest_start : op.dest_end]:
                return self._exact.match(k, i, threshold)
        return similarity
