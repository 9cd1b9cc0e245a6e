"""The segments of a set of texts (the kept ones, or a block's survivors), searched by windows.

Segments are sorted by (hash, start), so the starts a window can match within its shift bound
are one band of them; a bitmap of their hashes' top bits in front turns most windows away
with one look-up (a packed bitmap of a few megabytes stays in the processor's cache, where a
byte per slot did not). ``join`` finds every window equal to an indexed segment within the
length and shift bounds; ``enough_matches`` keeps the pairs with enough of them
(``segment_filter``'s module doc says why no pair at the threshold is lost).

A hash that more than ``_CROWD`` indexed segments share when a text's segments come in is
crowded: for a text that could not pass on crowded segments alone (fewer of them than the
fewest matches any pair of it needs), those segments are left out and counted in ``extra``,
credited to every pair of it; other texts' go in whole. So a window meets at most ``_CROWD``
segments of texts that need other matches too, however common its words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import InvalidInputError
from .segment_filter import BlockWindows, Geometry, block_windows, segments_of
from .word_hashing import sort_order
from .word_runs import WordHashes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SegmentIndex", "sorted_segments", "join", "enough_matches", "candidate_pairs"]

_CROWD = 32
# A join makes at most about this many (window, segment) matches at once: memory stays bounded
# when a phrase is in very many texts (one probe's matches are never split).
_MAX_MATCHES = 1 << 22
# At most 2**25 bits (4 MB): beyond that look-ups leave the cache.
_MAX_BITMAP_BITS = 25


class _Bitmap:
    """A packed bitmap of the top bits of 64-bit hashes."""

    def __init__(self, expected: int) -> None:
        import numpy as np

        bits = min(_MAX_BITMAP_BITS, max(13, (16 * expected).bit_length()))
        self.shift = np.uint64(64 - bits)
        self.table = np.zeros(1 << (bits - 3), dtype=np.uint8)

    def add(self, ordered: np.ndarray) -> None:
        """Set the bits of ``ordered`` (sorted) hashes."""
        import numpy as np

        slot = ordered >> self.shift
        byte = (slot >> np.uint64(3)).astype(np.intp)
        bit = np.left_shift(np.uint8(1), (slot & np.uint64(7)).astype(np.uint8))
        starts = np.flatnonzero(np.concatenate(([True], byte[1:] != byte[:-1])))
        self.table[byte[starts]] |= np.bitwise_or.reduceat(bit, starts)

    def hits(self, hashes: np.ndarray) -> np.ndarray:
        """Return the positions of ``hashes`` whose bit is set."""
        import numpy as np

        slot = hashes >> self.shift
        byte = self.table[(slot >> np.uint64(3)).astype(np.intp)]
        return np.flatnonzero(np.right_shift(byte, (slot & np.uint64(7)).astype(np.uint8)) & np.uint8(1))


def sorted_segments(wh: WordHashes, geo: Geometry, texts: np.ndarray, place: np.uint64):
    """Return the segments of ``texts`` as (keys, owners) sorted by key, a key being the
    segment's hash with its low bits replaced by its start."""
    import numpy as np

    owner, start, hashes = segments_of(wh, geo, texts)
    keys = (hashes & ~place) | start.astype(np.uint64)
    order = sort_order(keys)
    return keys[order], owner[order]


class SegmentIndex:
    """Segments sorted by key (``sorted_segments``), added a sorted batch at a time into two
    buffers used in turn (a merge reads one and writes the other: no fresh memory a batch)."""

    def __init__(self, place: np.uint64, n_texts: int, capacity: int, needed_min: np.ndarray) -> None:
        import numpy as np

        self.place, self.needed_min = place, needed_min
        self._buffers = [(np.empty(capacity, dtype=np.uint64), np.empty(capacity, dtype=np.int32))
                         for _ in range(2 if capacity else 0)]
        self._mask = np.empty(capacity, dtype=bool)
        self.keys, self.owners = np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int32)
        self.bitmap = _Bitmap(capacity)
        #: Per text: its crowded segments left out (credited to its count).
        self.extra = np.zeros(n_texts, dtype=np.int64)

    def add(self, keys: np.ndarray, owners: np.ndarray) -> None:
        """Add segments (sorted ``keys``, their texts), leaving out crowded ones (module doc)."""
        import numpy as np

        if keys.size == 0:
            return
        part = keys & ~self.place
        fresh = np.concatenate(([True], part[1:] != part[:-1]))
        starts = np.flatnonzero(fresh)
        sizes = np.repeat(np.diff(np.append(starts, part.size)), np.diff(np.append(starts, part.size)))
        if self.keys.size:
            sizes += np.searchsorted(self.keys, part | self.place, "right") - np.searchsorted(self.keys, part)
        crowded = sizes > _CROWD
        if crowded.any():
            texts, c = np.unique(owners[crowded], return_counts=True)
            lean = texts[c < self.needed_min[texts]]  # could not pass on crowded segments alone
            self.extra[lean] = c[c < self.needed_min[texts]]
            left_out = np.zeros(self.extra.size, dtype=bool)
            left_out[lean] = True
            keep = ~(crowded & left_out[owners])
            keys, owners = keys[keep], owners[keep]
        self._merge(keys, owners)
        self.bitmap.add(keys)

    def _merge(self, keys: np.ndarray, owners: np.ndarray) -> None:
        import numpy as np

        size = self.keys.size + keys.size
        out_keys, out_owners = self._buffers[0]
        self._buffers.reverse()
        mask = self._mask[:size]
        mask[:] = False
        mask[np.searchsorted(self.keys, keys) + np.arange(keys.size)] = True
        out_keys[:size][mask], out_owners[:size][mask] = keys, owners
        np.logical_not(mask, out=mask)
        out_keys[:size][mask], out_owners[:size][mask] = self.keys, self.owners
        self.keys, self.owners = out_keys[:size], out_owners[:size]


def join(index: SegmentIndex, windows: BlockWindows, geo: Geometry, counts: np.ndarray, begin: np.ndarray,
         earlier_only: bool, limit: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the matches of windows (of a text s) equal to a segment of an indexed text r
    within the length and shift bounds (``earlier_only``: r < s only), as two distinct sorted
    key arrays, ``(r * n + s) * numbers + segment`` and ``(r * n + s) * width + start in s``;
    None when they would be more than ``limit``.

    A segment starting at ``p`` can match a window at ``at = p + shift`` with
    ``|shift| <= tau <= reach(|s|)``: only that band of the sorted segments is read.
    """
    import numpy as np

    n_texts, width = counts.size, int(counts.max(initial=0)) + 1
    if n_texts * n_texts * max(width, int(geo.count.max(initial=1))) >= 1 << 62:
        raise InvalidInputError("texts: too many texts or words to number in 64 bits; "
                                "deduplicate fewer at a time")
    top, probes, total = int(index.place), [], 0
    for w in windows.slices:
        hit = index.bitmap.hits(w.hashes)
        at = w.lo + hit if w.positions is None else w.positions[hit]
        s = windows.slot[w.length][at - windows.lo]
        keep = np.flatnonzero(s >= 0)
        part = w.hashes[hit[keep]] & ~index.place
        order = sort_order(part, exact=False)  # sorted probes search faster
        s, part = s[keep[order]], part[order]
        at = at[keep[order]] - begin[s]
        reach = geo.reach[counts[s]]
        left = np.searchsorted(index.keys, part | np.maximum(at - reach, 0).astype(np.uint64), "left")
        right = np.searchsorted(index.keys, part | np.minimum(at + reach, top).astype(np.uint64), "right")
        total += int((right - left).sum())
        if limit is not None and total > limit:
            return None
        probes.append((w.length, s, at, left, right - left))
    found = [_matches(index, geo, counts, earlier_only, *p) for p in probes]
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return _distinct(np.concatenate([f[0] for f in found])), _distinct(np.concatenate([f[1] for f in found]))


def _matches(index: SegmentIndex, geo: Geometry, counts: np.ndarray, earlier_only: bool, length: int,
             s: np.ndarray, at: np.ndarray, left: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``join``'s two keys for probes (s, at) whose band of index segments starts at
    ``left`` and holds ``count`` of them; made about ``_MAX_MATCHES`` at a time."""
    import numpy as np

    made = np.cumsum(count)
    if made.size and int(made[-1]) > _MAX_MATCHES:
        cuts = np.searchsorted(made, np.arange(_MAX_MATCHES, int(made[-1]), _MAX_MATCHES), "right")
        pieces = [(lo, max(hi, lo + 1)) for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, s.size]) if lo < s.size]
        parts = [_matches(index, geo, counts, earlier_only, length, s[lo:hi], at[lo:hi], left[lo:hi],
                          count[lo:hi]) for lo, hi in pieces]
        return _distinct(np.concatenate([p[0] for p in parts])), _distinct(np.concatenate([p[1] for p in parts]))
    probe = np.repeat(np.arange(s.size), count)
    seg = np.arange(probe.size) + np.repeat(left - (made - count), count)
    r, sp, where = index.owners[seg].astype(np.int64), s[probe], at[probe]
    n_r, n_s = counts[r], counts[sp]
    start = (index.keys[seg] & index.place).astype(np.int64)
    moved = where - start
    ok = (np.abs(moved) + np.abs(n_s - n_r - moved) <= geo.tau[np.maximum(n_r, n_s)]) & (geo.seglen[n_r] == length)
    if earlier_only:
        ok &= r < sp
    ok = np.flatnonzero(ok)
    pair = r[ok] * counts.size + sp[ok]
    numbers, width = int(geo.count.max(initial=1)), int(counts.max(initial=0)) + 1
    return _distinct(pair * numbers + start[ok] // length), _distinct(pair * width + where[ok])


def enough_matches(keys: tuple[np.ndarray, np.ndarray], extra: np.ndarray, geo: Geometry,
                   counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (later s, indexed r) of the pairs whose matches (``join``'s keys) reach
    ``count(|r|) - tau``: every pair at the threshold, and few others.

    The intact segments of an alignment within ``tau`` edits match at distinct starts in s, so
    a pair has at least that many distinct segments AND distinct starts matched, each plus r's
    crowded segments left out of the index (``extra``).
    """
    import numpy as np

    by_segment, by_start = keys
    if by_segment.size == 0:
        return by_segment, by_segment
    matched = None
    for key, scale in ((by_segment, int(geo.count.max(initial=1))), (by_start, int(counts.max(initial=0)) + 1)):
        directed = key // scale  # keys are distinct and sorted, so pairs come in runs
        starts = np.flatnonzero(np.concatenate(([True], directed[1:] != directed[:-1])))
        runs = np.diff(np.append(starts, directed.size))
        matched = runs if matched is None else np.minimum(matched, runs)
        pairs = directed[starts]  # the same pairs both times: every match has both keys
    r, s = pairs // counts.size, pairs % counts.size
    n_r = counts[r]
    ok = matched + extra[r] >= geo.count[n_r] - geo.tau[np.maximum(n_r, counts[s])]
    return s[ok], r[ok]


def _distinct(keys: np.ndarray) -> np.ndarray:
    """Return the distinct values of ``keys``, sorted (a sort, faster here than np.unique's hash)."""
    import numpy as np

    keys = np.sort(keys)
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size > 1 else keys


def candidate_pairs(wh: WordHashes, threshold: float) -> np.ndarray:
    """Return the pairs the filter names with EVERY text indexed, as sorted keys ``a * n + b``
    (a < b): every pair at ``threshold`` is among them. The greedy pass looks up only kept
    texts (``kept_pass``); this is the filter on its own, whose guarantee the tests check."""
    import numpy as np

    counts = wh.counts
    geo = Geometry(int(counts.max(initial=0)), threshold)
    texts = np.flatnonzero(counts > 0)
    place = np.uint64((1 << max(1, int(counts.max(initial=1)).bit_length())) - 1)
    keys, owners = sorted_segments(wh, geo, texts, place)
    index = SegmentIndex(place, counts.size, keys.size, geo.needed_min[counts])
    index.add(keys, owners)
    found = join(index, block_windows(wh, geo, texts), geo, counts, wh.begin, earlier_only=True)
    later, earlier = enough_matches(found, index.extra, geo, counts)
    return np.sort(earlier * counts.size + later)
