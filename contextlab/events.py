"""Retrieval events, published through ``blinker`` signals (seed 003's event bus).

Each signal is sent with the object that did the work as ``sender`` and one keyword,
``payload``: the plain dict the seed publishes. Subscribe with a function that takes both::

    from contextlab import events

    def log(sender, payload):
        print(payload["query"], payload["num_results"])

    events.memory_retrieve.connect(log)

blinker holds receivers weakly by default: keep a reference to the function (or pass
``weak=False``) or it is dropped when it goes out of scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from blinker import Namespace, Signal

__all__ = [
    "signals",
    "memory_retrieve",
    "memory_store",
    "memory_delete",
    "ALL_SIGNALS",
    "publish",
]

#: The namespace every contextlab signal lives in.
signals = Namespace()

#: Sent after a search. Payload: ``context_injection`` (True when sent by ``inject_context``),
#: ``query``, ``num_results``, and ``total_tokens`` (injection) or ``top_k`` (a store's search).
memory_retrieve: Signal = signals.signal(
    "memory-retrieve", doc="Documents were retrieved for a query (seed 003's MEMORY_RETRIEVE)."
)
#: Sent after documents are added to a store. Payload: ``num_documents``, ``ids``.
memory_store: Signal = signals.signal("memory-store", doc="Documents were added to a store.")
#: Sent after documents are removed from a store. Payload: ``requested``, ``removed``.
memory_delete: Signal = signals.signal("memory-delete", doc="Documents were removed from a store.")

ALL_SIGNALS: tuple[Signal, ...] = (memory_retrieve, memory_store, memory_delete)


def publish(signal: Signal, sender: Any, payload: Mapping[str, object]) -> None:
    """Send ``payload`` to the subscribers of ``signal`` (their errors propagate, none swallowed)."""
    if signal.receivers:
        signal.send(sender, payload=dict(payload))
