"""The lab counts in the vocabulary picked (or named by a link), and Compare sets two vocabularies side by side."""

from __future__ import annotations

import re

import pytest

from .conftest import open_lab, open_view, run, texts

pytestmark = pytest.mark.integration


def test_lab_link_with_a_model_name_counts_in_its_vocabulary():
    at = open_lab(sample="support_faq", tokenizer="gpt-4o", view="overview")
    radio = at.radio(key="cfg_tokenizer")
    assert radio.value == "gpt-4o"
    assert radio.options[:5] == [
        "cl100k_base: GPT-4, GPT-3.5",
        "o200k_base: GPT-4o, GPT-4.1, GPT-5, o-series",
        "llama3: Llama 3",
        "qwen3: Qwen 2.5, Qwen 3",
        "heuristic (words × 1.3)",
    ]
    assert radio.options[-1] == "gpt-4o: o200k_base"
    progress = at.get("progress")[0].proto.text
    assert re.fullmatch(r"[\d,]+ of [\d,]+ tokens \(o200k_base\)", progress), progress
    assert re.search(r"tokens by its words × 1.3 estimate, really [\d,]+ \(o200k_base\)", texts(at))


def test_lab_claude_is_an_estimate_and_says_so():
    at = open_lab(sample="support_faq", tokenizer="claude", view="overview")
    assert at.radio(key="cfg_tokenizer").value == "claude"
    progress = at.get("progress")[0].proto.text
    assert progress.endswith(" tokens (Claude estimate (cl100k_base))"), progress


def test_compare_sets_two_vocabularies_side_by_side_on_the_same_documents():
    at = open_view("compare", sample="eng_postmortems", budget=1024, state={"cmp_b_settings_open": True})
    at = run(at.toggle(key="cmp_b_seed_compatible").set_value(False))
    at = run(at.selectbox(key="cmp_b_tokenizer").set_value("llama3"))
    said = texts(at)
    assert "Exact: each side's vocabulary on the finished block (A: cl100k_base, B: llama3)." in said
    assert "B's engine counts exactly (llama3)" in said
    a_tokens = next(m.value for m in at.metric if m.label == "Tokens, A (exact)")
    crossed = re.search(r"A's ([\d,]+)-token block \(cl100k_base\) is ([\d,]+) tokens in llama3", said)
    assert crossed is not None and crossed.group(1) == a_tokens
    assert re.search(r"B's [\d,]+-token block \(llama3\) is [\d,]+ tokens in cl100k_base\.", said)
    assert re.search(r"Block size, exact: [\d,]+ \(cl100k_base\) → [\d,]+ \(llama3\)\.", said)
