"""The greedy pass's view of words: a character a word from the word's hash, made by numpy.

Texts are normalised (whitespace past ASCII written as a space), encoded as UTF-8 and joined;
words are the runs between whitespace (as ``str.split``), each hashed over its bytes. Equal words
get equal characters, so a pair their characters reject is rejected. A pair they accept is
confirmed on the bytes, or measured exactly (``WordCodes``) if a hash collision broke it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

from .edit_measure import WordCodes, normalized_text

__all__ = ["HashedWords"]

Ints = npt.NDArray[np.int64]
Powers = npt.NDArray[np.uint64]
Powers32 = npt.NDArray[np.uint32]
_BASE = 0x9E3779B97F4A7C15  # odd: invertible modulo 2**64
_CHARS = 0x110000 - 0x800  # code points that are not surrogates
_SURROGATES = 0xD800
_BATCH_BYTES = 1 << 20
_ONE_SPACE = bytes.maketrans(b"\x1c\x1d\x1e\x1f", b"    ")  # the rest bytes.split breaks on


@lru_cache(maxsize=1)
def _wide_spaces() -> re.Pattern[str]:
    """Return a pattern of every whitespace character past ASCII (built on first use)."""
    return re.compile("[" + "".join(chr(c) for c in range(128, 0x110000) if chr(c).isspace()) + "]")


def encoded(text: str) -> bytes:
    """Return ``normalized_text(text)`` as UTF-8, its whitespace past ASCII written as a space."""
    if text.isascii():
        return text.encode().lower()  # as normalized_text: ASCII only needs lower
    return _wide_spaces().sub(" ", normalized_text(text)).encode("utf-8", "surrogatepass")


def _same_words(x: bytearray, y: bytearray) -> bool:
    """Return whether ``x`` and ``y`` (from ``encoded``) hold the same words."""
    return x == y or x.translate(_ONE_SPACE).split() == y.translate(_ONE_SPACE).split()


def _hash_batch(
    data: npt.NDArray[np.uint8], text_start: Ints, powers: tuple[Powers, Powers, Powers32, Powers32]
) -> tuple[npt.NDArray[np.uint32], Ints, Ints, Powers]:
    """Return the character and start of every word of ``data`` (texts from ``text_start``,
    one space between), each text's word count, and a hash of each text's characters; with the
    base's ``powers`` and their inverses (modulo 2**64, and 2**32)."""
    space = np.ones(data.size + 2, dtype=np.bool_)
    np.logical_or(data - np.uint8(9) <= 4, data - np.uint8(28) <= 4, out=space[1:-1])  # the bytes str.split breaks on
    edges = np.flatnonzero(space[1:] != space[:-1])  # a word's start, its end, the next start...
    starts, ends = edges[0::2], edges[1::2]
    up, down, up32, down32 = powers
    low = np.zeros(data.size + 1, dtype=np.uint32)  # words' hashes modulo 2**32 are enough
    np.cumsum(data * up32[: data.size], out=low[1:])
    hashed = (low[ends] - low[starts]) * down32[starts]
    hashed *= np.uint32(0x9E3779B1)  # words one byte apart differ in the low bits: spread them to the top
    hashed ^= hashed >> np.uint32(15)
    folded = (hashed.astype(np.uint64) * np.uint64(_CHARS) >> np.uint64(32)).astype(np.uint32)  # below _CHARS
    folded += (folded >= _SURROGATES) * np.uint32(0x800)  # characters skip the surrogates
    first = np.searchsorted(starts, text_start)
    counts = np.diff(first, append=starts.size)
    running = np.zeros(folded.size + 1, dtype=np.uint64)
    np.cumsum(folded * up[: folded.size], out=running[1:])
    keys = (running[first + counts] - running[first]) * down[first] + counts.astype(np.uint64)
    return folded, starts, counts, keys


def _powers(base: int, size: int) -> npt.NDArray[np.uint64]:
    """Return ``base ** 0 .. base ** (size - 1)`` modulo 2**64, doubling the known ones each step."""
    out, done = np.ones(size, dtype=np.uint64), 1
    while done < size:
        out[done : 2 * done] = out[: min(done, size - done)] * np.uint64(pow(base, done, 1 << 64))
        done *= 2
    return out


class HashedWords:
    """Texts' normalised words as characters from their hashes (see the module doc)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self._up = self._down = np.ones(0, dtype=np.uint64)
        self.data, sizes = bytearray(), list[int]()  # every text's bytes, a space after each
        for at in range(0, len(texts), 4096):  # a few thousand at a time: memory stays near the text's
            parts = [encoded(text) for text in texts[at : at + 4096]]
            sizes += map(len, parts)
            self.data += b" ".join(parts) + b" "
        lengths = np.array(sizes, dtype=np.int64) + 1
        starts = np.cumsum(lengths) - lengths
        data, bounds = np.frombuffer(self.data, dtype=np.uint8), [*starts.tolist(), len(self.data)]
        cuts = sorted({0, starts.size, *np.searchsorted(starts, np.arange(0, data.size, _BATCH_BYTES)).tolist()})
        batches = list(zip(cuts[:-1], cuts[1:], strict=True)) if starts.size else [(0, 0)]
        up, down = self.powers(max(bounds[hi] - bounds[lo] for lo, hi in batches))
        powers = (up, down, up.astype(np.uint32), down.astype(np.uint32))
        place = np.uint32 if data.size < 1 << 32 else np.int64
        found = []
        for lo, hi in batches:
            at = bounds[lo]
            char, first, count, key = _hash_batch(data[at : max(bounds[hi] - 1, at)], starts[lo:hi] - at, powers)
            found.append((str(char.data, "utf-32-le"), (first + at).astype(place), count, key))
        self.chars = "".join(f[0] for f in found)  # every text's, end to end
        self.word_start, self.counts, self.keys = (np.concatenate([f[x] for f in found]) for x in (1, 2, 3))
        self.begin = np.cumsum(self.counts) - self.counts
        self._begins, self._ends = self.begin.tolist(), (self.begin + self.counts).tolist()
        self._bounds = bounds  # text t's bytes: from _bounds[t] to _bounds[t + 1] - 1
        self.exact = WordCodes(texts)

    def code(self, i: int) -> str:
        """Return text ``i``'s characters, one a word."""
        return self.chars[self._begins[i] : self._ends[i]]

    def powers(self, size: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """Return the base's powers ``0..size-1`` and their inverses modulo 2**64 (or more)."""
        if self._up.size < size:
            self._up, self._down = (_powers(b, max(size, 2 * self._up.size)) for b in (_BASE, pow(_BASE, -1, 1 << 64)))
        return self._up, self._down

    def groups(self) -> Ints:
        """Return each text's exact group: the first text with the same normalised words (texts
        with the same characters are compared on their words: a collision is told apart)."""
        group = np.arange(len(self.texts), dtype=np.int64)
        _, inverse, held = np.unique(self.keys, return_inverse=True, return_counts=True)
        firsts: dict[int, list[int]] = {}
        data, at = self.data, self._bounds
        for i in np.flatnonzero(held[inverse.ravel()] > 1).tolist():  # texts whose hash another has
            same = firsts.setdefault(int(inverse[i]), [])
            twin = next((f for f in same if _same_words(data[at[f] : at[f + 1] - 1], data[at[i] : at[i + 1] - 1])), -1)
            if twin < 0:
                same.append(i)
            group[i] = twin if twin >= 0 else i
        return group

    def matches(self, kept: Ints, new: Ints, threshold: float) -> list[tuple[int, int, float | None]]:
        """Return each pair ``kept[x]``, ``new[x]`` with its similarity when it reaches ``threshold``,
        else None: one call of rapidfuzz, then each pair it accepts confirmed."""
        chars, begins, ends, kept_at, new_at = self.chars, self._begins, self._ends, kept.tolist(), new.tolist()
        code = {t: chars[begins[t] : ends[t]] for t in {*kept_at, *new_at}}  # a text is in many pairs
        a, b = list(map(code.__getitem__, kept_at)), list(map(code.__getitem__, new_at))
        longer = np.maximum(self.counts[kept], self.counts[new])
        bound = np.floor((1.0 - threshold) * longer + 1e-9).astype(np.int64)  # edit_bound, pair by pair
        cutoff = int(bound.max(initial=0))
        distance = cpdist(a, b, scorer=Levenshtein.distance, score_cutoff=cutoff, score_hint=min(cutoff, 8), workers=-1)
        similarity = (1.0 - distance / np.maximum(longer, 1)).tolist()
        good = ((distance <= bound) & (np.array(similarity) >= threshold)).tolist()
        pairs = zip(kept_at, new_at, a, b, similarity, good, strict=True)
        return [(k, i, self._confirmed(k, i, x, y, threshold, s) if ok else None) for k, i, x, y, s, ok in pairs]

    def _confirmed(self, k: int, i: int, a: str, b: str, threshold: float, similarity: float) -> float | None:
        """Return ``similarity`` when the bytes of texts ``k`` and ``i`` are equal wherever their
        characters ``a`` and ``b``'s cheapest alignment says so (then it is theirs), else measure."""
        data, start, at = self.data, self.word_start, self._bounds
        bk, bi = self._begins[k], self._begins[i]
        for op in Levenshtein.opcodes(a, b):
            if op.tag == "equal":
                x_end = start[bk + op.src_end] if op.src_end < len(a) else at[k + 1] - 1
                y_end = start[bi + op.dest_end] if op.dest_end < len(b) else at[i + 1] - 1
                if not _same_words(data[start[bk + op.src_start] : x_end], data[start[bi + op.dest_start] : y_end]):
                    return self.exact.match(k, i, threshold)
        return similarity
