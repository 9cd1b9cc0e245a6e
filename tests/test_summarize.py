"""The summarize stage: a one-sentence extractive synopsis of a document that does not fit."""

from __future__ import annotations

from contextlab.stages.summarize import extractive_synopsis, split_sentences

TEXT = "Our office is in Lyon. Refunds take 14 days. Annual plans can be refunded within 30 days."


def test_summarize_splits_sentences():
    assert split_sentences(TEXT) == [
        "Our office is in Lyon.",
        "Refunds take 14 days.",
        "Annual plans can be refunded within 30 days.",
    ]
    assert split_sentences("  \n ") == []


def test_summarize_picks_sentence_matching_query():
    assert extractive_synopsis(TEXT, "refund annual plans") == "Annual plans can be refunded within 30 days."


def test_summarize_without_query_terms_takes_first_sentence():
    assert extractive_synopsis(TEXT, "") == "Our office is in Lyon."
    assert extractive_synopsis(TEXT, "the and of") == "Our office is in Lyon."  # stopwords only


def test_summarize_ties_go_to_the_earlier_sentence():
    assert extractive_synopsis("Refunds are slow. Refunds are fast.", "refunds") == "Refunds are slow."


def test_summarize_empty_text():
    assert extractive_synopsis("", "q") == ""
