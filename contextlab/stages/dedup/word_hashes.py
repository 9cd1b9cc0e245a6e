"""The greedy pass's view of words: a character a word from the word's hash, made by numpy.

Texts are normalised (whitespace past ASCII written as a space), encoded as UTF-8 and joined;
words are the runs between whitespace (as ``str.split``), each hashed over its bytes. Equal words
get equal characters, so a pair their characters reject is rejected; so is a pair whose bags
(its words counted in buckets of their characters) differ by more edits than it may have. A
pair rapidfuzz accepts is confirmed on its bytes, or measured exactly (``WordCodes``) if two
different words of it share a character.
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
_BUCKETS = 64  # a text's bag: how many of its words fall in each of 64 buckets of their characters


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
) -> tuple[npt.NDArray[np.uint32], Ints, Ints, Powers, npt.NDArray[np.uint8]]:
    """Return the character and start of every word of ``data`` (texts from ``text_start``,
    one space between), each text's word count, a hash of its characters and its bag; with the
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
    bags = np.bincount(
        np.repeat(np.arange(counts.size) * _BUCKETS, counts) + folded % _BUCKETS, None, counts.size * _BUCKETS
    )
    return folded, starts, counts, keys, np.minimum(bags, 255).astype(np.uint8).reshape(-1, _BUCKETS)


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
        lengths = np.array(sizes, dtype=np.int64) + 1  # a text's bytes and the space after it
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
            char, first, count, key, bag = _hash_batch(data[at : max(bounds[hi] - 1, at)], starts[lo:hi] - at, powers)
            found.append((str(char.data, "utf-32-le"), (first + at).astype(place), count, key, bag))
        self.chars = "".join(f[0] for f in found)  # every text's, end to end
        self.word_start, self.counts, self.keys, self.bags = map(np.concatenate, list(zip(*found, strict=True))[1:])
        self.begin = np.cumsum(self.counts) - self.counts
        self._begins, self._ends = self.begin.tolist(), (self.begin + self.counts).tolist()
        self.bound = np.array(bounds)  # text t's bytes: from bound[t] to bound[t + 1] - 1
        self.exact = WordCodes(texts)

    def code(self, t: int) -> str:
        """Return text ``t``'s characters, one a word."""
        return self.chars[self._begins[t] : self._ends[t]]

    def powers(self, size: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """Return the base's powers ``0..size-1`` and their inverses modulo 2**64 (or more)."""
        if self._up.size < size:
            self._up, self._down = (_powers(b, max(size, 2 * self._up.size)) for b in (_BASE, pow(_BASE, -1, 1 << 64)))
        return self._up, self._down

    def groups(self) -> Ints:
        """Return each text's exact group: the first text with the same normalised words (texts
        with the same hash are compared on their bytes: a collision is told apart)."""
        group = left = np.arange(len(self.texts), dtype=np.int64)  # ``left``: texts not yet placed
        while left.size:  # (one round, unless two texts' words collide)
            _, first, inverse = np.unique(self.keys[left], return_index=True, return_inverse=True)
            twin = left[first[inverse.ravel()]]  # the first of the texts left with its hash
            x, y = left[twin != left], twin[twin != left]
            code = [(self.code(a), self.code(b)) for a, b in zip(y.tolist(), x.tolist(), strict=True)]
            same = np.array([a == b for a, b in code], dtype=bool) & self._confirmed(y, x, np.zeros_like(x), code)
            group[x[same]] = y[same]
            left = x[~same]
        return group

    def matches(self, kept: Ints, new: Ints, threshold: float) -> list[tuple[int, int, float]]:
        """Return each pair ``kept[x]``, ``new[x]`` that reaches ``threshold``, with its similarity:
        one call of rapidfuzz, then the pairs it accepts confirmed."""
        longer = np.maximum(self.counts[kept], self.counts[new])
        bound = np.floor((1.0 - threshold) * longer + 1e-9).astype(np.int64)  # edit_bound, pair by pair
        # One edit moves at most one word out of a bucket and one in: a text's surplus words bound the distance.
        over = self.bags[kept].astype(np.int16) - self.bags[new]
        gain = np.maximum(over, 0).sum(axis=1, dtype=np.int64)
        near = np.flatnonzero(np.maximum(gain, gain - over.sum(axis=1, dtype=np.int64)) <= bound)
        kept, new, longer, bound = kept[near], new[near], longer[near], bound[near]
        kept_at, new_at = kept.tolist(), new.tolist()
        code = {t: self.code(t) for t in {*kept_at, *new_at}}  # a text is in many pairs
        a, b = list(map(code.__getitem__, kept_at)), list(map(code.__getitem__, new_at))
        cutoff = int(bound.max(initial=0))
        distance = cpdist(a, b, scorer=Levenshtein.distance, score_cutoff=cutoff, score_hint=min(cutoff, 8), workers=-1)
        similarity = 1.0 - distance / np.maximum(longer, 1)
        good = np.flatnonzero((distance <= bound) & (similarity >= threshold))
        sure = self._confirmed(kept[good], new[good], distance[good], [(a[g], b[g]) for g in good.tolist()]).tolist()
        found = zip(kept[good].tolist(), new[good].tolist(), similarity[good].tolist(), sure, strict=True)
        exact = [(k, i, s if ok else self.exact.match(k, i, threshold)) for k, i, s, ok in found]
        return [(k, i, s) for k, i, s in exact if s is not None]

    def _confirmed(self, k: Ints, i: Ints, distance: Ints, codes: list[tuple[str, str]]) -> npt.NDArray[np.bool_]:
        """Return, for each pair of texts ``k``, ``i`` (characters ``codes``, ``distance`` apart),
        whether its bytes are equal wherever its characters' cheapest alignment says so (then the
        distance is its words'). Most pairs have replaced words only: the same places align."""
        m = self.counts[k]
        same = np.flatnonzero(m == self.counts[i])
        x, y = (np.frombuffer("".join(codes[p][t] for p in same.tolist()).encode("utf-32-le"), "<u4") for t in (0, 1))
        first, differ = np.cumsum(m[same]) - m[same], np.flatnonzero(x != y)
        row = np.searchsorted(first + m[same], differ, side="right")  # the pair of each place that differs
        held = np.bincount(row, minlength=same.size)
        rows = np.repeat(np.arange(same.size), held + 1)  # the stretches of equal words between them
        start, stop = np.zeros(rows.size, dtype=np.int64), m[same][rows]
        stop[np.arange(differ.size) + row] = differ - first[row]
        start[np.arange(differ.size) + row + 1] = differ - first[row] + 1
        fits = held == distance[same]  # the words at the same places are its cheapest alignment
        use = fits[rows] & (start < stop)
        blocks = [np.stack([same[rows[use]], start[use], stop[use], start[use], stop[use]])]
        for p in np.setdiff1d(np.arange(k.size), same[fits]).tolist():  # the rest: rapidfuzz's alignment
            equal = [(p, *tuple(o)[1:]) for o in Levenshtein.opcodes(*codes[p]) if o.tag == "equal"]
            blocks.append(np.array(equal, dtype=np.int64).reshape(-1, 5).T)
        sure = np.ones(k.size, dtype=bool)
        pair, x_from, x_to, y_from, y_to = np.concatenate(blocks, axis=1)
        xs, ys, data = self._bytes(k[pair], x_from, x_to), self._bytes(i[pair], y_from, y_to), self.data
        spans = zip(pair.tolist(), *xs, *ys, strict=True)
        sure[[p for p, a, b, c, d in spans if data[a:b] != data[c:d] and not _same_words(data[a:b], data[c:d])]] = False
        return sure

    def _bytes(self, t: Ints, start: Ints, stop: Ints) -> list[list[int]]:
        """Return where the bytes of texts ``t``'s words ``start`` to ``stop - 1`` begin and end."""
        at, m = self.begin[t], self.counts[t]
        last = np.where(stop < m, self.word_start[at + np.minimum(stop, m - 1)], self.bound[t + 1] - 1)
        return [self.word_start[at + start].tolist(), last.tolist()]
