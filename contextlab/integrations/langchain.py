"""LangChain: ``ContextLabCompressor``, a document compressor that builds the context block.

Use it where LangChain takes a ``BaseDocumentCompressor``, e.g.
``ContextualCompressionRetriever(base_compressor=ContextLabCompressor(max_context_tokens=800),
base_retriever=...)``. It returns the documents that made the block, in block order, each a copy
of its input (same ``id`` and metadata) with ``metadata["contextlab"] = {"citation", "fate",
"reason"}`` and the text the block holds. A score is read from ``metadata["relevance_score"]``,
``metadata["score"]`` or ``metadata["similarity_score"]``; a document without one is scored
against the query (BM25), as the engine scores every unscored document, and its
``metadata["contextlab"]`` says so (``score_source``, ``retriever_rank``). Needs
``langchain-core`` (``pip install 'contextlab[langchain]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._common import METADATA_KEY, ContextLabStep, engine_document

try:
    from langchain_core.callbacks import Callbacks
    from langchain_core.documents import BaseDocumentCompressor
    from langchain_core.documents import Document as LangChainDocument
    from pydantic import ConfigDict, PrivateAttr
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "contextlab.integrations.langchain needs langchain-core: pip install 'contextlab[langchain]'"
    ) from exc

__all__ = ["ContextLabCompressor"]


class ContextLabCompressor(BaseDocumentCompressor):
    """A LangChain document compressor returning the documents of contextlab's context block.

    Keyword settings are the engine's (``max_context_tokens``, ``dedup_threshold``,
    ``min_doc_tokens``, ``use_lost_in_middle``, ``tokenizer``, ...); ``config=`` takes a
    ``LabConfig`` or the lab's JSON export; ``capture_to=`` a JSONL file each run is appended to.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    _step: ContextLabStep = PrivateAttr()

    def __init__(self, *, config: Any = None, capture_to: Any = None, **settings: Any) -> None:
        super().__init__()
        self._step = ContextLabStep("langchain", config=config, capture_to=capture_to, **settings)

    @property
    def step(self) -> ContextLabStep:
        """The engine step (its ``config``, ``manager`` and capture path)."""
        return self._step

    def __repr__(self) -> str:
        return f"ContextLabCompressor({self._step.settings()!r})"

    def compress_documents(
        self, documents: Sequence[LangChainDocument], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[LangChainDocument]:
        """Return the documents of the context block for ``query``, in block order."""
        engine_docs = [
            engine_document(d.page_content, score=None, metadata=d.metadata, doc_id=d.id, where=f"documents[{i}]")
            for i, d in enumerate(documents)
        ]
        outcome = self._step.run(query, engine_docs)
        out = []
        for kept in outcome.kept:
            original = documents[kept.input_index]
            metadata = {**original.metadata, METADATA_KEY: kept.info}
            out.append(original.model_copy(update={"page_content": kept.content, "metadata": metadata}))
        return out
