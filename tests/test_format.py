"""The format stage: the citation-labelled block exactly as the model reads it."""

from __future__ import annotations

from contextlab.stages.format import SEPARATOR, citation_label, format_block, source_header
from contextlab.types import Document


def test_format_headers_and_citations():
    docs = [Document("x", 1.0, "a.md"), Document("y", 0.874)]
    block, cites = format_block(docs)
    assert block == "--- Source [1] a.md ---\nx\n\n--- Source [2] --- (relevance: 0.87)\ny"
    assert cites == {1: "a.md", 2: "doc_2"}


def test_format_header_shows_score_below_one_only():
    assert source_header(3, Document("z", 0.5, "s")) == "--- Source [3] s --- (relevance: 0.50)"
    assert source_header(1, Document("z", 1.0, "s")) == "--- Source [1] s ---"
    assert source_header(2, Document("z", 1.7)) == "--- Source [2] ---"


def test_format_citation_label_falls_back_to_doc_number():
    assert citation_label(4, Document("z")) == "doc_4"
    assert citation_label(4, Document("z", source="")) == "doc_4"
    assert citation_label(4, Document("z", source="kb/a")) == "kb/a"


def test_format_empty_block():
    assert format_block([]) == ("", {})


def test_format_separator_is_a_blank_line():
    block, _ = format_block([Document("a"), Document("b")])
    assert block.split(SEPARATOR) == ["--- Source [1] ---\na", "--- Source [2] ---\nb"]
