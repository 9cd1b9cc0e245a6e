"""A Dask run's lost chunk leaves distributed's ``AllExit`` in an orphaned task: asyncio must not print it.

The CI run of round 8 saw "Task exception was never retrieved ... AllExit" above the run's one line
when the last worker was killed (tests/test_evaluate_dask_failures.py): the timed-out fetch's inner
wait task ended in ``AllExit`` and was collected later. These tests make such a task for real.
"""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

pytest.importorskip("distributed")

from distributed.client import AllExit  # noqa: E402

from contextlab.evaluation.cluster import _quiet_distributed  # noqa: E402


def _orphan(exc: BaseException) -> None:
    """Run a task that raises ``exc`` and drop it unretrieved; asyncio reports it when it is collected."""

    async def fail() -> None:
        raise exc

    async def main() -> None:
        task = asyncio.ensure_future(fail())
        await asyncio.sleep(0.01)
        assert task.done()

    asyncio.run(main())
    gc.collect()


def _reported(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "asyncio"]


def test_an_orphaned_allexit_is_not_reported_even_after_the_run(caplog):
    caplog.set_level(logging.ERROR, logger="asyncio")
    with _quiet_distributed():
        pass
    _orphan(AllExit())  # collected after the run: the filter outlives it
    assert _reported(caplog) == []


def test_any_other_orphaned_exception_is_still_reported(caplog):
    caplog.set_level(logging.ERROR, logger="asyncio")
    with _quiet_distributed():
        pass
    _orphan(ValueError("a real bug"))
    assert any("never retrieved" in m for m in _reported(caplog))


def test_the_filter_is_installed_once():
    for _ in range(3):
        with _quiet_distributed():
            pass
    from contextlab.evaluation.cluster import _OrphanedGather

    assert sum(isinstance(f, _OrphanedGather) for f in logging.getLogger("asyncio").filters) == 1
