"""A document the budget leaves out says what it would have cost, header included (issue 18, point 11)."""

from __future__ import annotations

from contextlab import ContextManager, Document, PromptRequest


def test_excluded_for_a_huge_source_the_reason_names_the_header():
    docs = [
        Document("Refunds take five days.", score=0.9, source="x" * 1_000_000),
        Document("Shipping is free over fifty dollars.", score=0.5, source="shipping.md"),
    ]
    result = ContextManager().build(PromptRequest("refunds", docs, max_context_tokens=2048))
    first = result.trace[0]
    assert first.fate == "excluded"
    assert first.reason.startswith("over budget: block cost ")
    assert first.reason.endswith(
        " tokens (6 text + "
        + first.reason.split("(6 text + ")[1].split()[0]
        + " for its header line; its source is 1,000,000 characters), 2023 of 2048 left"
    )
    assert result.trace[1].fate == "included"


def test_excluded_reason_names_the_block_cost_or_says_the_text_alone_is_too_long():
    docs = [
        Document("Refunds take five days to reach the card you paid with, in most banks.", score=0.9, source="a.md"),
        Document("word " * 400, score=0.5, source="long.md"),
    ]
    result = ContextManager().build(PromptRequest("refunds", docs, max_context_tokens=30))
    assert [t.reason for t in result.trace] == [
        "over budget: block cost 34 tokens (17 text + 17 for its header line), 30 of 30 left",
        "over budget: its 401 text tokens alone are more than the 30 of 30 left",
    ]


def test_a_shortened_document_says_its_whole_block_cost_header_included():
    # about 60 text tokens would fit in the 70 left, but not with the header line: it is cut
    docs = [Document("alpha " * 60, score=0.9, source="a.md")]
    result = ContextManager().build(PromptRequest("alpha", docs, max_context_tokens=70))
    t = result.trace[0]
    assert t.fate == "truncated" and t.tokens < 70
    header = int(t.reason.split(f"({t.tokens} text + ")[1].split(" header")[0])
    assert t.reason.startswith(
        f"did not fit (block cost {t.tokens + header} tokens ({t.tokens} text + {header} header), 70 left)"
    )
    assert t.tokens + header > 70 >= t.block_tokens
