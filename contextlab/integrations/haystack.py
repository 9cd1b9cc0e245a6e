"""Haystack: ``ContextLabBuilder``, a component that builds the context block from documents.

Place it between a retriever and a ``PromptBuilder``: inputs ``documents`` and ``query``,
outputs ``documents`` (the block's, in block order) and ``context`` (the finished,
citation-labelled block). Each output document is a copy of its input (same ``id`` and ``meta``)
holding the text the block holds, with ``meta["contextlab"] = {"citation", "fate", "reason"}``.
A document without a score is scored against the query (BM25), as the engine scores every
unscored document, and comes back with that score. Needs ``haystack-ai``
(``pip install 'contextlab[haystack]'``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ._common import METADATA_KEY, ContextLabStep, engine_document

try:
    from haystack import Document, component, default_from_dict, default_to_dict
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("contextlab.integrations.haystack needs haystack-ai: pip install 'contextlab[haystack]'") from exc

__all__ = ["ContextLabBuilder"]


@component
class ContextLabBuilder:
    """A Haystack component: documents and query in; the block's documents and its text out.

    Keyword settings are the engine's (``max_context_tokens``, ``dedup_threshold``,
    ``min_doc_tokens``, ``use_lost_in_middle``, ``tokenizer``, ...); ``config=`` takes a
    ``LabConfig`` or the lab's JSON export; ``capture_to=`` a JSONL file each run is appended to.
    """

    def __init__(self, *, config: Any = None, capture_to: Any = None, **settings: Any) -> None:
        self.step = ContextLabStep("haystack", config=config, capture_to=capture_to, **settings)

    def __repr__(self) -> str:
        return f"ContextLabBuilder({self.step.settings()!r})"

    def to_dict(self) -> dict[str, Any]:
        """Return the component as Haystack serialises it (settings in full, so YAML round-trips)."""
        capture = str(self.step.capture_to) if self.step.capture_to is not None else None
        return default_to_dict(self, config=self.step.config.to_dict(), capture_to=capture)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ContextLabBuilder:
        """Return the component ``to_dict`` described."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document], context=str)
    def run(self, documents: list[Document], query: str) -> dict[str, Any]:
        """Return ``{"documents": the block's documents in block order, "context": the block}``."""
        engine_docs = [
            engine_document(d.content, score=d.score, metadata=d.meta, doc_id=d.id, where=f"documents[{i}]")
            for i, d in enumerate(documents)
        ]
        outcome = self.step.run(query, engine_docs)
        out = []
        for kept in outcome.kept:
            original = documents[kept.input_index]
            out.append(
                replace(
                    original,
                    id=original.id,  # kept as is: Haystack would derive a new id from the new meta
                    content=kept.content,
                    meta={**original.meta, METADATA_KEY: kept.info},
                    score=original.score if original.score is not None else kept.score,
                )
            )
        return {"documents": out, "context": outcome.result.context_block}
