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
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError

__all__ = ["CachedResponse", "ResponseCache", "cache_key", "default_cache_path"]

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


def cache_key(endpoint: str, model: str, api: str, sampling: Mapping[str, Any], prompt: str) -> str:
    """Return the hex SHA-256 that identifies one request (endpoint, model, api, sampling, prompt)."""
    payload = json.dumps({"endpoint": endpoint.rstrip("/"), "model": model, "api": api,
                          "sampling": dict(sampling), "prompt": prompt},
                         sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def default_cache_path() -> Path:
    """Return ``$XDG_CACHE_HOME/contextlab/responses.sqlite`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "contextlab" / "responses.sqlite"


class ResponseCache:
    """Responses by request key in one SQLite file (``":memory:"`` for a throwaway cache).

    Thread-safe: one connection behind a lock, each ``put`` committed at once.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        target = default_cache_path() if path is None else path
        self.path = str(target)
        if self.path != ":memory:":
            folder = Path(self.path).expanduser().parent
            if Path(self.path).expanduser().is_dir():
                raise InvalidInputError(f"cache {self.path!r} is a folder; give a file name", field="cache")
            folder.mkdir(parents=True, exist_ok=True)
            self.path = str(Path(self.path).expanduser())
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL" if self.path != ":memory:" else "PRAGMA journal_mode=MEMORY")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise InvalidInputError(f"cache {self.path!r} is not a contextlab response cache ({exc}); "
                                    "give another file or delete it", field="cache") from None
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedResponse | None:
        """Return the response stored under ``key``, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens, latency_ms, finish_reason "
                "FROM responses WHERE key = ?", (key,)).fetchone()
        return CachedResponse(*row) if row else None

    def put(self, key: str, endpoint: str, model: str, response: CachedResponse) -> None:
        """Store ``response`` under ``key`` and commit it (a later kill cannot lose it)."""
        import time

        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, endpoint, model, response.text, response.prompt_tokens, response.completion_tokens,
                 response.latency_ms, response.finish_reason, time.time()))

    def memo_get(self, key: str) -> str | None:
        """Return a remembered value (an endpoint's token count, say), or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM memo WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def memo_put(self, key: str, value: str) -> None:
        """Remember ``value`` under ``key`` (committed at once)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO memo VALUES (?, ?)", (key, value))

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the file (the cache cannot be used afterwards)."""
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"ResponseCache({self.path!r})"
