"""Seed 003's injection pinned: ContextConfig, format_context, build_context_message, inject_context."""

from __future__ import annotations

import pytest

from contextlab.retrieval.injection import (
    CONTEXT_PREAMBLE,
    ContextConfig,
    RetrievalResult,
    build_context_message,
    format_context,
    inject_context,
)
from contextlab.retrieval.store import SQLiteBackend
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


# -- ContextConfig -------------------------------------------------------------------------


def test_context_config_defaults_match_seed():
    cfg = ContextConfig()
    assert (cfg.enabled, cfg.top_k, cfg.min_score, cfg.max_context_tokens) == (True, 5, 0.0, 2048)
    assert cfg.tokenizer == "cl100k_base"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"top_k": 0}, r"top_k must be a whole number >= 1, got 0"),
        ({"top_k": 2.5}, r"top_k must be a whole number, got 2\.5"),
        ({"top_k": True}, r"top_k must be a whole number, got True"),
        ({"min_score": float("nan")}, r"min_score must be a finite number, got nan"),
        ({"min_score": "0.5"}, r"min_score must be a number, got str '0\.5'"),
        ({"max_context_tokens": -1}, r"max_context_tokens must be a whole number >= 0, got -1"),
        ({"enabled": "yes"}, r"enabled must be true or false, got 'yes'"),
        ({"tokenizer": "gpt2"}, r"unknown tokenizer 'gpt2'.*; choose one of: cl100k_base, o200k_base, llama3"),
    ],
)
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
    out = inject_context("q", messages, backend, config=ContextConfig(min_score=0.5, tokenizer="heuristic"))
    assert out == messages and received == []


def test_inject_context_min_score_is_inclusive():
    backend = FakeBackend([RetrievalResult("keep", 0.5), RetrievalResult("drop", 0.4999)])
    out = inject_context("q", [], backend, config=ContextConfig(min_score=0.5, tokenizer="heuristic"))
    assert out[0].content == CONTEXT_PREAMBLE + "keep"


def test_inject_context_stops_at_first_result_that_overflows():
    # heuristic: 3 words -> 3 tokens, 10 words -> 13, 1 word -> 1; budget 5
    backend = FakeBackend(
        [
            RetrievalResult(words(3, "a"), 0.9),
            RetrievalResult(words(10, "b"), 0.8),
            RetrievalResult(words(1, "c"), 0.7),
        ]
    )
    out = inject_context("q", [], backend, config=ContextConfig(max_context_tokens=5, tokenizer="heuristic"))
    assert out == [build_context_message([backend.results[0]])]


def test_inject_context_fit_is_inclusive_of_the_budget():
    backend = FakeBackend([RetrievalResult(words(3), 0.9), RetrievalResult(words(2), 0.8)])
    out = inject_context("q", [], backend, config=ContextConfig(max_context_tokens=5, tokenizer="heuristic"))
    assert out[0].content == CONTEXT_PREAMBLE + "w w w\n\nw w"


def test_inject_context_first_result_too_big_leaves_messages(received):
    backend = FakeBackend([RetrievalResult(words(50), 0.9), RetrievalResult("small", 0.8)])
    messages = [Message("user", "hi")]
    out = inject_context("q", messages, backend, config=ContextConfig(max_context_tokens=10, tokenizer="heuristic"))
    assert out == messages and received == []


def test_inject_context_publishes_seed_payload(received):
    backend = FakeBackend([RetrievalResult(words(3), 0.9), RetrievalResult(words(2), 0.8)])
    inject_context("my query", [], backend, config=HEURISTIC)
    assert received == [
        (backend, {"context_injection": True, "query": "my query", "num_results": 2, "total_tokens": 5})
    ]


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
    out = inject_context("q", [], backend, config=ContextConfig(max_context_tokens=6, tokenizer=OneTokenPerChar()))
    assert out[0].content == CONTEXT_PREAMBLE + "abcd"


def test_inject_context_rejects_non_text_query():
    with pytest.raises(ValueError, match="query must be text, got int"):
        inject_context(3, [], FakeBackend([]))  # type: ignore[arg-type]


def test_inject_context_works_with_sqlite_backend():
    store = SQLiteBackend()
    store.add(
        [Document("Paris is the capital of France", source="geo"), Document("Bananas are yellow fruit", source="food")]
    )
    out = inject_context("capital of France", [Message("user", "q")], store, config=HEURISTIC)
    assert out[0].content == CONTEXT_PREAMBLE + "[Source: geo] Paris is the capital of France"


def test_retrieval_result_to_document():
    doc = RetrievalResult("text", 0.7, source="s", id="i1", metadata={"m": 1}).to_document()
    assert doc == Document("text", score=0.7, source="s", metadata={"m": 1, "id": "i1"})
