"""The store's rows: a document's id, its checked row, and putting or deleting one.

A document's identity is its ``metadata["id"]`` when it has one, else its ``source`` (plus its
place among documents sharing that source in one call), else what the caller gives (a file and
position) or a hash of its content.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidInputError
from ..types import Document
from .terms import index_text

__all__ = ["COLUMNS", "Row", "document_rows", "refuse_shared_ids", "source_ids", "own_id", "put_row", "delete_row"]

#: The stored columns of a document, in the order of a ``Row``.
COLUMNS = "id, content, source, metadata, timestamp, importance"
Row = tuple[str, str, "str | None", str, "float | None", float]


def document_rows(docs: list[Any], ids: Sequence[Any]) -> list[Row]:
    """Return the checked rows to store, one per document, under the given (or its own) id."""
    rows = []
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document):
            raise InvalidInputError(f"document {i}: expected a Document or a string, got {type(doc).__name__}")
        if not isinstance(doc.content, str) or not doc.content.strip():
            raise InvalidInputError(f"document {i}: content must be non-empty text")
        try:
            meta = json.dumps(doc.metadata, ensure_ascii=False, default=str)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"document {i}: metadata cannot be stored as JSON ({exc})") from None
        doc_id = _document_id(doc, ids[i])
        rows.append((doc_id, doc.content, doc.source, meta, doc.timestamp, doc.importance))
    return rows


def refuse_shared_ids(rows: list[Row], *, origin: str | None) -> None:
    """Raise when two different rows of one batch have one id (the second would replace the first).

    The same document twice is one document and passes. Positions count from 1 for a file
    (``origin``: its records in order), from 0 otherwise, as the other document errors do.
    """
    first: dict[str, int] = {}
    for i, row in enumerate(rows):
        j = first.setdefault(row[0], i)
        if j == i or rows[j] == row:
            continue
        where = f"documents {j} and {i}" if origin is None else f"{origin}: records {j + 1} and {i + 1}"
        raise InvalidInputError(
            f"{where} both have the id {row[0]!r}; the second would replace the first, so nothing "
            "was stored: give each its own id (metadata.id), or remove the copy"
        )


def source_ids(docs: list[Any]) -> list[str | None]:
    """Return each document's identity by source: ``source``, then ``source#2``, ``source#3``..."""
    seen: Counter[str] = Counter()
    out: list[str | None] = []
    for doc in docs:
        source = getattr(doc, "source", None)
        if not isinstance(source, str) or not source:
            out.append(None)
            continue
        seen[source] += 1
        out.append(source if seen[source] == 1 else f"{source}#{seen[source]}")
    return out


def own_id(doc: Any) -> str | None:
    """Return the id a document carries in ``metadata["id"]`` (text or a whole number), or None."""
    given = doc.metadata.get("id") if isinstance(getattr(doc, "metadata", None), dict) else None
    return _usable_id(given)


def _usable_id(value: Any) -> str | None:
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return str(value) or None


def _document_id(doc: Document, given: Any) -> str:
    """Return ``given`` as an id when usable, else a hash of the document's content."""
    return _usable_id(given) or hashlib.sha1(doc.content.encode("utf-8")).hexdigest()[:16]


def put_row(conn: sqlite3.Connection, row: Row, *, origin: str | None) -> str:
    """Store one row under its id; return "added", "replaced" or "unchanged"."""
    old = conn.execute(f"SELECT rowid, {COLUMNS}, origin FROM documents WHERE id = ?", (row[0],)).fetchone()
    if old is not None:
        if tuple(old[1:7]) == tuple(row):
            if old[7] != origin and origin is not None:
                # The same document, now read from another file: that file owns it from now on.
                conn.execute("UPDATE documents SET origin = ? WHERE rowid = ?", (origin, old[0]))
            return "unchanged"
        conn.execute("DELETE FROM documents_fts WHERE rowid = ?", (old[0],))
        conn.execute("DELETE FROM documents WHERE rowid = ?", (old[0],))
    cur = conn.execute(f"INSERT INTO documents ({COLUMNS}, origin) VALUES (?, ?, ?, ?, ?, ?, ?)", (*row, origin))
    conn.execute("INSERT INTO documents_fts (rowid, content) VALUES (?, ?)", (cur.lastrowid, index_text(row[1])))
    return "added" if old is None else "replaced"


def delete_row(conn: sqlite3.Connection, doc_id: str) -> int:
    row = conn.execute("SELECT rowid FROM documents WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        return 0
    conn.execute("DELETE FROM documents_fts WHERE rowid = ?", row)
    conn.execute("DELETE FROM documents WHERE rowid = ?", row)
    return 1
