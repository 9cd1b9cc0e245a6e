"""``cores.each``: parts handed out in order to the calling thread and the pool's; the answer in
order whoever ran a part; an error raised only once every part begun has ended; and a pool
busy with another caller's work never holds a call up (the calling thread does every part)."""

from __future__ import annotations

import threading
import time

import pytest

from contextlab.stages.dedup import cores


@pytest.fixture
def two_threads(monkeypatch):
    monkeypatch.setattr(cores, "THREADS", 2)


def test_each_answers_in_order_whoever_ran_each_part(two_threads):
    ran_on: dict[int, str] = {}

    def task(k: int) -> int:
        time.sleep(0.002 * (k % 3))  # parts end out of order
        ran_on[k] = threading.current_thread().name
        return k * k

    assert cores.each(40, task) == [k * k for k in range(40)]
    assert len(set(ran_on.values())) == 2  # the calling thread and the pool's both took parts


def test_each_on_one_thread_runs_in_order_on_the_caller(monkeypatch):
    monkeypatch.setattr(cores, "THREADS", 1)
    seen: list[tuple[int, str]] = []
    assert cores.each(5, lambda k: seen.append((k, threading.current_thread().name)) or k) == list(range(5))
    assert seen == [(k, threading.current_thread().name) for k in range(5)]


def test_each_raises_the_error_after_every_begun_part_has_ended(two_threads):
    ended: list[int] = []
    slow_started = threading.Event()

    def task(k: int) -> int:
        if k == 0:
            slow_started.set()
            time.sleep(0.2)
            ended.append(k)
            return k
        slow_started.wait(5)
        raise ValueError(f"part {k}")

    with pytest.raises(ValueError, match="part 1"):
        cores.each(10, task)
    assert ended == [0]  # the slow part had ended by the time the error came out


def test_each_does_every_part_itself_while_the_pool_is_busy(two_threads):
    release = threading.Event()
    blocker = cores.pool().submit(release.wait, 10)  # another caller's long part holds the pool's thread
    try:
        names = cores.each(6, lambda k: threading.current_thread().name)
        assert set(names) == {threading.current_thread().name}
    finally:
        release.set()
        blocker.result()
