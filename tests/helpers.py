"""Helpers the test modules share (fixtures live in conftest.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from contextlab.evaluation.rows import EvalRow

#: The command line as a user runs it, in a fresh interpreter (its stdin closed: it never waits for a terminal).
CLI = [sys.executable, "-c", "import sys; from contextlab.cli import main; sys.exit(main())"]

__all__ = ["CLI", "kill_group", "listening", "run_cli", "wait_until"]


def wait_until(
    condition: Callable[[], bool],
    seconds: float = 30.0,
    *,
    what: str = "the condition",
    proc: subprocess.Popen | None = None,
    interval: float = 0.1,
) -> None:
    """Return once ``condition()`` holds; fail naming ``what`` if it still does not after ``seconds``.

    With ``proc``, fail at once (with its output) when that process exits first. Polls every
    ``interval`` seconds: what is awaited (a server, a port, a process group) happens elsewhere.
    """
    deadline = time.monotonic() + seconds
    while not condition():
        if proc is not None and proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            pytest.fail(f"the process exited with {proc.returncode} before {what}:\n{out}")
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {seconds:.0f} s waiting for {what}")
        time.sleep(interval)


def listening(port: int, host: str = "127.0.0.1") -> bool:
    """Return True when something accepts connections on ``host:port`` (within half a second)."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def kill_group(proc: subprocess.Popen, timeout: float = 30.0) -> None:
    """Kill the process group ``proc`` leads (started with ``start_new_session``) and wait for it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=timeout)
    if proc.stdout:
        proc.stdout.close()


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """Return the finished ``contextlab`` run of ``args`` (output captured, ``env`` added to this one's)."""
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def eval_row(cells: dict) -> EvalRow:
    """Return the ``EvalRow`` a results.csv line of ``cells`` stands for (metrics not given: none).

    ``config`` and ``query_id`` name the row; metric and answer columns fill its metrics and reply;
    every other key is a grid setting.
    """
    from dataclasses import fields

    from contextlab.evaluation.rows import EvalRow, ModelReply, QuestionMetrics

    metric_names = [f.name for f in fields(QuestionMetrics)]
    reply_names = [f.name for f in fields(ModelReply)]
    counts = {"in_block": 0, "tokens_used": 0, "duplicates_removed": 0}
    metrics = QuestionMetrics(**{name: cells.get(name, counts.get(name)) for name in metric_names})
    reply = None
    if any(name in cells for name in reply_names):
        reply = ModelReply(**{name: cells.get(name, "" if name == "answer" else None) for name in reply_names})
    own = {"config", "query_id", "block", *metric_names, *reply_names}
    settings = {k: v for k, v in cells.items() if k not in own}
    return EvalRow(cells["config"], cells["query_id"], settings, metrics, cells.get("block"), reply)
