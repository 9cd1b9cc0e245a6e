"""The "Edit a table" source: documents as an editable table, started from what was loaded before."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import pandas as pd
import streamlit as st

from contextlab.types import Document

from .engine import documents_hash
from .inputs import DocumentsInput
from .loading import sample, sample_names
from .state import TABLE_ANSWER

__all__ = [
    "table_documents",
    "remember_for_table",
    "documents_frame",
    "documents_from_table",
    "documents_editor",
    "TABLE_DOCUMENTS",
]

#: Session-state key of the documents the table starts from (a snapshot of the last source).
TABLE_DOCUMENTS = "table_documents"


def table_documents() -> DocumentsInput:
    """Return what the table source starts from: the last loaded documents, else the default sample."""
    docs = st.session_state.get(TABLE_DOCUMENTS)
    answer_source, answer_keys, gold = st.session_state.get(TABLE_ANSWER, (None, (), ()))
    if docs is None:
        first = sample(sample_names()[0])
        docs, answer_source, answer_keys, gold = list(first.documents), first.answer_source, (), first.answers
    st.caption(
        "Edit content, score and source in the table above the view; add or delete rows. "
        "A blank score is scored against the query."
    )
    return DocumentsInput(
        list(docs),
        "Edited table",
        answer_source=answer_source,
        answer_keys=tuple(answer_keys),
        gold_answers=tuple(gold),
    )


def remember_for_table(brought: DocumentsInput) -> None:
    """Keep the brought documents, and which hold the answer, as the "Edit a table" source's start."""
    if brought.documents and st.session_state.get("doc_source") != "table":
        st.session_state[TABLE_DOCUMENTS] = list(brought.documents)
        st.session_state[TABLE_ANSWER] = (brought.answer_source, tuple(brought.answer_keys), brought.gold_answers)


def documents_frame(documents: Sequence[Document]) -> pd.DataFrame:
    """Return ``documents`` as the table the editor shows (a blank score where none was given)."""
    return pd.DataFrame(
        {
            "content": [d.content for d in documents],
            "score": [None if d.metadata.get("score_missing") else float(d.score) for d in documents],
            "source": [d.source or "" for d in documents],
            "_row": list(range(len(documents))),
        }
    )


def _blank(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def documents_from_table(frame: pd.DataFrame, originals: Sequence[Document]) -> list[Document]:
    """Return the documents an edited table stands for; untouched fields keep their values.

    A blank score means "score me against the query"; a blank content row is dropped.
    """
    docs: list[Document] = []
    for row in frame.to_dict("records"):
        content = row.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        score = row.get("score")
        missing = _blank(score)
        source = row.get("source")
        source = source if isinstance(source, str) and source.strip() else None
        base_row = row.get("_row")
        base = originals[int(base_row)] if not _blank(base_row) else Document(content="")
        metadata = {k: v for k, v in base.metadata.items() if k != "score_missing"}
        if missing:
            metadata["score_missing"] = True
        docs.append(
            replace(base, content=content, score=1.0 if missing else float(score), source=source, metadata=metadata)
        )
    return docs


def documents_editor(documents: Sequence[Document]) -> list[Document]:
    """Draw the editable document table and return the edited documents."""
    key = f"doc_editor_{documents_hash(documents)[:12]}"
    edited = st.data_editor(
        documents_frame(documents),
        key=key,
        num_rows="dynamic",
        width="stretch",
        height=320,
        column_config={
            "content": st.column_config.TextColumn("content", width="large", required=True),
            "score": st.column_config.NumberColumn(
                "score",
                min_value=0.0,
                format="%.3f",
                help="Retrieval score; leave blank to score the document against the query.",
            ),
            "source": st.column_config.TextColumn("source", width="medium"),
            "_row": None,
        },
    )
    return documents_from_table(edited, documents)
