"""Seed 003's injection pinned, and the SQLite FTS5 store against real files."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from contextlab import events
from contextlab.retrieval import (
    CONTEXT_PREAMBLE,
    ContextConfig,
    MemoryBackend,
    RetrievalResult,
    SQLiteBackend,
    StoreError,
    build_context_message,
    format_context,
    fts_query,
    inject_context,
    needs_scoring,
    score_documents,
)
from contextlab.tokenizers import get_tokenizer
from contextlab.types import Document, Message


class FakeBackend:
    """Returns fixed results and records every call."""

    def __init__(self, results: list[RetrievalResult]) -> None:
        self.results = results
        self.calls: list[tuple[str, int]] = []

    def retrieve(self, query: str, top_k: int = 5) -> list[RetrievalResult]:
        self.calls.append((query, top_k))
        return self.results[:top_k]


def words(n: int, word: str = "w") -> str:
    return " ".join([word] * n)


HEURISTIC = ContextConfig(tokenizer="heuristic")


@pytest.fixture
def received():
    """Collect every retrieval event sent while the test runs."""
    got: list[tuple[object, dict]] = []

    def receiver(sender, payload):
        got.append((sender, payload))

    events.memory_retrieve.connect(receiver)
    yield got
    events.memory_retrieve.disconnect(receiver)


# -- ContextConfig -------------------------------------------------------------------------


def test_context_config_defaults_match_seed():
    cfg = ContextConfig()
    assert (cfg.enabled, cfg.top_k, cfg.min_score, cfg.max_context_tokens) == (True, 5, 0.0, 2048)
    assert cfg.tokenizer == "cl100k_base"


@pytest.mark.parametrize("kwargs,match", [
    ({"top_k": 0}, r"top_k must be a whole number >= 1, got 0"),
    ({"top_k": 2.5}, r"top_k must be a whole number >= 1, got 2\.5"),
    ({"top_k": True}, r"top_k must be a whole number >= 1, got True"),
    ({"min_score": float("nan")}, r"min_score must be a finite number, got nan"),
    ({"min_score": "0.5"}, r"min_score must be a finite number, got '0\.5'"),
    ({"max_context_tokens": -1}, r"max_context_tokens must be a whole number >= 0, got -1"),
    ({"enabled": "yes"}, r"enabled must be true or false, got 'yes'"),
    ({"tokenizer": "gpt2"}, r"unknown tokenizer 'gpt2'; choose one of: cl100k_base, heuristic"),
])
def test_context_config_rejects_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ContextConfig(**kwargs)


# -- format_context / build_context_message ------------------------------------------------


def test_format_context_tags_sources_and_joins_with_blank_line():
    results = [RetrievalResult("alpha", 0.9, source="a.md"), RetrievalResult("beta", 0.5)]
    assert format_context(results) == "[Source: a.md] alpha\n\nbeta"


def test_format_context_empty_source_is_untagged():
    assert format_context([RetrievalResult("x", 1.0, source="")]) == "x"


def test_format_context_empty_is_empty_string():
    assert format_context([]) == ""


def test_build_context_message_is_system_message_with_seed_preamble():
    msg = build_context_message([RetrievalResult("alpha", 0.9, source="a.md")])
    assert msg == Message(
        role="system",
        content="The following context was retrieved from the knowledge base. Use it to inform "
                "your response, citing sources where applicable:\n\n[Source: a.md] alpha",
    )
    assert msg.content.startswith(CONTEXT_PREAMBLE)


# -- inject_context ------------------------------------------------------------------------


def test_inject_context_prepends_and_returns_new_list():
    backend = FakeBackend([RetrievalResult("alpha text", 0.9, source="a")])
    messages = [Message("user", "hello")]
    out = inject_context("q", messages, backend, config=HEURISTIC)
    assert out == [build_context_message(backend.results), Message("user", "hello")]
    assert out is not messages
    assert messages == [Message("user", "hello")]


def test_inject_context_passes_query_and_top_k_to_backend():
    backend = FakeBackend([])
    inject_context("what is x", [], backend, config=ContextConfig(top_k=3, tokenizer="heuristic"))
    assert backend.calls == [("what is x", 3)]


def test_inject_context_disabled_returns_equal_copy_without_retrieving(received):
    backend = FakeBackend([RetrievalResult("alpha", 0.9)])
    messages = [Message("user", "hi")]
    out = inject_context("q", messages, backend, config=ContextConfig(enabled=False))
    assert out == messages and out is not messages
    assert backend.calls == [] and received == []


def test_inject_context_nothing_above_min_score_leaves_messages(received):
    backend = FakeBackend([RetrievalResult("a b", 0.2), RetrievalResult("c d", 0.49)])
    messages = [Message("user", "hi")]
    out = inject_context("q", messages, backend,
                         config=ContextConfig(min_score=0.5, tokenizer="heuristic"))
    assert out == messages and received == []


def test_inject_context_min_score_is_inclusive():
    backend = FakeBackend([RetrievalResult("keep", 0.5), RetrievalResult("drop", 0.4999)])
    out = inject_context("q", [], backend, config=ContextConfig(min_score=0.5, tokenizer="heuristic"))
    assert out[0].content == CONTEXT_PREAMBLE + "keep"


def test_inject_context_stops_at_first_result_that_overflows():
    # heuristic: 3 words -> 3 tokens, 10 words -> 13, 1 word -> 1; budget 5
    backend = FakeBackend([
        RetrievalResult(words(3, "a"), 0.9),
        RetrievalResult(words(10, "b"), 0.8),
        RetrievalResult(words(1, "c"), 0.7),
    ])
    out = inject_context("q", [], backend,
                         config=ContextConfig(max_context_tokens=5, tokenizer="heuristic"))
    assert out == [build_context_message([backend.results[0]])]


def test_inject_context_fit_is_inclusive_of_the_budget():
    backend = FakeBackend([RetrievalResult(words(3), 0.9), RetrievalResult(words(2), 0.8)])
    out = inject_context("q", [], backend,
                         config=ContextConfig(max_context_tokens=5, tokenizer="heuristic"))
    assert out[0].content == CONTEXT_PREAMBLE + "w w w\n\nw w"


def test_inject_context_first_result_too_big_leaves_messages(received):
    backend = FakeBackend([RetrievalResult(words(50), 0.9), RetrievalResult("small", 0.8)])
    messages = [Message("user", "hi")]
    out = inject_context("q", messages, backend,
                         config=ContextConfig(max_context_tokens=10, tokenizer="heuristic"))
    assert out == messages and received == []


def test_inject_context_publishes_seed_payload(received):
    backend = FakeBackend([RetrievalResult(words(3), 0.9), RetrievalResult(words(2), 0.8)])
    inject_context("my query", [], backend, config=HEURISTIC)
    assert received == [(backend, {"context_injection": True, "query": "my query",
                                   "num_results": 2, "total_tokens": 5})]


def test_inject_context_counts_with_cl100k_by_default():
    text = "Tokenization is counted exactly."
    backend = FakeBackend([RetrievalResult(text, 0.9)])
    exact = get_tokenizer("cl100k_base").count(text)
    assert inject_context("q", [], backend, config=ContextConfig(max_context_tokens=exact - 1)) == []
    assert len(inject_context("q", [], backend, config=ContextConfig(max_context_tokens=exact))) == 1


def test_inject_context_accepts_tokenizer_object():
    class OneTokenPerChar:
        name = "chars"

        def count(self, text: str) -> int:
            return len(text)

        def truncate(self, text: str, max_tokens: int) -> str:
            return text[:max_tokens]

    backend = FakeBackend([RetrievalResult("abcd", 0.9), RetrievalResult("efg", 0.8)])
    out = inject_context("q", [], backend,
                         config=ContextConfig(max_context_tokens=6, tokenizer=OneTokenPerChar()))
    assert out[0].content == CONTEXT_PREAMBLE + "abcd"


def test_inject_context_rejects_non_text_query():
    with pytest.raises(ValueError, match="query must be text, got int"):
        inject_context(3, [], FakeBackend([]))  # type: ignore[arg-type]


def test_inject_context_works_with_sqlite_backend():
    store = SQLiteBackend()
    store.add([Document("Paris is the capital of France", source="geo"),
               Document("Bananas are yellow fruit", source="food")])
    out = inject_context("capital of France", [Message("user", "q")], store, config=HEURISTIC)
    assert out[0].content == CONTEXT_PREAMBLE + "[Source: geo] Paris is the capital of France"


# -- fts_query -----------------------------------------------------------------------------


def test_fts_query_quotes_words_and_drops_syntax():
    assert fts_query('"Cats" AND (dogs* -NOT) col:x ^y NEAR(b c)') == (
        '"cats" OR "dogs" OR "col" OR "x" OR "y" OR "near" OR "b" OR "c"',
        ["cats", "dogs", "col", "x", "y", "near", "b", "c"],
    )


def test_fts_query_keeps_stopwords_when_nothing_else_is_left():
    assert fts_query("What is the refund policy?")[1] == ["refund", "policy"]
    assert fts_query("to be or not to be")[1] == ["to", "be", "or", "not"]


def test_fts_query_deduplicates_and_handles_no_words():
    assert fts_query("x x X")[1] == ["x"]
    assert fts_query("?!* --- ()") == ("", [])


def test_sqlite_backend_common_topic_word_still_counts_in_small_sets():
    store = SQLiteBackend()
    store.add([Document("refunds take five days", source="r1"),
               Document("refunds need a receipt", source="r2"),
               Document("refunds for gift cards are not possible", source="r3"),
               Document("shipping is free over fifty dollars and fast", source="s")])
    hits = store.retrieve("how do refunds and returns work", top_k=4)
    assert {h.source for h in hits} == {"r1", "r2", "r3"}
    assert all(h.score > 0.9 for h in hits)


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
    store.add([Document("solar panels convert sunlight"), Document("solar solar energy panels"),
               Document("wind turbines"), Document("panels of judges")])
    hits = store.retrieve("solar panels", top_k=10)
    assert [h.content for h in hits][:2] == ["solar solar energy panels", "solar panels convert sunlight"]
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].metadata["bm25"] > hits[-1].metadata["bm25"] > 0


def test_sqlite_backend_score_is_share_of_query_weight():
    store = SQLiteBackend()
    store.add(CORPUS)
    [hit] = store.retrieve("alpha", top_k=5)
    assert hit.source == "a" and hit.score == pytest.approx(1.0)
    scores = {h.source: h.score for h in store.retrieve("alpha beta", top_k=5)}
    assert scores == pytest.approx({"a": 0.5, "b": 0.5})


def test_sqlite_backend_words_absent_from_store_do_not_lower_scores():
    store = SQLiteBackend()
    store.add(CORPUS)
    [hit] = store.retrieve("how does alpha zzzunknown", top_k=5)
    assert hit.source == "a" and hit.score == pytest.approx(1.0)


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


@pytest.mark.parametrize("query", [
    '"', "'", '"unbalanced', "AND", "OR NOT", "*", "alpha*", "-alpha", "(", "alpha)", "NEAR(alpha",
    "col:alpha", "^alpha", "alpha AND", '"" AND ""', "alpha + beta", "{alpha}", "\x00", "δ ελληνικά",
    "a" * 5000, "; DROP TABLE documents; --",
])
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


@pytest.mark.parametrize("bad,match", [
    ({"query": 5, "top_k": 1}, "query must be text, got int"),
    ({"query": "q", "top_k": -1}, r"top_k must be a whole number >= 0, got -1"),
])
def test_sqlite_backend_retrieve_rejects_bad_arguments(bad, match):
    with pytest.raises(ValueError, match=match):
        SQLiteBackend().retrieve(**bad)


def test_sqlite_backend_keeps_metadata_source_and_ids():
    store = SQLiteBackend()
    [doc_id] = store.add([Document("alpha", source="s", metadata={"id": "doc-7", "page": 2},
                                   timestamp=5.0, importance=0.9)])
    assert doc_id == "doc-7"
    [hit] = store.retrieve("alpha", top_k=1)
    assert (hit.id, hit.source, hit.metadata["page"], hit.metadata["importance"]) == ("doc-7", "s", 2, 0.9)
    assert store.get("doc-7") == Document("alpha", source="s", metadata={"id": "doc-7", "page": 2},
                                          timestamp=5.0, importance=0.9)
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


@pytest.mark.parametrize("docs,kwargs,match", [
    ([Document("")], {}, r"document 0: content must be non-empty text"),
    ([Document("ok"), 5], {}, r"document 1: expected a Document or a string, got int"),
    ([Document("ok")], {"ids": ["a", "b"]}, r"got 2 ids for 1 documents"),
])
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


def test_sqlite_backend_uses_wal_for_files(tmp_path: Path):
    SQLiteBackend(tmp_path / "s.db").close()
    conn = sqlite3.connect(tmp_path / "s.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
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
    with pytest.raises(StoreError, match=r"cannot open store .*notes\.db.*a contextlab store or of a new file"):
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


# -- score_documents / needs_scoring -------------------------------------------------------


def test_score_documents_scores_new_copies_in_input_order():
    docs = [Document("nothing relevant here", metadata={"score_missing": True}),
            Document("solar panels on roofs", metadata={"score_missing": True, "k": 1}),
            Document("solar", score=0.3, metadata={})]
    before = [Document(d.content, d.score, d.source, dict(d.metadata)) for d in docs]
    scored = score_documents(docs, "solar panels")
    assert docs == before
    assert [d.content for d in scored] == [d.content for d in docs]
    assert scored[0].score == 0.0
    assert 0.0 < scored[2].score < scored[1].score <= 1.0
    assert scored[1].metadata == {"k": 1, "score_source": "bm25"}
    assert scored[2].metadata == {"input_score": 0.3, "score_source": "bm25"}


def test_score_documents_scores_duplicates_alike_and_publishes_nothing(received):
    docs = [Document("same words here"), Document("same words here")]
    scored = score_documents(docs, "words")
    assert scored[0].score == scored[1].score > 0
    assert received == []


def test_score_documents_empty_input():
    assert score_documents([], "anything") == []


@pytest.mark.parametrize("query,match", [
    ("", "the query has no words"),
    ("?!", "the query has no words"),
    (None, "query must be text"),
])
def test_score_documents_rejects_wordless_query(query, match):
    with pytest.raises(ValueError, match=match):
        score_documents([Document("x")], query)


def test_needs_scoring():
    assert needs_scoring([Document("a"), Document("b", metadata={"score_missing": True})])
    assert not needs_scoring([Document("a", score=0.4)])
    assert not needs_scoring([])


def test_retrieval_result_to_document():
    doc = RetrievalResult("text", 0.7, source="s", id="i1", metadata={"m": 1}).to_document()
    assert doc == Document("text", score=0.7, source="s", metadata={"m": 1, "id": "i1"})


# -- properties ----------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PROPERTY_STORE = SQLiteBackend()
_PROPERTY_STORE.add(CORPUS + [Document('quotes " and * and (parens) AND NOT -minus'),
                              Document("ünïcödé wörds ελληνικά 日本語")])


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=80), top_k=st.integers(0, 10))
def test_sqlite_backend_any_query_gives_bounded_sorted_scores(query: str, top_k: int):
    hits = _PROPERTY_STORE.retrieve(query, top_k=top_k)
    assert len(hits) <= top_k
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6),
       query=st.text(min_size=1, max_size=30))
def test_score_documents_is_a_scored_copy(texts, query):
    docs = [Document(t, metadata={"score_missing": True}) for t in texts]
    try:
        scored = score_documents(docs, query)
    except ValueError as exc:
        assert "no words" in str(exc)
        return
    assert [d.content for d in scored] == texts
    assert all(0.0 <= d.score <= 1.0 and d.metadata == {"score_source": "bm25"} for d in scored)
    assert all(d.metadata == {"score_missing": True} for d in docs)
