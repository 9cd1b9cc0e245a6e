"""Tests for contextlab.lab.scenarios: every story really shows when built with the engine."""

from __future__ import annotations

import pytest

from contextlab import PromptRequest
from contextlab.curves.published import accuracy_at, curve_models
from contextlab.errors import InvalidInputError
from contextlab.lab.compare import diff_results
from contextlab.lab.config import LabConfig
from contextlab.lab.samples import sample_set_names
from contextlab.lab.scenarios import Scenario, all_scenarios, get_scenario, scenario_keys
from contextlab.types import ContextResult, DocTrace


def _build(scenario: Scenario, config: LabConfig) -> ContextResult:
    sample = scenario.load()
    return config.make_manager().build(
        PromptRequest(query=config.query, documents=sample.documents, max_context_tokens=config.max_context_tokens)
    )


def _trace_of(result: ContextResult, index: int) -> DocTrace:
    return next(t for t in result.trace if t.input_index == index)


def _answer_index(scenario: Scenario) -> int:
    indices = scenario.load().answer_indices()
    assert len(indices) == 1, "the story needs exactly one answer document"
    return indices[0]


@pytest.mark.parametrize("scenario", all_scenarios(), ids=lambda s: s.key)
def test_scenario_fields_are_well_formed(scenario: Scenario):
    assert scenario.sample_set in sample_set_names()
    sentences = [s for s in scenario.story.replace(";", ".").split(". ") if s.strip()]
    assert 2 <= len(sentences) <= 4
    assert scenario.config.query == scenario.load().query
    assert scenario.view in {"overview", "duplicates", "placement", "budget", "final", "compare", "learn", "window"}
    if scenario.compare_with is not None:
        assert scenario.compare_with.query == scenario.config.query
        assert scenario.compare_with != scenario.config


def test_scenarios_keys_are_unique():
    assert len(set(scenario_keys())) == len(all_scenarios()) >= 3


def test_get_scenario_returns_by_key_and_rejects_unknown():
    assert get_scenario("faq_copies").sample_set == "support_faq"
    with pytest.raises(InvalidInputError, match="unknown scenario 'nope'; choose one of: "):
        get_scenario("nope")


def test_scenario_second_best_cut_seed_engine_drops_rank_two():
    scenario = get_scenario("second_best_cut")
    ours = _build(scenario, scenario.config)
    seed = _build(scenario, scenario.compare_with)
    rank_two = next(t for t in ours.trace if t.relevance_rank == 2)
    assert rank_two.fate == "included"
    assert _trace_of(seed, rank_two.input_index).fate in {"excluded", "truncated"}
    # the document cut is the one holding the answer: that is what makes it a story
    assert rank_two.input_index == _answer_index(scenario)
    # and the Compare view lists it as lost (or cut short) going from A to B
    diff = diff_results(ours, seed)
    assert rank_two.input_index in [c.input_index for c in diff.lost + diff.resized]


def test_scenario_faq_copies_dedup_keeps_one_of_three():
    scenario = get_scenario("faq_copies")
    result = _build(scenario, scenario.config)
    answer = _answer_index(scenario)
    copies = [t for t in result.trace if t.duplicate_of == answer]
    assert len(copies) == 2 and {t.fate for t in copies} == {"duplicate"}
    assert _trace_of(result, answer).fate == "included"
    # exact matching alone lets the edited copy into the block
    exact_only = _build(scenario, scenario.compare_with)
    near = [
        t for t in copies if next(p for p in result.duplicate_pairs if p.dropped_index == t.input_index).kind == "near"
    ]
    assert near, "one copy must be a near (not exact) duplicate"
    assert all(_trace_of(exact_only, t.input_index).position is not None for t in near)


def test_scenario_faq_copies_a_looser_copy_still_gets_in():
    scenario = get_scenario("faq_copies")
    answer = _answer_index(scenario)
    result = _build(scenario, scenario.config)
    loose = _build(scenario, scenario.config.with_changes(dedup_threshold=0.5))
    looser_copies = {p.dropped_index for p in loose.duplicate_pairs if p.kept_index == answer}
    strict_copies = {p.dropped_index for p in result.duplicate_pairs if p.kept_index == answer}
    stale = looser_copies - strict_copies
    assert stale, "a copy only a loose threshold catches"
    assert all(_trace_of(result, i).position is not None for i in stale)


def _distance_to_end(trace: DocTrace, n_in_block: int) -> int:
    assert trace.position is not None
    return min(trace.position - 1, n_in_block - trace.position)


def test_scenario_lost_in_the_middle_answer_sits_mid_block_without_reorder():
    scenario = get_scenario("lost_in_the_middle")
    plain = _build(scenario, scenario.config)
    reordered = _build(scenario, scenario.compare_with)
    answer = _answer_index(scenario)
    n = len(plain.included_docs)
    assert n >= 10, "the effect needs many documents"
    position = _trace_of(plain, answer).position
    assert position is not None and n / 3 < position <= 2 * n / 3
    assert _distance_to_end(_trace_of(reordered, answer), len(reordered.included_docs)) < _distance_to_end(
        _trace_of(plain, answer), n
    )


def test_scenario_lost_in_the_middle_answer_is_read_better_after_reorder():
    scenario = get_scenario("lost_in_the_middle")
    answer = _answer_index(scenario)
    plain = _build(scenario, scenario.config)
    reordered = _build(scenario, scenario.compare_with)
    n = len(plain.included_docs)
    assert len(reordered.included_docs) == n
    before = _trace_of(plain, answer).position
    after = _trace_of(reordered, answer).position
    # The models with a marked U-shaped curve read the new position better; flatter curves
    # (Claude-1.3, MPT-30B) barely care where a document sits, so they are not the story.
    better = [m for m in curve_models() if accuracy_at(m, n, after) > accuracy_at(m, n, before)]
    assert {"GPT-3.5-Turbo", "GPT-3.5-Turbo (16K)", "LongChat-13B (16K)"} <= set(better)


def test_scenarios_module_import_reads_no_sample_set(tmp_path):
    import subprocess
    import sys

    code = (
        "import contextlab.lab.samples as s\n"
        "s.load_sample_set = None  # any read at import would fail\n"
        "import contextlab.lab.scenarios as sc\n"
        "print(sc.all_scenarios.cache_info().currsize)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"


def _in_block(result: ContextResult) -> int:
    return sum(1 for t in result.trace if t.position is not None)


def test_scenario_punchlines_give_the_numbers_the_builds_show():
    # The punchline is what the room remembers: its numbers are those of the two builds.
    cut = get_scenario("second_best_cut")
    a, b = _build(cut, cut.config), _build(cut, cut.compare_with)
    answer = _trace_of(a, _answer_index(cut))
    assert cut.punchline(a, b) == (
        f"The postmortem that answers the question is rank 2: contextlab's default (A) keeps it at "
        f"pos {answer.position} of {_in_block(a)}; the original engine (B) leaves it out."
    )

    copies = get_scenario("faq_copies")
    line = copies.punchline(_build(copies, copies.config), _build(copies, copies.compare_with))
    assert line.startswith("Deduplication drops 2 copies of the refund policy (1 exact and 1 near)")

    middle = get_scenario("lost_in_the_middle")
    plain, moved = _build(middle, middle.config), _build(middle, middle.compare_with)
    before = _trace_of(plain, _answer_index(middle))
    after = _trace_of(moved, _answer_index(middle))
    assert before.relevance_rank == 13
    assert middle.punchline(plain, moved) == (
        f"The answer, rank 13: pos {before.position} of {_in_block(plain)} in relevance order, "
        f"pos {after.position} after the lost-in-the-middle reorder."
    )
    # in relevance order the block holds it at the count of block documents ranked at or above it
    assert before.position == sum(1 for t in plain.trace if t.position and t.relevance_rank <= 13)
