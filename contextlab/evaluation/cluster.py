"""Dask (``distributed``): a local cluster of worker processes, or an existing scheduler.

Imported only when a run asks for workers or a scheduler, so ``import contextlab`` never
imports dask. Each worker builds the bundled set's index once per process.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import InvalidInputError
from .chunks import CONNECT_TIMEOUT_S, default_chunk_size, evaluate_chunk
from .grid import Configuration
from .sets import EvalSet

__all__ = ["dask_chunks", "dask_client"]


@contextlib.contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None,
                timeout_s: float | None = None) -> Iterator[Any]:
    """Yield a Dask client: on a new local cluster of ``workers`` processes, or on ``scheduler``.

    The local cluster (and the client) are closed on exit; an existing cluster is left running.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InvalidInputError(
            "running on Dask needs the distributed package: pip install 'contextlab[dask]'"
        ) from None
    timeout = CONNECT_TIMEOUT_S if timeout_s is None else timeout_s
    if scheduler is not None:
        # Check the address and that something listens there before making a Client: a
        # Client that fails half-built spends 10 s closing itself in its finaliser.
        _check_scheduler_address(scheduler, timeout)
        try:
            client = Client(scheduler, timeout=f"{timeout}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise _unreachable(scheduler, timeout, exc) from None
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


def _unreachable(scheduler: str, timeout: float, exc: BaseException) -> InvalidInputError:
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return InvalidInputError(
        f"cannot reach the Dask scheduler {scheduler!r} within {timeout:g} s ({reason}); "
        "give the address `dask scheduler` prints, e.g. tcp://host:8786"
    )


def _check_scheduler_address(scheduler: str, timeout: float) -> None:
    """Raise ``InvalidInputError`` unless ``scheduler`` is a tcp/tls address that accepts connections."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(scheduler)
        if scheme not in ("tcp", "tls"):
            raise ValueError(f"the scheme must be tcp:// or tls://, not {scheme}://")
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise InvalidInputError(
            f"--scheduler {scheduler!r} is not a Dask scheduler address ({exc}); "
            "give the address `dask scheduler` prints, e.g. tcp://host:8786"
        ) from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise _unreachable(scheduler, timeout, exc) from None


def dask_chunks(evalset: EvalSet, configs: Sequence[Configuration], top_k: int, model: str, *,
                workers: int | None, scheduler: str | None, chunk_size: int | None,
                progress: Any = None, blocks: bool = False) -> Iterator[list[dict[str, Any]]]:
    """Yield the rows chunk by chunk from Dask, in question order (a finished chunk waits its turn)."""
    from distributed import as_completed

    questions = evalset.questions
    total = len(questions)
    with dask_client(workers, scheduler) as client:
        n_workers = workers or max(1, sum(client.nthreads().values()))
        size = chunk_size or default_chunk_size(total, n_workers)
        starts = list(range(0, total, size))
        configs = list(configs)
        futures = {
            client.submit(evaluate_chunk, questions[s:s + size], evalset.retriever, configs, top_k, model,
                          blocks=blocks, pure=False): k
            for k, s in enumerate(starts)
        }
        waiting: dict[int, list[dict[str, Any]]] = {}
        next_chunk = done = 0
        for future in as_completed(futures, loop=client.loop):
            k = futures.pop(future)
            waiting[k] = future.result()
            future.release()
            done += min(size, total - starts[k])
            if progress is not None:
                progress(done, total)
            while next_chunk in waiting:
                yield waiting.pop(next_chunk)
                next_chunk += 1
