"""The browser tests' server helper: stopping the test process never leaves a lab server behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.helpers import listening, wait_until

from .lab_server import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.integration]

# Starts the helper, says the server's URL and process id, then waits to be stopped.
CHILD = """
import threading
from tests.e2e.lab_server import lab_server, live_server_pids
with lab_server() as url:
    print(url, *live_server_pids(), flush=True)
    threading.Event().wait()
"""


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_lab_server_stops_its_server_when_the_test_process_is_signalled(signum):
    child = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline().split()
        assert len(line) == 2, f"the helper did not start a server (exit code {child.poll()})"
        url, pid = line[0], int(line[1])
        port = int(url.rsplit(":", 1)[1])
        assert listening(port) and _group_alive(pid)
        assert os.getpgid(pid) == pid != os.getpgid(child.pid)  # its own group, not the child's
        child.send_signal(signum)
        child.wait(timeout=60)
        wait_until(lambda: not _group_alive(pid), 30, what="the server to stop with the test process")
        assert not listening(port)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
