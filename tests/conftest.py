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
