"""Tests for contextlab.lab.compare: the document-by-document diff of two results."""

from __future__ import annotations

import pytest

from contextlab.errors import InvalidInputError
from contextlab.lab.compare import config_differences, diff_results
from contextlab.lab.config import LabConfig
from contextlab.types import ContextResult, DocTrace


def _result(entries: list[tuple[str, int | None, int]], block: str = "block", tokens_used: int = 100) -> ContextResult:
    """Return a result whose trace has one (fate, position, block_tokens) entry per document."""
    trace = [
        DocTrace(
            input_index=i,
            source=f"s{i}",
            score=1 - i / 10,
            tokens=tokens,
            relevance_rank=i + 1,
            position=position,
            fate=fate,  # type: ignore[arg-type]
            block_tokens=tokens if position is not None else None,
        )
        for i, (fate, position, tokens) in enumerate(entries)
    ]
    return ContextResult(
        context_block=block,
        included_docs=[],
        excluded_docs=[],
        citation_map={},
        tokens_used=tokens_used,
        tokens_budget=200,
        duplicates_removed=0,
        truncated=False,
        trace=trace,
    )


def test_diff_results_identical_results_have_no_changes():
    a = _result([("included", 1, 10), ("included", 2, 20)])
    diff = diff_results(a, a)
    assert not diff.has_changes
    assert diff.counts() == {"gained": 0, "lost": 0, "moved": 0, "resized": 0, "unchanged": 2}
    assert diff.summary() == ["Both configurations build exactly the same block."]


def test_diff_results_classifies_gained_lost_moved_resized():
    a = _result(
        [("included", 1, 10), ("included", 2, 20), ("excluded", None, 30), ("included", 3, 40), ("included", 4, 50)],
        block="A",
        tokens_used=120,
    )
    b = _result(
        [("included", 1, 12), ("excluded", None, 20), ("included", 3, 30), ("included", 2, 40), ("truncated", 4, 25)],
        block="B",
        tokens_used=105,
    )
    diff = diff_results(a, b)
    assert [c.change for c in diff.changes] == ["unchanged", "lost", "gained", "moved", "resized"]
    assert [c.input_index for c in diff.gained] == [2]
    assert [c.input_index for c in diff.lost] == [1]
    assert diff.moved[0].position_shift == -1
    assert diff.resized[0].tokens_delta == -25
    assert diff.tokens_delta == -15
    # doc 0 costs 2 more tokens in B (another tokenizer, say) but is otherwise untouched
    assert diff.changes[0].tokens_delta == 2


def test_diff_results_shortened_to_another_length_is_resized():
    a = _result([("included", 1, 10), ("truncated", 2, 60)])
    b = _result([("included", 1, 10), ("truncated", 2, 40)])
    assert [c.change for c in diff_results(a, b).changes] == ["unchanged", "resized"]


def test_diff_results_excluded_docs_cost_nothing():
    a = _result([("included", 1, 10), ("excluded", None, 99)])
    b = _result([("included", 1, 10), ("duplicate", None, 99)], block="block")
    diff = diff_results(a, b)
    assert diff.changes[1].tokens_a == 0 and diff.changes[1].tokens_b == 0
    # another reason for staying out is still a change worth showing
    assert diff.changes[1].change == "resized"


def test_diff_results_summary_puts_losses_first_by_rank():
    a = _result([("excluded", None, 10), ("included", 1, 20), ("included", 2, 30)], block="A")
    b = _result([("included", 1, 10), ("excluded", None, 20), ("excluded", None, 30)], block="B")
    lines = diff_results(a, b).summary()
    assert [line.split(" (")[0] for line in lines[:3]] == ["B leaves out s1", "B leaves out s2", "B adds s0"]


def test_diff_results_summary_names_each_change_and_the_token_delta():
    a = _result([("included", 1, 10), ("included", 2, 20)], block="A", tokens_used=30)
    b = _result([("included", 1, 10), ("excluded", None, 20)], block="B", tokens_used=10)
    lines = diff_results(a, b).summary()
    assert lines[0] == "B leaves out s1 (doc 1, relevance rank 2): excluded in B, position 2 in A."
    assert lines[-1] == "Block size: 30 → 10 tokens (-20)."


def test_diff_results_rejects_results_of_different_documents():
    a = _result([("included", 1, 10), ("included", 2, 20)])
    b = _result([("included", 1, 10)])
    with pytest.raises(InvalidInputError, match=r"only in A: \[1\]"):
        diff_results(a, b)


def test_diff_results_rows_carry_every_document():
    a = _result([("included", 1, 10), ("excluded", None, 20)])
    rows = diff_results(a, a).to_rows()
    assert [r["doc"] for r in rows] == [0, 1]
    assert rows[1]["position A"] is None and rows[1]["fate B"] == "excluded"


def test_diff_results_of_kind_rejects_unknown_change():
    a = _result([("included", 1, 10)])
    with pytest.raises(InvalidInputError, match="unknown change 'teleported'; choose one of: gained"):
        diff_results(a, a).of_kind("teleported")


def test_config_differences_lists_changed_fields_only():
    a = LabConfig()
    b = a.with_changes(max_context_tokens=300, seed_compatible=True)
    assert config_differences(a, b) == [("max_context_tokens", 2048, 300), ("seed_compatible", False, True)]
    assert config_differences(a, a) == []
