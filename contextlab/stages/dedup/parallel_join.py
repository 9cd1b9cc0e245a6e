"""``segment_index.join`` in C: each slice of windows in calls of ``_kernels.join_slice``.

A slice of many windows is cut in parts run on every core (``cores.each``): the loop reads
the index and writes only its own keys, and lets go of the GIL, so the parts run side by side. The limit on
matches holds for the whole: each part counts against what the slices before it left, and
the parts together pass it exactly when the slice would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import cores

if TYPE_CHECKING:
    import numpy as np

__all__ = ["join_slices"]

# A long slice is joined in up to this many parts a thread (handed out in turn: a busy core
# takes fewer; one a thread under a limit, below), each of at least the second many windows.
_PARTS_A_THREAD = 4
_MIN_WINDOWS_A_PART = 1 << 14


def join_slices(
    loops, index, windows, geo, counts: np.ndarray, earlier_only: bool, limit: int | None
) -> list[np.ndarray] | None:
    """Return the keys ``segment_index.join`` makes, in unsorted parts, or None past ``limit``:
    each slice of ``windows`` in calls of ``_kernels.join_slice`` (the loop of ``join``'s numpy
    code, a window at a time), a long slice in parts run on every core."""
    import numpy as np

    layout, directory, found, total = index.layout, index._directory, [], 0
    skip = windows.skip if earlier_only else None
    base = int(windows.begins[0]) if windows.begins.size else 0
    most = int(geo.count.max(initial=1))

    def part(w, a: int, b: int, total_in: int, limit_in: int):
        return loops.join_slice(
            w.hashes[a:b],
            None if w.positions is None else w.positions[a:b],
            w.lo + a,
            w.length,
            index.bitmap.table,
            int(index.bitmap.shift),
            index.keys,
            None if directory is None else directory.begins,
            0 if directory is None else int(directory.shift),
            layout.owner_bits,
            layout.top,
            int(layout.low),
            windows.begins,
            windows.ends,
            windows.texts,
            windows.slides[w.length],
            counts,
            geo.reach,
            geo.tau,
            geo.seglen,
            most,
            earlier_only,
            skip,
            base,
            limit_in,
            total_in,
        )

    for w in windows.slices:
        n = w.hashes.size
        # With a limit, one part a thread: each part may make up to what is left of the limit
        # before the total is seen, so the matches made past it are at most that many times it.
        parts = cores.parts(n, _MIN_WINDOWS_A_PART, 1 if limit is not None else _PARTS_A_THREAD)
        if parts <= 1:
            keys, total = part(w, 0, n, total, -1 if limit is None else limit)
            if keys is None:
                return None
            found.append(np.frombuffer(keys, dtype=np.int64))
            continue
        # Each part counts from 0 against what is left of the limit; together they pass it
        # exactly when the whole slice would.
        left = -1 if limit is None else limit - total
        cuts = [n * k // parts for k in range(parts + 1)]
        answers = cores.each(parts, lambda k: part(w, cuts[k], cuts[k + 1], 0, left))  # run here, on this slice
        total += sum(t for _, t in answers)
        if any(keys is None for keys, _ in answers) or (limit is not None and total > limit):
            return None
        found.extend(np.frombuffer(keys, dtype=np.int64) for keys, _ in answers)
    return found
