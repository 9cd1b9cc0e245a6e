"""Candidate pairs for word edit similarity that provably include every pair at the threshold,
looked up among the texts already kept.

The default measure (``edit_measure.py``) is ``1 - lev(r, s) / max(|r|, |s|)`` over word
sequences, so a pair at threshold ``t`` is at most ``tau = floor((1 - t) * max(|r|, |s|))``
word edits apart, and the two lengths differ by at most ``tau`` (the length filter). The
pigeonhole (partition) filter of PassJoin (Li et al., "PASS-JOIN: a partition-based method for
similarity joins", VLDB 2012) finds such pairs without comparing every two texts: cut ``r`` into
``k > tau`` disjoint segments. An edit (a word replaced or deleted, or one inserted between two
words) touches at most one segment, so at least ``k - tau`` segments come through unchanged,
each appearing word for word in ``s`` starting ``shift`` words from where it starts in ``r``,
with ``|shift| + |Δ - shift| <= tau`` (``Δ = |s| - |r|``: the edits before the segment move it
by ``shift``, those after it make up the rest of the length difference).

Here ``r`` is always the EARLIER text of a pair and the one already kept: the greedy pass
(``kept_pass.py``) needs only pairs of a new text and a kept one. So each text is cut for the
longest partner it can have: a text of ``n`` words pairs with texts of at most ``longest(n)``
words (the largest ``m`` with ``m - tau(m) <= n``, and no longer than the longest text), so no
pair of it allows more than ``reach(n) = tau(longest(n))`` edits, and it is cut into
``count(n) >= reach(n) + 1`` segments of ``seglen(n)`` words (the words left over at its end are
in none: the pigeonhole needs the segments disjoint, not covering). A later text ``s`` slides a
window of each length its partners' segments can have over its words and looks each window up
among the kept texts' segments (``segment_index.py``): a kept ``r`` is a candidate when at
least ``count(|r|) - tau`` of its segments match within the shift bound.

Provably no pair is lost, whatever else the code does to save work:

- a segment hash shared by very many indexed segments (boilerplate, a template's fixed words)
  is left out for texts that could not pass on such segments alone, and each such text's
  count is credited with all of them (``segment_index.py``): an upper bound, so a pair that
  reaches the threshold still passes, found through a segment that is not crowded;
- words are compared as 64-bit hashes (``word_runs.py``): equal words give equal hashes, so a
  collision can only add a candidate. Candidates are verified exactly (``verify.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .word_runs import WordHashes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Geometry", "segments_of", "Windows", "BlockWindows", "block_windows"]

# Windows are hashed about this many at a time.
_WINDOW_SLICE = 1 << 18
_EPS = 1e-9


def _window_range(seglen: np.ndarray, first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the least and greatest ``seglen[m]`` for ``first[n] <= m <= last[n]``, each n."""
    import numpy as np

    low, high = np.zeros_like(first), np.zeros_like(first)
    if first.size > 1:  # n = 0 (no words) probes nothing
        padded = np.append(seglen, 0)  # reduceat reads up to last + 1
        bounds = np.stack((first[1:], last[1:] + 1), axis=1).ravel()
        low[1:] = np.minimum.reduceat(padded, bounds)[::2]
        high[1:] = np.maximum.reduceat(padded, bounds)[::2]
    return low, high


class Geometry:
    """How a text of each length is cut into segments, and which window lengths it slides."""

    def __init__(self, longest_text: int, threshold: float) -> None:
        import numpy as np

        top = int(np.floor(longest_text / threshold + _EPS)) + 2
        m = np.arange(top + 1, dtype=np.int64)
        #: tau[m]: the most edits a pair whose longer text has m words may be apart.
        self.tau = np.floor((1.0 - threshold) * m + _EPS).astype(np.int64)
        n = m[: longest_text + 1]
        # m - tau[m] never decreases (tau grows by at most one a word), so one search finds
        # the longest partner of every length (no text is longer than the longest one).
        longest = np.minimum(np.searchsorted(m - self.tau, n, "right") - 1, longest_text)
        self.reach = self.tau[longest]
        base = self.reach + 1
        if np.any(base[1:] > n[1:]):  # only at a threshold of 0.5 or below (the pass starts at 0.75)
            raise ValueError(f"the word filter needs a threshold above 0.5, not {threshold}")
        # One segment length for most texts, so that a text slides windows of one length: the
        # longest whose segments still number more than a long text's reach (for 0.85, 5: a
        # long text of n words may be 0.176 n edits from its longest partner, so n / 5
        # segments suffice); a shorter text, where that is too few, the longest that is not.
        canonical = max(1, math.ceil(threshold / (1.0 - threshold) - _EPS) - 1) if threshold < 1.0 else 1
        self.canonical = canonical
        self.seglen = np.minimum(canonical, n // np.maximum(base, 1))
        self.seglen[0] = 1
        self.count = n // self.seglen
        #: The fewest segments any pair of a text of n words must match.
        self.needed_min = self.count - self.reach
        # A text's partners have shortest = n - tau[n] to longest words; it slides a window
        # of every segment length theirs have (only lengths that fit in it).
        low, high = _window_range(self.seglen, n - self.tau[: n.size], longest)
        self.low, self.high = low, np.minimum(high, n)


def segments_of(
    wh: WordHashes, geo: Geometry, texts: np.ndarray, windows: BlockWindows | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (text, start in text, hash) of every segment of ``texts``; a segment is a window
    of its text's own length, so where ``windows`` read those off slices its hash is read there."""
    import numpy as np

    n = wh.counts[texts]
    k, length = geo.count[n], geo.seglen[n]
    owner = np.repeat(texts, k)
    step = np.repeat(length, k)
    start = (np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)) * step
    where = wh.begin[owner] + start
    if windows is None or not windows.spans:
        return owner, start, wh.runs(where, step)
    hashes = np.empty(where.size, dtype=np.uint64)
    read = np.zeros(where.size, dtype=bool)
    for size, (lo, span) in windows.spans.items():
        these = np.flatnonzero(step == size)
        hashes[these] = span[where[these] - lo]
        read[these] = True
    rest = np.flatnonzero(~read)
    hashes[rest] = wh.runs(where[rest], step[rest])
    return owner, start, hashes


@dataclass
class Windows:
    """Windows of one length over global word positions ``lo`` onwards (``positions``: at
    those positions instead), with their hashes."""

    length: int
    lo: int
    positions: np.ndarray | None
    hashes: np.ndarray


@dataclass
class BlockWindows:
    """The windows a block's texts slide. A window at a word position belongs to the last text
    starting at or before it, if that text slides windows of its length and the window ends
    inside it (``owners``); ``skip`` marks windows some searches pass over: the length of the
    window at each position from the first text's first word that they pass over (0: none)."""

    texts: np.ndarray  # sorted
    begins: np.ndarray
    ends: np.ndarray
    slides: dict[int, np.ndarray]  # length -> per text, whether it slides windows that long
    slices: list[Windows]
    skip: np.ndarray | None = None
    #: length -> (first position, the hashes of the windows from there on) where read off slices
    spans: dict[int, tuple[int, np.ndarray]] = field(default_factory=dict)

    def count(self) -> int:
        """Return how many windows there are."""
        return sum(w.hashes.size for w in self.slices)

    def owners(self, length: int, positions: np.ndarray) -> np.ndarray:
        """Return the text sliding the window of ``length`` at each position, or -1."""
        import numpy as np

        at = np.maximum(np.searchsorted(self.begins, positions, "right") - 1, 0)
        ok = self.slides[length][at] & (positions + length <= self.ends[at]) & (positions >= self.begins[at])
        return np.where(ok, self.texts[at], -1)

    def unskipped(self, length: int, positions: np.ndarray) -> np.ndarray:
        """Return which windows of ``length`` at ``positions`` ``skip`` does not pass over."""
        import numpy as np

        if self.skip is None:
            return np.ones(positions.size, dtype=bool)
        # A position no text of the block holds has no owner anyway: clip it to read anything.
        return self.skip[np.clip(positions - self.begins[0], 0, self.skip.size - 1)] != length


def block_windows(wh: WordHashes, geo: Geometry, texts: np.ndarray) -> BlockWindows:
    """Return the windows ``texts`` (sorted) slide, in slices of about ``_WINDOW_SLICE``: read
    off slices of the words where the windows of a length are most of the span, gathered
    where they are not."""
    import numpy as np

    n = wh.counts[texts]
    low, high = geo.low[n], geo.high[n]
    out = BlockWindows(texts, wh.begin[texts], wh.begin[texts] + n, {}, [])
    if texts.size == 0:
        return out
    lo, hi = int(out.begins[0]), int(out.ends[-1])
    for length in range(int(low.min()), int(high.max()) + 1):
        slides = (low <= length) & (high >= length) & (n >= length)
        wanted = texts[slides]
        if wanted.size == 0:
            continue
        out.slides[length] = slides
        count = wh.counts[wanted] - length + 1
        if 2 * int(count.sum()) >= hi - lo:  # most of the span: read it off slices of one array
            span = wh.window_hashes(lo, hi - length + 1, length)
            out.spans[length] = (lo, span)
            for a in range(lo, hi - length + 1, _WINDOW_SLICE):
                b = min(a + _WINDOW_SLICE, hi - length + 1)
                out.slices.append(Windows(length, a, None, span[a - lo : b - lo]))
            continue
        starts = np.repeat(wh.begin[wanted] - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))
        for a in range(0, starts.size, _WINDOW_SLICE):
            at = starts[a : a + _WINDOW_SLICE]
            out.slices.append(Windows(length, 0, at, wh.runs(at, np.full(at.size, length))))
    return out
