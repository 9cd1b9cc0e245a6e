"""AppTest tests for the Window view, drawn alone on a sample set (tests/ui/conftest.py)."""

from __future__ import annotations

import pytest

from .conftest import chart, metric, open_view, run, table, texts

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration


def _window(**kwargs):
    return open_view("window", **kwargs)


def test_view_window_explains_itself_and_draws_every_section():
    at = _window()
    assert at.header[0].value == "Window"
    assert "room for the answer" in texts(at)
    names = {trace["name"] for trace in chart(at, "win_sections_chart")["data"]}
    assert names == {"system", "documents", "conversation", "query", "buffer", "free", "output reserve"}


def test_view_window_says_up_front_how_its_budget_differs_from_the_sidebar():
    at = _window()
    first = at.info[0].value
    assert "not the sidebar's token budget of 1,024" in first.replace("\\", "")
    assert "hybrid score" in first


def test_view_window_bars_span_the_chosen_window():
    at = _window()
    run(at.select_slider(key="win_max_tokens").set_value(8192))
    data = chart(at, "win_sections_chart")["data"]
    assert sum(trace["x"][0] for trace in data) == 8192
    assert sum(trace["x"][1] for trace in data) == 8192
    assert metric(at, "Prompt limit") == f"{8192 - 1229:,}"  # 15% reserved, rounded up


def test_view_window_small_conversation_share_summarizes_old_turns():
    at = _window()
    assert not any(t.value == "Summary of the older messages:" for t in at.text)
    at.select_slider(key="win_max_tokens").set_value(1024)
    at.slider(key="win_share_conversation").set_value(0.05)
    run(at.slider(key="win_share_documents").set_value(0.7))
    assert any(t.value == "Summary of the older messages:" for t in at.text)
    assert at.code[0].value  # the summary itself is shown, as text
    kinds = set(table(at, "in the prompt as")["in the prompt as"])
    assert {"kept", "summarized"} <= kinds


def test_view_window_shares_over_100_percent_is_an_error():
    at = _window()
    run(at.slider(key="win_share_documents").set_value(0.9))
    assert at.error and "add up to" in at.error[0].value
    assert not at.get("plotly_chart")


def test_view_window_reset_restores_seed_shares():
    at = _window()
    run(at.slider(key="win_share_system").set_value(0.2))
    run(at.button(key="win_reset_shares").click())
    assert at.slider(key="win_share_system").value == 0.05


def test_view_window_prompt_ends_with_the_question_once():
    at = _window()
    prompt = at.code[-1].value
    assert prompt.startswith("You are Ledgerly's support assistant.")
    assert prompt.rstrip().endswith("Do I get any money back?")
    assert prompt.count("Do I get any money back?") == 1
    assert not any("content" in t.value.columns for t in at.dataframe), "only the open tab is drawn"
    at.session_state["win_prompt_tab"] = "As chat messages"  # what a click on the tab does
    at = run(at)
    messages = table(at, "content")
    assert list(messages["role"])[-1] == "user"


def test_view_window_without_conversation_says_so():
    assert "no conversation" in texts(_window(no_history=True))


def test_view_window_ranking_table_is_best_first_and_names_the_hybrid_score():
    at = _window()
    assert not any("hybrid score" in t.value.columns for t in at.dataframe), "drawn when opened"
    at.session_state["win_ranking_open"] = True
    ranking = table(run(at), "hybrid score")
    scores = [float(s) for s in ranking["hybrid score"]]
    assert scores == sorted(scores, reverse=True) and len(scores) == 29
    assert "retrieval relevance" in ranking.columns and "relevance" not in ranking.columns
    assert max(float(r) for r in ranking["recency"] if r) == 1.0  # the newest document is "now"
    assert not ranking.isna().any().any()


def test_view_window_all_zero_ranking_weights_is_an_error():
    at = _window()
    for name in ("relevance", "recency", "importance"):
        at.number_input(key=f"win_w_{name}").set_value(0.0)
    run(at)
    assert at.error and "weights are all 0" in at.error[0].value
