from __future__ import annotations

import pytest

from contextlab import get_tokenizer
from contextlab.tokenizers import HeuristicTokenizer, resolve_tokenizer


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


def test_tokenizers_cl100k_truncate_respects_limit():
    tok = get_tokenizer("cl100k_base")
    text = "Ünïcödé façade — naïve café résumé, 東京都の天気は晴れです。" * 5
    for n in (0, 1, 3, 7, 20, 1000):
        cut = tok.truncate(text, n)
        assert tok.count(cut) <= n
        assert text.startswith(cut)


def test_tokenizers_count_many_matches_count():
    tok = get_tokenizer("cl100k_base")
    texts = [f"document number {i} about things" for i in range(100)]
    assert tok.count_many(texts) == [tok.count(t) for t in texts]


def test_tokenizers_shared_instance():
    assert get_tokenizer("heuristic") is get_tokenizer("heuristic")


@pytest.mark.parametrize("name", ["gpt2", "", None, "CL100K_BASE"])
def test_tokenizers_unknown_name_raises(name):
    with pytest.raises(ValueError, match="unknown tokenizer .*choose one of: cl100k_base, heuristic"):
        get_tokenizer(name)


def test_tokenizers_resolve_accepts_objects_and_rejects_others():
    tok = HeuristicTokenizer()
    assert resolve_tokenizer(tok) is tok
    with pytest.raises(ValueError, match="tokenizer must be a name"):
        resolve_tokenizer(42)


def test_tokenizers_count_memo_is_bounded_by_characters(monkeypatch):
    import contextlab.tokenizers as tokenizers

    monkeypatch.setattr(tokenizers, "_COUNT_CACHE_CHARS", 1_000)
    tok = tokenizers.TiktokenTokenizer()
    texts = [f"block {i} " + "word " * 40 for i in range(50)]  # ~200 characters each
    counts = [tok.count(t) for t in texts]
    assert counts == [len(tok.encode(t)) for t in texts]
    assert sum(len(t) for t in tok._cache) <= 1_000
    assert tok.count_many(texts) == counts
    assert sum(len(t) for t in tok._cache) <= 1_000 + sum(len(t) for t in texts)
