"""A block's count summed from its parts equals counting the block whole, or is not claimed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextlab import Document
from contextlab.stages.block_count import block_count
from contextlab.stages.format import format_block
from contextlab.tokenizers import get_tokenizer

TOKENIZER = get_tokenizer("cl100k_base")
# Text that stresses the pre-tokenizer at the joins: newlines, runs of spaces, punctuation,
# digits, contractions, non-Latin letters, unusual spaces and a special token's spelling.
PIECES = [
    "word",
    "Word",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\t",
    ".",
    "...",
    "!?",
    "'s",
    "'ll",
    "123",
    "4567",
    "(",
    ")",
    "-",
    "---",
    "é",
    "日本語",
    "\u00a0",
    "\u2028",
    "\x1c",
    "<|endoftext|>",
    "[...]",
    ":",
    "0.87",
]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


def whole(text: str) -> int:
    return len(TOKENIZER.encoding.encode_ordinary(text))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(texts, st.one_of(st.none(), texts), st.floats(0, 1)), min_size=1, max_size=5))
def test_block_count_is_the_whole_blocks_count_whenever_it_answers(docs):
    documents = [Document(content, score=score, source=source) for content, source, score in docs]
    text, _ = format_block(documents)
    summed = block_count(text, [d.content for d in documents], TOKENIZER)
    assert summed is None or summed == whole(text)


def test_block_count_answers_for_ordinary_prose_and_matches():
    documents = [
        Document("Refunds are prorated after the first month.", score=0.9, source="a.md"),
        Document("Annual plans renew each year; cancel any time before.", score=0.5, source="b.md"),
        Document("Contact support for anything else.", source="c.md"),
    ]
    text, _ = format_block(documents)
    assert block_count(text, [d.content for d in documents], TOKENIZER) == whole(text)


def test_block_count_declines_what_it_cannot_prove():
    assert block_count("x\n y", [" y"], TOKENIZER) is None  # a content starting with a space
    assert block_count("x\nonlyoneword\n\nh\nz", ["onlyoneword", "z"], TOKENIZER) is None  # no space
    assert block_count("x\ny", ["y"], get_tokenizer("heuristic")) is None  # words x 1.3 is not additive
