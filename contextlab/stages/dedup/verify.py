"""Exact word edit similarities of candidate pairs, computed on their words' 64-bit hashes.

Every pair the filter names is measured here, up to the distance the threshold allows it
(past that it is rejected, whatever the distance). Where the C loops were built, on the hashes
themselves (``_kernels.bounded_distances``: Ukkonen's diagonal transitions, whose work is about
the two lengths plus the distance squared, so a near copy costs little more than reading it; a
call of many pairs on every core). A pair that would take that loop many times the steps of a
banded bit-parallel measure (text that repeats itself), and every pair where the loops were not
built, is measured by rapidfuzz (C++) on strings of one character per word: words numbered by
hash the first time a text they are in is measured that way (an open-addressing table of every
word seen so far), so a text never measured so is never numbered. The answer could differ from
one on the words themselves only if two different words agreed on all 64 bits of their hash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import InvalidInputError
from . import cores
from .word_hashing import kernels
from .word_runs import WordHashes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Verifier"]

_MAX_CODE = 0x10FFFF - 2048  # characters, less the surrogate block
_EPS = 1e-9
# Pairs allowed more edits than this are measured first with a quarter of their bound (a
# banded distance costs about its band): near copies are usually far inside it.
_FIRST_TRY = 64
# Pairs a call must have to measure them on every core (fewer: one thread, as handing out the
# parts costs more than they save), and parts a thread (handed out in turn: a busy core takes
# fewer), cut at equal sums of the pairs' longer lengths.
_PAIRS_A_THREAD = 512
_PARTS_A_THREAD = 4
# The C loop hands back a pair that would take it more than this many times the steps of a
# banded bit-parallel measure (tests set 0: every pair goes to rapidfuzz).
_BUDGET_FACTOR = 16


class _Vocabulary:
    """Word hashes numbered 0, 1, 2...: the words of each call not seen before get the next
    numbers (in order of hash). An open-addressing table (linear probing), at most a quarter
    full, so most words are settled by their first slot; a slot holds a word's hash and its
    number plus one side by side (one read of memory for both; 0: a free slot)."""

    def __init__(self) -> None:
        self._grow(1 << 16)
        self.size = 0

    def _grow(self, slots: int) -> None:
        import numpy as np

        old = self.table[self.table[:, 1] != 0] if hasattr(self, "table") else None
        self.bits = slots.bit_length() - 1
        self.table = np.zeros((slots, 2), dtype=np.uint64)
        if old is not None:
            self._place(old[:, 0], old[:, 1])

    def _slots(self, words: np.ndarray) -> np.ndarray:
        import numpy as np

        return (words >> np.uint64(64 - self.bits)).astype(np.intp)

    def _place(self, words: np.ndarray, numbers: np.ndarray) -> None:
        """Put distinct ``words`` (none in the table yet) with their ``numbers`` plus one in
        free slots."""
        import numpy as np

        loops = kernels()
        if loops is not None:
            loops.place_words(
                self.table, np.ascontiguousarray(words, dtype=np.uint64), np.ascontiguousarray(numbers, dtype=np.uint64)
            )
            return
        flat, slot, mask = self.table.ravel(), self._slots(words), (1 << self.bits) - 1
        while words.size:  # (np.take reads rows; a 2-d fancy index is ten times slower)
            free = np.take(flat, 2 * slot + 1) == 0
            flat[2 * slot[free]] = words[free]  # of words sharing a free slot, one lands
            landed = free & (np.take(flat, 2 * slot) == words)
            flat[2 * slot[landed] + 1] = numbers[landed]
            words, numbers, slot = words[~landed], numbers[~landed], (slot[~landed] + 1) & mask

    def codes(self, loops, words: np.ndarray, begins: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return the numbers of texts' words (``lengths[t]`` from ``words[begins[t]]``), one
        text after another, as code points (past the surrogate block), with the C loop."""
        import numpy as np

        out, done = np.empty(int(lengths.sum()), dtype=np.uint32), 0
        while True:
            done, self.size = loops.code_texts(
                self.table,
                self.size,
                self.table.shape[0] // 4,
                words,
                np.ascontiguousarray(begins, dtype=np.int64),
                np.ascontiguousarray(lengths, dtype=np.int64),
                out,
                done,
            )
            if self.size > _MAX_CODE:
                raise InvalidInputError("texts: more than a million distinct words; deduplicate fewer at a time")
            if done == lengths.size:
                return out
            self._grow(2 * self.table.shape[0])

    def number(self, words: np.ndarray) -> np.ndarray:
        """Return the number of each of ``words``, numbering those not seen before (in order
        of hash; ``codes``, the C loop, in order of first appearance: any numbering that gives
        equal words equal numbers measures the same distances)."""
        import numpy as np

        slot, mask = self._slots(words), (1 << self.bits) - 1
        entry = np.take(self.table, slot, axis=0)
        out = entry[:, 1].astype(np.uint32)  # the number plus one, where the word is found
        pending = np.flatnonzero(entry[:, 0] != words)  # a slot taken by another word, or free
        slot = slot[pending]
        new: list[np.ndarray] = []
        while pending.size:  # follow each word's probe sequence until its key or a free slot
            entry = np.take(self.table, slot, axis=0)
            taken = entry[:, 1] != 0
            here = taken & (entry[:, 0] == words[pending])
            out[pending[here]] = entry[here, 1]
            new.append(pending[~taken])
            rest = taken & ~here
            pending, slot = pending[rest], (slot[rest] + 1) & mask
        # A word whose hash is 0 matches a free slot's key at the first look: it is new too.
        fresh = out == 0
        for found_free in new:
            fresh[found_free] = True
        unseen = np.flatnonzero(fresh)
        if unseen.size:
            distinct, inverse = np.unique(words[unseen], return_inverse=True)
            if self.size + distinct.size > _MAX_CODE:
                raise InvalidInputError("texts: more than a million distinct words; deduplicate fewer at a time")
            if 4 * (self.size + distinct.size) > self.table.shape[0]:
                self._grow(1 << (4 * (self.size + distinct.size)).bit_length())
            numbers = np.arange(self.size + 1, self.size + distinct.size + 1, dtype=np.uint64)
            self._place(distinct, numbers)
            self.size += distinct.size
            out[unseen] = numbers[inverse.ravel()]
        out -= 1
        return out


class Verifier:
    """Measures pairs of the texts whose word hashes are ``wh``, at one threshold."""

    def __init__(self, wh: WordHashes, threshold: float) -> None:
        import numpy as np

        self.wh, self.threshold = wh, threshold
        self._tau = np.floor((1.0 - threshold) * np.arange(int(wh.counts.max(initial=0)) + 1) + _EPS).astype(np.int64)
        self._vocabulary: _Vocabulary | None = None
        self._texts: dict[int, str] = {}
        self._written = np.zeros(wh.counts.size, dtype=bool)  # which texts _texts holds
        self._recent: list[int] = []  # texts written since the last forget

    def prepare(self, texts: np.ndarray) -> None:
        """Get ready to measure pairs of ``texts``: where the C loops were built, nothing (they
        read the hashes); else write their words as characters (``_write``), all in one call."""
        if kernels() is None:
            self._write(texts)

    def _write(self, texts: np.ndarray) -> None:
        """Write the words of ``texts`` (those not written yet) as characters, one a word."""
        import numpy as np

        texts = np.unique(texts[~self._written[texts]])
        if texts.size == 0:
            return
        if self._vocabulary is None:
            self._vocabulary = _Vocabulary()
        lengths = self.wh.counts[texts]
        runs = np.cumsum(lengths) - lengths
        loops = kernels()
        if loops is not None:
            code = self._vocabulary.codes(loops, self.wh.words, self.wh.begin[texts], lengths)
        else:
            words = self.wh.words[np.repeat(self.wh.begin[texts] - runs, lengths) + np.arange(int(lengths.sum()))]
            code = self._vocabulary.number(words)
            code += (code >= 0xD800).astype(np.uint32) * 2048  # past the surrogate block
        text = code.tobytes().decode("utf-32-le")
        written = texts.tolist()
        for t, r, m in zip(written, runs.tolist(), lengths.tolist(), strict=False):
            self._texts[t] = text[r : r + m]
        self._written[texts] = True
        self._recent.extend(written)

    def forget(self, kept: bytearray, decided: int) -> None:
        """Drop the words written for texts before ``decided`` that are not ``kept``: only a
        kept text is ever measured again (as the earlier text of a pair)."""
        later = []
        for t in self._recent:  # a text written before the last call is kept, or was dropped then
            if t >= decided:
                later.append(t)
            elif not kept[t] and t in self._texts:
                del self._texts[t]
                self._written[t] = False
        self._recent = later

    def similarities(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Return the word edit similarity of texts ``a[k]`` and ``b[k]`` for every k (exact at
        or above the threshold, some value below it otherwise)."""
        import numpy as np

        if a.size == 0:
            return np.zeros(0)
        return self._measure(np.ascontiguousarray(a, dtype=np.int64), np.ascontiguousarray(b, dtype=np.int64))

    def similarity(self, a: int, b: int) -> float:
        """Return the word edit similarity of texts ``a`` and ``b`` (exact at or above the
        threshold, some value below it otherwise)."""
        import numpy as np

        loops = kernels()
        if loops is not None:  # one call with the numbers as they are
            wh = self.wh
            na, nb = int(wh.counts[a]), int(wh.counts[b])
            longer = max(na, nb)
            bound = int(self._tau[longer])
            distance = loops.bounded_distance(
                wh.words, int(wh.begin[a]), na, int(wh.begin[b]), nb, bound, _BUDGET_FACTOR
            )
            if distance < 0:  # handed back: text that repeats itself
                distance = int(self._rapidfuzz(np.array([a]), np.array([b]), np.array([bound]))[0])
            return 1.0 - distance / longer
        return float(self._measure(np.array([a], dtype=np.int64), np.array([b], dtype=np.int64))[0])

    def _measure(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``similarities`` of int64 arrays, one pair or more."""
        import numpy as np

        longer = np.maximum(self.wh.counts[a], self.wh.counts[b])
        bound = self._tau[longer]
        loops = kernels()
        if loops is None:
            return 1.0 - self._rapidfuzz(a, b, bound) / longer
        distance = self._distances(loops, a, b, longer, bound)
        again = np.flatnonzero(distance < 0)  # handed back: text that repeats itself
        if again.size:
            distance[again] = self._rapidfuzz(a[again], b[again], bound[again])
        return 1.0 - distance.astype(np.float64) / longer

    def _distances(self, loops, a: np.ndarray, b: np.ndarray, longer: np.ndarray, bound: np.ndarray) -> np.ndarray:
        """Return the distances of pairs (a, b) up to ``bound`` (past it: bound + 1; -1 where the
        C loop hands a pair back), a call of many pairs cut in parts run on every core."""
        import numpy as np

        wh, out = self.wh, np.empty(a.size, dtype=np.int64)
        first, second = wh.begin[a], wh.begin[b]
        na, nb = wh.counts[a], wh.counts[b]

        def part(lo: int, hi: int) -> None:
            loops.bounded_distances(wh.words, first, second, na, nb, bound, out, lo, hi, _BUDGET_FACTOR)

        count = cores.parts(a.size, _PAIRS_A_THREAD, _PARTS_A_THREAD)
        if count <= 1:
            part(0, a.size)
            return out
        work = np.cumsum(longer + 1)  # a pair's work grows with its length: equal shares of it
        cuts = [0, *np.searchsorted(work, work[-1] * np.arange(1, count) / count).tolist(), a.size]
        cores.each(count, lambda k: part(cuts[k], cuts[k + 1]))
        return out

    def _rapidfuzz(self, a: np.ndarray, b: np.ndarray, bound: np.ndarray) -> np.ndarray:
        """Return the distances of pairs (a, b) up to ``bound`` (past it: some value above it),
        measured by rapidfuzz on the texts written as characters."""
        import numpy as np
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cpdist

        self._write(np.concatenate((a, b)))
        first, second = [self._texts[t] for t in a.tolist()], [self._texts[t] for t in b.tolist()]
        # Past the largest bound a pair allows, its distance need not be exact: it is rejected.
        cutoff = int(bound.max())
        if cutoff > _FIRST_TRY:
            cutoff //= 4
        workers = cores.THREADS if len(first) >= _PAIRS_A_THREAD else 1  # rapidfuzz's own threads
        distance = cpdist(first, second, scorer=Levenshtein.distance, score_cutoff=cutoff, workers=workers)
        again = np.flatnonzero((distance > cutoff) & (bound > cutoff))
        if again.size:
            distance[again] = cpdist(
                [first[k] for k in again.tolist()],
                [second[k] for k in again.tolist()],
                scorer=Levenshtein.distance,
                score_cutoff=int(bound.max()),
                workers=workers,
            )
        return distance.astype(np.int64)
