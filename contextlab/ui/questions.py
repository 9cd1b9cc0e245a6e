"""A bundled evaluation question as the lab's documents: what "Open in the lab" opens, and a link reopens.

Evaluate's "Open in the lab" makes one question's retrieved documents the table source; a link
cannot carry documents, but a question of the bundled NaturalQuestions-Open set can be retrieved
again from its id, so such a link names the question (``?question=ID&top_k=K``) and reproduces it.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from contextlab.evaluation import (
    BUNDLED_SET,
    EvalQuestion,
    load_bundled_set,
    prepare_question,
)
from contextlab.types import Document
from contextlab.validation import message_value

from .engine import documents_hash
from .state import CONFIG_KEYS, TABLE_ANSWER

__all__ = ["gold_keys", "remember_origin", "question_origin", "open_bundled_question", "TABLE_ORIGIN"]

#: Session-state key: ``(query_id, top_k, documents hash)`` of the bundled question the table holds.
TABLE_ORIGIN = "table_origin"


def gold_keys(question: EvalQuestion, documents: Sequence[Document]) -> tuple[str, ...]:
    """Return how the lab names ``question``'s gold documents among ``documents``: id, else source.

    The evaluation's own rule finds them, so the lab marks the passages the numbers counted.
    """
    keys = []
    for i in prepare_question(question, list(documents)).gold:
        doc = documents[i]
        doc_id = doc.metadata.get("id")
        if doc_id is not None:
            keys.append(str(doc_id))
        elif doc.source is not None:
            keys.append(doc.source)
    return tuple(keys)


def remember_origin(set_name: str, query_id: str, top_k: int, documents: Sequence[Document]) -> None:
    """Note that the table holds bundled question ``query_id`` (so a link can name it), else forget."""
    bundled = set_name == BUNDLED_SET
    st.session_state[TABLE_ORIGIN] = (query_id, top_k, documents_hash(documents)) if bundled else None


def question_origin(documents: Sequence[Document]) -> tuple[str, int] | None:
    """Return ``(query_id, top_k)`` when the table still holds that bundled question's documents unedited."""
    origin = st.session_state.get(TABLE_ORIGIN)
    if not origin or st.session_state.get("doc_source") != "table":
        return None
    query_id, top_k, digest = origin
    return (query_id, top_k) if documents_hash(documents) == digest else None


@st.cache_resource(show_spinner="Retrieving the question's documents from the bundled set…", max_entries=8)
def _retrieved(query_id: str, top_k: int) -> tuple[EvalQuestion, list[Document]] | None:
    evalset = load_bundled_set()
    question = next((q for q in evalset.questions if q.query_id == query_id), None)
    retriever = evalset.retriever  # the bundled set always has its corpus; None only for a bare set
    if question is None or retriever is None:
        return None
    return question, retriever.retrieve(question.query, top_k)


def open_bundled_question(query_id: str, top_k: int) -> str | None:
    """Make bundled question ``query_id``'s top ``top_k`` documents the table source; return a warning or None."""
    found = _retrieved(query_id, top_k)
    if found is None:
        return f"ignored URL parameter question={message_value(query_id)}: no such question in the bundled set"
    question, docs = found
    st.session_state["doc_source"] = "table"
    st.session_state["table_documents"] = list(docs)
    st.session_state[TABLE_ANSWER] = (None, gold_keys(question, docs), tuple(question.answers))
    st.session_state[CONFIG_KEYS["query"]] = question.query
    remember_origin(BUNDLED_SET, query_id, top_k, docs)
    return None
