"""AppTest tests for the Learn view, run on a sample set without the lab shell."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from contextlab.positional import CITATION, load_position_curves
from contextlab.ui.view_learn import parse_order

TIMEOUT = 60


def _app(sample: str = "support_faq", budget: int = 1024, hide_positional: bool = False) -> None:
    from contextlab.lab.config import LabConfig
    from contextlab.lab.samples import load_sample_set
    from contextlab.ui import view_learn
    from contextlab.ui.context import LabContext
    from contextlab.ui.engine import build_cached

    s = load_sample_set(sample)
    cfg = LabConfig(query=s.query, budget=budget)
    ctx = LabContext(s.documents, cfg, build_cached(s.documents, cfg), s.conversation,
                     s.system_prompt, f"Sample: {s.name}", False)
    from tests.ui.conftest import module_hidden

    with module_hidden("contextlab.positional", hide_positional):
        view_learn.render(ctx)


def _run(**kwargs) -> AppTest:
    at = AppTest.from_function(_app, kwargs=kwargs, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    return at


def _chart(at: AppTest, key: str) -> dict:
    for chart in at.get("plotly_chart"):
        if key in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {key}")


def _in_block(at: AppTest) -> int:
    return int(at.slider(key="learn_step").max)


def test_view_learn_curves_come_from_the_data_with_citation():
    at = _run()
    data = load_position_curves()
    model = at.selectbox(key="learn_model").value
    n = at.radio(key="learn_curve_n").value
    spec = _chart(at, "learn_curves_chart")
    line = next(t for t in spec["data"] if t["name"] == model)
    assert list(zip(line["x"], line["y"])) == [tuple(p) for p in data.curve(model, n)]
    assert any(CITATION in c.value for c in at.caption)


def test_view_learn_sentence_quotes_the_selected_curve():
    at = _run()
    at.selectbox(key="learn_model").set_value("GPT-3.5-Turbo")
    at.radio(key="learn_curve_n").set_value(20).run()
    data = load_position_curves()
    points = data.curve("GPT-3.5-Turbo", 20)
    low = min(points, key=lambda p: p[1])
    sentence = at.info[0].value
    assert f"{points[0][1]:.1f}% correct when the answer is first" in sentence
    assert f"only {low[1]:.1f}% at position {low[0]}" in sentence
    # GPT-3.5 at 20 documents scores below closed book in the middle: the page says so
    assert (f"below the {data.closed_book('GPT-3.5-Turbo'):.1f}%" in sentence) == (
        low[1] < data.closed_book("GPT-3.5-Turbo"))


def test_view_learn_stepper_next_places_one_more_document_from_the_other_end():
    at = _run()
    n = _in_block(at)
    at.slider(key="learn_step").set_value(1).run()
    bars = _chart(at, "learn_step_chart")["data"][0]
    assert bars["text"][0] == "#1" and sum(bool(t) for t in bars["text"]) == 1
    at.button(key="learn_step_next").click().run()
    bars = _chart(at, "learn_step_chart")["data"][0]
    assert at.slider(key="learn_step").value == 2
    assert bars["text"][n - 1] == "#2"  # the second most relevant goes last
    assert any(t.value.startswith("Step 2: relevance rank 2") and f"position {n} of {n}" in t.value
               for t in at.text)


def test_view_learn_stepper_fills_every_slot_and_stops():
    at = _run()
    n = _in_block(at)
    at.slider(key="learn_step").set_value(n).run()
    assert all(_chart(at, "learn_step_chart")["data"][0]["text"])
    assert at.button(key="learn_step_next").disabled
    at.button(key="learn_step_reset").click().run()
    assert at.slider(key="learn_step").value == 0


def test_view_learn_score_reversed_is_below_lost_in_the_middle():
    at = _run()
    at.selectbox(key="learn_strategy").set_value("lost_in_the_middle").run()
    ours = float(next(m for m in at.metric if m.label == "Score").value.rstrip("%"))
    at.selectbox(key="learn_strategy").set_value("reversed").run()
    reversed_ = float(next(m for m in at.metric if m.label == "Score").value.rstrip("%"))
    best = float(next(m for m in at.metric if m.label == "Best possible").value.rstrip("%"))
    assert reversed_ < ours <= best


def test_view_learn_custom_order_is_scored_and_checked():
    at = _run()
    at.selectbox(key="learn_strategy").set_value("custom").run()
    n = _in_block(at)
    at.text_input(key="learn_custom_order").input(" ".join(map(str, range(n, 0, -1)))).run()
    typed = next(m for m in at.metric if m.label == "Score").value
    worst = next(m for m in at.metric if m.label == "Worst possible").value
    assert typed and worst
    at.text_input(key="learn_custom_order").input("1 1").run()
    assert "exactly once" in at.error[0].value


def test_view_learn_states_the_interpolation_method():
    at = _run()
    from contextlab.positional import INTERPOLATION_METHOD

    assert any(INTERPOLATION_METHOD in m.value for m in at.markdown)


def test_view_learn_without_positional_shows_info():
    at = _run(hide_positional=True)
    assert any("contextlab.positional" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_parse_order_reads_a_permutation():
    assert parse_order("3, 1 2", 3) == [2, 0, 1]


@pytest.mark.parametrize("text, message", [
    ("1 2 x", "whole numbers"),
    ("1 2 2", r"repeated: \[2\]; missing: \[3\]"),
    ("1 2 4", r"outside 1..3: \[4\]"),
])
def test_parse_order_rejects_bad_orders(text: str, message: str):
    with pytest.raises(ValueError, match=message):
        parse_order(text, 3)


def test_view_learn_switching_to_a_model_without_30_documents_keeps_working():
    at = _run()
    at.selectbox(key="learn_model").set_value("Claude-1.3").run()
    at.radio(key="learn_curve_n").set_value(30).run()
    assert "with 30 documents" in at.info[0].value
    at.selectbox(key="learn_model").set_value("GPT-3.5-Turbo").run()
    assert not at.exception
    assert at.radio(key="learn_curve_n").value in load_position_curves().doc_counts("GPT-3.5-Turbo")

