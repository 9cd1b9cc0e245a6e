"""A Dask run whose cluster goes away ends in bounded time with one line and no file (issue 18, point 12).

Real `dask scheduler` and `dask worker` processes; the test kills them mid-run as a crash would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contextlab.models import free_port
from tests.helpers import kill_group, listening, wait_until

pytest.importorskip("distributed")

pytestmark = [pytest.mark.integration, pytest.mark.slow]

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]


def _start(args: list[str], log: Path) -> subprocess.Popen:
    # Own process group, so the worker's nanny and its child die together.
    return subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture
def cluster(tmp_path: Path):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = _start(
        [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        tmp_path / "scheduler.log",
    )
    wait_until(lambda: listening(port), 60, what="the scheduler")
    worker = _start(
        [str(BIN / "dask"), "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
        tmp_path / "worker.log",
    )
    yield address, scheduler, worker
    kill_group(worker)
    kill_group(scheduler)


def _eval(address: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "contextlab.cli",
            "eval",
            "--scheduler",
            address,
            "--limit",
            "2000",
            "--grid",
            "max_context_tokens=256,512,1024,2048",
            "--grid",
            "placement=lost_in_the_middle,relevance",
            "--out",
            "r.csv",
        ],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".r.csv.*.tmp"))


def _run_then_kill(tmp_path: Path, address: str, victim: subprocess.Popen) -> tuple[int, str, float]:
    out = tmp_path / "out"
    out.mkdir()
    run = _eval(address, out)
    # Mid-run: the staged CSV is open (the set is loaded, the run is starting), then a few
    # seconds for the chunks to reach the worker. The run takes over a minute on its own.
    wait_until(lambda: bool(_temps(out)), 120, what="the run to start", proc=run)
    time.sleep(8)
    assert run.poll() is None
    kill_group(victim)
    killed = time.monotonic()
    try:
        _, stderr = run.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        run.kill()
        raise AssertionError("contextlab eval still running 90 s after its cluster went away") from None
    assert not (out / "r.csv").exists() and _temps(out) == []
    return run.returncode, stderr, time.monotonic() - killed


def test_eval_whose_last_worker_is_killed_fails_in_bounded_time_with_one_line(tmp_path: Path, cluster):
    address, _, worker = cluster
    code, stderr, seconds = _run_then_kill(tmp_path, address, worker)
    assert code == 1
    assert stderr.splitlines() == [
        f"contextlab: error: the Dask scheduler '{address}' has had no workers for 20 s (the last one "
        "stopped), so the run stopped and wrote nothing; start workers for it and run again"
    ]
    assert seconds < 45


def test_eval_whose_scheduler_is_killed_fails_in_bounded_time_with_one_line(tmp_path: Path, cluster):
    address, scheduler, _ = cluster
    code, stderr, seconds = _run_then_kill(tmp_path, address, scheduler)
    assert code == 1
    assert len(stderr.splitlines()) == 1, stderr
    [line] = stderr.splitlines()
    assert line.startswith(f"contextlab: error: lost the Dask scheduler '{address}' mid-run (")
    assert line.endswith("); the run stopped and wrote nothing: check that the scheduler is running and run again")
    assert seconds < 45


def test_a_finished_chunk_whose_worker_dies_before_its_rows_are_fetched_ends_in_bounded_time(cluster, monkeypatch):
    # The race CI met: a chunk finished (its rows still on the worker), the worker died before
    # the run fetched them, and the scheduler waited for a worker to run the chunk again.
    from distributed import Client

    from contextlab.errors import ClusterError
    from contextlab.evaluation import cluster as dask_cluster

    address, _, worker = cluster
    monkeypatch.setattr(dask_cluster, "NO_WORKERS_S", 2.0)
    with Client(address, timeout="30s", set_as_default=False) as client:
        client.wait_for_workers(1, timeout=60)
        future = client.submit(sum, [1, 2], pure=False)
        wait_until(lambda: future.status == "finished", 60, what="the task to finish")
        kill_group(worker)
        started = time.monotonic()
        with pytest.raises(ClusterError, match="has had no workers for 2 s"):
            dask_cluster._result(future, dask_cluster._Watch(client, address))
        assert time.monotonic() - started < 30
