"""Reading documents for the lab, cached by content: sample sets, pasted text, files, scoring.

A slider move reruns the whole script; these caches make that rerun skip parsing and scoring.
Each cached function reads only its arguments.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from contextlab.errors import ContextLabError
from contextlab.lab.samples import SampleSet, list_sample_sets, load_sample_set
from contextlab.loaders import SetFields, load_bytes, parse_pasted, read_set_fields
from contextlab.loaders.chunking import Chunk, chunk_text
from contextlab.retrieval import needs_scoring, score_documents
from contextlab.types import Document

from .engine import documents_hash

__all__ = [
    "sample_names",
    "sample",
    "parse_pasted_cached",
    "load_pasted",
    "load_uploads",
    "chunks_cached",
    "upload_set_fields",
    "failure_message",
    "score_if_needed",
]

#: The sample set the lab opens on.
DEFAULT_SAMPLE = "support_faq"


@st.cache_data(show_spinner=False)
def sample_names() -> list[str]:
    """Return the names of the bundled sample sets, the default first."""
    names = [s.name for s in list_sample_sets()]
    return sorted(names, key=lambda n: (n != DEFAULT_SAMPLE, n))


@st.cache_data(show_spinner=False)
def sample(name: str) -> SampleSet:
    """Return the bundled sample set called ``name`` (read once per server)."""
    return load_sample_set(name)


@st.cache_data(show_spinner=False, max_entries=32)
def parse_pasted_cached(text: str) -> list[Document]:
    """Return the documents in pasted ``text`` (separated by ``---`` lines or blank lines, or JSON)."""
    return parse_pasted(text)


@st.cache_data(show_spinner=False, max_entries=32)
def _load_bytes(data: bytes, filename: str) -> list[Document]:
    return load_bytes(data, filename)


def load_uploads(files: Sequence[tuple[str, bytes]]) -> tuple[list[Document], list[str]]:
    """Return the documents of every readable file and one message per file that is not.

    A bad file never hides the good ones; its message is the loader's, naming the record. Any
    other failure (a bug, a value the cache cannot keep) is a message naming the file too.
    """
    docs: list[Document] = []
    errors: list[str] = []
    for name, data in files:
        try:
            docs.extend(_load_bytes(bytes(data), name))
        except Exception as exc:  # one bad file must never take the page down
            errors.append(failure_message(name, exc))
    return docs, errors


@st.cache_data(show_spinner=False, max_entries=32)
def _set_fields(data: bytes, filename: str) -> SetFields:
    return read_set_fields(data, filename)


def upload_set_fields(files: Sequence[tuple[str, bytes]]) -> SetFields:
    """Return the query and answer a set of uploaded files names (the first JSON file that names them)."""
    for name, data in files:
        try:
            fields = _set_fields(bytes(data), name)
        except Exception:  # a file that cannot be read already has its message; it names no query
            continue
        if fields.query or fields.answer_source or fields.answers:
            return fields
    return SetFields()


@st.cache_data(show_spinner=False, max_entries=256)
def chunks_cached(text: str, size: int, overlap: int, tokenizer: str) -> list[Chunk]:
    """Return the chunks of ``text`` (the Chunks view's cut, cached across slider moves), counted in
    ``tokenizer``, or in cl100k_base when that is not a vocabulary the chunker knows (a server's own)."""
    try:
        return chunk_text(text, size=size, overlap=overlap, tokenizer=tokenizer, source="")
    except ContextLabError:
        return chunk_text(text, size=size, overlap=overlap, tokenizer="cl100k_base", source="")


def load_pasted(text: str) -> tuple[list[Document], str | None]:
    """Return the documents in pasted ``text`` and None, or no documents and the message saying why."""
    try:
        return parse_pasted_cached(text), None
    except Exception as exc:  # a paste that cannot be read is a message, not a crash
        return [], failure_message("pasted text", exc)


def failure_message(name: str, exc: Exception) -> str:
    """Return the one line the lab shows for input ``name`` that could not be read."""
    if isinstance(exc, ContextLabError):
        return str(exc)
    detail = " ".join(str(exc).split())[:200] or type(exc).__name__
    return f"{name}: could not be read ({detail}); check the file, or save it as UTF-8 text, JSON or CSV"


@st.cache_data(show_spinner=False, max_entries=32)
def _score(docs_key: str, query: str, _documents: Sequence[Document]) -> list[Document]:
    return score_documents(_documents, query)


def score_if_needed(documents: Sequence[Document], query: str) -> tuple[list[Document], str | None]:
    """Return the documents scored against ``query`` when some have no score, and a note naming it."""
    documents = list(documents)
    if not documents or not needs_scoring(documents):
        return documents, None
    missing = sum(1 for d in documents if d.metadata.get("score_missing"))
    if not query.strip():
        some = "1 document has" if missing == 1 else f"{missing:,} documents have"
        return documents, (
            f"{some} no score. Type a query to score them "
            "against it (BM25); until then they all count as equally relevant."
        )
    try:
        scored = _score(documents_hash(documents), query, documents)
    except ContextLabError as exc:
        return documents, str(exc)
    flat = " ".join(query.split())
    shown = flat if len(flat) <= 80 else flat[:79] + "…"
    return scored, f"{missing} unscored document(s) were scored against the query “{shown}” (BM25, 0–1)."
