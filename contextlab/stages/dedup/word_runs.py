"""Every text's words as 64-bit hashes laid end to end, and the hash of any run of them.

What the word filter (``segment_filter.py``) cuts into segments and slides windows over, and
what verification (``verify.py``) numbers. Words are compared as 64-bit hashes of their
normalised form (``word_hashing``), a run of ``L`` words as the polynomial
``sum(word_k * B**k) + L * W`` of its word hashes (modulo 2**64): equal words give equal
hashes, so a collision can only add a candidate, never lose one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from . import cores
from .word_hashing import _BASE, _batches, _hash_words, _Scratch, kernels

if TYPE_CHECKING:
    import numpy as np

__all__ = ["WordHashes", "hash_words"]

# The length weight W above (odd).
_LENGTH_WEIGHT = 0xD6E8FEB86659FD93
# Runs up to this long are hashed term by term (Horner's rule over the words); longer ones
# from running sums of the whole sequence, built the first time one is asked for.
_DIRECT = 8
# A call's batches are hashed in up to this many runs a thread (handed out in turn: a busy
# core takes fewer), each of at least the second many batches.
_RUNS_A_THREAD = 4
_MIN_BATCHES_A_RUN = 2
# Windows each part of a range of windows hashed on several cores must have.
_MIN_WINDOWS_A_PART = 1 << 15


@lru_cache(maxsize=2)
def _power_tables(base: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``base**k`` and ``base**(k << 16)`` modulo 2**64 for k < 2**16: any power below
    2**32 is one product of an entry of each (two small tables, where an array of every
    power would take 8 bytes a word)."""
    import numpy as np

    low = np.full(1 << 16, base, dtype=np.uint64)
    low[0] = 1
    np.cumprod(low, out=low)  # products wrap modulo 2**64, the hash's arithmetic
    high = np.full(1 << 16, pow(base, 1 << 16, 1 << 64), dtype=np.uint64)
    high[0] = 1
    np.cumprod(high, out=high)
    return low, high


def _power(tables: tuple[np.ndarray, np.ndarray], exponents: np.ndarray) -> np.ndarray:
    low, high = tables
    return low[exponents & 0xFFFF] * high[exponents >> 16]


class WordHashes:
    """Every text's normalised words as hashes, laid end to end (``words``), with each text's
    word count, where its words begin, and a hash of its whole word sequence."""

    def __init__(self, words: np.ndarray, counts: np.ndarray, sequences: np.ndarray) -> None:
        import numpy as np

        self.words = words
        self.counts = counts.astype(np.int64)
        self.size = int(words.size)
        self.begin = np.cumsum(self.counts) - self.counts
        #: Equal for texts with equal word sequences.
        self.sequences = sequences
        self._running: np.ndarray | None = None

    def _sums(self) -> np.ndarray:
        """Return running[q] = sum of word_j * B**j for j < q (modulo 2**64)."""
        import numpy as np

        if self._running is None:
            running = np.zeros(self.size + 1, dtype=np.uint64)
            for lo in range(0, self.size, 1 << 20):
                hi = min(lo + (1 << 20), self.size)
                part = self.words[lo:hi] * _power(_power_tables(_BASE), np.arange(lo, hi))
                part[:1] += running[lo : lo + 1]  # an array add wraps without a warning
                np.cumsum(part, out=running[lo + 1 : hi + 1])
            self._running = running
        return self._running

    def runs(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return the hash of the ``lengths[k]`` words from global word position ``starts[k]``."""
        import numpy as np

        longest = int(lengths.max(initial=0))
        if longest <= _DIRECT:
            h = np.zeros(starts.size, dtype=np.uint64)
            power = 1
            shortest = int(lengths.min(initial=0))
            for k in range(longest):  # word k of each run longer than k, times B**k
                term = self.words[np.minimum(starts + k, self.size - 1)] * np.uint64(power)
                h += term if k < shortest else np.where(lengths > k, term, np.uint64(0))
                power = power * _BASE % (1 << 64)
        else:
            running = self._sums()
            h = (running[starts + lengths] - running[starts]) * _power(_power_tables(pow(_BASE, -1, 1 << 64)), starts)
        h += lengths.astype(np.uint64) * np.uint64(_LENGTH_WEIGHT)
        return h

    def window_hashes(self, lo: int, hi: int, length: int) -> np.ndarray:
        """Return the hash of the ``length`` words from every global position in [lo, hi)
        (``runs`` for each start, read off slices instead of gathered)."""
        import numpy as np

        loops = kernels()
        if length <= _DIRECT and loops is not None and hi > lo:
            h = np.empty(hi - lo, dtype=np.uint64)
            weight = length * _LENGTH_WEIGHT % (1 << 64)
            parts = cores.parts(hi - lo, _MIN_WINDOWS_A_PART, _RUNS_A_THREAD)
            cuts = [lo + (hi - lo) * k // parts for k in range(parts + 1)]
            cores.each(
                parts,
                lambda k: loops.window_hashes(
                    self.words, cuts[k], cuts[k + 1], length, weight, h[cuts[k] - lo : cuts[k + 1] - lo]
                ),
            )
            return h
        if length <= _DIRECT:
            h = self.words[lo + length - 1 : hi + length - 1].copy()
            base = np.uint64(_BASE)
            for k in range(length - 2, -1, -1):
                h *= base
                h += self.words[lo + k : hi + k]
        else:
            running = self._sums()
            h = running[lo + length : hi + length] - running[lo:hi]
            h *= _power(_power_tables(pow(_BASE, -1, 1 << 64)), np.arange(lo, hi))
        h += np.uint64(length * _LENGTH_WEIGHT % (1 << 64))
        return h


def hash_words(texts: Sequence[str]) -> WordHashes:
    """Return the word hashes of ``texts``, each already normalised or pure ASCII.

    ``word_hashing`` hashes the words of ``text.lower().split()``; the normalised text is
    lowercase already and pure ASCII needs nothing more, so the words hashed are the words
    compared. With more than one core the batches are cut in runs, hashed on every core
    (``cores.each``) and placed in order (``_Placing``).
    """
    import numpy as np

    batches = list(_batches(texts))
    parts = cores.parts(len(batches), _MIN_BATCHES_A_RUN, _RUNS_A_THREAD)
    cuts = [len(batches) * k // parts for k in range(parts + 1)]
    # A text of c characters has at most (c + 1) // 2 words, so this bounds the words; the
    # pages past the real count are never touched, so they cost nothing (where gathering
    # the batches into a fresh array costs a page fault a page).
    placing = _Placing(texts, np.empty(_most_words(texts, batches), dtype=np.uint64))
    cores.each(parts, lambda k: placing.run(k, batches[cuts[k] : cuts[k + 1]]))
    words, counts, sequences = placing.words[: placing.filled], placing.counts, placing.sequences
    if not counts:
        return WordHashes(words[:0], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64))
    return WordHashes(words, np.concatenate(counts), np.concatenate(sequences))


class _Placing:
    """The word hashes of runs of batches, put in order into one array as the runs end.

    A run begun when every run before it is placed is hashed straight into the array after
    them; another (begun while an earlier one is still being hashed, on another core) into an
    array of its own, copied in when its turn comes. So on one core, or a busy machine where
    one thread does most runs, nothing is copied.
    """

    def __init__(self, texts: Sequence[str], words: np.ndarray) -> None:
        self.texts, self.words = texts, words
        self.filled, self.placed = 0, 0  # words placed, and the runs they came from
        self.counts: list[np.ndarray] = []
        self.sequences: list[np.ndarray] = []
        self._ended: dict[int, tuple] = {}
        self._lock = threading.Lock()

    def run(self, k: int, run: list[tuple[int, int]]) -> None:
        import numpy as np

        with self._lock:
            straight = self.placed == k  # nothing before it is left: its place is known
            out = self.words[self.filled :] if straight else np.empty(_most_words(self.texts, run), dtype=np.uint64)
        n, counts, sequences = _hashed(self.texts, run, out)
        with self._lock:
            self._ended[k] = (None if straight else out, n, counts, sequences)
            while self.placed in self._ended:
                own, n, counts, sequences = self._ended.pop(self.placed)
                if own is not None:
                    self.words[self.filled : self.filled + n] = own[:n]
                self.filled += n
                self.counts += counts
                self.sequences += sequences
                self.placed += 1


def _most_words(texts: Sequence[str], run: list[tuple[int, int]]) -> int:
    """Return a bound on the words of the texts of the batches of ``run``: a text of c
    characters has at most (c + 1) // 2."""
    start, stop = (run[0][0], run[-1][1]) if run else (0, 0)
    return (sum(map(len, texts[start:stop])) + stop - start) // 2 + 1


def _hashed(texts: Sequence[str], run: list[tuple[int, int]], words: np.ndarray):
    """Hash the batches of ``run`` in order into ``words``; return how many words were
    written, and each batch's word counts and sequence hashes."""
    counts, sequences, filled, scratch = [], [], 0, _Scratch()
    for start, stop in run:
        w, c, h = _hash_words(texts[start:stop], spacing=False, scratch=scratch, out=words[filled:])
        if w.base is not words:  # the C loop writes them in place
            words[filled : filled + w.size] = w
        filled += w.size
        counts.append(c)
        sequences.append(h)
    return filled, counts, sequences
