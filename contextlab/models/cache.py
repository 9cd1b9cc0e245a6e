"""A SQLite cache of model responses: nothing is asked twice, nothing already paid for is lost.

A response is keyed by the SHA-256 of the endpoint, the model, the API flavour, the sampling
settings and the exact prompt, so any change to one of them is a new question. Each response is
committed as it arrives (WAL journal), so a run killed at any moment keeps every answer it got
and a rerun resumes there. It also remembers what an endpoint counted (``memo``), so blocks fitted
in the model's tokens are fitted the same with the endpoint down. The file holds answers and token
counts, never an API key or a prompt.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import CacheError, InvalidInputError
from ..validation import is_finite_number
from .keys import scrub

__all__ = ["CachedResponse", "ResponseCache", "cache_key", "default_cache_path"]

# How long a run waits for another that holds the file (creating it, or keeping an answer).
_WAIT_S = 30.0
_WAL_TRIES = 5
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    latency_ms REAL,
    finish_reason TEXT,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS memo (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
)
"""


@dataclass(frozen=True)
class CachedResponse:
    """What a model returned for one prompt (``text`` is its whole reply)."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    finish_reason: str | None = None


def _count_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _well_formed(row: tuple[Any, ...]) -> bool:
    """Return True for ``(text, prompt_tokens, completion_tokens, latency_ms, finish_reason)`` of the right types."""
    text, prompt_tokens, completion_tokens, latency, reason = row
    return (
        isinstance(text, str)
        and _count_or_none(prompt_tokens)
        and _count_or_none(completion_tokens)
        and (latency is None or (is_finite_number(latency) and latency >= 0))
        and (reason is None or isinstance(reason, str))
    )


def cache_key(endpoint: str, model: str, api: str, sampling: Mapping[str, Any], prompt: str) -> str:
    """Return the hex SHA-256 that identifies one request (endpoint, model, api, sampling, prompt)."""
    payload = json.dumps(
        {"endpoint": endpoint.rstrip("/"), "model": model, "api": api, "sampling": dict(sampling), "prompt": prompt},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def default_cache_path() -> Path:
    """Return ``$XDG_CACHE_HOME/contextlab/responses.sqlite`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "contextlab" / "responses.sqlite"


_COLUMNS = {
    "responses": [
        "key",
        "endpoint",
        "model",
        "text",
        "prompt_tokens",
        "completion_tokens",
        "latency_ms",
        "finish_reason",
        "created",
    ],
    "memo": ["key", "value"],
}


def _connect(path: str, read_only: bool) -> sqlite3.Connection:
    """Return a connection to ``path``; read-only ones open without writing a byte (or a -wal file)."""
    if not read_only:  # journal mode and tables come after the schema check: another's file stays as it was
        return sqlite3.connect(path, timeout=_WAIT_S, check_same_thread=False, isolation_level=None)
    uri = f"file:{quote(path)}?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        if Path(path + "-wal").exists():
            raise
    # A WAL cache in a folder nobody may write: with no -wal file left, the file is all there is.
    return sqlite3.connect(uri + "&immutable=1", uri=True, check_same_thread=False, isolation_level=None)


def _check_schema(db: sqlite3.Connection, path: str) -> None:
    """Raise ``InvalidInputError`` when ``path`` holds other tables, or the cache's tables with other columns.

    contextlab never adds its tables to another program's database.
    """
    tables = sorted(
        row[0]
        for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not row[0].startswith("sqlite_")
    )
    others = [t for t in tables if t not in _COLUMNS]
    if others:
        raise InvalidInputError(
            f"cache {path!r} is another program's SQLite file (it holds the tables "
            f"{', '.join(others[:5])}); give another --cache file",
            field="cache",
        )
    for table, columns in _COLUMNS.items():
        found = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
        if found and found != columns:
            raise InvalidInputError(
                f"cache {path!r} is another program's SQLite file (its table {table} has the "
                f"columns {', '.join(found)}); give another --cache file or delete this one",
                field="cache",
            )


def _use_wal(db: sqlite3.Connection) -> None:
    """Switch the file to WAL, taking turns with a run that opens the same new file at this moment.

    SQLite says "locked" at once, without waiting, when two connections switch a file together: the
    one told so waits for the other's lock (``BEGIN IMMEDIATE`` waits, up to ``_WAIT_S``) and tries again.
    """
    for _ in range(_WAL_TRIES):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
    db.execute("PRAGMA journal_mode=WAL")


def _writable(path: str) -> bool:
    """Return True when ``path`` (and its folder, where SQLite keeps its -wal file) may be written.

    Tried for real, not asked of ``os.access``: an administrator may write a file whose mode
    says read-only, and nobody may write an immutable file or a read-only mount.
    """
    file = Path(path)
    try:
        with tempfile.TemporaryFile(dir=file.parent):
            pass
        if file.exists():
            os.close(os.open(file, os.O_RDWR))
    except OSError:
        return False
    return True


class ResponseCache:
    """Responses by request key in one SQLite file (``":memory:"`` for a throwaway cache).

    Thread-safe: one connection behind a lock, each ``put`` committed at once. A file that may
    not be written (or whose folder may not) is opened read-only: it serves what it holds and
    keeps nothing new (``read_only``, ``note``). A write that fails (a full disk) raises
    ``CacheError``; a stored value that is not a well-formed response is never served.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        target = default_cache_path() if path is None else path
        self.path = str(target)
        self.read_only = False
        #: Answers and counts that were not kept because the file is read-only.
        self.not_kept = 0
        if self.path != ":memory:":
            self.path = str(Path(self.path).expanduser())
            self.read_only = self._prepare_file()
        try:
            self._db = _connect(self.path, self.read_only)
            _check_schema(self._db, self.path)
            if not self.read_only:
                _use_wal(self._db)
                self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            if "locked" in str(exc):  # SQLite's busy: another run or program held the file longer than a run waits
                raise CacheError(
                    f"cache {self.path} is held by another program or run ({exc}) for more than {_WAIT_S:g} s; "
                    "give another --cache file, or rerun when it is done"
                ) from None
            raise InvalidInputError(
                f"cache {self.path!r} is not a contextlab response cache ({exc}); "
                "give another --cache file, or delete this one",
                field="cache",
            ) from None
        self._lock = threading.Lock()

    def _prepare_file(self) -> bool:
        """Return True when the cache file must be opened read-only; create its folder otherwise."""
        file = Path(self.path)
        if file.is_dir():
            raise InvalidInputError(f"cache {self.path!r} is a folder; give a file name", field="cache")
        if file.exists() and not file.is_file():  # never advise deleting /dev/null
            raise InvalidInputError(
                f"cache {self.path!r} is not a regular file (a device, a pipe or a socket); "
                "give a file name, or --no-cache",
                field="cache",
            )
        if file.exists() and not _writable(self.path):
            return True
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidInputError(
                f"cache {self.path!r} cannot be created ({exc.strerror}); give another --cache file, or --no-cache",
                field="cache",
            ) from None
        if not _writable(self.path):
            raise InvalidInputError(
                f"cache {self.path!r} cannot be created: its folder may not be written; give "
                "another --cache file, or --no-cache",
                field="cache",
            )
        return False

    @property
    def note(self) -> str | None:
        """Return the line to show when the cache keeps nothing new (read-only), else None."""
        if not self.read_only:
            return None
        return (
            f"cache {self.path} is read-only: it serves the answers it holds, and new answers are not kept "
            "(a rerun asks them again)"
        )

    def _write(self, sql: str, values: tuple[Any, ...]) -> None:
        """Run one write and commit it, or raise ``CacheError`` (a read-only cache skips it)."""
        if self.read_only:
            self.not_kept += 1
            return
        try:
            with self._lock:
                self._db.execute(sql, values)
        except sqlite3.Error as exc:
            raise CacheError(
                f"cache {self.path}: cannot keep an answer ({exc}); every answer kept so far is safe: "
                "free space (or give another --cache) and rerun to resume"
            ) from None

    def _read(self, sql: str, key: object) -> Any:
        try:
            with self._lock:
                return self._db.execute(sql, (key,)).fetchone()
        except sqlite3.Error as exc:
            raise CacheError(
                f"cache {self.path}: cannot be read ({exc}); give another --cache file, or --no-cache"
            ) from None

    def get(self, key: str) -> CachedResponse | None:
        """Return the response stored under ``key``, or None (also for a stored value that is not well formed)."""
        row = self._read(
            "SELECT text, prompt_tokens, completion_tokens, latency_ms, finish_reason FROM responses WHERE key = ?", key
        )
        if row is None or not _well_formed(row):
            return None
        return CachedResponse(scrub(row[0]), *row[1:])

    def put(self, key: str, endpoint: str, model: str, response: CachedResponse) -> None:
        """Store ``response`` under ``key`` and commit it (a later kill cannot lose it).

        A response that is not well formed is refused (``ValueError``): the cache never keeps one.
        """
        if not _well_formed(
            (
                response.text,
                response.prompt_tokens,
                response.completion_tokens,
                response.latency_ms,
                response.finish_reason,
            )
        ):
            raise ValueError(f"not a well-formed response: {response!r}")
        self._write(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                endpoint,
                model,
                scrub(response.text),
                response.prompt_tokens,
                response.completion_tokens,
                response.latency_ms,
                response.finish_reason,
                time.time(),
            ),
        )

    def memo_get(self, key: str) -> str | None:
        """Return a remembered value (an endpoint's token count, say), or None."""
        row = self._read("SELECT value FROM memo WHERE key = ?", key)
        return row[0] if row is not None and isinstance(row[0], str) else None

    def memo_put(self, key: str, value: str) -> None:
        """Remember ``value`` under ``key`` (committed at once)."""
        self._write("INSERT OR REPLACE INTO memo VALUES (?, ?)", (key, value))

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None if isinstance(key, str) else False

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the file (the cache cannot be used afterwards)."""
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"ResponseCache({self.path!r})"
