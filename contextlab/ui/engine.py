"""The lab's only door to the engine: builds and tokenizers, cached across reruns.

A slider move reruns the whole script; these caches make that rerun cost a dict lookup when
nothing the build depends on changed. The cached functions read only their arguments.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import streamlit as st

from contextlab.lab.config import LabConfig
from contextlab.tokenizers import Tokenizer, get_tokenizer
from contextlab.types import ContextResult, Document, PromptRequest

__all__ = ["build_cached", "get_tokenizer_cached", "documents_hash"]


def documents_hash(documents: Sequence[Document]) -> str:
    """Return a content hash of ``documents`` (every field that can change a build)."""
    h = hashlib.blake2b(digest_size=16)
    for doc in documents:
        h.update(
            json.dumps(
                [doc.content, doc.score, doc.source, doc.timestamp, doc.importance, doc.metadata],
                sort_keys=True,
                default=str,
            ).encode()
        )
        h.update(b"\x00")
    return h.hexdigest()


@st.cache_data(max_entries=64, show_spinner=False)
def _build(docs_key: str, config_json: str, _documents: Sequence[Document]) -> ContextResult:
    # Keyed by (docs_key, config_json); ``_documents`` is unhashed and matches docs_key.
    config = LabConfig.from_json(config_json)
    request = PromptRequest(
        query=config.query, documents=list(_documents), max_context_tokens=config.budget
    )
    return config.make_manager().build(request)


def build_cached(documents: Sequence[Document], config: LabConfig) -> ContextResult:
    """Return the engine's result for ``documents`` under ``config``, cached by content."""
    return _build(documents_hash(documents), config.to_json(), documents)


@st.cache_resource(show_spinner=False)
def get_tokenizer_cached(name: str) -> Tokenizer:
    """Return the shared tokenizer called ``name``, loaded once per server."""
    return get_tokenizer(name)
