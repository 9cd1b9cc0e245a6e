"""The lab listens on this machine only and nothing leaves it (issue 18, points 1 and 2)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contextlab.cli.lab import lab_options
from contextlab.models import free_port

ROOT = Path(__file__).resolve().parents[1]


def test_lab_options_default_to_this_machine_without_usage_statistics():
    assert lab_options(["--server.port", "8620"]) == [
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--runner.postScriptGC",
        "false",
        "--browser.serverAddress",
        "localhost",
        "--server.port",
        "8620",
    ]


def test_lab_options_serve_the_network_only_when_asked():
    options = lab_options(["--server.address=0.0.0.0", "--browser.gatherUsageStats", "true"])
    assert options == [
        "--server.headless",
        "true",
        "--runner.postScriptGC",
        "false",
        "--browser.serverAddress",
        socket.gethostname(),
        "--server.address=0.0.0.0",
        "--browser.gatherUsageStats",
        "true",
    ]
    assert lab_options(["--server.address", "10.0.0.5", "--browser.serverAddress", "lab.example"]) == [
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--runner.postScriptGC",
        "false",
        "--server.address",
        "10.0.0.5",
        "--browser.serverAddress",
        "lab.example",
    ]


def _listening_addresses(port: int) -> set[str]:
    """Return the local addresses with a socket in LISTEN state on ``port`` (from /proc/net/tcp*)."""
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, port_hex = local.split(":")
            if state == "0A" and int(port_hex, 16) == port:
                raw = bytes.fromhex(address)
                if width == 8:
                    found.add(socket.inet_ntop(socket.AF_INET, raw[::-1]))
                else:  # four little-endian 32-bit words
                    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                    found.add(socket.inet_ntop(socket.AF_INET6, words))
    return found


@pytest.mark.slow
@pytest.mark.integration
def test_contextlab_lab_listens_on_127_0_0_1_only_from_any_folder(tmp_path: Path):
    pytest.importorskip("streamlit")
    port = free_port()
    log = tmp_path / "lab.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("STREAMLIT_BROWSER_GATHER_USAGE_STATS", None)
    # From a folder that is not the checkout, so no .streamlit/config.toml is read.
    with log.open("w") as out:
        lab = subprocess.Popen(
            [sys.executable, "-m", "contextlab.cli", "lab", "--server.port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while not _listening_addresses(port):
            assert lab.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the lab did not start listening within 120 s"
            time.sleep(0.5)
        time.sleep(2)  # the banner (and any external-IP lookup) comes once the server is up
        assert _listening_addresses(port) == {"127.0.0.1"}
        ss = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True)
        if ss.returncode == 0:
            assert [line.split()[3] for line in ss.stdout.splitlines()] == [f"127.0.0.1:{port}"]
        text = log.read_text()
        assert f"URL: http://localhost:{port}" in text
        assert "Network URL" not in text and "External URL" not in text
        assert "external IP" not in text
    finally:
        os.killpg(lab.pid, 15)
        lab.wait(timeout=30)
