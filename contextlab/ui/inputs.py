"""What a document source brought: the documents, where they came from, and which hold the answer.

A plain value (no streamlit): every source (sample, paste, upload, table, captured runs) returns
one, and the shell reads it. Living apart from the widgets keeps the sources free of each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from contextlab.types import Document, Message

__all__ = ["DocumentsInput"]


@dataclass(frozen=True)
class DocumentsInput:
    """The documents a user brought, before the table edits and scoring."""

    documents: list[Document]
    label: str
    history: list[Message] = field(default_factory=list)
    system_prompt: str = ""
    default_query: str = ""
    sample: str | None = None
    errors: tuple[str, ...] = ()
    #: The source of the document that answers the query, when a sample set names it.
    answer_source: str | None = None
    #: Further answer documents, each named by its ``metadata["id"]`` or its source (an evaluation
    #: question's gold documents, which may share a title with other passages).
    answer_keys: tuple[str, ...] = ()
    #: Correct answers to the query (a sample's ``answers``, an evaluation question's), to mark a model's answer.
    gold_answers: tuple[str, ...] = ()
    #: Warnings to show beside the input (a file name holding bidi controls, ...).
    warnings: tuple[str, ...] = ()

    def answer_indices(self, documents: Sequence[Document]) -> tuple[int, ...]:
        """Return the indices in ``documents`` of the documents that hold the answer (maybe none)."""
        keys = set(self.answer_keys)
        found = []
        for i, doc in enumerate(documents):
            doc_id = doc.metadata.get("id")
            # A document with an id is named by it: passages of one article share a source.
            named = str(doc_id) in keys if doc_id is not None else doc.source in keys
            if named or (self.answer_source is not None and doc.source == self.answer_source):
                found.append(i)
        return tuple(found)
