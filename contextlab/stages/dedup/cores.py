"""The threads dedup's C loops run on: one per core this process may run on, at most four.

The loops of ``_kernels.c`` let go of the GIL, so a call's work split in parts runs on as many
cores. The pool is made on first use and again in a forked child (a pool's threads do not
survive a fork); a single core never makes one. Nothing submitted to it waits on it, so callers
in several threads (the lab's sessions) only queue.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["THREADS", "pool"]

#: Threads a call's parts run on, the calling thread included (tests set it to 1 or more).
THREADS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0
_pool_size = 0


def pool() -> ThreadPoolExecutor:
    """Return the pool of ``THREADS - 1`` threads (at least one) beside the calling thread."""
    global _pool, _pool_pid, _pool_size
    size = max(1, THREADS - 1)
    with _lock:
        if _pool is None or _pool_pid != os.getpid() or _pool_size != size:
            _pool = ThreadPoolExecutor(size, thread_name_prefix="contextlab-dedup")
            _pool_pid, _pool_size = os.getpid(), size
        return _pool
