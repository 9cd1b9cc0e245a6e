"""Dask (``distributed``): a local cluster of worker processes, or an existing scheduler.

Imported only when a run asks for workers or a scheduler, so ``import contextlab`` never
imports dask. Each worker builds the bundled set's index once per process.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import InvalidInputError
from .grid import Configuration
from .sets import EvalSet

__all__ = ["run_on_dask", "dask_client"]


@contextlib.contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None,
                timeout_s: float | None = None) -> Iterator[Any]:
    """Yield a Dask client: on a new local cluster of ``workers`` processes, or on ``scheduler``.

    The local cluster (and the client) are closed on exit; an existing cluster is left running.
    """
    from .run import CONNECT_TIMEOUT_S

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InvalidInputError(
            "running on Dask needs the distributed package: pip install 'contextlab[dask]'"
        ) from None
    timeout = CONNECT_TIMEOUT_S if timeout_s is None else timeout_s
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=f"{timeout}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InvalidInputError(
                f"cannot reach the Dask scheduler {scheduler!r} within {timeout:g} s ({reason}); "
                "give the address `dask scheduler` prints, e.g. tcp://host:8786"
            ) from None
        try:
            yield client
        finally:
            client.close()
        return
    # Worker processes (not threads): the engine is pure Python and holds the GIL.
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    client = Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def run_on_dask(evalset: EvalSet, configs: Sequence[Configuration], top_k: int, model: str, *,
                workers: int | None, scheduler: str | None, chunk_size: int | None,
                progress: Any = None) -> list[dict[str, Any]]:
    """Return the rows of the run, computed chunk by chunk on Dask, in the serial order."""
    from distributed import as_completed

    from .run import default_chunk_size, evaluate_chunk

    questions = evalset.questions
    total = len(questions)
    with dask_client(workers, scheduler) as client:
        n_workers = workers or max(1, sum(client.nthreads().values()))
        size = chunk_size or default_chunk_size(total, n_workers)
        starts = list(range(0, total, size))
        configs = list(configs)
        futures = {
            client.submit(evaluate_chunk, questions[s:s + size], evalset.retriever, configs, top_k, model,
                          pure=False): k
            for k, s in enumerate(starts)
        }
        results: list[list[dict[str, Any]] | None] = [None] * len(starts)
        done = 0
        for future in as_completed(futures, loop=client.loop):
            k = futures[future]
            results[k] = future.result()
            done += min(size, total - starts[k])
            if progress is not None:
                progress(done, total)
    return [row for chunk in results for row in (chunk or [])]
