"""A model name or a vocabulary is accepted wherever a tokenizer is chosen: settings, links, exports, captures."""

from __future__ import annotations

import pytest

from contextlab import ContextManager, Document, PromptRequest
from contextlab.build_cache import BuildCache
from contextlab.lab.config import LabConfig
from contextlab.runs.captures import append_run, capture_record, read_run
from contextlab.settings import EngineSettings
from contextlab.tokenizers import get_tokenizer

DOCS = [
    Document("東京都の天気は晴れです。明日は雨が降るでしょう。", score=0.9, source="ja"),
    Document("The refund window is 30 days from the date of purchase.", score=0.8, source="en"),
]


@pytest.mark.parametrize("name", ["o200k_base", "llama3", "qwen3", "gpt-4.1", "Qwen/Qwen3-8B", "gemini-2.5-flash"])
def test_settings_accept_vocabularies_and_model_names(name):
    assert EngineSettings(tokenizer=name).tokenizer == name


def test_settings_reject_an_unknown_tokenizer_naming_the_field():
    with pytest.raises(ValueError, match="unknown tokenizer 'bert-base'") as caught:
        EngineSettings(tokenizer="bert-base")
    assert caught.value.field == "tokenizer"


def test_build_with_a_model_name_counts_in_its_vocabulary():
    request = PromptRequest(query="weather", documents=DOCS, max_context_tokens=200)
    by_model = ContextManager(tokenizer="meta-llama/Llama-3.1-8B-Instruct").build(request)
    by_vocabulary = ContextManager(tokenizer="llama3").build(request)
    assert by_model.tokenizer == "llama3"
    assert by_model.tokens_used == by_vocabulary.tokens_used
    assert by_model.tokens_used == get_tokenizer("llama3").count(by_model.context_block)
    cl100k = ContextManager(tokenizer="gpt-4").build(request)
    assert cl100k.tokenizer == "cl100k_base" and cl100k.tokens_used > by_model.tokens_used  # Japanese costs more


def test_estimate_builds_say_estimate_in_their_result():
    request = PromptRequest(query="weather", documents=DOCS, max_context_tokens=200)
    result = ContextManager(tokenizer="claude-sonnet-4-5").build(request)
    assert result.tokenizer == "Claude estimate (cl100k_base)"
    assert result.to_dict()["tokenizer"] == "Claude estimate (cl100k_base)"


def test_build_cache_shares_counts_between_a_model_and_its_vocabulary():
    cache = BuildCache()
    texts = [d.content for d in DOCS]
    first = cache.token_counts(get_tokenizer("gpt-4o"), texts)
    again = cache.token_counts(get_tokenizer("o200k_base"), texts)
    assert first == again
    assert cache.stats()["count_misses"] == 2 and cache.stats()["count_hits"] == 2


def test_links_and_exports_keep_a_model_name():
    config = LabConfig(tokenizer="qwen2.5-7b-instruct")
    assert config.to_query_params()["tokenizer"] == "qwen2.5-7b-instruct"
    opened, warnings = LabConfig.from_query_params({"tokenizer": "qwen2.5-7b-instruct"})
    assert opened.tokenizer == "qwen2.5-7b-instruct" and warnings == []
    assert LabConfig.from_json(config.to_json()).tokenizer == "qwen2.5-7b-instruct"
    _, warnings = LabConfig.from_query_params({"tokenizer": "bert-base"})
    assert len(warnings) == 1 and warnings[0].startswith(
        "ignored URL parameter tokenizer='bert-base': choose one of: cl100k_base, o200k_base, llama3, qwen3, heuristic"
    )


def test_captured_run_keeps_its_model_name_and_rebuilds_in_its_vocabulary(tmp_path):
    settings = EngineSettings(tokenizer="gpt-4o", max_context_tokens=300).to_dict()
    result = ContextManager(tokenizer="gpt-4o").build(PromptRequest(query="refund", documents=DOCS))
    path = tmp_path / "runs.jsonl"
    append_run(path, capture_record("refund", DOCS, settings, result, framework="test"))
    run = read_run(path, 1)
    assert run.config().tokenizer == "gpt-4o"
    assert run.build().tokenizer == "o200k_base"
