"""LlamaIndex: ``ContextLabPostprocessor``, a node postprocessor that builds the context block.

Use it in ``node_postprocessors=[ContextLabPostprocessor(max_context_tokens=800)]`` of a query
engine, or call ``postprocess_nodes(nodes, query_str=...)``. It returns the ``NodeWithScore``
list of the block, in block order: each node a copy of its input (same ``node_id`` and
metadata) holding the text the block holds, with ``metadata["contextlab"] = {"citation",
"fate", "reason"}`` (kept out of the LLM's and the embedder's view of the node). A node without
a score is scored against the query (BM25), as the engine scores every unscored document, and
comes back with that score. Needs ``llama-index-core`` (``pip install 'contextlab[llama-index]'``).
"""

from __future__ import annotations

from typing import Any

from ._common import METADATA_KEY, ContextLabStep, engine_document

try:
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
    from pydantic import PrivateAttr
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "contextlab.integrations.llama_index needs llama-index-core: pip install 'contextlab[llama-index]'"
    ) from exc

__all__ = ["ContextLabPostprocessor"]


class ContextLabPostprocessor(BaseNodePostprocessor):
    """A LlamaIndex node postprocessor returning the nodes of contextlab's context block.

    Keyword settings are the engine's (``max_context_tokens``, ``dedup_threshold``,
    ``min_doc_tokens``, ``use_lost_in_middle``, ``tokenizer``, ...); ``config=`` takes a
    ``LabConfig`` or the lab's JSON export; ``capture_to=`` a JSONL file each run is appended to.
    """

    _step: ContextLabStep = PrivateAttr()

    def __init__(self, *, config: Any = None, capture_to: Any = None, **settings: Any) -> None:
        super().__init__()
        self._step = ContextLabStep("llama_index", config=config, capture_to=capture_to, **settings)

    @classmethod
    def class_name(cls) -> str:
        """Return the name LlamaIndex serialises this component under."""
        return "ContextLabPostprocessor"

    @property
    def step(self) -> ContextLabStep:
        """The engine step (its ``config``, ``manager`` and capture path)."""
        return self._step

    def __repr__(self) -> str:
        return f"ContextLabPostprocessor({self._step.settings()!r})"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        """Return the nodes of the context block for the bundle's query, in block order."""
        query = query_bundle.query_str if query_bundle is not None else ""
        engine_docs = [
            engine_document(
                n.node.get_content(metadata_mode=MetadataMode.NONE),
                score=n.score,
                metadata=n.node.metadata,
                doc_id=n.node.node_id,
                where=f"nodes[{i}]",
            )
            for i, n in enumerate(nodes)
        ]
        outcome = self._step.run(query, engine_docs)
        out = []
        for kept in outcome.kept:
            original = nodes[kept.input_index]
            # A copy: the input node may be the one in the index's docstore.
            node = original.node.model_copy(deep=False)
            node.metadata = {**original.node.metadata, METADATA_KEY: kept.info}
            # Metadata reaches the LLM's prompt text unless excluded; ours is for people.
            node.excluded_llm_metadata_keys = [*original.node.excluded_llm_metadata_keys, METADATA_KEY]
            node.excluded_embed_metadata_keys = [*original.node.excluded_embed_metadata_keys, METADATA_KEY]
            if kept.content_changed:
                node.set_content(kept.content)
            score = original.score if original.score is not None else kept.score
            out.append(NodeWithScore(node=node, score=score))
        return out
