"""The store's SQLite file: opening it (read-write or read-only), its schema, and its errors.

Ordinary conditions a user meets are one clear ``StoreError`` each, never a raw ``sqlite3``
error: a damaged file, a file that is another program's database, a read-only file or folder,
a store another process keeps locked.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from ..errors import StoreError
from .terms import index_text

__all__ = [
    "SCHEMA_VERSION",
    "BUSY_TIMEOUT_S",
    "connect",
    "prepare_schema",
    "check_schema",
    "store_errors",
    "read_only_reason",
    "hot_journal",
    "roll_back_quietly",
]

# 2: the index holds ``terms.index_text`` of each document (1 held the raw text).
# 3: each document records the file it was indexed from (``origin``).
SCHEMA_VERSION = 3
#: How long a write waits for another process's write to finish before giving up.
BUSY_TIMEOUT_S = 30.0
_TABLES = {"documents", "documents_fts"}
# FTS5 keeps its index in these tables beside ``documents_fts``; they are the store's own.
_FTS_SHADOWS = ("documents_fts_",)


def read_only_reason(path: str) -> str | None:
    """Return why the store at ``path`` cannot be written ("the file is read-only", ...), or None."""
    file = Path(path)
    if file.exists() and not os.access(file, os.W_OK):
        return "the file is read-only"
    if not os.access(file.parent, os.W_OK):
        return "its folder is read-only"
    return None


def connect(path: str, *, memory: bool, read_only: bool) -> sqlite3.Connection:
    """Return a connection to the store at ``path``; a read-only one never writes a byte to it."""
    with store_errors(path, "open"):
        if read_only:
            conn = _connect_read_only(path)
        else:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        if not memory and not read_only:
            _leave_wal(conn)
    return conn


def _leave_wal(conn: sqlite3.Connection) -> None:
    """Put a store an older version kept in WAL mode back in SQLite's rollback-journal mode.

    With a rollback journal a reader opened read-only creates no file beside the store (WAL
    readers need ``-wal`` and ``-shm`` files), and reading from a read-only folder works.
    Readers still never see half of a write: a write commits as a whole, and waits (up to
    ``BUSY_TIMEOUT_S``) for the readers of the moment to finish.
    """
    if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
        # Another process may have it open (OperationalError): a later writer switches it.
        with contextlib.suppress(sqlite3.OperationalError):
            conn.execute("PRAGMA journal_mode = DELETE")


def hot_journal(path: str) -> str | None:
    """Return the path of the rollback journal a killed or failed write left beside the store, or None.

    A journal with content and no writer at work means a write stopped halfway (the process
    was killed, the disk filled, the power went): only a connection that may write can undo it.
    """
    journal = f"{path}-journal"
    try:
        return journal if os.path.getsize(journal) > 0 else None
    except OSError:
        return None


def _roll_back(path: str, journal: str) -> None:
    """Undo a write a killed process left half done, or say exactly what to do when it cannot be."""
    why = read_only_reason(path)
    if why is None:
        # A connection that may write rolls the journal back as it first reads the file.
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute("PRAGMA user_version").fetchone()
        finally:
            conn.close()
        return
    raise StoreError(
        f"store {path!r} was left halfway through a write (a killed process or a full disk left "
        f"{os.path.basename(journal)!r} beside it), and only a process that may write there can "
        f"undo it, but {why}: make it writable and open the store again (that undoes the "
        "write), or copy the store and its journal together into a folder you can write to "
        "and open the copy"
    )


def _connect_read_only(path: str) -> sqlite3.Connection:
    journal = hot_journal(path)
    if journal is not None:
        _roll_back(path, journal)
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
    try:
        conn.execute("PRAGMA user_version").fetchone()
    except sqlite3.OperationalError:
        # A store an older version left in WAL mode, in a read-only folder: SQLite cannot
        # create the shared-memory file WAL reads through. Nobody can write there either, so
        # the file is read as immutable.
        conn.close()
        if read_only_reason(path) != "its folder is read-only":
            raise
        conn = sqlite3.connect(f"{uri}&immutable=1", uri=True, check_same_thread=False, isolation_level=None)
    return conn


def check_schema(conn: sqlite3.Connection, path: str) -> int:
    """Return the store's schema version; raise when the file is another program's database."""
    version, tables = _read_schema(conn)
    if not _is_store(version, tables):
        raise StoreError(
            f"{path!r} is a SQLite database but not a contextlab store (schema version "
            f"{version}, tables: {', '.join(sorted(tables)) or 'none'}); give the path of a "
            "contextlab store or of a new file"
        )
    return version


def _read_schema(conn: sqlite3.Connection) -> tuple[int, set[str]]:
    """Return the schema version and table names, read in one transaction (one snapshot).

    Read in two statements outside a transaction, another process creating the store could
    commit in between: version 0 with the tables already there, which is no store at all.
    """
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        if own:
            conn.execute("COMMIT")
    return version, tables


def _is_store(version: int, tables: set[str]) -> bool:
    """Return True for a contextlab store (of any version) or a database with no tables of ours."""
    foreign = {t for t in tables - _TABLES if not t.startswith(_FTS_SHADOWS) and not t.startswith("sqlite_")}
    known = 0 < version <= SCHEMA_VERSION and tables >= _TABLES
    return not foreign and (known or (version == 0 and not tables & _TABLES))


def prepare_schema(conn: sqlite3.Connection, path: str) -> None:
    """Create or upgrade the store's tables; safe when many processes open a new store at once."""
    version, tables = _read_schema(conn)
    if version == SCHEMA_VERSION and _is_store(version, tables):
        return  # the usual case, read without the write lock
    # Anything else is decided inside the write lock, where no other process can be halfway.
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = check_schema(conn, path)
        if version < SCHEMA_VERSION:
            _upgrade(conn, version)
        conn.execute("COMMIT")
    except BaseException:
        roll_back_quietly(conn)
        raise


def roll_back_quietly(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already, keeping the error that caused it.

    On a full disk or an I/O error SQLite may roll the transaction back itself; a second
    ROLLBACK would then raise "cannot rollback - no transaction is active" and hide the cause.
    """
    if not conn.in_transaction:
        return
    # On an error here the original error says more; a writer opening the store undoes the journal.
    with contextlib.suppress(sqlite3.Error):
        conn.execute("ROLLBACK")


def _upgrade(conn: sqlite3.Connection, version: int) -> None:
    if version == 0:
        conn.execute(
            """CREATE TABLE documents (
                   rowid INTEGER PRIMARY KEY,
                   id TEXT NOT NULL UNIQUE,
                   content TEXT NOT NULL,
                   source TEXT,
                   metadata TEXT NOT NULL DEFAULT '{}',
                   timestamp REAL,
                   importance REAL NOT NULL DEFAULT 0.5,
                   origin TEXT
               )"""
        )
        # Porter stemming so "documents" finds "document"; diacritics folded.
        conn.execute(
            "CREATE VIRTUAL TABLE documents_fts USING fts5(content, tokenize = 'porter unicode61 remove_diacritics 2')"
        )
    if version == 1:
        # Re-index what an older version stored, with the tokenizer queries use now.
        conn.create_function("contextlab_index_text", 1, index_text, deterministic=True)
        conn.execute("DELETE FROM documents_fts")
        conn.execute(
            "INSERT INTO documents_fts (rowid, content) SELECT rowid, contextlab_index_text(content) FROM documents"
        )
    if 0 < version < 3:
        conn.execute("ALTER TABLE documents ADD COLUMN origin TEXT")
    conn.execute("CREATE INDEX IF NOT EXISTS documents_origin ON documents (origin)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@contextmanager
def store_errors(path: str, action: str) -> Iterator[None]:
    """Turn a ``sqlite3`` error raised inside into one ``StoreError`` line that says what to do."""
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(_explain(exc, path, action)) from None


def _explain(exc: sqlite3.Error, path: str, action: str) -> str:
    text = str(exc)
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        why = read_only_reason(path) or "it is open read-only"
        return f"cannot {action} store {path!r}: {why}; search it as it is, or copy it somewhere writable to change it"
    if "not a database" in low:
        return (
            f"cannot {action} store {path!r}: the file is not a SQLite database, or is "
            "damaged; give the path of a contextlab store or of a new file"
        )
    if "malformed" in low or "corrupt" in low:
        return (
            f"store {path!r} is damaged ({text}); index your files into a new store, or restore this one from a backup"
        )
    if "disk is full" in low or "database or disk is full" in low:
        return (
            f"cannot {action} store {path!r}: the disk is full; nothing of this write was "
            "stored (the store is as it was): free some space and try again"
        )
    if "disk i/o error" in low:
        return (
            f"cannot {action} store {path!r}: a disk I/O error (a full disk, a removed drive "
            "or a failing one); nothing of this write was stored: check the disk and try again"
        )
    if "locked" in low or "busy" in low:
        return (
            f"cannot {action} store {path!r}: another process kept it locked for over "
            f"{BUSY_TIMEOUT_S:g} s; try again when it has finished"
        )
    if "unable to open" in low:
        return f"cannot {action} store {path!r}: {text}; check the path and its permissions"
    return f"cannot {action} store {path!r}: {text}"
