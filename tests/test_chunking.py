"""The chunker: a hard token maximum, exact offsets, every character kept, overlaps as asked."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextlab import Chunk, chunk_text, get_tokenizer
from contextlab.errors import InvalidInputError

TEXT = (
    "Refunds take five working days. They go back to the card you paid with.\n\n"
    "Shipping is free over fifty euros. Parcels leave the warehouse within a day.\n\n"
    "Returns are accepted for thirty days."
)

_ALPHABET = st.sampled_from(list("abcdefghij ABC  \n\n\t.,!?;:-'\"é中😀\u0301") + ["word ", "The end. ", "\n\n"])
texts = st.lists(_ALPHABET, min_size=0, max_size=400).map("".join)


def test_chunking_cuts_at_paragraph_ends_when_they_fit():
    chunks = chunk_text(TEXT, size=20, overlap=0, tokenizer="cl100k_base", source="faq.txt")
    assert [c.text for c in chunks] == [
        "Refunds take five working days. They go back to the card you paid with.",
        "Shipping is free over fifty euros. Parcels leave the warehouse within a day.",
        "Returns are accepted for thirty days.",
    ]
    assert [(c.start, c.end) for c in chunks] == [(0, 71), (73, 149), (151, 188)]
    assert [c.source for c in chunks] == ["faq.txt"] * 3


def test_chunking_overlap_starts_inside_the_chunk_before():
    chunks = chunk_text(TEXT, size=24, overlap=6, tokenizer="cl100k_base", source="faq.txt")
    assert chunks[1].start < chunks[0].end
    assert TEXT[chunks[1].start : chunks[0].end] == "the card you paid with."
    assert all(c.tokens <= 24 for c in chunks)


def test_chunking_names_the_page_each_chunk_starts_on():
    chunks = chunk_text(TEXT, size=20, tokenizer="cl100k_base", source="r.pdf", pages=((0, 1), (73, 2), (151, 3)))
    assert [c.page for c in chunks] == [1, 2, 3]


def test_chunking_empty_text_gives_no_chunks():
    assert chunk_text(" \n\n ", size=16, tokenizer="heuristic", source="x") == []


@pytest.mark.parametrize(
    ("size", "overlap", "message"),
    [
        (4, 0, "chunk_size must be a whole number >= 8"),
        (64, -1, "chunk_overlap must be a whole number >= 0"),
        (64, 32, r"chunk_overlap must be less than half of the chunk size \(64\), got 32"),
        (True, 0, "chunk_size must be a whole number"),
    ],
)
def test_chunking_bad_settings_name_the_field(size, overlap, message):
    with pytest.raises(InvalidInputError, match=message):
        chunk_text(TEXT, size=size, overlap=overlap, tokenizer="heuristic", source="x")


@settings(max_examples=60, deadline=None)
@given(
    text=texts,
    size=st.integers(8, 48),
    overlap_share=st.floats(0, 0.49),
    name=st.sampled_from(["cl100k_base", "heuristic"]),
)
def test_chunking_properties_hold_on_any_text(text, size, overlap_share, name):
    overlap = int(size * overlap_share)
    tokenizer = get_tokenizer(name)
    chunks = chunk_text(text, size=size, overlap=overlap, tokenizer=tokenizer, source="s")
    covered = [False] * len(text)
    for chunk in chunks:
        assert isinstance(chunk, Chunk)
        assert chunk.text == text[chunk.start : chunk.end]
        assert chunk.tokens == tokenizer.count(chunk.text)
        assert chunk.tokens <= size
        for i in range(chunk.start, chunk.end):
            covered[i] = True
    assert all(covered[i] for i, ch in enumerate(text) if not ch.isspace())
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert before.start < after.start and before.end < after.end
        if after.start < before.end:
            assert tokenizer.count(text[after.start : before.end]) <= overlap
