"""The threads dedup's C loops run on: one per core this process may run on, at most four.

The loops of ``_kernels.c`` let go of the GIL, so a call's work cut in parts runs on as many
cores (``each``). The parts are handed out one at a time, in order, to the calling thread and
the pool's threads, each taking the next when it is done: on a machine whose other core is
busy the calling thread simply takes more of them, where halves fixed in advance would wait
for the slower. The pool is made on first use and again in a forked child (a pool's threads do
not survive a fork); a single core never makes one. A part never waits on the pool, so callers
in several threads (the lab's sessions) only queue.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["THREADS", "each", "parts", "pool"]

T = TypeVar("T")

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


def parts(items: int, smallest: int, a_thread: int) -> int:
    """Return how many parts to cut ``items`` in: up to ``a_thread`` parts a thread, each of at
    least ``smallest`` items (one on a single core)."""
    return 1 if THREADS == 1 else max(1, min(a_thread * THREADS, items // smallest))


def each(count: int, task: Callable[[int], T]) -> list[T]:
    """Return ``[task(k) for k in range(count)]``, the parts run on the calling thread and the
    pool's, each thread taking the next part in order when it is done with one.

    The first error stops the handing out; it is raised once every part begun has ended (no
    thread is left writing).
    """
    if count <= 1 or THREADS <= 1:
        return [task(k) for k in range(count)]
    results: list = [None] * count
    errors: list[BaseException] = []
    handing = threading.Lock()
    state = [0]  # the next part to hand out

    def work() -> None:
        while True:
            with handing:
                k = state[0]
                if k >= count or errors:
                    return
                state[0] = k + 1
            try:
                results[k] = task(k)
            except BaseException as exc:  # noqa: BLE001 - raised in the calling thread below
                with handing:
                    errors.append(exc)
                return

    helpers = [pool().submit(work) for _ in range(min(THREADS, count) - 1)]
    try:
        work()
    finally:
        for helper in helpers:
            if not helper.cancel():  # begun: wait for its part to end
                helper.result()
    if errors:
        raise errors[0]
    return results
