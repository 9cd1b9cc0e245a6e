"""Helpers the test modules share (fixtures live in conftest.py)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

import pytest

__all__ = ["wait_until"]


def wait_until(condition: Callable[[], bool], seconds: float = 30.0, *, what: str = "the condition",
               proc: subprocess.Popen | None = None, interval: float = 0.1) -> None:
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
