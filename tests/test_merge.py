"""Merge: overlapping or touching chunks of one source become one passage, and the trace says so."""

from __future__ import annotations

from contextlab import ContextManager, Document, PromptRequest
from contextlab.stages.merge import merge_chunks

SOURCE = "Refunds take five working days. They go back to your card.\n\nShipping is free over fifty euros."


def chunk(start: int, end: int, score: float = 0.5, of: str = "policy.txt", **extra: object) -> Document:
    meta = {"chunk_of": of, "start": start, "end": end, **extra}
    return Document(SOURCE[start:end], score=score, source=of, metadata=meta)


def test_merge_overlapping_chunks_hold_the_shared_text_once():
    outcome = merge_chunks([chunk(0, 59), chunk(32, 94, 0.9)])
    assert [d.content for d in outcome.documents] == [SOURCE]
    assert outcome.members == [(0, 1)]
    [passage] = outcome.documents
    assert (passage.source, passage.score) == ("policy.txt, chars 0-94", 0.9)
    assert (passage.metadata["start"], passage.metadata["end"], passage.metadata["merged_chunks"]) == (0, 94, 2)


def test_merge_touching_chunks_are_joined_over_the_blank_line():
    outcome = merge_chunks([chunk(60, 94), chunk(0, 58)])
    assert [d.content for d in outcome.documents] == [SOURCE]
    assert outcome.members == [(0, 1)]


def test_merge_leaves_apart_other_sources_far_chunks_and_plain_documents():
    docs = [
        chunk(0, 31),
        chunk(60, 94),
        chunk(0, 31, of="other.txt"),
        Document("a plain document without a span"),
    ]
    outcome = merge_chunks(docs)
    assert outcome.members == [(0,), (1,), (2,), (3,)]
    assert not outcome.merged_any


def test_merge_chunks_whose_texts_disagree_stay_apart():
    wrong = Document(
        "something else entirely here", source="policy.txt", metadata={"chunk_of": "policy.txt", "start": 20, "end": 49}
    )
    outcome = merge_chunks([chunk(0, 31), wrong])
    assert outcome.members == [(0,), (1,)]


def test_merge_pages_are_named_in_the_citation():
    outcome = merge_chunks([chunk(0, 59, page=1), chunk(32, 94, page=2)])
    assert outcome.documents[0].source == "policy.txt pp. 1-2, chars 0-94"


def test_merge_build_has_one_passage_and_a_trace_entry_per_chunk():
    docs = [
        chunk(0, 59, 0.4),
        Document("An unrelated note about opening hours on weekdays.", 0.3, "hours.md"),
        chunk(32, 94, 0.8),
    ]
    result = ContextManager().build(PromptRequest("refunds", docs, max_context_tokens=500))
    assert result.context_block.count("Refunds take five working days") == 1
    assert result.citation_map[1] == "policy.txt, chars 0-94"
    assert [t.input_index for t in result.trace] == [0, 1, 2]
    assert [t.fate for t in result.trace] == ["included", "included", "included"]
    assert result.trace[0].reason.startswith(
        "merged with #2: chunks of policy.txt that overlap or touch, one passage (chars 0-94); "
    )
    assert result.trace[2].reason.startswith("merged with #0: ")
    assert not result.trace[1].reason.startswith("merged")
    assert "merge" in result.timings_ms


def test_merge_never_runs_in_seed_mode():
    docs = [chunk(0, 59), chunk(32, 94)]
    result = ContextManager.seed_compatible().build(PromptRequest("refunds", docs, max_context_tokens=500))
    assert result.context_block.count("They go back to your card.") == 2


def test_merge_only_joins_chunks_the_budget_picked_not_a_whole_file():
    from contextlab import chunk_text

    sentences = [f"Paragraph {n} says refunds take {n} days and nothing else of note here." for n in range(1, 41)]
    text = "\n\n".join(sentences)
    docs = [
        Document(
            c.text,
            score=0.9 if c.start < 300 else 0.1,
            source="long.txt",
            metadata={"chunk_of": "long.txt", "start": c.start, "end": c.end},
        )
        for c in chunk_text(text, size=40, overlap=8, tokenizer="cl100k_base", source="long.txt")
    ]
    assert len(docs) == 20  # two paragraphs a chunk
    result = ContextManager().build(PromptRequest("refunds", docs, max_context_tokens=150))
    merged = [t for t in result.trace if t.reason.startswith("merged with")]
    assert result.context_block.count("--- Source [") == 1
    assert "Paragraph 1 says" in result.context_block and "Paragraph 40 says" not in result.context_block
    assert len(merged) >= 2 and result.tokens_used <= 150
