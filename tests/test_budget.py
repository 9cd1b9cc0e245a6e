"""The budget stage: costs, the walk, cuts and summaries, fit_text and the final measure."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contextlab.stages.budget import (
    SUMMARY_PREFIX,
    TRUNCATION_MARKER,
    BudgetRules,
    PlacedDocument,
    Shortened,
    apply_budget,
    default_walk,
    fit_text,
    fit_to_budget,
    measure_and_drop,
    seed_truncate,
    seed_walk,
)
from contextlab.stages.format import format_block
from contextlab.tokenizers import get_tokenizer
from contextlab.types import Document

HEURISTIC = get_tokenizer("heuristic")
CL100K = get_tokenizer("cl100k_base")


class CharTokenizer:
    """One token per character: easy to reason about in a test."""

    name = "chars"

    def count(self, text: str) -> int:
        return len(text)

    def truncate(self, text: str, max_tokens: int) -> str:
        return text[: max(max_tokens, 0)]


def words(prefix: str, n: int) -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


# -- fit_to_budget ---------------------------------------------------------------------------------


def test_budget_walk_continues_after_overflow():
    decisions = fit_to_budget([60, 50, 30], 100)
    assert [d.fate for d in decisions] == ["included", "excluded", "included"]
    # whole documents first: the one left out is judged against the room left at the end
    assert [d.remaining_before for d in decisions] == [100, 10, 40]
    seed_walk = fit_to_budget([60, 50, 30], 100, whole_first=False)
    assert [d.fate for d in seed_walk] == ["included", "excluded", "included"]
    assert [d.remaining_before for d in seed_walk] == [100, 40, 40]


def _cut_all_that_is_left(i, remaining):
    return Shortened(f"cut {i}", remaining, "truncated")


def test_budget_seed_walk_cuts_the_first_misfit_at_once():
    # 80 fits; 60 does not and is cut to the 20 left; the small 4 behind it finds no room.
    decisions = seed_walk([80, 60, 4], 100, shorten=_cut_all_that_is_left, min_remaining=5)
    assert [(d.fate, d.cost, d.remaining_before) for d in decisions] == [
        ("included", 80, 100),
        ("truncated", 20, 20),
        ("excluded", 0, 0),
    ]


def test_budget_default_walk_lets_a_small_whole_document_ahead_of_the_cut():
    # The same documents: the small 4 goes in whole first, the cut of 60 gets the 16 left.
    decisions = default_walk([80, 60, 4], 100, shorten=_cut_all_that_is_left, min_remaining=5)
    assert [(d.fate, d.cost, d.remaining_before) for d in decisions] == [
        ("included", 80, 100),
        ("truncated", 16, 16),
        ("included", 4, 20),
    ]
    # fit_to_budget is the two walks behind one switch.
    assert fit_to_budget([80, 60, 4], 100, shorten=_cut_all_that_is_left, min_remaining=5) == decisions


def test_budget_walk_order_is_recorded_in_the_result():
    from contextlab import ContextManager, PromptRequest

    docs = [Document(f"document {i} " + words(f"w{i}x", 12), score=1.0 - i / 10, source=f"d{i}") for i in range(5)]
    request = PromptRequest("q", docs, max_context_tokens=10_000)
    # The default walks by relevance; seed 000 places first (lost in the middle), then walks that order.
    assert ContextManager(tokenizer="heuristic").build(request).budget_walk == [0, 1, 2, 3, 4]
    seed = ContextManager.seed_compatible().build(request)
    assert seed.budget_walk == [0, 2, 4, 3, 1]
    assert seed.to_dict()["budget_walk"] == [0, 2, 4, 3, 1]


def _cut_to_remaining(calls):
    def shorten(i, remaining):
        calls.append((i, remaining))
        return Shortened("cut", remaining, "truncated")

    return shorten


def test_budget_shortens_with_the_room_whole_documents_leave():
    calls = []
    decisions = fit_to_budget([20, 100, 10], 100, shorten=_cut_to_remaining(calls))
    assert calls == [(1, 70)]
    assert [(d.fate, d.cost) for d in decisions] == [("included", 20), ("truncated", 70), ("included", 10)]
    assert fit_to_budget([60, 100], 100, shorten=_cut_to_remaining([]))[1].fate == "excluded"  # 40 left <= 50


def test_budget_seed_walk_shortens_the_first_overflow_at_once():
    calls = []
    decisions = fit_to_budget([20, 100, 10], 100, shorten=_cut_to_remaining(calls), whole_first=False)
    assert calls == [(1, 80)]
    assert [d.fate for d in decisions] == ["included", "truncated", "excluded"]
    assert fit_to_budget([60, 100], 100, shorten=_cut_to_remaining([]), whole_first=False)[1].fate == "excluded"


def test_budget_cut_never_crowds_out_a_whole_document_that_fits():
    # The shape of nq-1632 at budget 256: rank 2 does not fit, rank 3 (the gold) does. The
    # seed walk cuts rank 2 into all the room left; whole-first keeps rank 3 and cuts rank 2
    # into what is left after it.
    costs = [100, 157, 16, 300]
    calls = []
    decisions = fit_to_budget(costs, 256, shorten=_cut_to_remaining(calls))
    assert [(d.fate, d.cost) for d in decisions] == [
        ("included", 100),
        ("truncated", 140),
        ("included", 16),
        ("excluded", 0),
    ]
    assert calls == [(1, 140)]  # rank 4 is offered nothing: 0 left, not more than 50
    seed_walk = fit_to_budget(costs, 256, shorten=_cut_to_remaining([]), whole_first=False)
    assert [d.fate for d in seed_walk] == ["included", "truncated", "excluded", "excluded"]


def test_budget_left_out_documents_are_shortened_in_walk_order_while_room_remains():
    def half(i, remaining):
        return Shortened(f"s{i}", remaining // 2, "summarized")

    # 8 (no more than min_remaining) goes ahead of the synopsis owed to 500; 90 waits for its
    # turn after the synopses, and still fits whole then
    decisions = fit_to_budget([500, 8, 400, 90], 400, shorten=half, min_remaining=10)
    assert [(d.index, d.fate, d.cost, d.remaining_before) for d in decisions] == [
        (0, "summarized", 196, 392),
        (1, "included", 8, 400),
        (2, "summarized", 98, 196),
        (3, "included", 90, 98),
    ]


def test_budget_larger_document_does_not_go_ahead_of_a_pending_cut():
    calls = []
    # 100 in; 200 does not fit and is owed a cut of the 100 left; 60 would fit but is larger
    # than a cut's minimum (50), so it waits; 10 goes ahead (90 left, still more than 50)
    decisions = fit_to_budget([100, 200, 60, 10], 200, shorten=_cut_to_remaining(calls))
    assert [(d.fate, d.cost) for d in decisions] == [
        ("included", 100),
        ("truncated", 90),
        ("excluded", 0),
        ("included", 10),
    ]
    assert calls == [(1, 90)]


def test_budget_small_document_waits_when_it_would_cancel_the_cut():
    # after 100 and 45, 55 are left; 40 more would leave 15, too little for the cut owed to 300
    decisions = fit_to_budget([100, 300, 45, 40], 200, shorten=_cut_to_remaining([]))
    assert [(d.fate, d.cost) for d in decisions] == [
        ("included", 100),
        ("truncated", 55),
        ("included", 45),
        ("excluded", 0),
    ]


def test_budget_overhead_asked_only_for_documents_that_could_fit():
    asked = []

    def overhead(i):
        asked.append(i)
        return 5

    decisions = fit_to_budget([50, 500, 40], 100, overhead=overhead)
    assert asked == [0, 2]
    assert [d.cost for d in decisions] == [55, 0, 45]


def test_budget_seed_truncate():
    assert seed_truncate("a b c d e f g h", 5.3) == "a b c d [...]"


# -- fit_text --------------------------------------------------------------------------------------


def test_budget_fit_text_keeps_text_that_fits():
    assert fit_text(HEURISTIC, "one two three", 10) == "one two three"


def test_budget_fit_text_cuts_with_marker():
    cut = fit_text(HEURISTIC, words("w", 100), 14)
    assert cut == words("w", 10) + TRUNCATION_MARKER  # 11 words: int(11 * 1.3) = 14
    assert HEURISTIC.count(cut) <= 14
    assert fit_text(HEURISTIC, words("w", 100), 14, marker=False) == words("w", 10)


def test_budget_fit_text_none_when_nothing_fits():
    assert fit_text(HEURISTIC, words("w", 10), 0) is None
    assert fit_text(HEURISTIC, words("w", 10), 1) is None  # the marker alone takes the room


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=0, max_size=300), st.integers(-5, 80), st.booleans())
@example(" 0 0\r0", 2, False)  # found once: the heuristic's cut rejoined the words, so it was no prefix
def test_budget_fit_text_never_exceeds_room(text, room, marker):
    for tok in (HEURISTIC, CL100K):
        cut = fit_text(tok, text, room, marker=marker)
        if cut is not None:
            assert tok.count(cut) <= room
            assert cut == text or (cut.endswith(TRUNCATION_MARKER) if marker else text.startswith(cut))


# -- apply_budget ----------------------------------------------------------------------------------

DOCS = [
    Document(words("a", 30), 0.9, "a"),
    Document(words("b", 100), 0.8, "b", {"k": 1}),
    Document(words("c", 10), 0.7, "c"),
]
TOKENS = [HEURISTIC.count(d.content) for d in DOCS]


def test_budget_apply_counts_headers_when_asked():
    rules = BudgetRules(HEURISTIC, include_headers=True)
    outcome = apply_budget([0, 2], DOCS, TOKENS, 1000, rules)
    header_a = HEURISTIC.count("--- Source [1] a --- (relevance: 0.90)\n")
    header_c = HEURISTIC.count("--- Source [2] c --- (relevance: 0.70)\n") + HEURISTIC.count("\n\n")
    assert [p.cost for p in outcome.placed] == [TOKENS[0] + header_a, TOKENS[2] + header_c]
    free = apply_budget([0, 2], DOCS, TOKENS, 1000, BudgetRules(HEURISTIC, include_headers=False))
    assert [p.cost for p in free.placed] == [TOKENS[0], TOKENS[2]]


def test_budget_apply_cuts_with_what_whole_documents_leave():
    # a: 39 tokens, b: 130, c: 13; a and c go in whole, b is cut to the 68 tokens left
    outcome = apply_budget([0, 1, 2], DOCS, TOKENS, 120, BudgetRules(HEURISTIC, include_headers=False))
    assert [(p.index, p.fate) for p in outcome.placed] == [(0, "included"), (1, "truncated"), (2, "included")]
    cut = outcome.placed[1].doc
    assert cut.content.endswith(TRUNCATION_MARKER) and cut.metadata == {"k": 1, "truncated": True}
    assert outcome.placed[1].remaining_before == 120 - TOKENS[0] - TOKENS[2]
    assert outcome.placed[1].cost <= 120 - TOKENS[0] - TOKENS[2]
    assert outcome.excluded_at == {}
    assert DOCS[1].metadata == {"k": 1} and DOCS[1].content == words("b", 100)  # input untouched


def test_budget_apply_small_document_never_cancels_a_more_relevant_cut():
    # At 100: a in, 61 left; c (13) would leave 48, too little to cut b (more than 50 needed),
    # so b is cut into the 61 and c waits, and finds no room.
    outcome = apply_budget([0, 1, 2], DOCS, TOKENS, 100, BudgetRules(HEURISTIC, include_headers=False))
    assert [(p.index, p.fate) for p in outcome.placed] == [(0, "included"), (1, "truncated")]
    assert outcome.placed[1].remaining_before == 100 - TOKENS[0]
    assert list(outcome.excluded_at) == [2]


def test_budget_apply_seed_mode_cuts_by_words():
    rules = BudgetRules(HEURISTIC, include_headers=False, seed_mode=True)
    outcome = apply_budget([0, 1, 2], DOCS, TOKENS, 120, rules)
    assert outcome.placed[1].doc.content == seed_truncate(DOCS[1].content, 120 - TOKENS[0])
    # the seed cuts b into all the room left, so c, which fits whole, stays out
    assert [(p.index, p.fate) for p in outcome.placed] == [(0, "included"), (1, "truncated")]
    assert list(outcome.excluded_at) == [2]


def test_budget_apply_summarizes_instead_of_cutting():
    rules = BudgetRules(
        HEURISTIC, include_headers=False, summarizer=lambda text, query: f"About {query}.", query="bees"
    )
    outcome = apply_budget([0, 1], DOCS, TOKENS, 60, rules)
    assert outcome.placed[1].fate == "summarized"
    assert outcome.placed[1].doc.content == SUMMARY_PREFIX + "About bees."
    assert outcome.placed[1].doc.metadata["summarized"] is True


def test_budget_apply_empty_synopsis_excludes():
    rules = BudgetRules(HEURISTIC, include_headers=False, summarizer=lambda text, query: "  ")
    outcome = apply_budget([0, 1], DOCS, TOKENS, 60, rules)
    assert [p.index for p in outcome.placed] == [0] and 1 in outcome.excluded_at


# -- measure_and_drop ------------------------------------------------------------------------------


def _placed(docs):
    return [PlacedDocument(i, d, "included", len(d.content), 0) for i, d in enumerate(docs)]


def test_budget_measure_drops_least_relevant_until_it_fits():
    docs = [Document("x" * 20), Document("y" * 20), Document("z" * 20)]
    full, _ = format_block(docs)
    block = measure_and_drop(_placed(docs), len(full) - 1, CharTokenizer(), rank_of={0: 2, 1: 3, 2: 1})
    assert [p.index for p in block.placed] == [0, 2]
    assert block.dropped == {1: len(full)}
    assert block.tokens_used == len(block.text) <= len(full) - 1
    assert block.citations == {1: "doc_1", 2: "doc_2"}


def test_budget_measure_without_enforce_keeps_everything():
    docs = [Document("x" * 20), Document("y" * 20)]
    block = measure_and_drop(_placed(docs), 5, CharTokenizer(), rank_of={0: 1, 1: 2}, enforce=False)
    assert len(block.placed) == 2 and block.dropped == {} and block.tokens_used > 5


@pytest.mark.parametrize("budget", [0, 1])
def test_budget_measure_can_empty_the_block(budget):
    docs = [Document("x" * 20)]
    block = measure_and_drop(_placed(docs), budget, CharTokenizer(), rank_of={0: 1})
    assert block.placed == [] and block.text == "" and block.tokens_used == 0
