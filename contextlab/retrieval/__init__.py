"""Retrieval: seed 003's injection, the SQLite FTS5 store, and scoring of unscored documents.

- ``injection``: ``ContextConfig``, ``RetrievalResult``, ``MemoryBackend``, ``inject_context``;
- ``store``: ``SQLiteBackend``, the embedded full-text store; ``sqlite``: its file, schema and
  errors; ``bm25``: its ranking (BM25 order, scores in [0, 1]);
  ``rows``: a document's id and stored row;
- ``scoring``: BM25 scores for documents that came without one;
- ``terms``: the one word tokenizer the store and the scoring share.
"""

from __future__ import annotations

from ..errors import StoreError
from .injection import (
    CONTEXT_PREAMBLE,
    MAX_TOP_K,
    ContextConfig,
    MemoryBackend,
    RetrievalResult,
    build_context_message,
    format_context,
    inject_context,
)
from .scoring import ScoringOutcome, needs_scoring, score_documents, score_unscored
from .store import IndexReport, SearchOutcome, SQLiteBackend
from .terms import STOPWORDS, fts_query

__all__ = [
    "ContextConfig",
    "RetrievalResult",
    "MemoryBackend",
    "SQLiteBackend",
    "IndexReport",
    "SearchOutcome",
    "StoreError",
    "format_context",
    "build_context_message",
    "inject_context",
    "score_documents",
    "score_unscored",
    "ScoringOutcome",
    "needs_scoring",
    "fts_query",
    "CONTEXT_PREAMBLE",
    "MAX_TOP_K",
    "STOPWORDS",
]
