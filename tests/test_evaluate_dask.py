"""contextlab.evaluation on Dask: a 2-worker local cluster gives the serial rows; a dead scheduler is one line."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")

from contextlab.errors import InvalidInputError  # noqa: E402
from contextlab.evaluation import RunOptions, run_evaluation  # noqa: E402
from contextlab.evaluation.cluster import dask_client  # noqa: E402
from contextlab.models import free_port  # noqa: E402
from tests.conftest import DASK_GRID  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def test_evaluate_dask_two_workers_give_the_serial_rows(dask_run40):
    serial = run_evaluation(None, DASK_GRID, RunOptions(limit=40))
    assert len(serial.rows) == 160
    assert dask_run40.rows == serial.rows


def test_evaluate_dask_unreachable_scheduler_is_one_clear_line():
    port = free_port()  # a port nobody listens on
    with pytest.raises(InvalidInputError) as err, dask_client(scheduler=f"tcp://127.0.0.1:{port}", timeout_s=1):
        pass
    message = str(err.value)
    assert "\n" not in message and f"tcp://127.0.0.1:{port}" in message and "cannot reach" in message
