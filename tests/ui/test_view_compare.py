"""AppTest tests for the Compare view, run on a sample set without the lab shell."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

TIMEOUT = 60


def _app(sample: str = "eng_postmortems", budget: int = 1000, empty: bool = False,
         hide_positional: bool = False, presentation: bool = False,
         scenario: str | None = None) -> None:
    import streamlit as st

    from contextlab.lab.config import LabConfig
    from contextlab.lab.samples import load_sample_set
    from contextlab.ui import view_compare
    from contextlab.ui.context import LabContext
    from contextlab.ui.engine import build_cached

    s = load_sample_set(sample)
    docs = [] if empty else s.documents
    cfg = LabConfig(query=s.query, budget=budget)
    ctx = LabContext(docs, cfg, build_cached(docs, cfg), s.conversation, s.system_prompt,
                     f"Sample: {s.name}", presentation)
    if scenario and "picked" not in st.session_state:
        # what the shell does when a scenario is picked: B becomes its compare_with
        from contextlab.lab.scenarios import get_scenario

        view_compare.apply_config_b(get_scenario(scenario).compare_with)
        st.session_state["picked"] = True
    from tests.ui.conftest import module_hidden

    with module_hidden("contextlab.positional", hide_positional):
        view_compare.render(ctx)


def _run(**kwargs) -> AppTest:
    at = AppTest.from_function(_app, kwargs=kwargs, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    return at


def _chart(at: AppTest, key: str) -> dict:
    for chart in at.get("plotly_chart"):
        if chart.proto.id and key in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {key}")


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def test_view_compare_starts_with_b_equal_to_a():
    at = _run()
    assert at.header[0].value == "Compare"
    assert "what changes" in at.markdown[0].value
    assert any("B is the same configuration as A" in i.value for i in at.info)
    assert "• Both configurations build exactly the same block." in _texts(at)
    assert at.number_input(key="cmp_b_budget").value == 1000


def test_view_compare_seed_preset_shows_the_second_best_document_lost():
    at = _run()
    at.button(key="cmp_b_preset_seed").click().run()
    assert at.toggle(key="cmp_b_seed_compatible").value is True
    settings = at.dataframe[0].value
    assert list(settings["setting"]) == ["seed_compatible"]
    lost = [t for t in _texts(at) if "leaves out" in t]
    assert any("wiki/postmortems/2025-11-12-checkout-latency.md" in t and "rank 2" in t for t in lost)
    names = {trace["name"] for trace in _chart(at, "cmp_positions_chart")["data"]}
    assert "lost" in names


def test_view_compare_changes_table_lists_only_changes_until_toggled():
    at = _run()
    at.button(key="cmp_b_preset_seed").click().run()
    changes = at.dataframe[1].value
    assert "unchanged" not in set(changes["change"])
    at.toggle(key="cmp_show_unchanged").set_value(True).run()
    assert len(at.dataframe[1].value) == len(at.dataframe[1].value["doc"].unique()) > len(changes)
    assert "unchanged" in set(at.dataframe[1].value["change"])


def test_view_compare_budget_change_in_b_changes_tokens():
    at = _run()
    at.number_input(key="cmp_b_budget").set_value(400).run()
    tokens = next(m for m in at.metric if m.label == "Tokens used, B")
    assert int(tokens.value.replace(",", "")) <= 400
    assert tokens.delta.startswith("-")


def test_view_compare_reset_returns_b_to_a():
    at = _run()
    at.button(key="cmp_b_preset_seed").click().run()
    at.button(key="cmp_b_preset_reset").click().run()
    assert at.toggle(key="cmp_b_seed_compatible").value is False
    assert any("B is the same configuration as A" in i.value for i in at.info)


def test_view_compare_blocks_are_shown_as_code_text():
    at = _run()
    blocks = [c.value for c in at.code]
    assert len(blocks) == 2 and blocks[0].startswith("--- Source [1]")


def test_view_compare_strategy_grid_marks_langchain_even_count():
    at = _run()
    at.slider(key="cmp_strategy_n").set_value(6).run()
    grid = _chart(at, "cmp_strategy_chart")["data"][0]
    rows = dict(zip(grid["y"], grid["z"]))
    assert rows["LangChain LongContextReorder"] == [2, 4, 6, 5, 3, 1]
    assert rows["contextlab (lost in the middle)"][0] == 1
    assert any("**last**" in w.value and "it is at position 6 of 6; with 7 it would be at position 1" in w.value
               for w in at.warning)
    at.slider(key="cmp_strategy_n").set_value(7).run()
    assert any("With 7 documents, as set above, it is at position 1 of 7; with 8 it would be at position 8" in w.value for w in at.warning)


def test_view_compare_strategy_scores_follow_the_model():
    at = _run()
    scores = _chart(at, "cmp_strategy_scores")
    assert len(scores["data"][0]["x"]) == 5
    assert all(0 <= x <= 1 for x in scores["data"][0]["x"])
    assert max(scores["data"][0]["x"]) <= 1 and all(t.endswith("%") for t in scores["data"][0]["text"])
    models = at.selectbox(key="cmp_strategy_model").options
    at.selectbox(key="cmp_strategy_model").set_value(models[-1]).run()
    assert _chart(at, "cmp_strategy_scores")["data"][0]["text"] != scores["data"][0]["text"]


def test_view_compare_without_documents_says_what_to_do():
    at = _run(empty=True)
    assert any("Load some documents" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_view_compare_without_positional_still_compares():
    at = _run(hide_positional=True)
    assert any("contextlab.positional" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 2


def test_view_compare_presentation_folds_b_settings_away():
    assert _run().expander[0].proto.expanded is True
    at = _run(presentation=True)
    assert at.expander[0].label == "All of B's settings"
    assert at.expander[0].proto.expanded is False


def test_view_compare_apply_config_b_sets_b_from_a_scenario():
    at = _run(scenario="faq_copies", sample="support_faq", budget=1024)
    assert at.slider(key="cmp_b_dedup_threshold").value == 1.0
    assert list(at.dataframe[0].value["setting"]) == ["dedup_threshold"]
    lines = [line for text in _texts(at) for line in text.splitlines()]
    assert any(line.startswith("• B adds support/kb/refund-policy-internal.md") for line in lines)

