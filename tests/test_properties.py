"""Hypothesis properties of the engine's invariants."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextlab import ContextManager, Document, PromptRequest
from contextlab.build_cache import BuildCache
from contextlab.stages.budget import MIN_PARTIAL_TOKENS
from contextlab.stages.dedup import MEASURES, SEED_MEASURE, find_duplicates
from contextlab.stages.reorder import (
    PLACEMENTS,
    PositionCurve,
    place,
    reorder_lost_in_the_middle,
)
from tests.seed_reference import SeedContextManager

VOCAB = ["the", "refund", "plan", "annual", "days", "Paris", "capital", "of", "30", "é"]

texts = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=40).map(" ".join)
scores = st.sampled_from([0.1, 0.35, 0.5, 0.5, 0.8, 0.99, 1.0])
sources = st.one_of(st.none(), st.sampled_from(["a.md", "docs/b.txt", "https://x.io/c"]))
# Any text at all, control characters, line breaks and bidi controls included.
wild_sources = st.one_of(sources, st.text(max_size=30))


@st.composite
def document_lists(draw, max_size=14, source_strategy=sources):
    docs: list[Document] = []
    for _ in range(draw(st.integers(0, max_size))):
        if docs and draw(st.booleans()):
            # a copy of an earlier document, possibly edited: exact and near duplicates
            words = draw(st.sampled_from(docs)).content.split()
            if words and draw(st.booleans()):
                words[draw(st.integers(0, len(words) - 1))] = draw(st.sampled_from(VOCAB))
            if draw(st.booleans()):
                words = [w.upper() for w in words]
            text = " ".join(words)
        else:
            text = draw(texts)
        docs.append(Document(text, draw(scores), draw(source_strategy)))
    return docs


thresholds = st.sampled_from([0.2, 0.5, 0.85, 1.0])
budgets = st.integers(0, 400)
common = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


placements = st.sampled_from(PLACEMENTS)
# What placement "curve" follows (any curve will do for these invariants; the others ignore it).
CURVE = PositionCurve.from_accuracies([70.0, 55.0, 60.0, 65.0])


@common
@given(
    document_lists(source_strategy=wild_sources),
    budgets,
    thresholds,
    st.sampled_from(["heuristic", "cl100k_base"]),
    st.booleans(),
    placements,
)
def test_property_block_never_exceeds_budget(docs, budget, threshold, tokenizer, summarize, placement):
    manager = ContextManager(
        dedup_threshold=threshold,
        tokenizer=tokenizer,
        summarize_overflow=summarize,
        placement=placement,
        position_curve=CURVE,
    )
    result = manager.build(PromptRequest("refund plan", docs, max_context_tokens=budget))
    assert result.tokens_used == manager.tokenizer.count(result.context_block)
    assert result.tokens_used <= budget
    # header, content, blank line per document: no source adds a line
    n = len(result.included_docs)
    assert len(result.context_block.splitlines()) == (3 * n - 1 if n else 0)


@common
@given(document_lists(), budgets, thresholds, placements)
def test_property_placement_only_reorders_the_chosen_documents(docs, budget, threshold, placement):
    # The budget chooses before the placement orders (headers free, so cost ignores position):
    # every placement holds the same documents as relevance order, in its own order.
    settings_ = dict(dedup_threshold=threshold, tokenizer="heuristic", budget_includes_headers=False)
    request = PromptRequest("q", docs, max_context_tokens=budget)
    chosen = ContextManager(placement="relevance", **settings_).build(request).included_docs
    placed = ContextManager(placement=placement, position_curve=CURVE, **settings_).build(request).included_docs
    assert placed == place(placement, chosen, [d.score for d in chosen], CURVE)


@common
@given(document_lists(source_strategy=wild_sources), budgets, thresholds, placements, st.booleans(), st.booleans())
def test_property_every_document_traced_once(docs, budget, threshold, placement, before, headers):
    manager = ContextManager(
        dedup_threshold=threshold,
        placement=placement,
        position_curve=CURVE,
        budget_before_reorder=before,
        budget_includes_headers=headers,
        tokenizer="heuristic",
    )
    result = manager.build(PromptRequest("q", docs, max_context_tokens=budget))
    assert [t.input_index for t in result.trace] == list(range(len(docs)))
    in_block = sorted((t.position, t.input_index) for t in result.trace if t.position is not None)
    assert [p for p, _ in in_block] == list(range(1, len(result.included_docs) + 1))
    assert {t.fate for t in result.trace if t.position is not None} <= {"included", "truncated", "summarized"}
    assert sum(t.fate == "duplicate" for t in result.trace) == result.duplicates_removed
    for t in result.trace:
        if t.fate == "duplicate":
            kept = result.trace[t.duplicate_of]
            assert kept.fate not in ("duplicate", "filtered")


@st.composite
def sized_documents(draw):
    # distinct words (no duplicates), sizes on both sides of a cut's 50-token minimum
    sizes = draw(st.lists(st.integers(1, 120), max_size=10))
    return [Document(" ".join(f"w{k}x{i}" for i in range(n)), draw(scores)) for k, n in enumerate(sizes)]


@common
@given(sized_documents(), budgets, placements)
def test_property_cut_never_crowds_out_a_small_document_that_fits(docs, budget, placement):
    # Headers free and heuristic tokens, so a document costs exactly its tokens.
    manager = ContextManager(
        tokenizer="heuristic", budget_includes_headers=False, placement=placement, position_curve=CURVE
    )
    result = manager.build(PromptRequest("q", docs, max_context_tokens=budget))
    walk = sorted((t for t in result.trace if t.relevance_rank is not None), key=lambda t: t.relevance_rank)
    placed = [t for t in walk if t.position is not None]
    assert sum(t.block_tokens for t in placed) <= budget
    for t in walk:
        if t.fate == "excluded":
            # nothing left out would fit whole in the room the block leaves unused
            assert t.tokens > budget - sum(p.block_tokens for p in placed)
        if t.fate == "included":
            continue
        room = budget - sum(p.block_tokens for p in walk[: t.relevance_rank - 1] if p.fate == "included")
        if t.tokens <= room:
            # it fitted whole when the walk reached it: it only waits for a more relevant cut...
            assert any(p.fate == "truncated" for p in walk[: t.relevance_rank - 1])
            # ...and only when it is larger than a cut's minimum or would leave the cut no more
            assert t.tokens > MIN_PARTIAL_TOKENS or room - t.tokens <= MIN_PARTIAL_TOKENS


@given(st.lists(st.integers(), max_size=50), placements)
def test_property_reorder_is_permutation(items, placement):
    assert sorted(reorder_lost_in_the_middle(items)) == sorted(items)
    assert sorted(place(placement, items, [0.5] * len(items), CURVE)) == sorted(items)


@common
@given(st.lists(texts, max_size=20), thresholds, st.sampled_from(MEASURES))
def test_property_dedup_idempotent(raw, threshold, measure):
    kept = [raw[i] for i in find_duplicates(raw, threshold, measure).kept]
    assert find_duplicates(kept, threshold, measure).kept == list(range(len(kept)))


@common
@given(document_lists(max_size=20), thresholds)
def test_property_dedup_matches_naive_scan(docs, threshold):
    contents = [d.content for d in docs]
    naive, _ = SeedContextManager(dedup_threshold=threshold)._deduplicate(docs)
    kept = find_duplicates(contents, threshold, SEED_MEASURE).kept
    assert [contents[i] for i in kept] == [d.content for d in naive]


@common
@given(document_lists(), budgets, thresholds, st.integers(0, 8), st.booleans())
def test_property_seed_compatible_equals_seed(docs, budget, threshold, min_tokens, reorder):
    kwargs = dict(dedup_threshold=threshold, min_doc_tokens=min_tokens, use_lost_in_middle=reorder)
    request = PromptRequest("q", docs, max_context_tokens=budget)
    ours = ContextManager.seed_compatible(**kwargs).build(request)
    seed = SeedContextManager(**kwargs).build(request)
    assert ours.context_block == seed.context_block
    assert ours.citation_map == seed.citation_map
    assert ours.tokens_used == seed.tokens_used
    assert ours.duplicates_removed == seed.duplicates_removed
    assert ours.truncated == seed.truncated
    assert [d.content for d in ours.excluded_docs] == [d.content for d in seed.excluded_docs]
    assert [(d.content, d.metadata) for d in ours.included_docs] == [
        (d.content, d.metadata) for d in seed.included_docs
    ]


@common
@given(
    document_lists(),
    st.lists(budgets, min_size=1, max_size=3),
    thresholds,
    st.sampled_from(PLACEMENTS),
    st.booleans(),
    st.booleans(),
)
def test_property_build_cache_changes_nothing(docs, budget_list, threshold, placement, seed, summarize):
    make = ContextManager.seed_compatible if seed else ContextManager
    manager = make(
        dedup_threshold=threshold,
        placement=placement,
        position_curve=CURVE,
        summarize_overflow=summarize,
        **({} if seed else {"tokenizer": "heuristic"}),
    )
    cache = BuildCache()
    for budget in budget_list + budget_list:
        request = PromptRequest("refund plan", docs, max_context_tokens=budget)
        cached, fresh = manager.build(request, cache=cache).to_dict(), manager.build(request).to_dict()
        cached.pop("timings_ms"), fresh.pop("timings_ms")
        assert cached == fresh


# -- the default dedup measure: the filtered pass equals the brute-force definition ---------------

_VARIANTS = (
    lambda w: w,
    str.upper,
    lambda w: unicodedata.normalize("NFD", w),
    lambda w: w + "\u200b",
    lambda w: w.translate({ord(d): 0xFF10 + int(d) for d in "0123456789"}),
)


@st.composite
def edited_texts(draw, max_size=60):
    """Texts, many of them copies of earlier ones with words inserted, deleted or replaced,
    some in another case, Unicode form or with zero-width spaces."""
    out: list[str] = []
    for _ in range(draw(st.integers(0, max_size))):
        if out and draw(st.booleans()):
            words = draw(st.sampled_from(out)).split()
            for _ in range(draw(st.integers(0, 4))):
                at = draw(st.integers(0, len(words)))
                op = draw(st.sampled_from(("insert", "delete", "replace")))
                if op == "insert" or at == len(words):
                    words.insert(at, draw(st.sampled_from(VOCAB)))
                elif op == "delete":
                    del words[at]
                else:
                    words[at] = draw(st.sampled_from(VOCAB))
            variant = draw(st.sampled_from(_VARIANTS))
            out.append(" ".join(variant(w) for w in words))
        else:
            out.append(draw(texts))
    return out


@pytest.mark.slow
@common
@given(edited_texts(), st.sampled_from([0.3, 0.5, 0.7, 0.85, 0.9, 1.0]))
def test_property_dedup_word_edit_filter_equals_brute_force(raw, threshold):
    from tests.test_dedup_edit import brute_force

    expected = brute_force(raw, threshold)
    public = find_duplicates(raw, threshold)
    assert (public.kept, public.pairs) == expected
