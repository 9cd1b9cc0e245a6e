"""Fixtures shared by the engine's test modules."""

from __future__ import annotations

import pytest

from contextlab import events


@pytest.fixture
def received():
    """Collect every retrieval event sent while the test runs."""
    got: list[tuple[object, dict]] = []

    def receiver(sender, payload):
        got.append((sender, payload))

    events.memory_retrieve.connect(receiver)
    yield got
    events.memory_retrieve.disconnect(receiver)


#: The grid of the one Dask run the suite makes (shared by the library's and the CLI's checks).
DASK_GRID = ["max_context_tokens=256,1024", "placement=lost_in_the_middle,reversed"]


@pytest.fixture(scope="session")
def bundled_run300():
    """Return the bundled set's first 300 questions at budgets 256 and 1024: one run (~25 s) the suite shares."""
    from contextlab.evaluate import run_evaluation

    return run_evaluation(grid=["max_context_tokens=256,1024"], limit=300)


@pytest.fixture(scope="session")
def dask_run40():
    """Return 40 questions of ``DASK_GRID`` run on a local 2-worker Dask cluster: the suite's one cluster."""
    pytest.importorskip("distributed")
    from contextlab.evaluate import run_evaluation

    return run_evaluation(grid=DASK_GRID, limit=40, workers=2, chunk_size=5)
