"""The embedded document store: SQLite's FTS5 full-text index with BM25 ranking (stdlib
``sqlite3``, nothing to install), in memory or persistent in a file.

A document's identity is its ``metadata["id"]`` when it has one, else its ``source`` (plus its
place among documents sharing that source in one call), wherever it came from; a document
without either is known, for ``index``, by the file it was read from plus its position in that
file, and otherwise by its content. Storing a document again under the same identity replaces
it; re-indexing a file replaces everything indexed from it before. Scores are explained in
``contextlab.retrieval.bm25``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import events
from ..errors import InvalidInputError, StoreError
from ..types import Document
from ..validation import text, whole_number
from .bm25 import document_counts, informative_terms, rank
from .injection import MAX_TOP_K, RetrievalResult
from .rows import COLUMNS, delete_row, document_rows, own_id, put_row, refuse_shared_ids, source_ids
from .sqlite import check_schema, connect, prepare_schema, read_only_reason, roll_back_quietly, store_errors
from .terms import MAX_QUERY_TERMS, MAX_QUERY_WORDS, match_expression, query_terms

__all__ = ["SQLiteBackend", "IndexReport", "SearchOutcome"]


@dataclass(frozen=True)
class IndexReport:
    """What indexing one file changed: documents added, replaced, unchanged and removed."""

    origin: str | None
    added: int
    replaced: int
    unchanged: int
    removed: int

    @property
    def stored(self) -> int:
        """How many documents the file has in the store now."""
        return self.added + self.replaced + self.unchanged


@dataclass(frozen=True)
class SearchOutcome:
    """One search: its results (best first), the query words searched, how many were left out."""

    results: list[RetrievalResult]
    searched: tuple[str, ...]
    left_out: int

    @property
    def note(self) -> str | None:
        """Return one sentence on the query words left out (None when none were)."""
        if not self.left_out:
            return None
        return (
            f"the query has {len(self.searched) + self.left_out:,} search words; the "
            f"{len(self.searched)} most informative (held by the fewest stored documents) "
            f"were searched, {self.left_out:,} left out"
        )


class SQLiteBackend:
    """A full-text document store: SQLite FTS5, BM25 ranking, scores normalised to [0, 1].

    ``path=":memory:"`` (the default) keeps the store in this process; a file path makes it
    persistent. ``read_only=True`` never creates or changes a file (a missing store is an
    error); ``read_only=False`` refuses at once a store it could not write; the default,
    ``None``, opens read-only by itself when the file or its folder cannot be written, so such
    a store can still be searched, and writing to it is one clear ``StoreError``. Safe to share
    between threads and processes: file stores use one connection per thread, in-memory stores
    one connection behind a lock; writes are serialised.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:", *, read_only: bool | None = None) -> None:
        self._memory = str(path) in ("", ":memory:")
        self.path = str(path) if self._memory else str(Path(path).expanduser())
        if read_only is None:
            read_only = not self._memory and Path(self.path).is_file() and read_only_reason(self.path) is not None
        if read_only and self._memory:
            raise InvalidInputError("read_only needs a store file; an in-memory store starts empty")
        self.read_only: bool = read_only
        self._write_lock = threading.RLock()
        # An in-memory database exists only inside its one connection, so every thread shares
        # it and takes turns; a file database gets a connection per thread and real parallel reads.
        self._read_lock = self._write_lock if self._memory else nullcontext()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._shared: sqlite3.Connection | None = None
        self._closed = False
        self._publishes = True
        self._check_location()
        try:
            with self._write_lock, store_errors(self.path, "open"):
                conn = self._conn()
                if read_only:
                    if check_schema(conn, self.path) == 0:
                        raise StoreError(
                            f"{self.path!r} is not a contextlab store (it is empty); "
                            f"create one with `contextlab index {self.path} FILE...`"
                        )
                else:
                    prepare_schema(conn, self.path)
        except BaseException:
            self.close()
            raise

    def _check_location(self) -> None:
        if self._memory:
            return
        path = Path(self.path)
        if self.read_only and not path.is_file():
            raise StoreError(f"no store at {self.path!r} (opened read-only, so none is created)")
        if not path.parent.is_dir():
            raise StoreError(f"cannot create store {self.path!r}: folder {str(path.parent)!r} does not exist")
        reason = None if self.read_only else read_only_reason(self.path)
        if reason and not path.exists():
            raise StoreError(
                f"cannot create store {self.path!r}: its folder is read-only; give a path in a folder you can write to"
            )
        if reason:
            # Asked to write (read_only=False): say so now, not after the work is done.
            raise StoreError(
                f"cannot write to store {self.path!r}: {reason}; search it as it "
                "is, or copy it somewhere writable to change it"
            )

    # -- connections ------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError(f"store {self.path!r} is closed; open a new SQLiteBackend")
        if self._memory:
            if self._shared is None:
                self._shared = self._open()
            return self._shared
        conn = getattr(self._local, "conn", None)
        if conn is None:
            with self._write_lock:
                conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        conn = connect(self.path, memory=self._memory, read_only=self.read_only)
        self._connections.append(conn)
        return conn

    @contextmanager
    def _transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        if self.read_only:
            why = read_only_reason(self.path) or "it was opened read-only"
            raise StoreError(
                f"cannot {action} store {self.path!r}: {why}; search it as it is, "
                "or copy it somewhere writable to change it"
            )
        with self._write_lock, store_errors(self.path, action):
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                roll_back_quietly(conn)
                raise

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._read_lock, store_errors(self.path, "read"):
            yield self._conn()

    def close(self) -> None:
        """Close every connection this store opened (further use is an error)."""
        with self._write_lock:
            self._closed = True
            for conn in self._connections:
                conn.close()
            self._connections.clear()
            self._shared = None

    def __enter__(self) -> SQLiteBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SQLiteBackend {self.path!r}>"

    # -- writing ----------------------------------------------------------------------
    def add(self, documents: Iterable[Document | str], *, ids: Sequence[str] | None = None) -> list[str]:
        """Store ``documents`` and return their ids, in order.

        A document's id is ``ids[i]`` when given, else its ``metadata["id"]``, else its source
        (``source#2``, ``source#3``, ... for later documents sharing a source in this call),
        else a hash of its content. Adding an id that is already stored replaces that document,
        so storing an edited document again replaces the old version.
        """
        docs = [Document(content=d) if isinstance(d, str) else d for d in documents]
        if ids is not None and len(ids) != len(docs):
            raise InvalidInputError(f"got {len(ids)} ids for {len(docs)} documents; give one id per document")
        given: Sequence[str | None] = (
            ids
            if ids is not None
            else [own_id(d) or by_source for d, by_source in zip(docs, source_ids(docs), strict=False)]
        )
        rows = document_rows(docs, given)
        if not rows:
            return []
        refuse_shared_ids(rows, origin=None)
        with self._transaction("write to") as conn:
            for row in rows:
                put_row(conn, row, origin=None)
        ids_out = [r[0] for r in rows]
        if self._publishes:
            events.publish(events.memory_store, self, {"num_documents": len(ids_out), "ids": ids_out})
        return ids_out

    def index(self, documents: Iterable[Document | str], *, origin: str | None) -> IndexReport:
        """Replace whatever was indexed from ``origin`` (a file) with ``documents``; say what changed.

        A document's id is its ``metadata["id"]``, else its source (``source#2``... for later
        ones sharing it), wherever it came from, so the same document indexed from two files is
        stored once. A document with neither is known by its place: ``origin`` (a one-document
        file) or ``origin#N`` (its position, from 1). Documents indexed from ``origin`` before
        and absent now are removed. ``origin=None`` (a stream such as stdin, which has no name
        to be re-read by) removes nothing and knows a document without id or source by its content.
        """
        text("origin", origin, optional=True)
        docs = [Document(content=d) if isinstance(d, str) else d for d in documents]
        if origin is None:
            places: list[str | None] = [None] * len(docs)
        elif len(docs) == 1:
            places = [origin]
        else:
            places = [f"{origin}#{i}" for i in range(1, len(docs) + 1)]
        rows = document_rows(
            docs,
            [
                own_id(d) or by_source or place
                for d, by_source, place in zip(docs, source_ids(docs), places, strict=False)
            ],
        )
        refuse_shared_ids(rows, origin=origin)
        counts: Counter[str] = Counter()
        with self._transaction("write to") as conn:
            new_ids = {row[0] for row in rows}
            held = (
                []
                if origin is None
                else conn.execute("SELECT id FROM documents WHERE origin = ?", (origin,)).fetchall()
            )
            for (doc_id,) in held:
                if doc_id not in new_ids:
                    counts["removed"] += delete_row(conn, doc_id)
            for row in rows:
                counts[put_row(conn, row, origin=origin)] += 1
        if self._publishes:
            events.publish(events.memory_store, self, {"num_documents": len(rows), "ids": [r[0] for r in rows]})
        return IndexReport(origin, counts["added"], counts["replaced"], counts["unchanged"], counts["removed"])

    def remove(self, ids: Iterable[str]) -> int:
        """Delete the documents with these ids and return how many were stored (unknown ids are ignored)."""
        wanted = [str(i) for i in ids]
        removed = 0
        with self._transaction("delete from") as conn:
            for doc_id in wanted:
                removed += delete_row(conn, doc_id)
        if self._publishes:
            events.publish(events.memory_delete, self, {"requested": len(wanted), "removed": removed})
        return removed

    def remove_sources(self, sources: Iterable[str]) -> dict[str, int]:
        """Delete every document indexed from, or with the source, each name; return counts by name."""
        names = [str(s) for s in sources]
        counts: dict[str, int] = {}
        with self._transaction("delete from") as conn:
            for name in names:
                found = conn.execute("SELECT id FROM documents WHERE origin = ? OR source = ?", (name, name)).fetchall()
                counts[name] = sum(delete_row(conn, doc_id) for (doc_id,) in found)
        if self._publishes:
            events.publish(events.memory_delete, self, {"requested": len(names), "removed": sum(counts.values())})
        return counts

    # -- reading ----------------------------------------------------------------------
    def __len__(self) -> int:
        with self._reading() as conn:
            return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])

    def ids(self) -> list[str]:
        """Return every stored id, in insertion order."""
        with self._reading() as conn:
            return [r[0] for r in conn.execute("SELECT id FROM documents ORDER BY rowid")]

    def known_names(self, names: Iterable[str]) -> set[str]:
        """Return which of ``names`` are the id or the source of a stored document."""
        wanted = json.dumps(sorted({str(n) for n in names}))
        with self._reading() as conn:
            return {
                r[0]
                for r in conn.execute(
                    "SELECT value FROM json_each(?) WHERE value IN (SELECT id FROM documents)"
                    " OR value IN (SELECT source FROM documents WHERE source IS NOT NULL)",
                    (wanted,),
                )
            }

    def get(self, doc_id: str) -> Document | None:
        """Return the stored document with this id (score 1.0), or None."""
        with self._reading() as conn:
            row = conn.execute(f"SELECT {COLUMNS} FROM documents WHERE id = ?", (str(doc_id),)).fetchone()
        if row is None:
            return None
        return Document(content=row[1], source=row[2], metadata=json.loads(row[3]), timestamp=row[4], importance=row[5])

    def retrieve(self, query: str, top_k: int = 5) -> list[RetrievalResult]:
        """Return at most ``top_k`` documents matching ``query``, best first, scores in [0, 1]."""
        return self.search(query, top_k).results

    def search(self, query: str, top_k: int = 5) -> SearchOutcome:
        """Return the ``retrieve`` results with the query words searched and how many were left out.

        A query with more than ``MAX_QUERY_TERMS`` search words keeps the most informative ones
        (``bm25.informative_terms``); ``SearchOutcome.note`` says how many it left out.
        """
        text("query", query)
        whole_number("top_k", top_k, minimum=0, maximum=MAX_TOP_K)
        words = query_terms(query)
        examined = words[:MAX_QUERY_WORDS]
        results: list[RetrievalResult] = []
        searched: list[str] = words[:MAX_QUERY_TERMS]
        if words and top_k:
            with self._reading() as conn:
                conn.execute("BEGIN")  # one snapshot for counts, candidates and rows
                try:
                    counts = document_counts(conn, examined)
                    searched = informative_terms(examined, counts[1], MAX_QUERY_TERMS)
                    ranked = rank(conn, match_expression(searched), searched, top_k, counts) if searched else []
                    rows = {
                        r[0]: r[1:]
                        for r in conn.execute(
                            f"SELECT rowid, {COLUMNS} FROM documents WHERE rowid IN (SELECT value FROM json_each(?))",
                            (json.dumps([rowid for rowid, _, _ in ranked]),),
                        )
                    }
                finally:
                    conn.execute("COMMIT")
            results = [_result(rows[rowid], score, raw) for rowid, score, raw in ranked]
        if self._publishes:
            events.publish(
                events.memory_retrieve,
                self,
                {"context_injection": False, "query": query, "num_results": len(results), "top_k": top_k},
            )
        return SearchOutcome(results, tuple(searched), len(words) - len(searched))


def _result(row: tuple[Any, ...], score: float, raw: float) -> RetrievalResult:
    doc_id, content, source, meta, timestamp, importance = row
    metadata = json.loads(meta)
    metadata["bm25"] = round(raw, 6)
    if timestamp is not None:
        metadata.setdefault("timestamp", timestamp)
    metadata.setdefault("importance", importance)
    return RetrievalResult(content=content, score=score, source=source, id=doc_id, metadata=metadata)
