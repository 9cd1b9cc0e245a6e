"""Score documents that came without a score, by BM25 against the query (normalised to [0, 1]).

The scores come from a private in-memory ``SQLiteBackend`` holding just these documents, so a
document scores here what it would score in a store of its own set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..errors import InvalidInputError
from ..types import Document
from .store import SQLiteBackend
from .terms import fts_query

__all__ = ["needs_scoring", "score_documents"]

def needs_scoring(documents: Iterable[Document]) -> bool:
    """Return True when any document came without a score (``metadata["score_missing"]``)."""
    return any(bool(d.metadata.get("score_missing")) for d in documents)


def score_documents(documents: Sequence[Document], query: str) -> list[Document]:
    """Return copies of ``documents`` scored by BM25 against ``query`` (normalised to [0, 1]).

    Order is kept; a document that matches no query word scores 0.0. Each copy has
    ``metadata["score_source"] = "bm25"``; a score the input did have is kept in
    ``metadata["input_score"]``. The input is not mutated.
    """
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be text, got {type(query).__name__}")
    docs = list(documents)
    if not docs:
        return []
    if not fts_query(query)[1]:
        raise InvalidInputError(
            "cannot score documents: the query has no words; type a query, or give the "
            "documents scores"
        )
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document) or not isinstance(doc.content, str):
            raise InvalidInputError(f"document {i}: expected a Document with text content")
    scores: dict[str, float] = {}
    with SQLiteBackend() as store:
        store._publishes = False  # a private scratch index: nothing for subscribers to see
        indexed = [(str(i), d) for i, d in enumerate(docs) if d.content.strip()]
        if indexed:
            store.add([d for _, d in indexed], ids=[i for i, _ in indexed])
            for hit in store.retrieve(query, top_k=len(indexed)):
                scores[hit.id or ""] = hit.score
    out = []
    for i, doc in enumerate(docs):
        meta = {k: v for k, v in doc.metadata.items() if k != "score_missing"}
        if not doc.metadata.get("score_missing"):
            meta.setdefault("input_score", doc.score)
        meta["score_source"] = "bm25"
        out.append(replace(doc, score=round(scores.get(str(i), 0.0), 6), metadata=meta))
    return out

