"""Documents from one input (a file, bytes, pasted text): read, parsed by kind, chunked if asked."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import IO

from ..errors import LoadError
from ..types import Document
from .csv_input import parse_csv
from .json_input import SetFields, parse_json_text, parse_jsonl, set_fields, try_json_paste
from .reading import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DOCUMENTS,
    FILE_KINDS,
    SUPPORTED_EXTENSIONS,
    a_folder,
    check_format,
    check_limits,
    decode,
    format_for,
    iter_blocks,
    iter_lines,
    normalise_newlines,
    reject_nul,
    too_big,
)
from .records import chunk_record
from .source_text import SourceText
from .sources import Chunking, chunk_documents, page_documents, read_source_text
from .text_input import parse_markdown, plain_documents, split_plain

__all__ = ["load_file", "load_bytes", "parse_pasted", "read_set_fields"]

# Formats read one line at a time: their inputs are never held whole as text.
_LINE_FORMATS = frozenset({"jsonl", "csv"})
# Formats that are one text (not records): chunked whole when chunking is asked for.
_WHOLE_TEXT_FORMATS = frozenset({"txt", "md"})


def load_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    chunking: Chunking | None = None,
) -> list[Document]:
    """Return the documents in the file at ``path`` (format chosen by its extension).

    ``chunking``: cut every source into chunks first, one document per chunk (``Chunking``).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise LoadError(f"the path must be text or a path, got {type(path).__name__}")
    path = Path(path)
    check_limits(max_bytes, max_documents)
    if path.is_dir():
        raise LoadError(a_folder(path))
    fmt = format_for(path.name)  # fail on an unsupported type before reading anything
    size = path.stat().st_size  # 0 for a pipe or a device: those are bounded while read
    if size > max_bytes:
        raise LoadError(too_big(path.name, size, max_bytes), field="max_bytes")
    with path.open("rb") as fh:
        return _documents(fh, fmt, path.name, max_bytes, max_documents, chunking)


def load_bytes(
    data: bytes,
    filename: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    format: str | None = None,
    chunking: Chunking | None = None,
) -> list[Document]:
    """Return the documents in ``data``, read as the file ``filename`` (the lab's upload path).

    ``format`` ("json", "jsonl", "csv", "txt", "md" or "auto" for pasted-text rules) overrides
    the choice by extension.
    """
    check_limits(max_bytes, max_documents)
    if not isinstance(filename, str):
        raise LoadError(f"the file name must be text, got {type(filename).__name__}")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise LoadError(f"{filename}: expected bytes, got {type(data).__name__}")
    if len(data) > max_bytes:
        raise LoadError(too_big(filename, len(data), max_bytes), field="max_bytes")
    fmt = format_for(filename) if format is None else check_format(format)
    with io.BytesIO(data) as stream:  # shares the buffer of ``bytes``: no copy
        return _documents(stream, fmt, filename, max_bytes, max_documents, chunking)


def _documents(
    stream: IO[bytes], fmt: str, name: str, max_bytes: int, max_documents: int, chunking: Chunking | None
) -> list[Document]:
    """Return the documents of one input: read within the limits, parsed by kind, chunked if asked."""
    if fmt in _LINE_FORMATS:
        docs = _parse_lines(stream, fmt, name, max_bytes, max_documents)
    else:
        data = b"".join(iter_blocks(stream, name, max_bytes))
        if fmt in FILE_KINDS or (chunking is not None and fmt in _WHOLE_TEXT_FORMATS):
            source = read_source_text(data, fmt, name, max_bytes)
            del data  # keep one copy of the input
            if chunking is None:
                return _some(page_documents(source, max_documents), name)
            return _some(chunk_documents([(source, None)], chunking, name, max_documents), name)
        text = decode(data, name)
        del data
        docs = _parse_text(text, fmt, name, max_bytes, max_documents)
    docs = [chunk_record(d) for d in _some(docs, name)]
    if chunking is None:
        return docs
    kept = [d for d in docs if "chunk_of" in d.metadata]  # already chunks (a chunk file): not cut again
    units = [
        (SourceText(d.source or f"{name}#{i}", d.content), d)
        for i, d in enumerate(docs, 1)
        if "chunk_of" not in d.metadata
    ]
    return _some(kept + chunk_documents(units, chunking, name, max_documents - len(kept)), name)


def parse_pasted(
    text: str,
    *,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str = "pasted text",
) -> list[Document]:
    """Return the documents in pasted ``text``.

    A JSON array (or JSON Lines) pasted whole is read as records; otherwise documents are
    separated by a line of ``---``, or failing that by blank lines. Empty text gives ``[]``.
    """
    if not isinstance(text, str):
        raise LoadError(f"{name}: expected text, got {type(text).__name__}")
    check_limits(max_bytes, max_documents)
    if len(text) > max_bytes // 4 and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise LoadError(too_big(name, len(text.encode("utf-8", "surrogatepass")), max_bytes), field="max_bytes")
    text = normalise_newlines(text.lstrip("\ufeff"))
    reject_nul(text, name)
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] in "[{":
        records = try_json_paste(stripped, name, max_documents)
        if records is not None:
            return records
    return plain_documents(split_plain(stripped), name, max_documents, source=None)


def _parse_lines(stream: IO[bytes], fmt: str, name: str, max_bytes: int, max_documents: int) -> list[Document]:
    """Return the documents of a line-by-line format, read from ``stream`` one line at a time."""
    lines = iter_lines(stream, name, max_bytes)
    if fmt == "jsonl":
        return parse_jsonl(lines, name, max_documents)
    return parse_csv(lines, name, max_documents, max_bytes=max_bytes, tab=name.lower().endswith(".tsv"))


def _parse_text(text: str, fmt: str, name: str, max_bytes: int, max_documents: int) -> list[Document]:
    """Return the documents of a whole-text format (``text`` already decoded and checked)."""
    if fmt == "auto":
        return parse_pasted(text, max_documents=max_documents, name=name, max_bytes=max_bytes)
    if fmt == "json":
        return parse_json_text(text, name, max_documents)
    if fmt == "md":
        return parse_markdown(text, name, max_documents)
    return plain_documents(split_plain(text), name, max_documents, source=name)


def _some(docs: list[Document], name: str) -> list[Document]:
    if not docs:
        raise LoadError(f"{name}: no documents found; the file is empty or holds only blank lines")
    return docs


def read_set_fields(data: bytes, filename: str) -> SetFields:
    """Return what a JSON file says about its documents as a whole (query, answer source, answers);
    empty for any other file, or one that cannot be read (its documents' loader says why)."""
    if format_for_or_none(filename) != "json":
        return SetFields()
    try:
        return set_fields(decode(bytes(data), filename), filename)
    except LoadError:
        return SetFields()


def format_for_or_none(filename: str) -> str | None:
    """Return the format a file name implies, or None when it names none."""
    return SUPPORTED_EXTENSIONS.get(Path(filename).suffix.lower())
