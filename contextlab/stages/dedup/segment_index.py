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
from .parallel_join import join_slices
from .segment_filter import BlockWindows, Geometry, block_windows, segments_of
from .word_hashing import kernels
from .word_runs import WordHashes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["KeyLayout", "SegmentIndex", "sorted_segments", "join", "enough_matches", "candidate_pairs"]

_CROWD = 32
# A join makes at most about this many (window, segment) matches at once: memory stays bounded
# when a phrase is in very many texts (one probe's matches are never split).
_MAX_MATCHES = 1 << 22
# An index that may hold more keys than this is searched through a directory of its keys' top
# bits (of at most this many bits: 8 MB a table).
_DIRECTORY_FROM = 1 << 16
_MAX_DIRECTORY_BITS = 21
# About 16 bits a segment, at most 2**27 (16 MB): a bitmap in the cache answers faster, but
# past a few bits a segment its false hits (each a search of the index) cost more.
_MAX_BITMAP_BITS = 27


class _Bitmap:
    """A packed bitmap of the top bits of 64-bit hashes."""

    def __init__(self, expected: int, hash_bits: int = 64) -> None:
        import numpy as np

        # A slot is the top bits of a key, looked up by the top bits of a window's hash: no
        # more of them than the keys' hash bits (past those a key holds its start and text).
        bits = min(_MAX_BITMAP_BITS, hash_bits, max(13, (16 * expected).bit_length()))
        self.shift = np.uint64(64 - bits)
        self.table = np.zeros(1 << (bits - 3), dtype=np.uint8)

    def add(self, ordered: np.ndarray) -> None:
        """Set the bits of ``ordered`` (sorted) hashes."""
        import numpy as np

        loops = kernels()
        if loops is not None:
            loops.mark_keys(ordered, self.table, int(self.shift), None, 0)
            return
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


class KeyLayout:
    """A segment as one sortable 64-bit key: the top bits of its hash, then its start in its
    text, then its text. Keys sort by hash, then start (a window's band is one range), and
    carry their text. Fewer hash bits can only make unequal hashes look equal: a candidate
    more, never one less (verification is exact)."""

    def __init__(self, n_texts: int, longest_text: int) -> None:
        import numpy as np

        self.owner_bits = max(1, (n_texts - 1).bit_length())
        self.place_bits = max(1, longest_text.bit_length())
        if 64 - self.owner_bits - self.place_bits < 16:
            raise InvalidInputError("texts: too many texts or words to number in 64 bits; deduplicate fewer at a time")
        self.owner_mask = np.uint64((1 << self.owner_bits) - 1)
        self.top = (1 << self.place_bits) - 1  # the latest start
        self.low = np.uint64((1 << (self.owner_bits + self.place_bits)) - 1)  # all but the hash

    def pack(self, hashes: np.ndarray, starts: np.ndarray, owners: np.ndarray) -> np.ndarray:
        """Return the keys of segments (hash, start in text, text)."""
        import numpy as np

        keys = hashes & ~self.low
        keys |= starts.astype(np.uint64) << np.uint64(self.owner_bits)
        keys |= owners.astype(np.uint64)
        return keys

    def owners(self, keys: np.ndarray) -> np.ndarray:
        import numpy as np

        return (keys & self.owner_mask).astype(np.int64)

    def starts(self, keys: np.ndarray) -> np.ndarray:
        import numpy as np

        return ((keys >> np.uint64(self.owner_bits)) & np.uint64(self.top)).astype(np.int64)

    def band(self, parts: np.ndarray, first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the least and greatest key of hash parts ``parts`` starting from ``first`` to
        ``last`` (clipped to the starts a key can hold)."""
        import numpy as np

        shift = np.uint64(self.owner_bits)
        low = parts | (np.maximum(first, 0).astype(np.uint64) << shift)
        high = parts | (np.minimum(last, self.top).astype(np.uint64) << shift) | self.owner_mask
        return low, high


def sorted_segments(
    wh: WordHashes, geo: Geometry, texts: np.ndarray, layout: KeyLayout, windows: BlockWindows | None = None
) -> np.ndarray:
    """Return the keys of the segments of ``texts``, sorted (hashes read off ``windows`` where
    they hold them)."""

    owner, start, hashes = segments_of(wh, geo, texts, windows)
    return _sorted(layout.pack(hashes, start, owner))


class _Directory:
    """Where the sorted keys whose top ``bits`` bits are each value begin: a search reads its
    value's bucket (a few keys: there are about a quarter as many buckets as keys may be) and
    walks it, instead of a binary search of the whole index (which, out of the cache, needed
    its probes sorted first)."""

    def __init__(self, capacity: int) -> None:
        import numpy as np

        bits = max(8, min(_MAX_DIRECTORY_BITS, capacity.bit_length()))
        self.shift = np.uint64(64 - bits)
        self.sizes = np.zeros(1 << bits, dtype=np.int32)  # keys a bucket holds
        self.begins = np.zeros((1 << bits) + 1, dtype=np.int32)

    def add(self, ordered: np.ndarray) -> None:
        """Count ``ordered`` (sorted) keys, just merged into the index."""
        import numpy as np

        loops = kernels()
        if loops is not None:
            loops.mark_keys(ordered, None, 0, self.sizes, int(self.shift))
        else:
            top = (ordered >> self.shift).astype(np.intp)
            starts = np.flatnonzero(np.concatenate(([True], top[1:] != top[:-1])))
            self.sizes[top[starts]] += np.diff(np.append(starts, top.size)).astype(np.int32)
        np.cumsum(self.sizes, out=self.begins[1:])

    def search(self, keys: np.ndarray, values: np.ndarray, side: str) -> np.ndarray:
        """Return ``np.searchsorted(keys, values, side)``: a binary search of each value's
        bucket, all values a step at a time (most buckets hold a key or two; a crowded one
        takes a step per doubling of its keys)."""
        import numpy as np

        top = (values >> self.shift).astype(np.intp)
        low, high = self.begins[top].astype(np.intp), self.begins[top + 1].astype(np.intp)
        pending = np.flatnonzero(low < high)
        while pending.size:
            a, b = low[pending], high[pending]
            mid = (a + b) >> 1
            here, value = keys[mid], values[pending]
            after = here <= value if side == "right" else here < value  # the answer is past mid
            low[pending] = np.where(after, mid + 1, a)
            high[pending] = np.where(after, b, mid)
            pending = pending[low[pending] < high[pending]]
        return low


class SegmentIndex:
    """Segment keys (``KeyLayout``), sorted, added a sorted batch at a time: the batch is
    written after the keys in a buffer made once, and one stable sort (a merge of two runs)
    orders them."""

    def __init__(self, layout: KeyLayout, n_texts: int, capacity: int, needed_min: np.ndarray) -> None:
        import numpy as np

        self.layout, self.needed_min = layout, needed_min
        self._buffer = np.empty(capacity, dtype=np.uint64)
        self.keys = self._buffer[:0]
        self.bitmap = _Bitmap(capacity, 64 - layout.owner_bits - layout.place_bits)
        self._directory = _Directory(capacity) if _DIRECTORY_FROM < capacity < 1 << 31 else None
        #: Per text: its crowded segments left out (credited to its count).
        self.extra = np.zeros(n_texts, dtype=np.int64)

    def search(self, values: np.ndarray, side: str = "left") -> np.ndarray:
        """Return where ``values`` would go in the sorted keys (``np.searchsorted``)."""
        import numpy as np

        loops = kernels()
        if loops is not None:
            found = np.empty(values.size, dtype=np.int64)
            directory = self._directory
            loops.search_keys(
                self.keys,
                None if directory is None else directory.begins,
                0 if directory is None else int(directory.shift),
                np.ascontiguousarray(values, dtype=np.uint64),
                side == "right",
                found,
            )
            return found
        if self._directory is None:
            return np.searchsorted(self.keys, values, side)
        return self._directory.search(self.keys, values, side)

    def add(self, keys: np.ndarray) -> None:
        """Add segment keys (sorted), leaving out crowded ones (see the module doc)."""
        import numpy as np

        if keys.size == 0:
            return
        loops, directory = kernels(), self._directory
        if loops is not None:
            keys = np.ascontiguousarray(keys, dtype=np.uint64)
            sizes = np.empty(keys.size, dtype=np.int64)
            loops.crowd_sizes(
                keys,
                int(self.layout.low),
                self.keys,
                self.bitmap.table,
                int(self.bitmap.shift),
                None if directory is None else directory.begins,
                0 if directory is None else int(directory.shift),
                sizes,
            )
        else:
            part = keys & ~self.layout.low
            starts = np.flatnonzero(np.concatenate(([True], part[1:] != part[:-1])))
            runs = np.diff(np.append(starts, part.size))
            sizes = np.repeat(runs, runs)
            if self.keys.size:  # only a hash the bitmap may hold can be in the index already
                seen = self.bitmap.hits(part)
                sizes[seen] += self.search(part[seen] | self.layout.low, "right") - self.search(part[seen])
        crowded = sizes > _CROWD
        if crowded.any():
            owners = self.layout.owners(keys)
            texts, c = np.unique(owners[crowded], return_counts=True)
            lean = c < self.needed_min[texts]  # could not pass on crowded segments alone
            self.extra[texts[lean]] = c[lean]
            left_out = np.zeros(self.extra.size, dtype=bool)
            left_out[texts[lean]] = True
            keys = keys[~(crowded & left_out[owners])]
        size = self.keys.size + keys.size
        if loops is not None:  # merged from the back, in place
            loops.merge_keys(self._buffer, self.keys.size, np.ascontiguousarray(keys, dtype=np.uint64))
            self.keys = self._buffer[:size]
        else:
            self._buffer[self.keys.size : size] = keys
            self.keys = self._buffer[:size]
            self.keys.sort(kind="stable")  # two sorted runs: timsort merges them in one pass
        self.bitmap.add(keys)
        if self._directory is not None:
            self._directory.add(keys)


def join(
    index: SegmentIndex,
    windows: BlockWindows,
    geo: Geometry,
    counts: np.ndarray,
    begin: np.ndarray,
    earlier_only: bool,
    limit: int | None = None,
) -> np.ndarray | None:
    """Return the keys ``(r * n + s) * numbers + segment`` (distinct, sorted) of every window
    of a text s equal to a segment of an indexed text r within the length and shift bounds
    (``earlier_only``: r < s only); None when there would be more than ``limit`` matches.

    A segment starting at ``p`` can match a window at ``at = p + shift`` with
    ``|shift| <= tau <= reach(|s|)``: only that band of the sorted segments is read.
    """
    import numpy as np

    if counts.size * counts.size * int(geo.count.max(initial=1)) >= 1 << 62:
        raise InvalidInputError("texts: too many texts or words to number in 64 bits; deduplicate fewer at a time")
    loops = kernels()
    if loops is not None:
        found = join_slices(loops, index, windows, geo, counts, earlier_only, limit)
        if found is None:
            return None
        return _distinct(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    layout, probes, total = index.layout, [], 0
    for w in windows.slices:
        hit = index.bitmap.hits(w.hashes)
        at = w.lo + hit if w.positions is None else w.positions[hit]
        if earlier_only:  # a block's own search: most of its hits are a text's own segments
            passing = windows.unskipped(w.length, at)
            hit, at = hit[passing], at[passing]
        s = windows.owners(w.length, at)
        keep = np.flatnonzero(s >= 0)
        part = w.hashes[hit[keep]] & ~layout.low
        s, at = s[keep], at[keep] - begin[s[keep]]
        reach = geo.reach[counts[s]]
        first, last = layout.band(part, at - reach, at + reach)
        left = index.search(first)
        # Most bands hold nothing (a false hit of the bitmap, or no segment within the shift
        # bound: the first key at or after the band's start is past its end), most others one
        # key (the next is past it): only the rest are searched for their end.
        end = index.keys.size - 1
        some = np.flatnonzero((left <= end) & (index.keys[np.minimum(left, end)] <= last))
        s, at, left, last = s[some], at[some], left[some], last[some]
        count = np.ones(left.size, dtype=np.int64)
        more = np.flatnonzero((left < end) & (index.keys[np.minimum(left + 1, end)] <= last))
        count[more] = index.search(last[more], "right") - left[more]
        total += int(count.sum())
        if limit is not None and total > limit:
            return None
        probes.append((w.length, s, at, left, count))
    found = [_matches(index, geo, counts, earlier_only, *p) for p in probes]
    return _distinct(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def _matches(
    index: SegmentIndex,
    geo: Geometry,
    counts: np.ndarray,
    earlier_only: bool,
    length: int,
    s: np.ndarray,
    at: np.ndarray,
    left: np.ndarray,
    count: np.ndarray,
) -> np.ndarray:
    """Return ``join``'s keys for probes (s, at) whose band of index segments starts at
    ``left`` and holds ``count`` of them; made about ``_MAX_MATCHES`` at a time."""
    import numpy as np

    made = np.cumsum(count)
    if made.size and int(made[-1]) > _MAX_MATCHES:
        cuts = np.searchsorted(made, np.arange(_MAX_MATCHES, int(made[-1]), _MAX_MATCHES), "right")
        pieces = [
            (lo, max(hi, lo + 1)) for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, s.size], strict=False) if lo < s.size
        ]
        return np.concatenate(
            [
                _distinct(
                    _matches(index, geo, counts, earlier_only, length, s[lo:hi], at[lo:hi], left[lo:hi], count[lo:hi])
                )
                for lo, hi in pieces
            ]
        )
    probe = np.repeat(np.arange(s.size), count)
    seg = np.arange(probe.size) + np.repeat(left - (made - count), count)
    found = index.keys[seg]
    r, sp, where = index.layout.owners(found), s[probe], at[probe]
    n_r, n_s = counts[r], counts[sp]
    start = index.layout.starts(found)
    moved = where - start
    ok = (np.abs(moved) + np.abs(n_s - n_r - moved) <= geo.tau[np.maximum(n_r, n_s)]) & (geo.seglen[n_r] == length)
    if earlier_only:
        ok &= r < sp
    ok = np.flatnonzero(ok)
    return (r[ok] * counts.size + sp[ok]) * int(geo.count.max(initial=1)) + start[ok] // length


def enough_matches(
    keys: np.ndarray, extra: np.ndarray, geo: Geometry, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return (later s, indexed r) of the pairs whose distinct matched segments (``join``'s
    keys), plus r's crowded segments left out of the index (``extra``), reach
    ``count(|r|) - tau``: every pair at the threshold, and few others."""
    import numpy as np

    if keys.size == 0:
        return keys, keys
    directed = keys // int(geo.count.max(initial=1))  # keys are distinct and sorted: pairs in runs
    starts = np.flatnonzero(np.concatenate(([True], directed[1:] != directed[:-1])))
    matched = np.diff(np.append(starts, directed.size))
    pairs = directed[starts]
    r, s = pairs // counts.size, pairs % counts.size
    n_r = counts[r]
    ok = matched + extra[r] >= geo.count[n_r] - geo.tau[np.maximum(n_r, counts[s])]
    return s[ok], r[ok]


def _sorted(keys: np.ndarray) -> np.ndarray:
    """Return 64-bit keys (none negative) sorted: in place by the C loops' radix sort (two to
    three times numpy's sort here; every caller hands it an array of its own), else ``np.sort``."""
    import numpy as np

    loops = kernels()
    if loops is None or keys.dtype not in (np.uint64, np.int64):
        return np.sort(keys)
    keys = np.array(keys, copy=True, order="C") if not (keys.flags.c_contiguous and keys.flags.writeable) else keys
    loops.sort_keys(keys)
    return keys


def _distinct(keys: np.ndarray) -> np.ndarray:
    """Return the distinct values of ``keys`` (none negative), sorted (a sort, faster here than
    np.unique's hash)."""
    import numpy as np

    keys = _sorted(keys)
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size > 1 else keys


def candidate_pairs(wh: WordHashes, threshold: float) -> np.ndarray:
    """Return the pairs the filter names with EVERY text indexed, as sorted keys ``a * n + b``
    (a < b): every pair at ``threshold`` is among them. The greedy pass looks up only kept
    texts (``kept_pass``); this is the filter on its own, whose guarantee the tests check."""
    import numpy as np

    counts = wh.counts
    geo = Geometry(int(counts.max(initial=0)), threshold)
    texts = np.flatnonzero(counts > 0)
    layout = KeyLayout(counts.size, int(counts.max(initial=0)))
    keys = sorted_segments(wh, geo, texts, layout)
    index = SegmentIndex(layout, counts.size, keys.size, geo.needed_min[counts])
    index.add(keys)
    found = join(index, block_windows(wh, geo, texts), geo, counts, wh.begin, earlier_only=True)
    later, earlier = enough_matches(found, index.extra, geo, counts)
    return np.sort(earlier * counts.size + later)
