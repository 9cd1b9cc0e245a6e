"""AppTest tests for the Window view, run on a sample set without the lab shell."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

TIMEOUT = 60


def _app(sample: str = "support_faq", no_history: bool = False, hide_window: bool = False) -> None:
    from contextlab.lab.config import LabConfig
    from contextlab.lab.samples import load_sample_set
    from contextlab.ui import view_window
    from contextlab.ui.context import LabContext
    from contextlab.ui.engine import build_cached

    s = load_sample_set(sample)
    cfg = LabConfig(query=s.query)
    ctx = LabContext(s.documents, cfg, build_cached(s.documents, cfg),
                     [] if no_history else s.conversation, s.system_prompt,
                     f"Sample: {s.name}", False)
    from tests.ui.conftest import module_hidden

    with module_hidden("contextlab.window", hide_window):
        view_window.render(ctx)


def _run(**kwargs) -> AppTest:
    at = AppTest.from_function(_app, kwargs=kwargs, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _spec(at: AppTest, index: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def test_view_window_explains_itself_and_draws_every_section():
    at = _run()
    assert at.header[0].value == "Window"
    assert "room for the answer" in at.markdown[0].value
    names = [trace["name"] for trace in _spec(at)["data"]]
    assert names == ["system", "documents", "conversation", "query", "buffer", "free",
                     "output reserve"]


def test_view_window_bars_span_the_chosen_window():
    at = _run()
    at.select_slider(key="win_max_tokens").set_value(8192).run()
    data = _spec(at)["data"]
    assert sum(trace["x"][0] for trace in data) == 8192
    assert sum(trace["x"][1] for trace in data) == 8192
    assert _metric(at, "Prompt limit") == f"{8192 - 1229:,}"  # 15% reserved, rounded up


def test_view_window_small_conversation_share_summarizes_old_turns():
    at = _run()
    assert not any(t.value == "Summary of the older messages:" for t in at.text)
    at.select_slider(key="win_max_tokens").set_value(1024)
    at.slider(key="win_share_conversation").set_value(0.05)
    at.slider(key="win_share_documents").set_value(0.7).run()
    assert any(t.value == "Summary of the older messages:" for t in at.text)
    summary = at.code[0].value
    assert summary  # the summary itself is shown, as text
    table = next(d.value for d in at.dataframe if "in the prompt as" in d.value.columns)
    assert set(table["in the prompt as"]) == {"kept", "summarized"}


def test_view_window_shares_over_100_percent_is_an_error():
    at = _run()
    at.slider(key="win_share_documents").set_value(0.9).run()
    assert at.error and "add up to" in at.error[0].value
    assert not at.get("plotly_chart")


def test_view_window_reset_restores_seed_shares():
    at = _run()
    at.slider(key="win_share_system").set_value(0.2).run()
    at.button(key="win_reset_shares").click().run()
    assert at.slider(key="win_share_system").value == 0.05


def test_view_window_prompt_is_shown_as_text_ending_with_the_question():
    at = _run()
    prompt = at.code[-1].value
    assert prompt.startswith("You are Ledgerly's support assistant.")
    assert prompt.rstrip().endswith("Do I get any money back?")
    messages = at.dataframe[-1].value
    assert list(messages["role"])[-1] == "user"


def test_view_window_without_conversation_says_so():
    at = _run(no_history=True)
    assert any("no conversation" in i.value for i in at.info)


def test_view_window_without_window_module_shows_info():
    at = _run(hide_window=True)
    assert any("contextlab.window" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_view_window_ranking_table_is_best_first():
    at = _run()
    ranking = next(d.value for d in at.dataframe if "hybrid score" in d.value.columns)
    scores = list(ranking["hybrid score"])
    assert scores == sorted(scores, reverse=True) and len(scores) == 29
    assert ranking["recency"].max() == 1.0  # the newest document is "now"



def test_view_window_all_zero_ranking_weights_is_an_error():
    at = _run()
    for name in ("relevance", "recency", "importance"):
        at.number_input(key=f"win_w_{name}").set_value(0.0)
    at.run()
    assert at.error and "weights are all 0" in at.error[0].value
