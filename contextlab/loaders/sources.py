"""One way through the loaders: bytes -> text with spans -> chunks -> documents.

A file of a text kind (TXT, Markdown, PDF, DOCX, HTML) becomes one ``SourceText``; a file of
records (JSON, JSON Lines, CSV) becomes its documents, each one a source of its own. Chunking cuts
each source (``chunking.chunk_text``) and every chunk becomes a document that carries its span:
``metadata["chunk_of"]``, ``start``, ``end``, ``tokens`` and ``page`` where known, so the merge stage
can join chunks of one source that overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import LoadError
from ..tokenizers import Tokenizer
from ..types import Document
from .chunking import Chunk, chunk_text
from .docx_input import read_docx
from .html_input import read_html
from .pdf_input import read_pdf
from .reading import decode, too_many
from .source_text import SourceText

__all__ = ["Chunking", "read_source_text", "page_documents", "chunk_sources", "chunk_documents", "citation"]


@dataclass(frozen=True)
class Chunking:
    """How sources are cut: ``size`` and ``overlap`` in tokens of ``tokenizer``."""

    size: int
    overlap: int
    tokenizer: str | Tokenizer = "cl100k_base"


def read_source_text(data: bytes, fmt: str, name: str, max_bytes: int) -> SourceText:
    """Return the text of a file of kind ``fmt`` (pdf, docx, html, txt, md) with its spans."""
    if fmt == "pdf":
        return read_pdf(data, name, max_bytes)
    if fmt == "docx":
        return read_docx(data, name, max_bytes)
    text = decode(data, name)
    if fmt == "html":
        return read_html(text, name)
    return SourceText(name, text)


def citation(name: str, start_page: int | None, end_page: int | None) -> str:
    """Return how a block cites a span of ``name``: ``report.pdf p. 2``, ``report.pdf pp. 2-3`` or the name."""
    if start_page is None:
        return name
    if end_page is None or end_page == start_page:
        return f"{name} p. {start_page}"
    return f"{name} pp. {start_page}-{end_page}"


def page_documents(source: SourceText, max_documents: int) -> list[Document]:
    """Return one document per page of ``source`` (or one for the whole text when it has no pages)."""
    bounds = [start for start, _ in source.pages] or [0]
    numbers: list[int | None] = [number for _, number in source.pages] or [None]
    if len(bounds) > max_documents:
        raise LoadError(too_many(source.name, max_documents))
    docs = []
    for i, start in enumerate(bounds):
        end = bounds[i + 1] - 2 if i + 1 < len(bounds) else len(source.text)
        meta: dict[str, object] = {"score_missing": True, "chunk_of": source.name, "start": start, "end": end}
        if numbers[i] is not None:
            meta["page"] = numbers[i]
        docs.append(Document(source.text[start:end], source=citation(source.name, numbers[i], None), metadata=meta))
    return docs


def chunk_sources(sources: list[SourceText], chunking: Chunking) -> list[Chunk]:
    """Return the chunks of every source, in order."""
    chunks: list[Chunk] = []
    for source in sources:
        chunks.extend(
            chunk_text(
                source.text,
                size=chunking.size,
                overlap=chunking.overlap,
                tokenizer=chunking.tokenizer,
                source=source.name,
                pages=source.pages,
            )
        )
    return chunks


def chunk_documents(
    sources: Sequence[tuple[SourceText, Document | None]], chunking: Chunking, name: str, max_documents: int
) -> list[Document]:
    """Return one document per chunk of each source; a source cut from a record keeps its score and metadata."""
    docs: list[Document] = []
    for source, record in sources:
        for chunk in chunk_sources([source], chunking):
            if len(docs) >= max_documents:
                raise LoadError(too_many(name, max_documents))
            docs.append(_chunk_document(chunk, source, record))
    return docs


def _chunk_document(chunk: Chunk, source: SourceText, record: Document | None) -> Document:
    meta: dict[str, object] = dict(record.metadata) if record is not None else {"score_missing": True}
    meta.update({"chunk_of": chunk.source, "start": chunk.start, "end": chunk.end, "tokens": chunk.tokens})
    if chunk.page is not None:
        meta["page"] = chunk.page
    label = citation(chunk.source, chunk.page, source.page_at(chunk.end - 1))
    if record is None:
        return Document(chunk.text, source=label, metadata=meta)
    return Document(
        chunk.text,
        score=record.score,
        source=label,
        metadata=meta,
        timestamp=record.timestamp,
        importance=record.importance,
    )
