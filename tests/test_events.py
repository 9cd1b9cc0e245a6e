"""Retrieval events reach blinker subscribers with the seed's payload."""

from __future__ import annotations

import pytest

from contextlab import events
from contextlab.retrieval import SQLiteBackend
from contextlab.types import Document


@pytest.fixture
def log():
    got: list[tuple[str, object, dict]] = []
    receivers = {}
    for signal in events.ALL_SIGNALS:

        def receiver(sender, payload, _name=signal.name):
            got.append((_name, sender, payload))

        receivers[signal] = receiver
        signal.connect(receiver)
    yield got
    for signal, receiver in receivers.items():
        signal.disconnect(receiver)


def test_events_signals_live_in_the_contextlab_namespace():
    assert events.signals.signal("memory-retrieve") is events.memory_retrieve
    assert [s.name for s in events.ALL_SIGNALS] == ["memory-retrieve", "memory-store", "memory-delete"]


def test_events_store_publishes_add_search_and_remove(log):
    store = SQLiteBackend()
    ids = store.add([Document("alpha beta"), Document("gamma")])
    store.retrieve("alpha", top_k=3)
    store.remove([ids[1], "nope"])
    assert log == [
        ("memory-store", store, {"num_documents": 2, "ids": ids}),
        ("memory-retrieve", store, {"context_injection": False, "query": "alpha", "num_results": 1, "top_k": 3}),
        ("memory-delete", store, {"requested": 2, "removed": 1}),
    ]


def test_events_publish_sends_a_copy_of_the_payload(log):
    payload = {"query": "q"}
    events.publish(events.memory_retrieve, "sender", payload)
    log[0][2]["query"] = "changed"
    assert payload == {"query": "q"}


def test_events_subscriber_errors_propagate():
    def broken(sender, payload):
        raise RuntimeError("subscriber failed")

    events.memory_store.connect(broken)
    try:
        with pytest.raises(RuntimeError, match="subscriber failed"):
            SQLiteBackend().add([Document("x")])
    finally:
        events.memory_store.disconnect(broken)


def test_events_sender_specific_subscription(log):
    mine, other = SQLiteBackend(), SQLiteBackend()
    got: list[dict] = []

    def only_mine(sender, payload):
        got.append(payload)

    events.memory_store.connect(only_mine, sender=mine)
    try:
        other.add([Document("x")])
        mine.add([Document("y")], ids=["y1"])
    finally:
        events.memory_store.disconnect(only_mine)
    assert got == [{"num_documents": 1, "ids": ["y1"]}]
