"""AppTest tests for the Compare view, drawn alone on a sample set (tests/ui/conftest.py)."""

from __future__ import annotations

import pytest

from .conftest import chart, open_view, run, table, texts

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration


def _compare(settings_open: bool = True, **kwargs):
    """Open Compare, B's settings opened (as a click on them does) unless ``settings_open`` is False."""
    kwargs.setdefault("sample", "eng_postmortems")
    kwargs.setdefault("budget", 1000)
    return open_view("compare", state={"cmp_b_settings_open": True} if settings_open else None, **kwargs)


def test_view_compare_opens_with_b_the_seed_compatible_flip_of_a():
    at = _compare()
    assert at.toggle(key="cmp_b_seed_compatible").value is True
    assert list(table(at, "setting")["setting"]) == ["seed_compatible"]
    assert "B is the same configuration as A" not in texts(at)
    assert at.number_input(key="cmp_b_max_context_tokens").value == 1000


def test_view_compare_first_view_shows_the_second_best_document_lost():
    at = _compare()
    lost = [line for line in texts(at).splitlines() if "leaves out" in line]
    assert any("wiki/postmortems/2025-11-12-checkout-latency.md" in t and "rank 2" in t for t in lost)
    assert any("(D" in t for t in lost), "documents are named D<i>, as everywhere in the lab"
    names = {trace["name"] for trace in chart(at, "cmp_positions_chart")["data"]}
    assert "lost" in names


def test_view_compare_changes_table_lists_only_changes_until_toggled():
    at = _compare()
    changes = table(at, "change")
    assert "unchanged" not in set(changes["change"])
    assert not changes.isna().any().any(), "no empty (None) cells"
    run(at.toggle(key="cmp_show_unchanged").set_value(True))
    every = table(at, "change")
    assert len(every) == len(every["doc"].unique()) > len(changes)
    assert "unchanged" in set(every["change"])


def test_view_compare_budget_change_in_b_changes_tokens():
    at = _compare()
    run(at.button(key="cmp_b_preset_reset").click())
    run(at.number_input(key="cmp_b_max_context_tokens").set_value(400))
    tokens = next(m for m in at.metric if m.label == "Tokens, B (exact)")
    assert int(tokens.value.replace(",", "")) <= 400
    assert tokens.delta == "of its budget of 400"


def test_view_compare_reset_returns_b_to_a_and_says_so():
    at = _compare()
    run(at.button(key="cmp_b_preset_reset").click())
    assert at.toggle(key="cmp_b_seed_compatible").value is False
    assert "B is the same configuration as A" in texts(at)
    run(at.button(key="cmp_b_preset_seed").click())
    assert at.toggle(key="cmp_b_seed_compatible").value is True


def test_view_compare_blocks_are_shown_as_code_text():
    at = _compare()
    assert not at.code, "the two blocks wait until their section is opened"
    at.session_state["cmp_blocks_open"] = True
    at = run(at)
    blocks = [c.value for c in at.code]
    assert len(blocks) == 2 and blocks[0].startswith("--- Source [1]")


def _strategies(**kwargs):
    """Return the Compare view with its placement-strategies section opened (as a click does)."""
    at = _compare(**kwargs)
    at.session_state["cmp_strategies_open"] = True
    return run(at)


def test_view_compare_strategies_are_drawn_only_when_opened():
    at = _compare()
    keys = [e.proto.id for e in at.get("plotly_chart")]
    assert any("cmp_positions_chart" in k for k in keys)
    assert not any("cmp_strategy" in k for k in keys), "the first visit draws two charts, not four"
    at = _strategies()
    assert chart(at, "cmp_strategy_chart")["data"] and chart(at, "cmp_strategy_scores")["data"]


def test_view_compare_strategy_grid_marks_langchain_even_count():
    at = _strategies()
    run(at.slider(key="cmp_strategy_n").set_value(6))
    grid = chart(at, "cmp_strategy_chart")["data"][0]
    rows = dict(zip(grid["y"], grid["z"], strict=False))
    assert rows["LangChain LongContextReorder"] == [2, 4, 6, 5, 3, 1]
    assert rows["contextlab (lost in the middle)"][0] == 1
    assert any("it is at position 6 of 6; with 7 it would be at position 1" in w.value for w in at.warning)
    run(at.slider(key="cmp_strategy_n").set_value(7))
    assert any("it is at position 1 of 7; with 8 it would be at position 8" in w.value for w in at.warning)


def test_view_compare_strategy_scores_follow_the_model():
    at = _strategies()
    scores = chart(at, "cmp_strategy_scores")["data"][0]
    assert len(scores["x"]) == 5 and all(0 <= x <= 1 for x in scores["x"])
    models = at.selectbox(key="cmp_strategy_model").options
    run(at.selectbox(key="cmp_strategy_model").set_value(models[-1]))
    assert chart(at, "cmp_strategy_scores")["data"][0]["text"] != scores["text"]


def test_view_compare_without_documents_says_what_to_do():
    at = _compare(empty=True)
    assert "Load some documents" in texts(at)
    assert not at.get("plotly_chart")


@pytest.mark.parametrize("presentation", [False, True])
def test_view_compare_folds_b_settings_until_asked_and_keeps_them(presentation):
    at = _compare(settings_open=False, presentation=presentation)
    assert "All of B's settings" in [e.label for e in at.expander]
    assert not at.number_input and not any(t.key.startswith("cmp_b_") for t in at.toggle)  # drawn when opened

    def differing(at) -> set[str]:  # the table of what B changes (Markdown-escaped when presenting)
        return {v.replace("\\", "") for v in table(at, "setting")["setting"]}

    assert differing(at) == {"seed_compatible"}  # what B is, still said
    at.session_state["cmp_b_settings_open"] = True
    at = run(at)
    run(at.number_input(key="cmp_b_max_context_tokens").set_value(400))
    at.session_state["cmp_b_settings_open"] = False  # folded again: B keeps its budget
    at = run(at)
    assert differing(at) == {"seed_compatible", "max_context_tokens"}
    at.session_state["cmp_b_settings_open"] = True
    assert run(at).number_input(key="cmp_b_max_context_tokens").value == 400


def test_view_compare_apply_config_b_sets_b_from_a_scenario():
    at = _compare(scenario="faq_copies", sample="support_faq", budget=1024)
    assert at.slider(key="cmp_b_dedup_threshold").value == 1.0
    assert list(table(at, "setting")["setting"]) == ["dedup_threshold"]
    lines = texts(at).splitlines()
    assert any(line.startswith("• B adds support/kb/refund-policy-internal.md") for line in lines)


def test_view_compare_seed_mode_b_shows_the_tokenizer_it_really_uses():
    at = _compare()  # B opens seed-compatible; A counts with cl100k_base
    assert at.toggle(key="cmp_b_seed_compatible").value is True
    shown = at.selectbox(key="cmp_b_tokenizer__seed_fixed")
    assert shown.value == "heuristic" and shown.disabled
    assert at.toggle(key="cmp_b_budget_before_reorder__seed_fixed").value is False
    assert at.toggle(key="cmp_b_budget_includes_headers__seed_fixed").value is False
    # Switching seed mode off gives B's own choices back, not the seed's.
    at = run(at.toggle(key="cmp_b_seed_compatible").set_value(False))
    own = at.selectbox(key="cmp_b_tokenizer")
    assert own.value == "cl100k_base" and not own.disabled
    assert at.toggle(key="cmp_b_budget_before_reorder").value is True


def test_view_compare_counts_both_sides_exactly_and_flags_the_side_over_its_budget():
    # scenario 1: B is the seed engine, which estimates words x 1.3 and does not count headers
    at = _compare()
    a = next(m for m in at.metric if m.label == "Tokens, A (exact)")
    b = next(m for m in at.metric if m.label == "Tokens, B (exact)")
    assert a.delta == "of its budget of 1,000"
    assert int(b.value.replace(",", "")) > 1000 and b.delta.endswith("over its budget of 1,000")
    said = texts(at)
    assert "B is over its budget: " in said and "A is over its budget" not in said
    assert "A's engine counts exactly (cl100k_base)" in said
    assert "B's engine counts with its heuristic estimate (words × 1.3)" in said
    assert "Block size, exact (cl100k_base)" in said
