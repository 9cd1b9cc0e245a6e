"""The cl100k_base tokenizer's batch count (count_many over 64 texts or more)."""

from __future__ import annotations

import random

from contextlab.tokenizers import get_tokenizer


def batch_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pieces = [
        "refund",
        " window",
        "<|endoftext|>",
        "<|fim_prefix|>",
        "naïve",
        "😀",
        "\n\n",
        "İstanbul",
        "  ",
        "—",
        "def f(x):\n    return x",
        "0.85",
        "\u00a0",
        "ünïcödé",
    ]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))) for _ in range(n)]
    return texts + ["", " ", "<|endoftext|>"] + texts[:5]  # empties, a bare special, repeats


def test_tokenizers_batch_count_equals_encode_ordinary_text_by_text():
    tokenizer = get_tokenizer("cl100k_base")
    texts = batch_texts(301, seed=5)
    expected = [len(tokenizer.encoding.encode_ordinary(t)) for t in texts]
    tokenizer._cache.clear()
    assert tokenizer.count_many(texts) == expected
    assert tokenizer.count_many(list(reversed(texts))) == expected[::-1]  # now from the memo


def test_tokenizers_batch_count_reads_special_tokens_as_plain_text():
    tokenizer = get_tokenizer("cl100k_base")
    texts = [f"text {i} <|endoftext|> more" for i in range(100)]
    tokenizer._cache.clear()
    counts = tokenizer.count_many(texts)
    assert counts == [len(tokenizer.encoding.encode_ordinary(t)) for t in texts]
    assert counts[0] > len(tokenizer.encoding.encode("text 0 <|endoftext|> more", allowed_special="all"))
