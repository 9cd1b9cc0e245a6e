"""The word edit measure's greedy pass, with candidates that provably hold every pair at the threshold.

The filter (pigeonhole, as PassJoin: Li et al., VLDB 2011). Two texts of ``m`` and ``m'`` words
reach the threshold only when their distance is at most ``tau = edit_bound(max(m, m'), threshold)``.
Each text is cut into ``S(m)`` disjoint segments, more than the edits any partner allows; ``tau``
edits touch at most ``tau`` of them, so ``S - tau`` appear whole in the other text, each within
``tau`` words of its place. A pair is a candidate when that many of the earlier text's segments
are found, by hash, as runs of the later text's words ("windows") near their place; candidates
are measured by ``word_hashes.HashedWords``. A text too short to cut is compared with every later one.

The pass walks the texts in blocks: a block's windows are searched among the segments of texts
kept before it, then of its own texts no kept text matched; it is decided text by text, and its
kept texts' segments join the index. A block whose search makes too many matches is split.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ...types import DuplicatePair
from .edit_measure import DedupOutcome
from .word_hashes import HashedWords

__all__ = ["find_edit_duplicates"]

Ints = npt.NDArray[np.int64]
Hashes = npt.NDArray[np.uint64]
Pairs = tuple[Ints, Ints]
Best = dict[int, tuple[int, float]]

_EPS = 1e-9
# Odd multipliers (splitmix64's): a run length's weight, and a word's scramble.
_LENGTH_WEIGHT = np.uint64(0xBF58476D1CE4E5B9)
_SCRAMBLE = np.uint64(0x94D049BB133111EB)
_BLOCK_WORDS, _MAX_BLOCK_WORDS = 1 << 18, 1 << 20  # a block's arrays stay tens of megabytes
_CROWD = 4
_MARK_BITS, _OWN_MARK_BITS = 25, 21  # 32 MB of flags for the kept texts' segments, 8 MB for a block's
# Matches a block's search may make (a floor, plus this many a window) before it is split.
_MATCH_FLOOR = 1 << 16
_MATCHES_A_WINDOW = 4


def _ranges(counts: Ints) -> Ints:
    """Return ``0..c-1`` for each ``c`` of ``counts``, laid end to end."""
    total = int(counts.sum())
    return np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)


def _starts(values: Ints | Hashes) -> Ints:
    """Return where each run of equal ``values`` (sorted) starts."""
    return np.flatnonzero(np.append(True, values[1:] != values[:-1])[: values.size])


class _Lengths:
    """What the filter needs to know of a text's length ``m``, for every ``m`` up to the longest."""

    def __init__(self, longest: int, threshold: float) -> None:
        m = np.arange(longest + 1, dtype=np.int64)
        self.tau = np.floor((1.0 - threshold) * m + _EPS).astype(np.int64)  # edit_bound of each length
        self.shortest = m - self.tau  # the shortest partner of a text of m words
        self.longest = np.searchsorted(self.shortest, m, side="right").astype(np.int64) - 1
        # One segment length for all but short texts: the longest that leaves more segments than edits.
        usual = max(1, math.ceil(threshold / max(1.0 - threshold, _EPS) - _EPS) - 1)
        self.seg_len = np.minimum(usual, m // (self.tau[self.longest] + 1))  # 0: too short to cut
        self.segments = m // np.maximum(self.seg_len, 1)

    def window_lengths(self, m: int) -> tuple[int, int]:
        """Return the least and most segment length of a text of ``m`` words' partners (1, 0: none)."""
        cut = self.seg_len[int(self.shortest[m]) : int(self.longest[m]) + 1]
        cut = cut[cut > 0]
        return (int(cut.min()), int(cut.max())) if cut.size else (1, 0)


@dataclass
class _Segments:
    """Segments of texts, one entry for the segments of one hash in one text within ``tau`` words
    of each other, sorted by key: the hash, the first one's place in the low bits (so a window
    finds the entries of its hash near its place in one range); ``who``: the text, shifted 32
    bits up, and the last one's place."""

    key: Hashes
    who: Ints

    def take(self, keep: npt.NDArray[np.bool_] | Ints) -> _Segments:
        """Return the entries ``keep`` selects."""
        return _Segments(self.key[keep], self.who[keep])

    def merged(self, other: _Segments) -> _Segments:
        """Return both sets of entries, sorted by key (two sorted runs: a merge, no sort)."""
        at = np.searchsorted(self.key, other.key, side="right") + np.arange(other.key.size)
        mine = np.ones(self.key.size + other.key.size, dtype=bool)
        mine[at] = False
        mine_at = np.flatnonzero(mine)  # numpy places by positions faster than by a mask
        joined = [np.empty(mine.size, dtype=a.dtype) for a in vars(self).values()]
        for out, a, b in zip(joined, vars(self).values(), vars(other).values(), strict=True):
            out[mine_at], out[at] = a, b
        return _Segments(*joined)


def _slot(flags: npt.NDArray[np.bool_] | npt.NDArray[np.int32], keys: Hashes) -> Ints:
    """Return which of ``flags`` (one for each of ``2**bits`` ranges of hashes) each key falls in."""
    slots: Ints = (keys >> np.uint64(65 - flags.size.bit_length())).astype(np.int64)  # int64: numpy's fastest
    return slots


class _Pass:
    """The greedy pass's state: who is kept, the kept texts' segments, the pairs so far."""

    def __init__(self, texts: Sequence[str], threshold: float) -> None:
        self.threshold = threshold
        self.codes = codes = HashedWords(texts)
        self.counts, self.begin = codes.counts, codes.begin
        self.group = codes.groups()
        self.n = len(texts)
        self.lengths = _Lengths(int(self.counts.max(initial=0)), threshold)
        self.near = threshold < 1.0  # at 1.0 only equal words (an exact group) reach it
        self.index = _Segments(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64))
        self.reach = self.lengths.tau[self.lengths.longest]  # the most edits a text's partners allow
        bits = (2 * int(self.counts.max(initial=0)) + 1).bit_length()  # a place, plus its reach
        self.place = np.uint64((1 << bits) - 1)
        self.covered = np.zeros(self.n, dtype=np.int64)  # a text's segments its index entries hold
        self.marks = np.zeros(1 << _MARK_BITS, dtype=np.bool_)
        self._kept = bytearray(self.n)
        self.kept = np.frombuffer(self._kept, dtype=np.bool_)  # a view: both change together
        self.loose: list[int] = []  # kept texts too short to cut, compared with every later one
        self.outcome = DedupOutcome()

    def _prefix(self, lo: int, hi: int) -> tuple[Hashes, Hashes]:
        """Return the running polynomial sums of texts ``lo..hi-1``'s words, and the inverse powers."""
        start, stop = int(self.begin[lo]), int(self.begin[hi - 1] + self.counts[hi - 1])
        size = stop - start
        up, down = self.codes.powers(size)
        running = np.zeros(size + 1, dtype=np.uint64)
        # Word characters are small: scrambled by an odd multiplier, the runs' top bits spread.
        words = np.frombuffer(self.codes.chars[start:stop].encode("utf-32-le"), dtype=np.uint32)
        np.cumsum(words * _SCRAMBLE * up[:size], out=running[1:])
        return running, down

    def _run_keys(self, block: tuple[Hashes, Hashes], base: int, text: Ints, pos: Ints, length: Ints) -> Hashes:
        """Return the key of each run of ``length`` words from ``pos`` in ``text``: hash, ``pos`` in low bits."""
        running, down = block
        at = self.begin[text] - base + pos
        keys: Hashes = (running[at + length] - running[at]) * down[at] + length.astype(np.uint64) * _LENGTH_WEIGHT
        keys = (keys & ~self.place) | pos.astype(np.uint64)
        return keys

    def _segments(self, block: tuple[Hashes, Hashes], base: int, texts: Ints) -> _Segments:
        """Return the segments of ``texts`` (those long enough to cut)."""
        m = self.counts[texts]
        texts, m = texts[self.lengths.seg_len[m] > 0], m[self.lengths.seg_len[m] > 0]
        cuts = self.lengths.segments[m]
        owner, size = np.repeat(texts, cuts), np.repeat(m, cuts)
        pos = _ranges(cuts) * size // np.repeat(cuts, cuts)
        run = self._run_keys(block, base, owner, pos, self.lengths.seg_len[size]) & ~self.place
        run |= (pos // (self.lengths.tau[size] + 1)).astype(np.uint64)  # an entry's segments: one stretch
        order = np.argsort(run, kind="stable")  # a text's segments of one hash and stretch side by side
        run, owner, pos = run[order], owner[order], pos[order]
        new = np.ones(run.size, dtype=bool)
        new[1:] = (run[1:] != run[:-1]) | (owner[1:] != owner[:-1])
        starts = np.flatnonzero(new)
        count = np.diff(np.append(starts, run.size))
        key = (run[starts] & ~self.place) | pos[starts].astype(np.uint64)
        order = np.argsort(key, kind="stable")  # nearly sorted: timsort is quick
        key, owner, last, count = key[order], owner[starts][order], pos[starts + count - 1][order], count[order]
        # A text needs tau + 1 segments looked for (tau: the most edits a partner allows). Past its
        # rarest tau + 1, a segment more than _CROWD entries hold is a common phrase: left out, missing.
        run = key & ~self.place
        held, look = np.zeros(run.size, dtype=np.int64), np.flatnonzero(self.marks[_slot(self.marks, run)])
        held[look] = np.searchsorted(self.index.key, run[look] | self.place, "right")
        held[look] -= np.searchsorted(self.index.key, run[look])
        same = np.diff(np.append(_starts(run), run.size))
        held += np.repeat(same, same)
        keep = held <= _CROWD
        reach = self.reach[self.counts[owner]]
        spare = np.bincount(owner[keep], weights=count[keep], minlength=self.n)[owner] > reach
        order = np.flatnonzero(~spare)  # texts with too few uncrowded segments: the rarest, by text
        order = order[np.argsort(owner[order] << 32 | np.minimum(held[order], (1 << 32) - 1))]
        before = np.cumsum(count[order]) - count[order]
        firsts = _starts(owner[order])
        before -= np.repeat(before[firsts], np.diff(np.append(firsts, order.size)))
        keep[order] |= before <= reach[order]
        self.covered[texts] = 0
        np.add.at(self.covered, owner[keep], count[keep])
        return _Segments(key[keep], owner[keep] << 32 | last[keep])

    def _windows(self, block: tuple[Hashes, Hashes], base: int, texts: Ints) -> tuple[Hashes, Ints]:
        """Return the key and text of every run of ``texts`` of a length some segment they may meet has."""
        sizes, inverse = np.unique(self.counts[texts], return_inverse=True)
        bounds = np.array([self.lengths.window_lengths(m) for m in sizes.tolist()], dtype=np.int64)
        bounds = bounds.reshape(-1, 2)[inverse.ravel()]
        spans = np.maximum(bounds[:, 1] - bounds[:, 0] + 1, 0)
        owner = np.repeat(texts, spans)
        length = np.repeat(bounds[:, 0], spans) + _ranges(spans)
        many = np.maximum(self.counts[owner] - length + 1, 0)
        text, length, pos = np.repeat(owner, many), np.repeat(length, many), _ranges(many)
        return self._run_keys(block, base, text, pos, length), text

    def _join(self, index: _Segments, win: tuple[Hashes, Ints], maybe: Ints, limit: int | None) -> Pairs | None:
        """Return the candidate pairs (earlier text, later text) whose segments the windows ``win``
        at ``maybe`` find in ``index``, or None when the search would make more than ``limit`` matches."""
        win_key, win_text = win  # the windows' keys and texts
        # Sorted by their top 16 bits (a radix sort), the binary searches stay in cache.
        maybe = maybe[np.argsort((win_key[maybe] >> np.uint64(48)).astype(np.uint16), kind="stable")]
        keys, text = win_key[maybe], win_text[maybe]
        reach = self.reach[self.counts[text]].astype(np.uint64)
        # An entry spans at most its text's tau words (at most ``reach``): from 2 reach before.
        left = np.searchsorted(index.key, keys - np.minimum(keys & self.place, 2 * reach))
        found, top, last = np.zeros(keys.size, dtype=np.int64), keys + reach, index.key.size - 1
        going = np.flatnonzero((left <= last) & (index.key[np.minimum(left, last)] <= top))  # step, then search
        for _ in range(2):  # (most windows find none or one)
            found[going] += 1
            at = left[going] + found[going]
            going = going[(at <= last) & (index.key[np.minimum(at, last)] <= top[going])]
        found[going] = np.searchsorted(index.key, top[going], side="right") - left[going]
        if limit is not None and int(found.sum()) > limit:
            return None
        e = np.repeat(left, found) + _ranges(found)  # a match: entry e, and its window's text and place
        i, pos = np.repeat(text, found), np.repeat((keys & self.place).astype(np.int64), found)
        who, first = index.who[e], (index.key[e] & self.place).astype(np.int64)
        k, end = who >> 32, who & 0xFFFFFFFF  # its text, and its last segment's place
        mk, mi = self.counts[k], self.counts[i]
        tau = self.lengths.tau[np.maximum(mk, mi)]
        ok = (np.abs(mk - mi) <= tau) & (pos + tau >= first) & (pos <= end + tau) & (k < i)
        # Each segment of k found whole is found by a window of its own near enough: a pair's
        # matches are at least its segments found (more when a phrase repeats: a candidate more).
        pairs, credit = np.unique(k[ok] * self.n + i[ok], return_counts=True)
        k, i = np.divmod(pairs, self.n)
        needed = self.covered[k] - self.lengths.tau[np.maximum(self.counts[k], self.counts[i])]
        enough = credit >= needed
        return k[enough], i[enough]

    def block(self, lo: int, hi: int) -> None:
        """Decide texts ``lo`` to ``hi - 1`` (all before them decided) and index the kept ones."""
        docs = np.arange(lo, hi, dtype=np.int64)
        group = self.group[lo:hi]
        settled = (group != docs) & self.kept[group]  # copies of a text kept before the block
        probers = docs[~settled & (self.counts[lo:hi] > 0)] if self.near else docs[:0]
        best: Best = {}
        within: dict[int, list[tuple[int, float]]] = {}
        if not probers.size:
            return self._decide(lo, hi, best, within)
        block, base = self._prefix(lo, hi), int(self.begin[lo])
        win = self._windows(block, base, probers)
        limit = None if hi - lo == 1 else _MATCHES_A_WINDOW * win[0].size + _MATCH_FLOOR
        earlier = self._join(self.index, win, np.flatnonzero(self.marks[_slot(self.marks, win[0])]), limit)
        if earlier is None:
            return self._split(lo, hi)
        for k, i, similarity in self.codes.matches(*earlier, self.threshold):
            self._better(best, k, i, similarity)
        firsts = probers[(group[probers - lo] == probers)]
        mine = self._segments(block, base, np.array([i for i in firsts.tolist() if i not in best], dtype=np.int64))
        own = np.full(1 << _OWN_MARK_BITS, self.n, dtype=np.int32)  # the first text with a segment there
        np.minimum.at(own, _slot(own, mine.key), (mine.who >> 32).astype(np.int32))
        inside = self._join(mine, win, np.flatnonzero(own[_slot(own, win[0])] < win[1]), limit)  # of earlier texts
        if inside is None:
            return self._split(lo, hi)
        for k, i, similarity in self.codes.matches(*inside, self.threshold):  # a text of this block: if it is kept
            within.setdefault(i, []).append((k, similarity))
        self._decide(lo, hi, best, within)
        added = mine.take(self.kept[mine.who >> 32])
        self.marks[_slot(self.marks, added.key)] = True
        self.index = self.index.merged(added)

    def _split(self, lo: int, hi: int) -> None:
        mid = lo + (hi - lo) // 2
        self.block(lo, mid)
        self.block(mid, hi)

    @staticmethod
    def _better(best: Best, k: int, i: int, similarity: float | None) -> None:
        """Keep kept text ``k`` in ``best`` when its ``similarity`` with text ``i`` is the best so far."""
        if similarity is not None:
            b, b_sim = best.get(i, (-1, -1.0))
            if similarity > b_sim or (similarity == b_sim and k < b):
                best[i] = (k, similarity)

    def _decide(self, lo: int, hi: int, best: Best, within: dict[int, list[tuple[int, float]]]) -> None:
        """Walk texts ``lo`` to ``hi - 1``: each an exact copy, a near copy of the best kept text it met, or kept."""
        kept, pairs, lengths = self._kept, self.outcome.pairs, self.lengths
        for i, g, m in zip(range(lo, hi), self.group[lo:hi].tolist(), self.counts[lo:hi].tolist(), strict=True):
            if g != i and kept[g]:
                pairs.append(DuplicatePair(g, i, 1.0, "exact"))
                continue
            if m and self.near:
                for k, similarity in within.get(i, ()):
                    if kept[k]:
                        self._better(best, k, i, similarity)
                for k in self.loose:
                    mk = int(self.counts[k])
                    if abs(mk - m) <= lengths.tau[max(mk, m)]:
                        self._better(best, k, i, self.codes.exact.match(k, i, self.threshold))
            if i in best:
                k, similarity = best[i]
                pairs.append(DuplicatePair(k, i, similarity, "near"))
                continue
            kept[i] = 1
            self.outcome.kept.append(i)
            if m and lengths.seg_len[m] == 0:
                self.loose.append(i)

    def run(self) -> DedupOutcome:
        """Decide every text, a block at a time."""
        ends, lo = np.cumsum(self.counts), 0
        while lo < self.n:  # blocks grow with the index: merging each into it costs a few passes in all
            words = min(max(_BLOCK_WORDS, 2 * self.index.key.size), _MAX_BLOCK_WORDS)
            hi = min(max(int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + words, side="right")), lo + 1), self.n)
            self.block(lo, hi)
            lo = hi
        return self.outcome


def find_edit_duplicates(texts: Sequence[str], threshold: float) -> DedupOutcome:
    """Return the ``DedupOutcome`` of the greedy pass under word edit similarity."""
    return _Pass(texts, threshold).run()
