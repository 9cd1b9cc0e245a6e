from __future__ import annotations

import pytest

from contextlab import get_tokenizer
from contextlab.tokenizers import (
    HeuristicTokenizer,
    check_tokenizer_name,
    resolve_tokenizer,
    resolve_tokenizer_name,
    tokenizer_label,
)


def test_tokenizers_heuristic_matches_seed_formula():
    tok = get_tokenizer("heuristic")
    assert tok.count("one two three") == int(3 * 1.3)
    assert tok.count("") == 0
    assert tok.truncate("a b c d e f g h i j", 5) == "a b c"


def test_tokenizers_cl100k_exact_counts_offline():
    tok = get_tokenizer("cl100k_base")
    assert tok.name == "cl100k_base"
    assert tok.count("hello world") == 2
    assert tok.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]


@pytest.mark.parametrize(
    ("name", "ids"),
    [
        ("cl100k_base", [9906, 1917]),
        ("o200k_base", [13225, 2375]),
        ("llama3", [9906, 1917]),
        ("qwen3", [9707, 1879]),
    ],
)
def test_tokenizers_each_vocabulary_gives_its_published_ids(name, ids):
    tok = get_tokenizer(name)
    assert tok.name == name
    assert tok.encode("Hello world") == ids
    assert tok.count("Hello world") == 2
    assert tok.decode(ids) == "Hello world"


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3", "qwen3"])
def test_tokenizers_truncate_respects_limit_and_keeps_a_prefix(name):
    tok = get_tokenizer(name)
    text = "Ünïcödé façade — naïve café résumé, 東京都の天気は晴れです。 cafe\u0301 😀👍🏽 " * 5
    for n in (0, 1, 3, 7, 20, 1000):
        cut = tok.truncate(text, n)
        assert tok.count(cut) <= n
        assert text.startswith(cut)
    assert tok.truncate(text, 1000) == text
    assert len(tok.truncate(text, 20)) > 10


def test_tokenizers_count_many_matches_count():
    tok = get_tokenizer("cl100k_base")
    texts = [f"document number {i} about things" for i in range(100)]
    assert tok.count_many(texts) == [tok.count(t) for t in texts]


def test_tokenizers_shared_instance():
    assert get_tokenizer("heuristic") is get_tokenizer("heuristic")
    assert get_tokenizer("gpt-4o") is get_tokenizer("o200k_base")
    assert get_tokenizer("Qwen/Qwen3-8B") is get_tokenizer("qwen3")


@pytest.mark.parametrize(
    ("model", "vocabulary"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("gpt-oss-20b", "o200k_base"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3"),
        ("Meta-Llama-3-70B", "llama3"),
        ("llama3.2:3b", "llama3"),
        ("LLAMA-3.3-70B-INSTRUCT", "llama3"),
        ("qwen2.5-7b-instruct", "qwen3"),
        ("Qwen/Qwen2.5-Coder-32B", "qwen3"),
        ("qwen3-8b", "qwen3"),
        ("qwen2-72b", "qwen3"),
        ("O200K_BASE", "o200k_base"),
    ],
)
def test_tokenizers_model_name_picks_its_vocabulary(model, vocabulary):
    choice = resolve_tokenizer_name(model)
    assert choice.vocabulary == vocabulary
    assert choice.exact
    assert get_tokenizer(model).name == vocabulary


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("claude-sonnet-4-5", "Claude estimate (cl100k_base)"),
        ("anthropic/claude-3-5-haiku", "Claude estimate (cl100k_base)"),
        ("gemini-2.5-pro", "Gemini estimate (o200k_base)"),
        ("models/Gemini-1.5-Flash", "Gemini estimate (o200k_base)"),
    ],
)
def test_tokenizers_claude_and_gemini_give_a_labelled_estimate(model, name):
    tok = get_tokenizer(model)
    assert tok.name == name
    assert not resolve_tokenizer_name(model).exact
    assert tokenizer_label(model) == f"{model}: {name}"
    assert get_tokenizer(tok.name) is tok  # the name it reports resolves to itself
    assert tok.count("Hello world") == 2


def test_tokenizers_label_names_the_vocabulary_a_model_resolved_to():
    assert tokenizer_label("gpt-4o") == "gpt-4o: o200k_base"
    assert tokenizer_label("cl100k_base") == "cl100k_base"
    assert tokenizer_label("heuristic") == "heuristic"


@pytest.mark.parametrize("name", ["gpt2", "", "  ", None, 3, "llama-2-7b", "llama-30b", "mistral-7b", "llama-4-scout"])
def test_tokenizers_unknown_name_raises_one_line_listing_what_is_known(name):
    with pytest.raises(
        ValueError,
        match="unknown tokenizer .*choose one of: cl100k_base, o200k_base, llama3, qwen3, "
        "heuristic, or a model name: OpenAI .*Llama 3, Qwen 2/2.5/3, Claude and Gemini as an estimate",
    ) as caught:
        get_tokenizer(name)
    assert "\n" not in str(caught.value)
    assert caught.value.field == "tokenizer"


def test_tokenizers_unknown_openai_encoding_says_it_is_not_shipped():
    with pytest.raises(ValueError, match=r"'text-davinci-003' \(it counts in p50k_base, which is not shipped\)"):
        check_tokenizer_name("text-davinci-003")


def test_tokenizers_long_unknown_name_is_shortened_in_the_message():
    with pytest.raises(ValueError, match=r"\(300 characters\)"):
        get_tokenizer("x" * 300)


def test_tokenizers_lone_surrogates_and_nul_count_like_tiktoken():
    tok = get_tokenizer("cl100k_base")
    assert tok.count("\ud800x") == 2
    assert tok.encode("\ud800x") == tok.encode("\ufffdx")
    assert tok.count("x\x00y") == 3
    assert tok.count_many(["\udfffa", "ok"]) == [2, 1]


def test_tokenizers_resolve_accepts_objects_and_rejects_others():
    tok = HeuristicTokenizer()
    assert resolve_tokenizer(tok) is tok
    with pytest.raises(ValueError, match="tokenizer must be a name"):
        resolve_tokenizer(42)


def test_tokenizers_count_memo_is_bounded_by_characters(monkeypatch):
    import contextlab.tokenizers as tokenizers

    monkeypatch.setattr(tokenizers, "_COUNT_CACHE_CHARS", 1_000)
    tok = tokenizers.VocabularyTokenizer("cl100k_base")
    texts = [f"block {i} " + "word " * 40 for i in range(50)]  # ~200 characters each
    counts = [tok.count(t) for t in texts]
    assert counts == [len(tok.encode(t)) for t in texts]
    assert sum(len(t) for t in tok._cache) <= 1_000
    assert tok.count_many(texts) == counts
    assert sum(len(t) for t in tok._cache) <= 1_000 + sum(len(t) for t in texts)
