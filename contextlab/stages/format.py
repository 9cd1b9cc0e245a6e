"""Formatting: the citation-labelled block exactly as the model will read it."""

from __future__ import annotations

from collections.abc import Sequence

from ..types import Document

__all__ = ["source_header", "format_block", "citation_label", "SEPARATOR"]

#: Between two documents in the block.
SEPARATOR = "\n\n"


def source_header(position: int, doc: Document) -> str:
    """Return the header line of the document cited as ``[position]``."""
    header = f"--- Source [{position}] {doc.source} ---" if doc.source else f"--- Source [{position}] ---"
    if doc.score < 1.0:
        header += f" (relevance: {doc.score:.2f})"
    return header


def citation_label(position: int, doc: Document) -> str:
    """Return what citation ``[position]`` points back to: the source, or ``doc_<position>``."""
    return doc.source or f"doc_{position}"


def format_block(docs: Sequence[Document]) -> tuple[str, dict[int, str]]:
    """Return the block (header, newline, content per document; blank line between) and its citation map."""
    parts: list[str] = []
    citations: dict[int, str] = {}
    for position, doc in enumerate(docs, start=1):
        citations[position] = citation_label(position, doc)
        parts.append(f"{source_header(position, doc)}\n{doc.content}")
    return SEPARATOR.join(parts), citations
