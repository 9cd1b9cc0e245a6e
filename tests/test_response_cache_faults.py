"""The response cache under faults: another program's file, a read-only file or folder, a full disk, bad rows.

Each test injects a fault into the cache file or its surroundings and checks that the cache
says so in one line naming the file, never keeps or serves a bad value, and loses nothing it
already held. A read-only cache still serves what it holds and says new answers are not kept.
The stored texts are plain strings written by the test (no model is asked anything here).
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from contextlab.errors import CacheError, InvalidInputError
from contextlab.models import ResponseCache
from contextlab.models.cache import CachedResponse

KEPT = CachedResponse("stored text", 12, 1, 30.5, "stop")


def _filled(path: Path) -> Path:
    cache = ResponseCache(path)
    cache.put("k1", "http://h/v1", "m", KEPT)
    cache.memo_put("tok:x", "7")
    cache.close()
    return path


def test_cache_faults_foreign_table_of_the_same_name_is_refused_and_left_alone(tmp_path):
    """Injects a fault: a SQLite file whose table `responses` has other columns."""
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE responses (id INTEGER, payload BLOB)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(InvalidInputError) as err:
        ResponseCache(path)
    assert str(err.value) == (
        f"cache {str(path)!r} is another program's SQLite file (its table responses has the "
        "columns id, payload); give another --cache file or delete this one"
    )
    assert err.value.field == "cache" and path.read_bytes() == before


def test_cache_faults_another_programs_database_gets_no_tables_added(tmp_path):
    """Injects a fault: `--cache` pointed at some other program's database."""
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE users (name TEXT)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(InvalidInputError, match="is another program's SQLite file \\(it holds the tables users\\)"):
        ResponseCache(path)
    assert path.read_bytes() == before
    assert [r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")] == ["users"]


def test_cache_faults_read_only_file_serves_what_it_holds_and_keeps_nothing_new(tmp_path, read_only):
    """Injects a fault: the cache file may not be written."""
    path = read_only(_filled(tmp_path / "c.sqlite"))
    before = path.read_bytes()
    cache = ResponseCache(path)
    assert cache.read_only and cache.get("k1") == KEPT and "k1" in cache and len(cache) == 1
    cache.put("k2", "http://h/v1", "m", CachedResponse("new", 3, 1, 2.0, "stop"))
    cache.memo_put("tok:y", "3")
    assert cache.get("k2") is None and cache.not_kept == 2
    assert cache.note == (
        f"cache {path} is read-only: it serves the answers it holds, and new answers are not kept "
        "(a rerun asks them again)"
    )
    cache.close()
    assert path.read_bytes() == before


def test_cache_faults_read_only_folder_with_a_good_cache_serves_it(tmp_path, read_only):
    """Injects a fault: the folder holding a good cache may not be written (SQLite's -wal file cannot be made)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    _filled(folder / "c.sqlite")
    read_only(folder)
    cache = ResponseCache(folder / "c.sqlite")
    assert cache.read_only and cache.get("k1") == KEPT and cache.memo_get("tok:x") == "7"
    assert sorted(p.name for p in folder.iterdir()) == ["c.sqlite"]


def test_cache_faults_new_cache_in_a_read_only_folder_is_one_line(tmp_path, read_only):
    """Injects a fault: `--cache` names a new file in a folder that may not be written."""
    folder = read_only(tmp_path)
    with pytest.raises(InvalidInputError) as err:
        ResponseCache(folder / "new.sqlite")
    assert str(err.value) == (
        f"cache {str(folder / 'new.sqlite')!r} cannot be created: its folder may not be "
        "written; give another --cache file, or --no-cache"
    )


@pytest.mark.parametrize("kind", ["device", "pipe"])
def test_cache_faults_cache_that_is_not_a_regular_file_is_refused_not_advised_deleted(tmp_path, kind):
    """Injects a fault: `--cache /dev/null`, or a named pipe (once 'a disk I/O error ... delete this one')."""
    import os

    if kind == "device":
        path = Path(os.devnull)
    else:
        path = tmp_path / "pipe"
        os.mkfifo(path)
    with pytest.raises(InvalidInputError) as err:
        ResponseCache(path)
    assert str(err.value) == (
        f"cache {str(path)!r} is not a regular file (a device, a pipe or a socket); give a file name, or --no-cache"
    )
    assert err.value.field == "cache" and path.exists()


def test_cache_faults_full_disk_mid_run_is_one_line_and_keeps_what_was_stored(tmp_path):
    """Injects a fault: SQLite reports the disk full (the file may not grow) while a run stores answers."""
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    cache.put("k1", "http://h/v1", "m", KEPT)
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: SQLITE_FULL on the next page
    with pytest.raises(CacheError) as err:
        for i in range(50):
            cache.put(f"k{i + 2}", "http://h/v1", "m", CachedResponse("x" * 5000, 1, 1, 1.0, "stop"))
    assert str(err.value) == (
        f"cache {path}: cannot keep an answer (database or disk is full); every answer kept so "
        "far is safe: free space (or give another --cache) and rerun to resume"
    )
    cache.close()
    assert ResponseCache(path).get("k1") == KEPT


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("text", b"\x00blob"),
        ("prompt_tokens", -3),
        ("completion_tokens", "many"),
        ("latency_ms", "slow"),
        ("finish_reason", b"\x01"),
    ],
)
def test_cache_faults_a_stored_value_that_is_not_well_formed_is_never_served(tmp_path, column, value):
    """Injects a fault: a row of the cache edited to hold a value of the wrong type."""
    path = _filled(tmp_path / "c.sqlite")
    db = sqlite3.connect(path)
    db.execute(f"UPDATE responses SET {column} = ? WHERE key = 'k1'", (value,))
    db.commit()
    db.close()
    cache = ResponseCache(path)
    assert cache.get("k1") is None and "k1" not in cache


def test_cache_faults_a_response_that_is_not_well_formed_is_never_stored(tmp_path):
    """Injects a fault: a caller hands the cache a negative token count."""
    cache = ResponseCache(tmp_path / "c.sqlite")
    with pytest.raises(ValueError, match="not a well-formed response"):
        cache.put("k", "http://h/v1", "m", CachedResponse("x", -1, 1, 1.0))
    assert len(cache) == 0


def test_cache_faults_the_key_is_scrubbed_from_what_is_stored_and_served(tmp_path, monkeypatch):
    """Injects a fault: a text holding the configured key (an echoing server's, or an older cache's)."""
    secret = "sk-contextlab-test-SECRET-cache-0123456789"
    monkeypatch.setenv("CONTEXTLAB_API_KEY", secret)
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", "http://h/v1", "m", CachedResponse(f"Bearer {secret}", 1, 1, 1.0))
    assert cache.get("k").text == "Bearer [key]"
    cache.close()
    assert secret.encode() not in (tmp_path / "c.sqlite").read_bytes()


def test_cache_faults_run_opening_a_new_cache_another_run_is_creating_waits_and_works(tmp_path):
    """Injects a fault of timing: two runs start together on a new cache; the first holds the file mid-creation.

    The second waits for the first to finish creating it, then works; it is never told that a good
    cache is another program's file (once "not a contextlab response cache (database is locked) ...
    delete this one", at once).
    """
    path = tmp_path / "new" / "c.sqlite"
    path.parent.mkdir()
    creating = sqlite3.connect(path, isolation_level=None)
    creating.execute("BEGIN IMMEDIATE")  # the first run, one of the cache's two tables made
    creating.execute("CREATE TABLE memo (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    failures: list[str] = []

    def second_run() -> None:
        try:
            cache = ResponseCache(path)
            cache.put("k1", "http://h/v1", "m", KEPT)
            cache.close()
        except Exception as exc:  # the finding: what the second run was told
            failures.append(f"{type(exc).__name__}: {exc}")

    second = threading.Thread(target=second_run)
    second.start()
    second.join(0.5)  # bounded: today's second run has given up by now; a waiting one goes on after the commit
    creating.execute("COMMIT")
    creating.close()
    second.join()
    assert failures == []
    assert ResponseCache(path).get("k1") == KEPT


def test_cache_faults_new_cache_held_longer_than_a_run_waits_is_said_held_not_foreign(tmp_path, monkeypatch):
    """Injects a fault: another program holds a new cache file's lock past the wait (shortened here to 0.2 s)."""
    from contextlab.models import cache as cache_module

    path = tmp_path / "c.sqlite"
    monkeypatch.setattr(cache_module, "_WAIT_S", 0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE memo (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    with pytest.raises(CacheError) as err:
        ResponseCache(path)
    holder.execute("ROLLBACK")
    assert str(err.value) == (
        f"cache {path} is held by another program or run (database is locked) for more than 0.2 s; "
        "give another --cache file, or rerun when it is done"
    )
    assert len(ResponseCache(path)) == 0  # once let go, the file is made a cache
