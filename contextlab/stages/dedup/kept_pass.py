"""The greedy pass of the default measure, with candidates looked up among kept texts only.

The definition walks the texts in order: a text whose normalised words equal a kept text's is
an exact duplicate of it; otherwise, when its similarity with ANY kept text reaches the
threshold, it is a near duplicate of the most similar (the earliest on a tie); otherwise it is
kept. Only pairs of a new text and a kept one are ever needed, so that is all this looks at.

Texts go in blocks, in order (at least ``_BLOCK_WORDS`` words, growing with the index: see
``kept_pass``). For each block:

1. Its texts slide windows over their words and look them up among the segments of the texts
   kept before the block (``segment_filter``: every kept text a text can reach the threshold
   with is a candidate); those candidates are verified. A text with a verified match is a
   duplicate whatever else happens (that kept text stays kept), so it will never be kept and
   its segments are never needed.
2. The block's other texts (the "survivors", first of their exact group) are indexed on their
   own and the block's windows look them up too, for the pairs within the block (the earlier
   text's segments, the later one's windows). When that would make more than
   ``_BUDGET_PER_WINDOW`` matches a window (many near copies of a text nothing before them
   matched: a template's records), the block is split in two and each half done in turn, so the
   second half finds the copies of the first half's kept texts in step 1 instead.
3. The block's texts are decided in order: a pair found in step 2 is verified when its later
   text comes up, and only if its earlier text is kept by then.
4. The segments of the texts it kept join the index.

Between them, steps 1 and 2 offer each text every kept text before it that it could reach the
threshold with, so the answer is the definition's. And the work is bounded by what is kept:
only pairs of a text and a kept text are ever verified, and a text's windows meet the segments
of kept texts (and of its block's survivors); a corpus of copies of one text keeps one text,
so it costs O(n).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...types import DuplicatePair
from .outcome import DedupOutcome
from .segment_filter import BlockWindows, Geometry, block_windows
from .segment_index import (
    KeyLayout,
    SegmentIndex,
    enough_matches,
    join,
    sorted_segments,
)
from .verify import Verifier
from .word_runs import WordHashes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["kept_pass"]

# Texts go through the pass in blocks of at least this many words, at most the second (a
# block's arrays stay small).
_BLOCK_WORDS = 1 << 18
_MAX_BLOCK_WORDS = 1 << 22
# Matches a window may make within a block before the block is split (plus a floor)...
_BUDGET_PER_WINDOW = 4
_BUDGET_FLOOR = 1 << 16
# ...unless it has no more texts than this: then at most this squared.
_MIN_SPLIT = 32


class _Pass:
    """The pass's state: the index of kept texts' segments, who is kept, the pairs so far."""

    def __init__(self, wh: WordHashes, group: np.ndarray, threshold: float, outcome: DedupOutcome) -> None:
        import numpy as np

        self.wh, self.threshold, self.outcome = wh, threshold, outcome
        self.verifier = Verifier(wh, threshold)
        self.counts = wh.counts
        self.group = group
        self._group = group.tolist()
        n = self.counts.size
        self.geo = Geometry(int(self.counts.max(initial=0)), threshold)
        self.layout = KeyLayout(n, int(self.counts.max(initial=0)))
        self.needed_min = self.geo.needed_min[self.counts]
        self.near = threshold < 1.0  # at 1.0 only equal words (an exact group) reach it
        firsts = (group == np.arange(n)) & (self.counts > 0)
        capacity = int(self.geo.count[self.counts[firsts]].sum()) if self.near else 0
        self.index = SegmentIndex(self.layout, n, capacity, self.needed_min)
        self._kept = bytearray(n)
        self.kept = np.frombuffer(self._kept, dtype=np.bool_)  # a view: both change together

    def block(self, lo: int, hi: int) -> None:
        """Decide texts ``lo`` to ``hi - 1`` (all before them decided) and index the kept ones."""
        import numpy as np

        docs = np.arange(lo, hi)
        g = self.group[lo:hi]
        settled = (g != docs) & self.kept[g]  # copies of a text kept before the block
        probers = docs[~settled & (self.counts[lo:hi] > 0)] if self.near else docs[:0]
        windows = block_windows(self.wh, self.geo, probers)
        s1, r1 = self._candidates(self.index, windows, earlier_only=False)
        sim1 = self.verifier.similarities(s1, r1)
        good = sim1 >= self.threshold
        s1, r1, sim1 = s1[good], r1[good], sim1[good]
        dropped = np.zeros(hi - lo, dtype=bool)
        dropped[s1 - lo] = True
        local = probers - lo
        survivors = probers[(g[local] == probers) & ~dropped[local]]
        keys = sorted_segments(self.wh, self.geo, survivors, self.layout, windows)
        s2 = r2 = s1[:0]
        if survivors.size and probers.size > 1:
            internal = SegmentIndex(self.layout, self.counts.size, keys.size, self.needed_min)
            internal.add(keys)
            self._skip_own_windows(windows, keys)
            limit = None
            if hi - lo > _MIN_SPLIT:
                limit = _BUDGET_PER_WINDOW * windows.count() + _BUDGET_FLOOR
            found = self._candidates(internal, windows, earlier_only=True, limit=limit)
            if found is None:
                mid = lo + (hi - lo) // 2
                self.block(lo, mid)
                self.block(mid, hi)
                return
            s2, r2 = found
        self._decide(lo, hi, (s1, r1, sim1), (s2, r2))
        self.verifier.forget(self._kept, hi)
        self.index.add(keys[self.kept[self.layout.owners(keys)]])

    def _skip_own_windows(self, windows: BlockWindows, keys: np.ndarray) -> None:
        """Have the block's own search pass over each window that is a survivor's own segment
        whose hash no other survivor segment has: it can match only itself."""
        import numpy as np

        part = keys & ~self.layout.low
        alone = np.ones(part.size, dtype=bool)
        alone[1:] &= part[1:] != part[:-1]
        alone[:-1] &= part[:-1] != part[1:]
        r = self.layout.owners(keys[alone])
        length = self.geo.seglen[self.counts[r]]
        where = self.wh.begin[r] + self.layout.starts(keys[alone]) - windows.begins[0]
        # A position starts at most one segment (of the one text holding it): one mark each.
        span = int(windows.ends[-1] - windows.begins[0])
        windows.skip = np.zeros(span, dtype=np.min_scalar_type(int(length.max(initial=0))))
        windows.skip[where] = length

    def _candidates(
        self, index: SegmentIndex, windows: BlockWindows, earlier_only: bool, limit: int | None = None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Return (s, r) of the candidate pairs found in ``index``, or None when the join
        would pass ``limit`` matches."""
        keys = join(index, windows, self.geo, self.counts, self.wh.begin, earlier_only, limit)
        return None if keys is None else enough_matches(keys, index.extra, self.geo, self.counts)

    def _decide(self, lo: int, hi: int, verified, within) -> None:
        """Walk texts ``lo`` to ``hi - 1`` in order: ``verified`` (s, r, similarity) pairs with a
        kept r at or above the threshold, and ``within`` (s, r) candidate pairs inside the block,
        each measured when its s comes up, if its r is kept by then.

        A text with no pair inside the block whose exact group starts before the block (or at
        it) is decided by what is known already, all such texts at once; the others, whose
        answer hangs on the block's texts before them, one at a time in order."""
        import numpy as np

        n = hi - lo
        s, r, sim = verified
        order = np.lexsort((r, -sim, s))  # by text, most similar first, the earliest on a tie
        s, r, sim = s[order], r[order], sim[order]
        lead = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1]))) if s.size else s[:0]
        best, best_sim = np.full(n, -1, dtype=np.int64), np.full(n, self.threshold)
        best[s[lead] - lo], best_sim[s[lead] - lo] = r[lead], sim[lead]
        ws, wr = within
        if ws.size:
            self.verifier.prepare(np.concatenate((ws, wr)))
        order = np.lexsort((wr, ws))
        ws, wr = ws[order], wr[order]
        docs, group = np.arange(lo, hi), self.group[lo:hi]
        waits = (group != docs) & (group >= lo)  # an exact copy of a text of the block
        waits[ws - lo] = True
        known = ~waits
        exact = known & (group != docs) & self.kept[group]
        near = known & ~exact & (best >= 0)
        self.kept[docs[known & ~exact & ~near]] = True
        kept, threshold = self._kept, self.threshold
        wstarts = np.searchsorted(ws, np.arange(lo, hi + 1)).tolist()
        wpartners = wr.tolist()
        for i in (np.flatnonzero(waits) + lo).tolist():
            g = self._group[i]
            if g != i and kept[g]:
                exact[i - lo] = True
                continue
            b, b_sim = int(best[i - lo]), float(best_sim[i - lo])
            for k in wpartners[wstarts[i - lo] : wstarts[i - lo + 1]]:
                if kept[k]:
                    measured = self.verifier.similarity(i, k)
                    better = b < 0 or measured > b_sim or (measured == b_sim and k < b)
                    if measured >= threshold and better:
                        b, b_sim = k, measured
            if b >= 0:
                near[i - lo], best[i - lo], best_sim[i - lo] = True, b, b_sim
            else:
                kept[i] = 1  # a text whose exact group's first is not kept always matches above
        dropped = np.flatnonzero(exact | near)
        self.outcome.pairs.extend(
            DuplicatePair(g, i, 1.0, "exact") if e else DuplicatePair(b, i, m, "near")
            for i, g, e, b, m in zip(
                (dropped + lo).tolist(),
                group[dropped].tolist(),
                exact[dropped].tolist(),
                best[dropped].tolist(),
                best_sim[dropped].tolist(),
                strict=False,
            )
        )
        self.outcome.kept.extend((np.flatnonzero(self.kept[lo:hi]) + lo).tolist())


def kept_pass(wh: WordHashes, group: np.ndarray, threshold: float, outcome: DedupOutcome) -> None:
    """Fill ``outcome`` with the greedy pass over texts whose word hashes are ``wh`` and whose
    exact groups are ``group`` (each text's first text with the same words).

    A block has at least ``_BLOCK_WORDS`` words, and as many as a quarter of the words whose
    segments are indexed so far (up to ``_MAX_BLOCK_WORDS``): each block merges its kept
    segments into the index (a pass over it), so while blocks grow with the index the merges
    together cost a few passes over it, not one a block of a fixed size.
    """
    import numpy as np

    state = _Pass(wh, group, threshold, outcome)
    ends = np.cumsum(wh.counts)
    lo = 0
    while lo < wh.counts.size:
        words = min(max(_BLOCK_WORDS, state.index.keys.size // 4 * int(state.geo.canonical)), _MAX_BLOCK_WORDS)
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + words, "right")))
        state.block(lo, min(hi, wh.counts.size))
        lo = min(hi, wh.counts.size)
