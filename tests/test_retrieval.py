"""The retrieval package keeps every name it exported as one module."""

from __future__ import annotations

import contextlab.retrieval as retrieval

# What `from contextlab.retrieval import X` offered before it became a package.
EXPORTED = [
    "ContextConfig",
    "RetrievalResult",
    "MemoryBackend",
    "SQLiteBackend",
    "StoreError",
    "format_context",
    "build_context_message",
    "inject_context",
    "score_documents",
    "needs_scoring",
    "fts_query",
    "CONTEXT_PREAMBLE",
    "STOPWORDS",
]


def test_retrieval_package_reexports_every_old_name():
    assert set(EXPORTED) <= set(retrieval.__all__)
    for name in EXPORTED:
        assert getattr(retrieval, name) is not None


def test_retrieval_store_error_is_the_shared_error_class():
    from contextlab.errors import StoreError

    assert retrieval.StoreError is StoreError
