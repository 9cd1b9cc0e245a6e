"""contextlab.evaluate on Dask: a 2-worker local cluster gives the serial rows; a dead scheduler is one line."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("distributed")

from contextlab.errors import InvalidInputError  # noqa: E402
from contextlab.evaluate import run_evaluation  # noqa: E402
from contextlab.evaluation.cluster import dask_client  # noqa: E402


def test_evaluate_dask_two_workers_give_the_serial_rows():
    grid = ["max_context_tokens=256,1024", "placement=lost_in_the_middle,relevance"]
    serial = run_evaluation(grid=grid, limit=24)
    on_dask = run_evaluation(grid=grid, limit=24, workers=2, chunk_size=5)
    assert len(serial.rows) == 96
    assert on_dask.rows == serial.rows


def test_evaluate_dask_unreachable_scheduler_is_one_clear_line():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InvalidInputError) as err:
        with dask_client(scheduler=f"tcp://127.0.0.1:{port}", timeout_s=1):
            pass
    message = str(err.value)
    assert "\n" not in message and f"tcp://127.0.0.1:{port}" in message and "cannot reach" in message
