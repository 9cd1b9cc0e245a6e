"""Filter, rank, budget, summarize and format stages on their own."""

from __future__ import annotations

from contextlab.stages.budget import Shortened, fit_to_budget, seed_truncate
from contextlab.stages.filtering import filter_short_documents
from contextlab.stages.format import format_block, source_header
from contextlab.stages.rank import rank_by_score
from contextlab.stages.summarize import extractive_synopsis, split_sentences
from contextlab.types import Document


def test_filtering_drops_below_min():
    assert filter_short_documents([5, 4, 0, 9], 5) == ([0, 3], [1, 2])


def test_rank_stable_descending():
    assert rank_by_score([0.5, 0.9, 0.5, 0.9, 0.1]) == [1, 3, 0, 2, 4]
    assert rank_by_score([0.5, 0.9, 0.7], [0, 2]) == [2, 0]


def test_budget_walk_continues_after_overflow():
    decisions = fit_to_budget([60, 50, 30], 100)
    assert [d.fate for d in decisions] == ["included", "excluded", "included"]
    assert [d.remaining_before for d in decisions] == [100, 40, 40]


def test_budget_shortens_only_above_min_remaining():
    calls = []

    def shorten(i, remaining):
        calls.append((i, remaining))
        return Shortened("cut", remaining, "truncated")

    decisions = fit_to_budget([20, 100, 10], 100, shorten=shorten)
    assert calls == [(1, 80)]
    assert [d.fate for d in decisions] == ["included", "truncated", "excluded"]
    assert fit_to_budget([60, 100], 100, shorten=shorten)[1].fate == "excluded"  # 40 left <= 50


def test_budget_seed_truncate():
    assert seed_truncate("a b c d e f g h", 5.3) == "a b c d [...]"


def test_format_headers_and_citations():
    docs = [Document("x", 1.0, "a.md"), Document("y", 0.874)]
    block, cites = format_block(docs)
    assert block == "--- Source [1] a.md ---\nx\n\n--- Source [2] --- (relevance: 0.87)\ny"
    assert cites == {1: "a.md", 2: "doc_2"}
    assert source_header(3, Document("z", 0.5, "s")) == "--- Source [3] s --- (relevance: 0.50)"


def test_summarize_picks_sentence_matching_query():
    text = "Our office is in Lyon. Refunds take 14 days. Annual plans can be refunded within 30 days."
    assert split_sentences(text) == ["Our office is in Lyon.", "Refunds take 14 days.",
                                     "Annual plans can be refunded within 30 days."]
    assert extractive_synopsis(text, "refund annual plans") == "Annual plans can be refunded within 30 days."
    assert extractive_synopsis(text, "") == "Our office is in Lyon."
    assert extractive_synopsis("", "q") == ""
