"""Many files and folders at once: every readable file under them, read and (if asked) chunked.

``read_files`` is the library's door for a user's own documents: PDFs, Word files, web pages,
text, Markdown, JSON, JSON Lines, CSV, and chunk files written by ``contextlab chunk``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import LoadError
from ..tokenizers import Tokenizer
from ..types import Document
from .chunking import Chunk, check_chunking
from .documents import load_file
from .reading import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS, SUPPORTED_EXTENSIONS, shortened, too_many
from .sources import Chunking

__all__ = ["read_files", "read_chunks", "files_under", "chunking_for", "chunks_of"]


def files_under(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Return the files ``paths`` name: each file as given, each folder's readable files (recursively,
    sorted, hidden ones skipped). Raise ``LoadError`` for a path that does not exist or a folder with
    no readable file."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise LoadError(f"{shortened(str(path))}: no such file or folder")
        if not path.is_dir():
            found.append(path)
            continue
        inside = sorted(
            p
            for p in path.rglob("*")
            if p.is_file()
            and p.suffix.lower() in SUPPORTED_EXTENSIONS
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        if not inside:
            raise LoadError(
                f"{shortened(str(path))}: a folder with no readable file; it needs files ending in "
                f"{', '.join(SUPPORTED_EXTENSIONS)}"
            )
        found.extend(inside)
    return found


def chunking_for(
    chunk_size: int | None, chunk_overlap: int | None, tokenizer: str | Tokenizer = "cl100k_base"
) -> Chunking | None:
    """Return how to cut files (None: not cut); the overlap defaults to an eighth of the size."""
    if chunk_size is None:
        if chunk_overlap is not None:
            raise LoadError("chunk_overlap needs chunk_size: give the chunk size too", field="chunk_size")
        return None
    overlap = chunk_size // 8 if chunk_overlap is None and isinstance(chunk_size, int) else chunk_overlap
    size, overlap = check_chunking(chunk_size, overlap)
    return Chunking(size, overlap, tokenizer)


def read_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    chunk_size: int | None = None,
    chunk_overlap: int | None = None,
    tokenizer: str | Tokenizer = "cl100k_base",
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    errors: list[str] | None = None,
) -> list[Document]:
    """Return the documents of every file in ``paths`` (files and folders), chunked when ``chunk_size``
    is given (``chunk_overlap`` tokens shared by consecutive chunks; by default an eighth of the size).

    ``errors``: when a list is given, a file that cannot be read adds its one-line message there and
    the other files are still read; otherwise the first such file raises ``LoadError``.
    """
    chunking = chunking_for(chunk_size, chunk_overlap, tokenizer)
    docs: list[Document] = []
    for path in files_under([paths] if isinstance(paths, (str, os.PathLike)) else paths):
        try:
            docs.extend(load_file(path, max_bytes=max_bytes, max_documents=max_documents, chunking=chunking))
        except LoadError as exc:
            if errors is None:
                raise
            errors.append(str(exc))
        if len(docs) > max_documents:
            raise LoadError(too_many("these files", max_documents))
    return docs


def read_chunks(
    paths: Iterable[str | os.PathLike[str]],
    *,
    size: int,
    overlap: int | None = None,
    tokenizer: str | Tokenizer = "cl100k_base",
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
) -> list[Chunk]:
    """Return the chunks of every file in ``paths`` (what ``contextlab chunk`` writes)."""
    docs = read_files(
        paths,
        chunk_size=size,
        chunk_overlap=overlap,
        tokenizer=tokenizer,
        max_bytes=max_bytes,
        max_documents=max_documents,
    )
    return chunks_of(docs)


def chunks_of(documents: Iterable[Document]) -> list[Chunk]:
    """Return the chunks that chunked documents carry (their span in ``metadata``), in order."""
    out = []
    for doc in documents:
        meta = doc.metadata
        if "chunk_of" not in meta:
            continue
        page = meta.get("page")
        out.append(
            Chunk(
                doc.content,
                str(meta["chunk_of"]),
                int(meta["start"]),
                int(meta["end"]),
                int(meta.get("tokens", 0)),
                page if isinstance(page, int) else None,
            )
        )
    return out
