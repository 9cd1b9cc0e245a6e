"""Dask (``distributed``): a local cluster of worker processes, or an existing scheduler.

Imported only when a run asks for workers or a scheduler, so ``import contextlab`` never
imports dask. Each worker builds the bundled set's index once per process.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import ClusterError, InvalidInputError
from ..progress import Progress
from ..validation import message_value
from .chunks import CONNECT_TIMEOUT_S, default_chunk_size, evaluate_chunk
from .grid import Configuration
from .options import RunOptions
from .rows import EvalRow
from .sets import EvalSet

__all__ = ["dask_chunks", "dask_client"]


@contextlib.contextmanager
def dask_client(
    workers: int | None = None, scheduler: str | None = None, timeout_s: float | None = None
) -> Iterator[Any]:
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
            client.close(timeout=timeout)
        return
    # Worker processes (not threads): the engine is pure Python and holds the GIL.
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    )
    client = Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _unreachable(scheduler: str, timeout: float, exc: BaseException) -> InvalidInputError:
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return InvalidInputError(
        f"cannot reach the Dask scheduler {message_value(scheduler)} within {timeout:g} s ({reason}); "
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
            f"scheduler {message_value(scheduler)} is not a Dask scheduler address ({exc}); "
            "give the address `dask scheduler` prints, e.g. tcp://host:8786",
            field="scheduler",
        ) from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise _unreachable(scheduler, timeout, exc) from None


def dask_chunks(
    evalset: EvalSet, configs: Sequence[Configuration], options: RunOptions, *, progress: Progress | None = None
) -> Iterator[list[EvalRow]]:
    """Yield the rows chunk by chunk from Dask, in question order (a finished chunk waits its turn).

    Each chunk is ``evaluate_chunk`` of ``options.chunk_size`` questions on ``options.workers``
    local processes or at ``options.scheduler``. A cluster that goes away mid-run (the
    scheduler, or the last worker for ``NO_WORKERS_S``) ends the run with one ``ClusterError``
    line, instead of a hang or a traceback.
    """
    questions = evalset.questions
    total = len(questions)
    scheduler = options.scheduler
    with _quiet_distributed(), dask_client(options.workers, scheduler) as client:
        n_workers = options.workers or max(1, sum(client.nthreads().values()))
        size = options.chunk_size or default_chunk_size(total, n_workers)
        starts = list(range(0, total, size))
        configs = list(configs)
        futures = {
            client.submit(evaluate_chunk, questions[s : s + size], evalset.retriever, configs, options, pure=False): k
            for k, s in enumerate(starts)
        }
        waiting: dict[int, list[EvalRow]] = {}
        next_chunk = done = 0
        watch = _Watch(client, scheduler)
        for future in _finished(list(futures), watch):
            k = futures.pop(future)
            waiting[k] = _result(future, watch)
            future.release()
            done += min(size, total - starts[k])
            if progress is not None:
                progress(done, total)
            while next_chunk in waiting:
                yield waiting.pop(next_chunk)
                next_chunk += 1


#: How long a run waits with no worker in the cluster before it gives up.
NO_WORKERS_S = 20.0
# How often the wait for finished chunks looks for them, and at the cluster.
_POLL_S = 0.2
# How long one step of fetching a finished chunk's rows waits before it looks at the cluster.
_FETCH_STEP_S = 2.0


class _Watch:
    """The clock of a cluster without workers: ``check()`` raises once it has had none for ``NO_WORKERS_S``."""

    def __init__(self, client: Any, scheduler: str | None) -> None:
        self.client = client
        self.where = f"the Dask scheduler {message_value(scheduler)}" if scheduler else "the local Dask cluster"
        self.alone_since: float | None = None

    def check(self) -> None:
        # A synchronous client's scheduler_info() asks the scheduler, so a dead worker is seen at once.
        if self.client.scheduler_info().get("workers"):
            self.alone_since = None
        elif self.alone_since is None:
            self.alone_since = time.monotonic()
        elif time.monotonic() - self.alone_since > NO_WORKERS_S:
            raise ClusterError(
                f"{self.where} has had no workers for {NO_WORKERS_S:g} s (the last one stopped), so the "
                "run stopped and wrote nothing; start workers for it and run again"
            )


def _finished(pending: list[Any], watch: _Watch) -> Iterator[Any]:
    """Yield each future as it finishes; raise ``ClusterError`` when the cluster has no workers left."""
    from distributed import as_completed

    finished = as_completed(pending, loop=watch.client.loop)
    while not finished.is_empty():
        batch = finished.next_batch(block=False)
        if batch:
            watch.alone_since = None
            yield from batch
            continue
        time.sleep(_POLL_S)
        watch.check()


def _result(future: Any, watch: _Watch) -> Any:
    """Return a finished chunk's rows; a chunk lost with the cluster is one ``ClusterError``.

    A finished chunk's rows live on the worker that ran it until they are fetched: if that worker
    dies first, the scheduler runs the chunk again, and with no worker left it would wait for
    ever. So the fetch waits in short steps and keeps the no-worker clock.
    """
    from distributed import CancelledError, KilledWorker
    from distributed.comm.core import CommClosedError

    while True:
        try:
            return future.result(timeout=_FETCH_STEP_S)
        except KilledWorker as exc:
            raise ClusterError(
                f"a Dask worker died while running a chunk of questions, each time it was "
                f"tried ({_first_line(exc)}); the run stopped and wrote nothing"
            ) from None
        except TimeoutError:  # not fetched yet: a slow transfer, or being run again
            watch.check()
        except (CancelledError, CommClosedError, OSError) as exc:
            raise _lost(watch, exc) from None


def _lost(watch: _Watch, exc: BaseException) -> ClusterError:
    return ClusterError(
        f"lost {watch.where} mid-run ({_first_line(exc)}); the run stopped and wrote "
        "nothing: check that the scheduler is running and run again"
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


@contextlib.contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Keep distributed's own reconnect tracebacks off stderr while a run uses it (restored after).

    When a scheduler dies, the client logs several tracebacks as it gives up; the run reports
    the loss itself, in one line.
    """
    try:
        import distributed  # noqa: F401 - its import configures the loggers set here
    except ImportError:
        pass  # dask_client says what to install
    else:
        _drop_orphaned_gathers()
    # distributed's logging config gives its loggers their own levels: each is set, then restored.
    names = ["distributed"] + [n for n in logging.Logger.manager.loggerDict if n.startswith("distributed.")]
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=False):
            lg.setLevel(level)


class _OrphanedGather(logging.Filter):
    """Drop asyncio's "Task exception was never retrieved" for distributed's ``AllExit``.

    A fetch that times out (``_result`` waits in steps) leaves the client's inner wait task
    behind; when its chunk is lost with the cluster that task ends in ``AllExit``, distributed's
    private signal to stop waiting, and asyncio logs it whenever the task is collected, which can
    be after the run has said what happened. Nothing else asyncio logs is touched.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        from distributed.client import AllExit

        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, AllExit)


def _drop_orphaned_gathers() -> None:
    """Install ``_OrphanedGather`` on asyncio's logger, once: it must outlive the run (see its text)."""
    log = logging.getLogger("asyncio")
    if not any(isinstance(f, _OrphanedGather) for f in log.filters):
        log.addFilter(_OrphanedGather())
