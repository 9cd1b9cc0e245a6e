"""The SQLite FTS5 store against real files, and the query words it searches for."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import threading
from pathlib import Path

import pytest

from contextlab.errors import InvalidInputError, StoreError
from contextlab.retrieval import sqlite as sqlite_module
from contextlab.retrieval.injection import MemoryBackend, RetrievalResult
from contextlab.retrieval.sqlite import SCHEMA_VERSION, check_schema
from contextlab.retrieval.store import SQLiteBackend
from contextlab.retrieval.terms import fts_query, query_terms, words
from contextlab.types import Document

# -- fts_query -----------------------------------------------------------------------------


def test_fts_query_quotes_words_and_drops_syntax():
    assert fts_query('"Cats" AND (dogs* -NOT) col:x ^z NEAR(b c)') == (
        '"cats" OR "dogs" OR "col" OR "x" OR "z" OR "near" OR "b" OR "c"',
        ["cats", "dogs", "col", "x", "z", "near", "b", "c"],
    )


def test_fts_query_keeps_stopwords_when_nothing_else_is_left():
    assert fts_query("What is the refund policy?")[1] == ["refund", "policy"]
    assert fts_query("to be or not to be")[1] == ["to", "be", "or", "not"]


def test_fts_query_deduplicates_and_handles_no_words():
    assert fts_query("x x X")[1] == ["x"]
    assert fts_query("?!* --- ()") == ("", [])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("refund's", ["refund"]),
        ("What’s the refund policy?", ["what", "the", "refund", "policy"]),
        ("I'm asking for a refund", ["i", "asking", "for", "a", "refund"]),
        ("they'll, we've, you'd, they're", ["they", "we", "you", "they"]),
        ("don't, won't, can't, isn't", ["do", "not", "will", "not", "can", "not", "is", "not"]),
        ("O'Brien's rock'n'roll", ["o", "brien", "rock", "n", "roll"]),
        ("students' grades", ["students", "grades"]),
    ],
)
def test_words_undo_contractions_and_possessives(text, expected):
    assert words(text) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("refund's", ["refund"]),
        ("what's the refund policy", ["refund", "policy"]),
        ("I'm asking for a refund", ["asking", "refund"]),
        ("why doesn't my refund show up", ["refund", "show"]),
    ],
)
def test_query_terms_are_the_words_a_person_meant(query, expected):
    assert query_terms(query) == expected


def _refund_and_postmortems() -> list[Document]:
    docs = [Document("Refund policy: a refund goes back to the original card within 14 days.", source="refund.md")]
    for i in range(6):
        docs.append(
            Document(
                f"Postmortem {i}: the service's latency spiked and the team's pager didn't fire. I'm "
                "sure it's the cache's eviction; we'd seen the db's p99 climb while I'm on call.",
                source=f"postmortem-{i}.md",
            )
        )
    return docs


@pytest.mark.parametrize(
    "query", ["refund's", "what's the refund policy", "I'm asking for a refund", "we'd like the refund"]
)
def test_sqlite_backend_contractions_do_not_hijack_ranking(query):
    store = SQLiteBackend()
    store.add(_refund_and_postmortems())
    hits = store.retrieve(query, top_k=3)
    assert [h.source for h in hits] == ["refund.md"]


def test_sqlite_backend_indexes_with_the_query_tokenizer():
    store = SQLiteBackend()
    store.add([Document("The cache's eviction policy", source="a"), Document("s m t d", source="b")])
    assert [h.source for h in store.retrieve("cache", top_k=5)] == ["a"]
    # The pieces a contraction leaves are not indexed as words of document a.
    assert [h.source for h in store.retrieve("s", top_k=5)] == ["b"]


def test_sqlite_backend_reindexes_a_version_1_store(tmp_path: Path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE documents (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, content TEXT"
        " NOT NULL, source TEXT, metadata TEXT NOT NULL DEFAULT '{}', timestamp REAL,"
        " importance REAL NOT NULL DEFAULT 0.5);"
        "CREATE VIRTUAL TABLE documents_fts USING fts5(content,"
        " tokenize = 'porter unicode61 remove_diacritics 2');"
        "INSERT INTO documents (id, content, source) VALUES ('x', 'the cache''s eviction', 'a');"
        "INSERT INTO documents_fts (rowid, content) VALUES (1, 'the cache''s eviction');"
        "PRAGMA user_version = 1;"
    )
    conn.close()
    with SQLiteBackend(path) as store:
        assert store.retrieve("s", top_k=5) == []
        assert [h.id for h in store.retrieve("cache's", top_k=5)] == ["x"]


def test_sqlite_backend_common_topic_word_still_counts_in_small_sets():
    store = SQLiteBackend()
    store.add(
        [
            Document("refunds take five days", source="r1"),
            Document("refunds need a receipt", source="r2"),
            Document("refunds for gift cards are not possible", source="r3"),
            Document("shipping is free over fifty dollars and fast", source="s"),
        ]
    )
    hits = store.retrieve("how do refunds and returns work", top_k=4)
    assert {h.source for h in hits} == {"r1", "r2", "r3"}
    # FTS5 gives "refunds" (in 3 of 4) an IDF of 1e-6; the ceiling shrinks with it, so the
    # word still scores what a once-named word scores (1 / 2.2 at average length).
    assert all(h.score > 0.4 for h in hits)


# -- SQLiteBackend -------------------------------------------------------------------------


CORPUS = [
    Document("alpha common filler", source="a"),
    Document("beta common filler", source="b"),
    Document("gamma common filler", source="c"),
    Document("delta common filler", source="d"),
]


def test_sqlite_backend_satisfies_memory_backend_protocol():
    assert isinstance(SQLiteBackend(), MemoryBackend)


def test_sqlite_backend_add_returns_ids_and_counts():
    store = SQLiteBackend()
    ids = store.add(CORPUS)
    assert len(ids) == 4 and len(set(ids)) == 4 and len(store) == 4
    assert store.ids() == ids


def test_sqlite_backend_ranks_best_first_with_scores_in_unit_interval():
    store = SQLiteBackend()
    store.add(
        [
            Document("solar panels convert sunlight"),
            Document("solar solar energy panels"),
            Document("wind turbines"),
            Document("panels of judges"),
        ]
    )
    hits = store.retrieve("solar panels", top_k=10)
    assert [h.content for h in hits][:2] == ["solar solar energy panels", "solar panels convert sunlight"]
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].metadata["bm25"] > hits[-1].metadata["bm25"] > 0


def test_sqlite_backend_score_is_share_of_the_highest_bm25_the_query_can_reach():
    # Every query word at saturation 1.0 (once, average length) is 1 / (k1 + 1) of the ceiling.
    store = SQLiteBackend()
    store.add(CORPUS)
    [hit] = store.retrieve("alpha", top_k=5)
    assert hit.source == "a" and hit.score == pytest.approx(0.454545, abs=1e-6)
    scores = {h.source: h.score for h in store.retrieve("alpha beta", top_k=5)}
    assert scores == pytest.approx({"a": 0.227273, "b": 0.227273}, abs=1e-6)


def test_sqlite_backend_words_absent_from_store_do_not_lower_scores():
    store = SQLiteBackend()
    store.add(CORPUS)
    [hit] = store.retrieve("how does alpha zzzunknown", top_k=5)
    assert hit.source == "a" and hit.score == pytest.approx(0.454545, abs=1e-6)


def test_sqlite_backend_respects_top_k_and_no_match():
    store = SQLiteBackend()
    store.add(CORPUS)
    assert len(store.retrieve("common", top_k=2)) == 2
    assert store.retrieve("common", top_k=0) == []
    assert store.retrieve("nothing here", top_k=5) == []
    assert store.retrieve("", top_k=5) == []


def test_sqlite_backend_stems_words():
    store = SQLiteBackend()
    store.add([Document("running documents")])
    assert len(store.retrieve("document runs", top_k=5)) == 1


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "'",
        '"unbalanced',
        "AND",
        "OR NOT",
        "*",
        "alpha*",
        "-alpha",
        "(",
        "alpha)",
        "NEAR(alpha",
        "col:alpha",
        "^alpha",
        "alpha AND",
        '"" AND ""',
        "alpha + beta",
        "{alpha}",
        "\x00",
        "δ ελληνικά",
        "a" * 5000,
        "; DROP TABLE documents; --",
    ],
)
def test_sqlite_backend_user_text_is_never_query_syntax(query):
    store = SQLiteBackend()
    store.add(CORPUS)
    hits = store.retrieve(query, top_k=5)
    assert all(isinstance(h, RetrievalResult) for h in hits)
    assert len(store) == 4


def test_sqlite_backend_operator_words_are_searched_as_words():
    store = SQLiteBackend()
    store.add([Document("to be or not to be"), Document("and then some")])
    assert [h.content for h in store.retrieve("NOT", top_k=5)] == ["to be or not to be"]


@pytest.mark.parametrize(
    "bad,match",
    [
        ({"query": 5, "top_k": 1}, "query must be a string, got int"),
        ({"query": "q", "top_k": -1}, r"top_k must be a whole number >= 0, got -1"),
        ({"query": "q", "top_k": 10**23}, r"top_k must be a whole number <= 1,000,000, got 1000"),
        (
            {"query": "q", "top_k": 10**400},
            r"top_k must be a whole number <= 1,000,000, got 1000000000000\.\.\.0+ \(401 digits\)",
        ),
    ],
)
def test_sqlite_backend_retrieve_rejects_bad_arguments(bad, match):
    with pytest.raises(ValueError, match=match):
        SQLiteBackend().retrieve(**bad)


def test_sqlite_backend_keeps_metadata_source_and_ids():
    store = SQLiteBackend()
    [doc_id] = store.add(
        [Document("alpha", source="s", metadata={"id": "doc-7", "page": 2}, timestamp=5.0, importance=0.9)]
    )
    assert doc_id == "doc-7"
    [hit] = store.retrieve("alpha", top_k=1)
    assert (hit.id, hit.source, hit.metadata["page"], hit.metadata["importance"]) == ("doc-7", "s", 2, 0.9)
    assert store.get("doc-7") == Document(
        "alpha", source="s", metadata={"id": "doc-7", "page": 2}, timestamp=5.0, importance=0.9
    )
    assert store.get("missing") is None


def test_sqlite_backend_same_document_twice_is_replaced_not_duplicated():
    store = SQLiteBackend()
    first = store.add([Document("same text", source="s")])
    second = store.add([Document("same text", source="s")])
    assert first == second and len(store) == 1


def test_sqlite_backend_explicit_ids_replace():
    store = SQLiteBackend()
    store.add([Document("old words")], ids=["x"])
    store.add([Document("new words")], ids=["x"])
    assert len(store) == 1 and store.retrieve("old", top_k=5) == []
    assert store.retrieve("new", top_k=5)[0].id == "x"


@pytest.mark.parametrize(
    "docs,kwargs,match",
    [
        ([Document("")], {}, r"document 0: content must be non-empty text"),
        ([Document("ok"), 5], {}, r"document 1: expected a Document or a string, got int"),
        ([Document("ok")], {"ids": ["a", "b"]}, r"got 2 ids for 1 documents"),
    ],
)
def test_sqlite_backend_add_rejects_bad_documents(docs, kwargs, match):
    store = SQLiteBackend()
    with pytest.raises(ValueError, match=match):
        store.add(docs, **kwargs)
    assert len(store) == 0


def test_sqlite_backend_remove_deletes_and_counts():
    store = SQLiteBackend()
    ids = store.add(CORPUS)
    assert store.remove([ids[0], "unknown"]) == 1
    assert len(store) == 3 and store.retrieve("alpha", top_k=5) == []
    assert store.remove([]) == 0


def test_sqlite_backend_persists_across_reopen(tmp_path: Path):
    path = tmp_path / "store.db"
    with SQLiteBackend(path) as store:
        ids = store.add(CORPUS)
    with SQLiteBackend(path) as store:
        assert len(store) == 4
        assert store.retrieve("gamma", top_k=1)[0].source == "c"
        store.remove([ids[2]])
    with SQLiteBackend(path) as store:
        assert len(store) == 3 and store.retrieve("gamma", top_k=1) == []


def test_sqlite_backend_second_handle_sees_writes(tmp_path: Path):
    path = tmp_path / "store.db"
    writer, reader = SQLiteBackend(path), SQLiteBackend(path)
    writer.add([Document("shared knowledge")])
    assert reader.retrieve("knowledge", top_k=1)[0].content == "shared knowledge"
    writer.close()
    reader.close()


def test_sqlite_backend_uses_a_rollback_journal_so_readers_create_no_file(tmp_path: Path):
    with SQLiteBackend(tmp_path / "s.db") as store:
        store.add([Document("some words")])
    before = sorted(p.name for p in tmp_path.iterdir())
    with SQLiteBackend(tmp_path / "s.db", read_only=True) as store:
        assert store.retrieve("words", top_k=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == before == ["s.db"]


def test_sqlite_backend_moves_an_older_wal_store_to_the_rollback_journal(tmp_path: Path):
    with SQLiteBackend(tmp_path / "s.db") as store:
        store.add([Document("some words")])
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    with SQLiteBackend(tmp_path / "s.db") as store:
        assert len(store) == 1
    conn = sqlite3.connect(tmp_path / "s.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


@pytest.mark.parametrize("use_file", [True, False])
def test_sqlite_backend_concurrent_readers_and_writer_lose_nothing(tmp_path: Path, use_file: bool):
    store = SQLiteBackend(tmp_path / "c.db" if use_file else ":memory:")
    batches = [[Document(f"entry number {b}-{i} topic{b}") for i in range(20)] for b in range(15)]
    start = threading.Barrier(5)
    writer_done = threading.Event()
    errors: list[BaseException] = []
    seen_counts: list[list[int]] = [[] for _ in range(4)]

    def write() -> None:
        try:
            start.wait()
            for batch in batches:
                store.add(batch)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            writer_done.set()

    def read(k: int) -> None:
        try:
            start.wait()
            while True:  # at least one read, then until the writer is done
                finished = writer_done.is_set()
                hits = store.retrieve("entry topic3", top_k=50)
                assert all(0.0 <= h.score <= 1.0 for h in hits)
                seen_counts[k].append(len(store))
                if finished:
                    break
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=write)] + [threading.Thread(target=read, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store) == 300
    assert len(store.retrieve("topic7", top_k=100)) == 20
    for counts in seen_counts:  # a reader never sees a half-written batch or a count go back
        assert counts and counts == sorted(counts) and all(c % 20 == 0 for c in counts)
        assert counts[-1] == 300
    store.close()


def test_sqlite_backend_rejects_a_file_that_is_not_a_database(tmp_path: Path):
    path = tmp_path / "notes.db"
    path.write_text("just some text, not sqlite" * 100)
    with pytest.raises(
        StoreError, match=r"cannot open store .*notes\.db.*not a SQLite database.*a contextlab store or of a new file"
    ):
        SQLiteBackend(path)


def test_sqlite_backend_rejects_another_apps_database(tmp_path: Path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"is a SQLite database but not a contextlab store .*users"):
        SQLiteBackend(path)


def test_sqlite_backend_missing_folder_is_clear_error(tmp_path: Path):
    with pytest.raises(StoreError, match=r"folder .* does not exist"):
        SQLiteBackend(tmp_path / "no" / "such" / "store.db")


def test_sqlite_backend_closed_store_is_clear_error():
    store = SQLiteBackend()
    store.close()
    with pytest.raises(StoreError, match="is closed; open a new SQLiteBackend"):
        store.retrieve("x")


def test_store_error_is_value_error():
    assert issubclass(StoreError, ValueError) and StoreError.__doc__


# -- properties ----------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PROPERTY_STORE = SQLiteBackend()
_PROPERTY_STORE.add(
    CORPUS + [Document('quotes " and * and (parens) AND NOT -minus'), Document("ünïcödé wörds ελληνικά 日本語")]
)


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=80), top_k=st.integers(0, 10))
def test_sqlite_backend_any_query_gives_bounded_sorted_scores(query: str, top_k: int):
    hits = _PROPERTY_STORE.retrieve(query, top_k=top_k)
    assert len(hits) <= top_k
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


# -- identity: re-indexing replaces --------------------------------------------------------


def test_sqlite_backend_edited_document_replaces_the_old_version():
    store = SQLiteBackend()
    store.add([Document("Refunds take 30 days to arrive.", source="refunds.md")])
    store.add([Document("Refunds take 5 days to arrive.", source="refunds.md")])
    assert len(store) == 1
    assert [h.content for h in store.retrieve("refunds days", top_k=5)] == ["Refunds take 5 days to arrive."]


def test_sqlite_backend_documents_sharing_a_source_keep_their_places():
    store = SQLiteBackend()
    ids = store.add(
        [Document("first part", source="s"), Document("second part", source="s"), Document("no source at all")]
    )
    assert ids[:2] == ["s", "s#2"] and len(ids[2]) == 16


def test_sqlite_backend_index_replaces_a_file_and_reports_what_changed():
    store = SQLiteBackend()
    first = store.index(
        [Document("alpha one", source="a"), Document("beta two", source="b"), Document("gamma three", source="c")],
        origin="notes.jsonl",
    )
    assert (first.added, first.replaced, first.unchanged, first.removed) == (3, 0, 0, 0)
    second = store.index([Document("alpha one", source="a"), Document("beta EDITED", source="b")], origin="notes.jsonl")
    assert (second.added, second.replaced, second.unchanged, second.removed) == (0, 1, 1, 1)
    assert second.stored == 2 and len(store) == 2
    assert store.retrieve("gamma", top_k=5) == []
    assert [h.content for h in store.retrieve("beta", top_k=5)] == ["beta EDITED"]


def test_sqlite_backend_index_knows_a_sourced_document_by_its_source_across_files():
    store = SQLiteBackend()
    docs = [Document("alpha one", source="a"), Document("beta two", source="b")]
    store.index(docs, origin="a.jsonl")
    again = store.index(docs, origin="b.jsonl")  # the same documents, from another file
    assert (again.added, again.replaced, again.unchanged) == (0, 0, 2)
    assert len(store) == 2 and sorted(store.ids()) == ["a", "b"]
    assert len(store.retrieve("alpha", top_k=5)) == 1
    # b.jsonl owns them now: re-indexing a.jsonl without them removes nothing of b.jsonl's.
    assert store.index([Document("alpha one", source="a")], origin="a.jsonl").removed == 0
    edited = store.index([Document("beta EDITED", source="b")], origin="c.jsonl")
    assert (edited.added, edited.replaced) == (0, 1) and len(store) == 2


def test_sqlite_backend_index_knows_an_unsourced_document_by_file_and_position():
    store = SQLiteBackend()
    store.index([Document("same text"), Document("other text")], origin="a.jsonl")
    store.index([Document("same text"), Document("other text")], origin="b.jsonl")
    assert sorted(store.ids()) == ["a.jsonl#1", "a.jsonl#2", "b.jsonl#1", "b.jsonl#2"]


def test_sqlite_backend_index_without_origin_adds_and_never_removes():
    store = SQLiteBackend()
    first = store.index([Document("apples are red")], origin=None)
    second = store.index([Document("bananas are yellow")], origin=None)
    assert (first.added, second.added, second.replaced, second.removed) == (1, 1, 0, 0)
    assert [h.content for h in store.retrieve("apples", top_k=5)] == ["apples are red"]
    same = store.index([Document("apples are red"), Document("new", source="s")], origin=None)
    assert (same.added, same.unchanged) == (1, 1) and len(store) == 3


def test_sqlite_backend_remove_sources_by_file_or_by_source():
    store = SQLiteBackend()
    store.index([Document("one"), Document("two")], origin="docs/a.md")
    store.add([Document("three", source="web")])
    assert store.remove_sources(["docs/a.md", "web", "nothing"]) == {"docs/a.md": 2, "web": 1, "nothing": 0}
    assert len(store) == 0


# -- ordinary conditions: many processes, damaged files, read-only places -------------------


def _index_in_child(path: str, k: int, start, results) -> None:
    try:
        start.wait()
        with SQLiteBackend(path) as store:
            store.index(
                [Document(f"process {k} document {i} about topic{k}") for i in range(5)], origin=f"file-{k}.txt"
            )
        results.put((k, "ok"))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        results.put((k, f"{type(exc).__name__}: {exc}"))


@pytest.mark.slow
def test_sqlite_backend_four_processes_index_into_a_new_store_at_once(tmp_path: Path):
    ctx = multiprocessing.get_context("fork")
    # Before the schema check read its version and tables in one transaction, about 1 round
    # in 40 failed ("schema version 0, tables: documents, ..."): 200 rounds show it.
    for round_ in range(200):
        path = str(tmp_path / f"new-{round_}.db")
        start, results = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_index_in_child, args=(path, k, start, results)) for k in range(4)]
        for proc in procs:
            proc.start()
        outcomes = dict(results.get(timeout=120) for _ in procs)
        for proc in procs:
            proc.join(timeout=120)
        assert outcomes == {k: "ok" for k in range(4)}, outcomes
        with SQLiteBackend(path, read_only=True) as store:
            assert len(store) == 20
            assert len(store.retrieve("topic2", top_k=10)) == 5


def test_sqlite_schema_check_counts_fts_shadow_tables_as_the_stores_own(tmp_path: Path):
    with SQLiteBackend(tmp_path / "s.db"):
        pass
    conn = sqlite3.connect(tmp_path / "s.db")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "documents_fts_data" in tables
    assert check_schema(conn, "s.db") == SCHEMA_VERSION
    conn.execute("CREATE TABLE invoices (n)")
    with pytest.raises(StoreError, match=r"not a contextlab store .*invoices"):
        check_schema(conn, "s.db")
    conn.close()


def _damaged_store(tmp_path: Path) -> Path:
    path = tmp_path / "kb.db"
    with SQLiteBackend(path) as store:
        store.add([Document(f"document {i} " + "filler words " * 200, source=f"d{i}") for i in range(40)])
    data = bytearray(path.read_bytes())
    data[4096 : len(data) - 4096] = b"\xff" * (len(data) - 8192)  # keep the header, wreck the pages
    path.write_bytes(bytes(data))
    return path


def test_sqlite_backend_damaged_store_is_one_clear_error(tmp_path: Path):
    path = _damaged_store(tmp_path)
    with (
        pytest.raises(StoreError, match=r"store .*kb\.db.* is damaged|not a SQLite database") as info,
        SQLiteBackend(path, read_only=True) as store,
    ):
        store.retrieve("document filler", top_k=3)
    assert "\n" not in str(info.value)
    with pytest.raises(StoreError), SQLiteBackend(path) as store:
        store.add([Document("new one", source="n")])


def test_sqlite_backend_read_only_open_never_creates_a_store(tmp_path: Path):
    with pytest.raises(StoreError, match=r"no store at .*none\.db.*read-only, so none is created"):
        SQLiteBackend(tmp_path / "none.db", read_only=True)
    assert list(tmp_path.iterdir()) == []


def test_sqlite_backend_read_only_store_refuses_writes_in_one_line(tmp_path: Path):
    with SQLiteBackend(tmp_path / "s.db") as store:
        store.add([Document("words here", source="a")])
    with SQLiteBackend(tmp_path / "s.db", read_only=True) as store:
        with pytest.raises(StoreError, match=r"cannot write to store .*s\.db.*opened read-only"):
            store.add([Document("more words", source="b")])
        with pytest.raises(StoreError, match=r"cannot delete from store"):
            store.remove_sources(["a"])
        assert len(store) == 1


# -- one id twice in one batch (issue 18, point 9) ------------------------------------------


def test_sqlite_backend_index_refuses_two_records_with_one_id_naming_both():
    store = SQLiteBackend()
    docs = [
        Document("Refunds take five days.", metadata={"id": "faq-1"}),
        Document("Shipping is free.", metadata={"id": "faq-2"}),
        Document("Refunds take ten days.", metadata={"id": "faq-1"}),
    ]
    with pytest.raises(
        InvalidInputError,
        match=r"^faq\.jsonl: records 1 and 3 both have the id "
        r"'faq-1'; the second would replace the first",
    ):
        store.index(docs, origin="faq.jsonl")
    assert len(store) == 0  # nothing of the batch was stored


def test_sqlite_backend_add_refuses_two_documents_with_one_id():
    store = SQLiteBackend()
    with pytest.raises(InvalidInputError, match=r"^documents 0 and 1 both have the id 'x'"):
        store.add([Document("one"), Document("two")], ids=["x", "x"])
    # The same document twice is one document, not a conflict.
    assert store.add([Document("same", metadata={"id": "y"}), Document("same", metadata={"id": "y"})]) == ["y", "y"]
    assert len(store) == 1


# -- after a crash or a full disk (issue 18, point 10) ---------------------------------------


def _killed_mid_write(path: str) -> None:
    """Index, then die (SIGKILL) halfway through a write, leaving a hot journal beside the store."""
    with SQLiteBackend(path) as store:
        store.add([Document(f"note {i} about refunds") for i in range(20)])
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA cache_size = 1")  # so the write reaches the file before the commit
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT INTO documents (id, content) VALUES (?, ?)", [(f"x{i}", "y" * 2000) for i in range(300)])
    os.kill(os.getpid(), signal.SIGKILL)


def _leave_hot_journal(path: Path) -> None:
    proc = multiprocessing.get_context("fork").Process(target=_killed_mid_write, args=(str(path),))
    proc.start()
    proc.join(timeout=60)
    assert proc.exitcode == -signal.SIGKILL
    assert Path(f"{path}-journal").stat().st_size > 0


def test_sqlite_backend_read_only_search_after_a_killed_write_rolls_the_journal_back(tmp_path: Path):
    path = tmp_path / "kb.db"
    _leave_hot_journal(path)
    with SQLiteBackend(path, read_only=True) as store:
        assert len(store) == 20  # the killed write is undone, the earlier one kept
        assert len(store.retrieve("refunds", top_k=50)) == 20
    assert not Path(f"{path}-journal").exists()


def test_sqlite_backend_killed_write_in_a_read_only_folder_says_what_to_do(tmp_path: Path, monkeypatch):
    _leave_hot_journal(tmp_path / "kb.db")
    # The tests may run as root, who writes anywhere: the folder is made read-only by name.
    monkeypatch.setattr(sqlite_module, "read_only_reason", lambda path: "its folder is read-only")
    with pytest.raises(
        StoreError,
        match=r"was left halfway through a write .*kb\.db-journal.*its "
        r"folder is read-only.*copy .*together",
    ):
        SQLiteBackend(tmp_path / "kb.db", read_only=True)
    assert Path(f"{tmp_path / 'kb.db'}-journal").stat().st_size > 0  # left for a writer to undo


def test_sqlite_backend_full_disk_says_so_and_leaves_the_store_as_it_was(tmp_path: Path):
    path = tmp_path / "kb.db"
    store = SQLiteBackend(path)
    store.add([Document("refunds take five days", source="a")])
    conn = store._conn()
    # SQLite's own page limit fails a write exactly as a full disk does (SQLITE_FULL).
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    with pytest.raises(
        StoreError,
        match=r"^cannot write to store .*kb\.db': the disk is full; "
        r"nothing of this write was stored",
    ):
        store.add([Document(f"long text {i} " * 400, source=f"b{i}") for i in range(20)])
    assert not Path(f"{path}-journal").exists()
    store.close()
    with SQLiteBackend(path, read_only=True) as again:
        assert [h.source for h in again.retrieve("refunds", top_k=5)] == ["a"]
