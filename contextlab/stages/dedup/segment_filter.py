"""Candidate pairs for word edit similarity that provably include every pair at the threshold.

The default measure (``edit_measure.py``) is ``1 - lev(a, b) / max(|a|, |b|)`` over word
sequences, so a pair at threshold ``t`` is at most ``tau = floor((1 - t) * max(|a|, |b|))``
word edits apart, and the shorter text has at least ``max - tau`` words (the length filter).
The pigeonhole (partition) filter of PassJoin (Li et al., "PASS-JOIN: a partition-based
method for similarity joins", VLDB 2012) finds such pairs without comparing every two texts:
cut the longer text ``r`` into ``tau + 1`` disjoint segments; ``tau`` edits touch at most
``tau`` of them, so one segment appears unchanged, word for word, in the shorter text ``s``,
starting ``shift`` words from where it starts in ``r``, where ``|shift| + |Δ - shift| <= tau``
(``Δ = |s| - |r|``: the edits before the segment move it by ``shift``, those after it make up
the rest of the length difference). So every text's segments are matched against every
window of the shorter-or-equal texts with one of the segment lengths those texts' partners
can have, and only pairs whose match passes the length and shift bounds are candidates.
At 0.85 a segment is five or six words, as rare as a seed shingle, and neighbouring chunks
that share a passage at different positions fail the shift bound.

Words are compared as 64-bit hashes of their normalised form (``word_hashing``'s word
hashing), segments and windows as polynomial hashes of their word hashes: equal words give
equal hashes, so a collision can only add a candidate, never lose one. The candidates are
verified exactly in ``edit_measure.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ...errors import InvalidInputError
from .word_hashing import _BASE, _batches, _hash_words, sort_order

if TYPE_CHECKING:
    import numpy as np

__all__ = ["WordHashes", "hash_words", "candidate_pairs"]

# A window or segment of L words hashes as sum(word_k * B**k) plus L times this (odd) weight.
_LENGTH_WEIGHT = 0xD6E8FEB86659FD93
# Window hashes are tested against a bitmap of segment hashes (by their top bits) before the
# exact join: most windows match no segment, and one look-up costs less than a binary search.
_BITMAP_BITS = 24
# Windows are joined with segments about this many at a time, to bound the memory of a join.
_WINDOW_SLICE = 1 << 19
# Segments beyond the pigeonhole's tau + 1: a pair must then match more than this many of
# them, which phrases that unrelated texts share (a boilerplate sentence) rarely do.
_EXTRA = 4
# ...but only while each segment keeps at least this many words: one-word segments of short
# texts are common words that every text shares, and matching them is a join of every pair.
_MIN_SEGMENT = 3
# A join makes at most about this many (window, segment) matches at once: memory stays bounded
# when a phrase is in very many texts (one probe's matches are never split).
_MAX_MATCHES = 1 << 22
_EPS = 1e-9


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


class WordHashes:
    """Every text's normalised words as hashes, laid end to end, kept as running sums that
    hash any run of consecutive words in constant time (and give back any word's hash)."""

    def __init__(self, word_batches: Sequence[np.ndarray], counts: np.ndarray) -> None:
        import numpy as np

        self.counts = counts.astype(np.int64)
        self.size = int(sum(w.size for w in word_batches))
        self._owners: np.ndarray | None = None
        self.begin = np.cumsum(self.counts) - self.counts
        self._up = _power_tables(_BASE)
        self._down = _power_tables(pow(_BASE, -1, 1 << 64))
        # running[q] = sum of word_j * B**j for j < q (modulo 2**64), a batch at a time. The
        # words are kept too (8 bytes a word): verification reads millions of them back, and
        # one gather costs a fifth of recovering each from the sums.
        self.words = np.concatenate(word_batches) if word_batches else np.zeros(0, dtype=np.uint64)
        self.running = np.zeros(self.size + 1, dtype=np.uint64)
        lo = 0
        for words in word_batches:
            hi = lo + words.size
            if words.size:
                part = words * self._power(self._up, np.arange(lo, hi))
                part[:1] += self.running[lo : lo + 1]  # an array add wraps without a warning
                np.cumsum(part, out=self.running[lo + 1 : hi + 1])
            lo = hi

    @staticmethod
    def _power(tables: tuple[np.ndarray, np.ndarray], exponents: np.ndarray) -> np.ndarray:
        import numpy as np

        low, high = tables
        return low[exponents & 0xFFFF] * high[exponents >> 16]

    def runs(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return the hash of the ``lengths[k]`` words from global word position ``starts[k]``."""
        import numpy as np

        h = (self.running[starts + lengths] - self.running[starts]) * self._power(self._down, starts)
        h += lengths.astype(np.uint64) * np.uint64(_LENGTH_WEIGHT)
        return h

    def words_at(self, positions: np.ndarray) -> np.ndarray:
        """Return the hash of the word at each global position."""
        return self.words[positions]

    def window_hashes(self, lo: int, hi: int, length: int) -> np.ndarray:
        """Return the hash of the ``length`` words from every global position in [lo, hi)
        (``runs`` for each start, read off two slices instead of gathered)."""
        import numpy as np

        h = self.running[lo + length : hi + length] - self.running[lo:hi]
        h *= self._power(self._down, np.arange(lo, hi))
        h += np.uint64(length * _LENGTH_WEIGHT % (1 << 64))
        return h

    def owners(self) -> np.ndarray:
        """Return the text each global word position belongs to (int32, built once)."""
        import numpy as np

        if self._owners is None:
            self._owners = np.repeat(np.arange(self.counts.size, dtype=np.int32), self.counts)
        return self._owners

    def sequences(self) -> np.ndarray:
        """Return a hash of each text's whole word sequence (equal for equal sequences)."""
        return self.runs(self.begin, self.counts)


def hash_words(texts: Sequence[str]) -> WordHashes:
    """Return the word hashes of ``texts``, each already normalised or pure ASCII.

    ``word_hashing`` hashes the words of ``text.lower().split()``; the normalised text is
    lowercase already and pure ASCII needs nothing more, so the words hashed are the words
    compared.
    """
    import numpy as np

    words, counts = [], []
    for start, stop in _batches(texts):
        w, c, _ = _hash_words(texts[start:stop])
        words.append(w)
        counts.append(c)
    if not words:
        return WordHashes([], np.zeros(0, dtype=np.int64))
    return WordHashes(words, np.concatenate(counts))


def _segment_count(n: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Return how many disjoint segments a text of ``n`` words (``tau`` edits) is cut into:
    the pigeonhole's ``tau + 1``, plus up to ``_EXTRA`` more while segments keep
    ``_MIN_SEGMENT`` words, never more than one a word."""
    import numpy as np

    extra = np.clip(n // _MIN_SEGMENT - (tau + 1), 0, _EXTRA)
    return np.minimum(tau + 1 + extra, n)


def _edit_bounds(n: np.ndarray, threshold: float) -> np.ndarray:
    """Return the most word edits a text of ``n`` words can be from a partner no longer than it."""
    import numpy as np

    return np.floor((1.0 - threshold) * n + _EPS).astype(np.int64)


def _segments(wh: WordHashes, texts: np.ndarray, tau: np.ndarray):
    """Return (text, number, start in text, length, hash) of the ``_segment_count``
    disjoint segments of each text."""
    import numpy as np

    k = _segment_count(wh.counts[texts], tau[texts])
    owner = np.repeat(texts, k)
    j = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
    # All of a text's segments have one length, floor(n / k); the words left over at its end
    # are in none. The pigeonhole needs the segments disjoint, not covering: an edit between
    # them touches none. One length per text means (mostly) one window length to probe.
    length = wh.counts[owner] // np.repeat(k, k)
    start = j * length
    hashes = wh.runs(wh.begin[owner] + start, length)
    # Four bytes per number: a text, its segment number and place fit (see candidate_pairs).
    small = np.int32
    return owner.astype(small), j.astype(small), start.astype(small), length.astype(small), hashes


def _window_lengths(n: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Return the shortest and longest segment of any partner at least as long as each text
    (and within the length filter: at most ``n / t`` words)."""
    import numpy as np

    low, high = np.empty_like(n), np.empty_like(n)
    for size in np.unique(n).tolist():
        m = np.arange(size, int(np.floor(size / threshold + _EPS)) + 1)
        k = _segment_count(m, np.floor((1.0 - threshold) * m + _EPS).astype(np.int64))
        at = n == size
        low[at], high[at] = int((m // k).min()), min(size, int((m // k).max()))
    return low, high


def candidate_pairs(wh: WordHashes, active: np.ndarray, threshold: float) -> np.ndarray:
    """Return the candidate pairs among ``active`` texts as sorted keys ``a * n + b`` (a < b).

    Every pair of active texts whose word edit similarity is at least ``threshold`` is among
    them (see the module doc).
    """
    import numpy as np

    n_texts = wh.counts.size
    tau = _edit_bounds(wh.counts, threshold)
    texts = np.flatnonzero(active & (wh.counts > 0))
    if texts.size < 2:
        return np.zeros(0, dtype=np.int64)
    numbers = int(_segment_count(wh.counts, tau).max())  # segments in a text, at most
    if n_texts >= 1 << 31 or wh.size >= 1 << 31 or n_texts * n_texts * numbers >= 1 << 62:
        raise InvalidInputError("texts: too many texts or words to number in 32 bits; "
                                "deduplicate fewer texts at a time")
    segments = _segments(wh, texts, tau)
    # Segments are sorted by (hash, start): the starts a window can match are one band of it.
    place_bits = max(1, int(wh.counts.max()).bit_length())
    place = np.uint64((1 << place_bits) - 1)
    keyed = (segments[-1] & ~place) | segments[2].astype(np.uint64)
    order = sort_order(keyed)
    segments = tuple(a[order] for a in segments[:-1]) + (keyed[order],)
    # About 16 bits a segment, at most _BITMAP_BITS: a few texts need no 16 MB table.
    bits = min(_BITMAP_BITS, max(12, (16 * keyed.size).bit_length()))
    shift = np.uint64(64 - bits)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[keyed >> shift] = True
    low, high = _window_lengths(wh.counts[texts], threshold)
    # The most edits any partner of a text may be from it (partners are at most n / t long).
    reach = _edit_bounds(np.floor(wh.counts / threshold + _EPS), threshold)
    # The join gathers a length and a bound per match: four bytes each read less memory.
    counts, small_tau = wh.counts.astype(np.int32), tau.astype(np.int32)
    found: list[np.ndarray] = []
    for length in range(int(low.min()), int(high.max()) + 1):
        probing = texts[(low <= length) & (high >= length) & (wh.counts[texts] >= length)]
        for owner, at, hashes in _windows(wh, probing, length):
            hashes &= ~place
            hit = np.flatnonzero(bitmap[hashes >> shift])
            hit = hit[sort_order(hashes[hit], exact=False)]  # sorted probes search faster
            found.append(_join(owner[hit], at[hit], hashes[hit], reach[owner[hit]], length,
                               segments, counts, small_tau, numbers))
    keys = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    return _enough_matches(keys, numbers, wh.counts, tau)


def _windows(wh: WordHashes, probing: np.ndarray, length: int):
    """Yield (text, start in text, hash) of the ``length``-word windows of ``probing`` texts,
    about ``_WINDOW_SLICE`` at a time: read off slices of the running sums when the texts
    are most of the words, gathered otherwise."""
    import numpy as np

    windows = wh.counts[probing] - length + 1
    if 2 * int(windows.sum()) >= wh.size:
        wanted = np.zeros(wh.counts.size, dtype=bool)
        wanted[probing] = True
        owner_of = wh.owners()
        for lo in range(0, wh.size - length + 1, _WINDOW_SLICE):
            hi = min(lo + _WINDOW_SLICE, wh.size - length + 1)
            owner = owner_of[lo:hi]
            at = np.arange(lo, hi) - wh.begin[owner]
            keep = np.flatnonzero(wanted[owner] & (at + length <= wh.counts[owner]))
            yield owner[keep], at[keep], wh.window_hashes(lo, hi, length)[keep]
        return
    step = max(1, _WINDOW_SLICE // max(1, int(windows.max(initial=1))))
    for lo in range(0, probing.size, step):
        part, count = probing[lo : lo + step], windows[lo : lo + step]
        owner = np.repeat(part, count)
        at = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        yield owner, at, wh.runs(wh.begin[owner] + at, np.full(owner.size, length, dtype=np.int64))


def _join(owner, at, hashes, reach, length, segments, counts, tau, numbers) -> np.ndarray:
    """Return the keys (longer text, shorter text, segment number) of the windows (``owner``,
    ``at``) equal to a segment of a text at least as long, within the length and shift bounds.

    A segment starting at ``p`` in the longer text can appear at ``at = p + shift`` with
    ``(Δ - tau) / 2 <= shift <= (tau + Δ) / 2`` and ``-tau <= Δ <= 0``, so ``p`` lies in
    ``[at - reach / 2, at + reach]``: only that band of the sorted segments is read.
    """
    import numpy as np

    seg_text, seg_number, seg_start, seg_len, seg_key = segments
    top = np.uint64((1 << max(1, int(counts.max()).bit_length())) - 1)
    first = np.maximum(at - reach // 2, 0).astype(np.uint64)
    last = np.minimum(at + reach, int(top)).astype(np.uint64)
    left = np.searchsorted(seg_key, hashes | first, "left")
    count = np.searchsorted(seg_key, hashes | last, "right") - left
    made = np.cumsum(count)
    if made.size and int(made[-1]) > _MAX_MATCHES:  # phrases in very many texts: in pieces
        cuts = np.searchsorted(made, np.arange(_MAX_MATCHES, int(made[-1]), _MAX_MATCHES), "right")
        pieces = [(lo, max(hi, lo + 1)) for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, owner.size]) if lo < owner.size]
        return np.concatenate([_join(owner[lo:hi], at[lo:hi], hashes[lo:hi], reach[lo:hi], length, segments,
                                     counts, tau, numbers) for lo, hi in pieces])
    probe = np.repeat(np.arange(owner.size, dtype=np.int32), count)
    seg = np.arange(probe.size)
    seg += np.repeat(left - (np.cumsum(count) - count), count)
    s, r = owner[probe], seg_text[seg]
    n_s, n_r, bound = counts[s], counts[r], tau[r]
    delta = n_s - n_r  # the window's text is the shorter (or as long), so delta <= 0
    moved = at.astype(seg_start.dtype)[probe] - seg_start[seg]
    # Of two texts as long as each other, only the earlier one's segments are looked for in
    # the later one (the pigeonhole holds either way): half the matches of equal lengths.
    ok = np.flatnonzero(((delta < 0) | ((delta == 0) & (r < s))) & (-delta <= bound)
                        & (seg_len[seg] == length) & (np.abs(moved) + np.abs(delta - moved) <= bound))
    # One int64 per match, (longer * n + shorter) * numbers + segment: a quarter of the rows'
    # size, and the same sort that counts the matches removes the repeats.
    return _distinct((r[ok].astype(np.int64) * counts.size + s[ok]) * numbers + seg_number[seg[ok]])


def _enough_matches(keys: np.ndarray, numbers: int, counts: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Return the unordered pair keys ``a * n + b`` (a < b, sorted) of the (longer, shorter)
    texts whose windows match enough distinct segments of the longer (``keys`` as ``_join``
    makes them): ``tau`` edits leave at least ``k - tau`` of its ``k`` segments intact."""
    import numpy as np

    n_texts = counts.size
    directed = _distinct(keys) // numbers
    del keys
    if directed.size == 0:
        return directed
    starts = np.flatnonzero(np.concatenate(([True], directed[1:] != directed[:-1])))
    matched = np.diff(np.append(starts, directed.size))
    pairs = directed[starts]
    del directed
    longer, shorter = pairs // n_texts, pairs % n_texts
    needed = _segment_count(counts[longer], tau[longer]) - tau[longer]
    ok = matched >= needed
    a, b = np.minimum(longer[ok], shorter[ok]), np.maximum(longer[ok], shorter[ok])
    return _distinct(a * n_texts + b)


def _distinct(keys: np.ndarray) -> np.ndarray:
    """Return the distinct values of ``keys``, sorted (a sort, faster here than np.unique's hash)."""
    import numpy as np

    keys = np.sort(keys)
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size > 1 else keys
