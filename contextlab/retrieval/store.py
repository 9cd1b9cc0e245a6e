"""The embedded document store: SQLite's FTS5 full-text index with BM25 ranking (stdlib
``sqlite3``, nothing to install), in memory or persistent in a file.

How scores are normalised to [0, 1]
-----------------------------------
FTS5's ``bm25()`` finds and orders the candidates. Each candidate is then scored term by term
from the same index: for a query term ``t`` FTS5 gives ``idf(t) * s(t, d)``, where the
saturation ``s = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))`` (k1 = 1.2, b = 0.75)
is exactly 1.0 for one occurrence in a document of average length. The score is::

    score(d) = sum(w(t) * min(1, s(t, d))) / sum(w(t))      w(t) = ln(1 + (N - n + 0.5) / (n + 0.5))

over the query terms found in the store (``N`` documents, ``n`` holding ``t``): the IDF-weighted
share of the query this document covers. 1.0 when it holds every query word the store knows
(once is enough at average length; a long document needs more), 0.5 when it holds words
carrying half that weight, 0 when it holds none. Two choices make ``min_score`` mean the same
thing in every store and for every query length:

- ``w`` is the always-positive IDF (as in Lucene), not FTS5's, which floors a word found in
  more than half the documents to 1e-6: in a small set retrieved for one topic the topic word is
  in most documents, and must still count.
- Words no stored document contains ("how", a typo) are left out, since nothing could cover them.

Results are ordered by that score, ties by the uncapped ``sum(w * s)``, which is kept in
``RetrievalResult.metadata["bm25"]``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from .. import events
from ..errors import InvalidInputError, StoreError
from ..types import Document
from .injection import RetrievalResult
from .terms import fts_query, index_text

__all__ = ["SQLiteBackend"]

# FTS5's bm25() constants (fts5_aux.c) and its floor for a term in over half the rows.
_K1 = 1.2
_IDF_FLOOR = 1e-6
# At least this many FTS5 candidates are re-scored, so re-scoring can reorder the top ones.
_MIN_CANDIDATES = 200
# 2: the index holds ``terms.index_text`` of each document (1 held the raw text).
_SCHEMA_VERSION = 2


class SQLiteBackend:
    """A full-text document store: SQLite FTS5, BM25 ranking, scores normalised to [0, 1].

    ``path=":memory:"`` (the default) keeps the store in this process; a file path makes it
    persistent (WAL journal, so readers in other threads or processes never block on, or see
    half of, a write). Safe to share between threads: file stores use one connection per
    thread, in-memory stores one connection behind a lock; writes are serialised.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self._memory = str(path) in ("", ":memory:")
        self.path = str(path) if self._memory else str(Path(path).expanduser())
        self._write_lock = threading.RLock()
        # An in-memory database exists only inside its one connection, so every thread shares
        # it and takes turns; a file database gets a connection per thread and real parallel reads.
        self._read_lock = self._write_lock if self._memory else nullcontext()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._shared: sqlite3.Connection | None = None
        self._closed = False
        self._publishes = True
        if not self._memory:
            parent = Path(self.path).expanduser().parent
            if not parent.is_dir():
                raise StoreError(
                    f"cannot create store {self.path!r}: folder {str(parent)!r} does not exist"
                )
        try:
            with self._write_lock:
                self._create_schema(self._conn())
        except BaseException:
            self.close()
            raise

    # -- connections ------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, timeout=30.0, check_same_thread=False, isolation_level=None
            )
            conn.execute("PRAGMA busy_timeout = 30000")
            if not self._memory:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot open store {self.path!r}: {exc}; give the path of a contextlab store "
                "or of a new file"
            ) from None
        self._connections.append(conn)
        return conn

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

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot open store {self.path!r}: {exc}; give the path of a contextlab store "
                "or of a new file"
            ) from None
        if version not in (0, 1, _SCHEMA_VERSION) or (version == 0 and tables - {"documents", "documents_fts"}):
            raise StoreError(
                f"{self.path!r} is a SQLite database but not a contextlab store (schema "
                f"version {version}, tables: {', '.join(sorted(tables)) or 'none'}); "
                "give the path of a new file"
            )
        if version == _SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                """CREATE TABLE IF NOT EXISTS documents (
                       rowid INTEGER PRIMARY KEY,
                       id TEXT NOT NULL UNIQUE,
                       content TEXT NOT NULL,
                       source TEXT,
                       metadata TEXT NOT NULL DEFAULT '{}',
                       timestamp REAL,
                       importance REAL NOT NULL DEFAULT 0.5
                   )"""
            )
            # Porter stemming so "documents" finds "document"; diacritics folded.
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5("
                "content, tokenize = 'porter unicode61 remove_diacritics 2')"
            )
            if version == 1:
                # Re-index what an older version stored, with the tokenizer queries use now.
                conn.create_function("contextlab_index_text", 1, index_text, deterministic=True)
                conn.execute("DELETE FROM documents_fts")
                conn.execute("INSERT INTO documents_fts (rowid, content)"
                             " SELECT rowid, contextlab_index_text(content) FROM documents")
            conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

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
    def add(
        self, documents: Iterable[Document | str], *, ids: Sequence[str] | None = None
    ) -> list[str]:
        """Store ``documents`` and return their ids, in order.

        A document's id is ``ids[i]`` when given, else its ``metadata["id"]``, else a hash of
        its source and content, so indexing the same file twice replaces, never duplicates.
        Adding an id that is already stored replaces that document.
        """
        docs = [Document(content=d) if isinstance(d, str) else d for d in documents]
        if ids is not None and len(ids) != len(docs):
            raise InvalidInputError(f"got {len(ids)} ids for {len(docs)} documents; give one id per document")
        rows = []
        for i, doc in enumerate(docs):
            if not isinstance(doc, Document):
                raise InvalidInputError(
                    f"document {i}: expected a Document or a string, got {type(doc).__name__}"
                )
            if not isinstance(doc.content, str) or not doc.content.strip():
                raise InvalidInputError(f"document {i}: content must be non-empty text")
            doc_id = _document_id(doc, None if ids is None else ids[i])
            try:
                meta = json.dumps(doc.metadata, ensure_ascii=False, default=str)
            except (TypeError, ValueError) as exc:
                raise InvalidInputError(f"document {i}: metadata cannot be stored as JSON ({exc})") from None
            rows.append((doc_id, doc.content, doc.source, meta, doc.timestamp, doc.importance))
        if not rows:
            return []
        with self._transaction() as conn:
            for row in rows:
                old = conn.execute("SELECT rowid FROM documents WHERE id = ?", (row[0],)).fetchone()
                if old is not None:
                    conn.execute("DELETE FROM documents_fts WHERE rowid = ?", old)
                    conn.execute("DELETE FROM documents WHERE rowid = ?", old)
                cur = conn.execute(
                    "INSERT INTO documents (id, content, source, metadata, timestamp, importance)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    row,
                )
                conn.execute(
                    "INSERT INTO documents_fts (rowid, content) VALUES (?, ?)",
                    (cur.lastrowid, index_text(row[1])),
                )
        ids_out = [r[0] for r in rows]
        if self._publishes:
            events.publish(events.memory_store, self, {"num_documents": len(ids_out), "ids": ids_out})
        return ids_out

    def remove(self, ids: Iterable[str]) -> int:
        """Delete the documents with these ids and return how many were stored (unknown ids are ignored)."""
        wanted = [str(i) for i in ids]
        removed = 0
        with self._transaction() as conn:
            for doc_id in wanted:
                row = conn.execute("SELECT rowid FROM documents WHERE id = ?", (doc_id,)).fetchone()
                if row is None:
                    continue
                conn.execute("DELETE FROM documents_fts WHERE rowid = ?", row)
                conn.execute("DELETE FROM documents WHERE rowid = ?", row)
                removed += 1
        if self._publishes:
            events.publish(events.memory_delete, self, {"requested": len(wanted), "removed": removed})
        return removed

    # -- reading ----------------------------------------------------------------------
    def __len__(self) -> int:
        with self._read_lock:
            return self._conn().execute("SELECT count(*) FROM documents").fetchone()[0]

    def ids(self) -> list[str]:
        """Return every stored id, in insertion order."""
        with self._read_lock:
            return [r[0] for r in self._conn().execute("SELECT id FROM documents ORDER BY rowid")]

    def get(self, doc_id: str) -> Document | None:
        """Return the stored document with this id (score 1.0), or None."""
        with self._read_lock:
            row = self._conn().execute(
                "SELECT id, content, source, metadata, timestamp, importance FROM documents WHERE id = ?",
                (str(doc_id),),
            ).fetchone()
        if row is None:
            return None
        return Document(content=row[1], source=row[2], metadata=json.loads(row[3]),
                        timestamp=row[4], importance=row[5])

    def retrieve(self, query: str, top_k: int = 5) -> list[RetrievalResult]:
        """Return at most ``top_k`` documents matching ``query``, best first, scores in [0, 1]."""
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be text, got {type(query).__name__}")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
            raise InvalidInputError(f"top_k must be a whole number >= 0, got {top_k!r}")
        match, terms = fts_query(query)
        results: list[RetrievalResult] = []
        if terms and top_k:
            with self._read_lock:
                conn = self._conn()
                conn.execute("BEGIN")  # one snapshot for candidates, counts and per-term scores
                try:
                    ranked = self._rank(conn, match, terms, top_k)
                    rows = {
                        r[0]: r[1:]
                        for r in conn.execute(
                            "SELECT rowid, id, content, source, metadata, timestamp, importance"
                            " FROM documents WHERE rowid IN (SELECT value FROM json_each(?))",
                            (json.dumps([rowid for rowid, _, _ in ranked]),),
                        )
                    }
                finally:
                    conn.execute("COMMIT")
            for rowid, score, raw in ranked:
                doc_id, content, source, meta, timestamp, importance = rows[rowid]
                metadata = json.loads(meta)
                metadata["bm25"] = round(raw, 6)
                if timestamp is not None:
                    metadata.setdefault("timestamp", timestamp)
                metadata.setdefault("importance", importance)
                results.append(RetrievalResult(content=content, score=score, source=source,
                                               id=doc_id, metadata=metadata))
        if self._publishes:
            events.publish(
                events.memory_retrieve,
                self,
                {"context_injection": False, "query": query, "num_results": len(results),
                 "top_k": top_k},
            )
        return results

    @staticmethod
    def _rank(
        conn: sqlite3.Connection, match: str, terms: list[str], top_k: int
    ) -> list[tuple[int, float, float]]:
        """Return ``(rowid, score, bm25)`` of the best ``top_k`` matches (see the module docstring)."""
        # FTS5's own bm25() picks the candidates; they are then re-scored term by term.
        limit = max(4 * top_k, _MIN_CANDIDATES)
        candidates = [
            r[0] for r in conn.execute(
                "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?"
                " ORDER BY bm25(documents_fts) LIMIT ?",
                (match, limit),
            )
        ]
        if not candidates:
            return []
        n_rows = conn.execute("SELECT count(*) FROM documents_fts").fetchone()[0]
        candidate_json = json.dumps(candidates)
        weights: dict[str, float] = {}
        # saturation[rowid][term]: tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))
        saturation: dict[int, dict[str, float]] = {rowid: {} for rowid in candidates}
        for term in terms:
            phrase = f'"{term}"'
            hits = conn.execute(
                "SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?", (phrase,)
            ).fetchone()[0]
            if hits == 0:
                continue  # no stored document can cover it: it must not lower every score
            ratio = (n_rows - hits + 0.5) / (hits + 0.5)
            fts_idf = max(math.log(ratio), _IDF_FLOOR)  # what FTS5 multiplies by
            weights[term] = math.log1p(ratio)  # always > 0, even for very common words
            for rowid, raw in conn.execute(
                "SELECT rowid, -bm25(documents_fts) FROM documents_fts WHERE documents_fts MATCH ?"
                " AND rowid IN (SELECT value FROM json_each(?))",
                (phrase, candidate_json),
            ):
                saturation[rowid][term] = raw / fts_idf
        total = sum(weights.values())
        scored = []
        for order, rowid in enumerate(candidates):
            sat = saturation[rowid]
            raw = sum(weights[t] * s for t, s in sat.items())
            covered = sum(weights[t] * min(1.0, s) for t, s in sat.items())
            score = min(1.0, max(0.0, covered / total)) if total > 0 else 0.0
            scored.append((-score, -raw, order, rowid, score, raw))
        scored.sort()
        return [(rowid, round(score, 6), raw) for *_, rowid, score, raw in scored[:top_k]]


def _document_id(doc: Document, given: Any) -> str:
    if given is None:
        given = doc.metadata.get("id") if isinstance(doc.metadata, dict) else None
    if given is not None and not isinstance(given, bool) and isinstance(given, (str, int)):
        text = str(given)
        if text:
            return text
    h = hashlib.sha1(f"{doc.source or ''}\x00{doc.content}".encode("utf-8"))
    return h.hexdigest()[:16]
