"""The lab's only door to the engine: builds, tokenizers and dedup views, cached across reruns.

A slider move reruns the whole script; these caches make that rerun cost a dict lookup when
nothing the build depends on changed. The cached functions read only their arguments.
The views import engine pieces from here, never from ``contextlab.stages``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import streamlit as st

from contextlab.lab.config import LabConfig
from contextlab.stages.budget import TRUNCATION_MARKER
from contextlab.stages.dedup import pair_similarities, shared_word_mask, similarity_matrix
from contextlab.stages.reorder import MIN_DOCS_TO_REORDER
from contextlab.tokenizers import Tokenizer, get_tokenizer
from contextlab.types import ContextResult, Document, PromptRequest

__all__ = [
    "build_cached",
    "get_tokenizer_cached",
    "documents_hash",
    "similarity_matrix_cached",
    "pair_similarities_cached",
    "shared_word_mask",
    "token_counts_cached",
    "TRUNCATION_MARKER",
    "MIN_DOCS_TO_REORDER",
]


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


@st.cache_data(show_spinner=False, max_entries=16)
def similarity_matrix_cached(texts: tuple[str, ...]) -> list[list[float]]:
    """Return the pairwise shingle similarity of ``texts`` (the dedup stage's measure)."""
    return similarity_matrix(texts)


@st.cache_data(show_spinner=False, max_entries=16)
def pair_similarities_cached(texts: tuple[str, ...]) -> list[float]:
    """Return the shingle similarity of every pair of ``texts`` that shares a phrase, or 0."""
    return [s for _, _, s in pair_similarities(texts)]


@st.cache_data(show_spinner=False, max_entries=16)
def token_counts_cached(tokenizer: str, texts: tuple[str, ...]) -> list[int]:
    """Return the token count of each of ``texts`` under the tokenizer called ``tokenizer``."""
    tok = get_tokenizer_cached(tokenizer)
    count_many = getattr(tok, "count_many", None)
    return count_many(texts) if count_many else [tok.count(t) for t in texts]
