"""Small memory pages for the filtered pass's arrays: a context that asks numpy not to back
its large arrays with transparent huge pages while it runs.

numpy advises the kernel (``madvise(MADV_HUGEPAGE)``) to back every array of 4 MB or more
with 2 MB pages. The filtered pass makes many short-lived arrays of tens of megabytes (a
block's windows, the segment index's merge buffer, the word hashes themselves), so each one's
first touch is a run of page faults; when the kernel must find (or compact) free 2 MB pages
for them, those faults cost several times what 4 KB ones do. Measured on the 2-core virtual
machine this project is benchmarked on (``find_duplicates`` on ``bench_dedup.py``'s corpora,
load 1.2 to 2.1): the pass spent 5.3 s of kernel time faulting pages on the mixed-length corpus
(46 M words) with huge pages and 1.7 s without, and 0.9 s against 0.4 s on corpus A (9 M
words), its user time unchanged.
The pass reads its arrays front to back or through sorted probes, where huge pages save few
TLB misses. The setting is numpy's own switch (the one its ``NUMPY_MADVISE_HUGEPAGE``
environment variable sets at import), put back on leaving; it changes where memory comes
from, never what is computed. The switch is the process's: a pass in another thread may find it
off, or turned back on early, which changes only the size of the pages it gets.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["small_pages"]


def _switch():
    """Return numpy's huge page switch (``enabled -> previous``), or None where it has none."""
    import numpy as np

    for room in ("_core", "core"):  # numpy 2, numpy 1
        multiarray = getattr(getattr(np, room, None), "multiarray", None)
        switch = getattr(multiarray, "_set_madvise_hugepage", None)
        if switch is not None:
            return switch
    return None


@contextmanager
def small_pages() -> Iterator[None]:
    """Yield with numpy's huge page advice off, restoring what it was on exit."""
    switch = _switch()
    if switch is None:
        yield
        return
    previous = switch(False)
    try:
        yield
    finally:
        switch(previous)
