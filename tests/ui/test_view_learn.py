"""AppTest tests for the Learn view, drawn alone on a sample set (tests/ui/conftest.py)."""

from __future__ import annotations

import pytest

from contextlab.positional import CITATION, INTERPOLATION_METHOD, load_position_curves
from contextlab.lab.teaching import parse_order, step_sentence, strongest_count
from contextlab import positional

from .conftest import chart, open_view, run, table, texts, traces

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration


def _learn(**kwargs):
    return open_view("learn", **kwargs)


def _in_block(at) -> int:
    return int(at.slider(key="learn_step").max)


def _bars(at) -> dict:
    return traces(chart(at, "learn_step_chart"), type="bar")[0]


def test_view_learn_first_visit_draws_two_charts_and_the_rest_on_request():
    at = _learn()
    keys = [e.proto.id for e in at.get("plotly_chart")]
    assert [k for k in ("learn_counts_chart", "learn_step_chart") if any(k in i for i in keys)] == [
        "learn_counts_chart", "learn_step_chart"]
    assert not any("learn_curves_chart" in i or "learn_score_chart" in i for i in keys)
    at.session_state["learn_models_open"] = True  # what a click on the section does
    at.session_state["learn_score_chart_open"] = True
    at = run(at)
    assert chart(at, "learn_curves_chart")["data"] and chart(at, "learn_score_chart")["data"]


def test_view_learn_curves_come_from_the_data_with_citation():
    at = _learn()
    at.session_state["learn_models_open"] = True
    at = run(at)
    data = load_position_curves()
    model = at.selectbox(key="learn_model").value
    n = at.radio(key="learn_curve_n").value
    line = next(t for t in chart(at, "learn_curves_chart")["data"] if t["name"] == model)
    assert list(zip(line["x"], line["y"])) == [tuple(p) for p in data.curve(model, n)]
    assert CITATION in texts(at)


def test_view_learn_shows_every_measured_count_side_by_side_and_opens_on_the_strongest_u():
    at = _learn()
    data = load_position_curves()
    model = at.selectbox(key="learn_model").value
    panels = [t for t in chart(at, "learn_counts_chart")["data"] if t["type"] == "scatter"]
    assert sorted(len(p["x"]) for p in panels) == sorted(len(data.curve(model, n)) for n in data.doc_counts(model))
    assert at.radio(key="learn_curve_n").value == strongest_count(model)
    run(at.selectbox(key="learn_model").set_value("GPT-3.5-Turbo"))
    assert at.radio(key="learn_curve_n").value == strongest_count("GPT-3.5-Turbo") == 20


def test_view_learn_sentence_quotes_the_selected_curve():
    at = _learn()
    at.selectbox(key="learn_model").set_value("GPT-3.5-Turbo")
    run(at.radio(key="learn_curve_n").set_value(20))
    data = load_position_curves()
    points = data.curve("GPT-3.5-Turbo", 20)
    low = min(points, key=lambda p: p[1])
    said = texts(at)
    assert f"{points[0][1]:.1f}% correct when the answer is first" in said
    assert f"only {low[1]:.1f}% at pos {low[0]}" in said
    assert (f"below the {data.closed_book('GPT-3.5-Turbo'):.1f}%" in said) == (
        low[1] < data.closed_book("GPT-3.5-Turbo"))


def test_view_learn_stepper_next_places_one_more_document_from_the_other_end():
    at = _learn()
    n = _in_block(at)
    run(at.slider(key="learn_step").set_value(1))
    bars = _bars(at)
    assert bars["text"][0] == "rank 1" and sum(bool(t) for t in bars["text"]) == 1
    run(at.button(key="learn_step_next").click())
    assert at.slider(key="learn_step").value == 2
    assert _bars(at)["text"][n - 1] == "rank 2"  # the second most relevant goes last
    assert any(t.value.startswith("Step 2: rank 2") and f"pos {n} of {n}" in t.value for t in at.text)


def test_view_learn_step_sentence_says_when_the_back_gains_little():
    flat = step_sentence(2, [0, 2, 3, 1], ["a", "b", "c", "d"], [70.0, 60.0, 60.5, 61.0], "M")
    assert "gains little" in flat and "pos 4 of 4" in flat
    strong = step_sentence(2, [0, 2, 3, 1], ["a", "b", "c", "d"], [70.0, 55.0, 52.0, 66.0], "M")
    assert "gains little" not in strong and "14.0 points above" in strong


def test_view_learn_marks_and_tracks_the_answer_document():
    at = _learn(sample="support_faq")
    said = texts(at)
    assert "★ The document that holds the answer" in said and "help-center/billing/refunds.md" in said
    stepper = table(at, "accuracy here (%)")
    assert not stepper.isna().any().any(), "no None cells"
    bars = _bars(at)
    assert any(color != "rgba(0,0,0,0)" for color in bars["marker"]["line"]["color"])


def test_view_learn_stepper_fills_every_slot_and_stops():
    at = _learn()
    n = _in_block(at)
    run(at.slider(key="learn_step").set_value(n))
    assert all(_bars(at)["text"])
    assert at.button(key="learn_step_next").disabled
    run(at.button(key="learn_step_reset").click())
    assert at.slider(key="learn_step").value == 0


def _score(at, label: str) -> float:
    return float(next(m for m in at.metric if m.label == label).value.rstrip("%"))


@pytest.mark.slow
def test_view_learn_score_reversed_is_below_lost_in_the_middle():
    at = _learn()
    run(at.selectbox(key="learn_strategy").set_value("lost_in_the_middle"))
    ours = _score(at, "Score")
    run(at.selectbox(key="learn_strategy").set_value("reversed"))
    assert _score(at, "Score") < ours <= _score(at, "Best possible")


def test_view_learn_custom_order_is_scored_and_checked():
    at = _learn()
    run(at.selectbox(key="learn_strategy").set_value("custom"))
    n = _in_block(at)
    run(at.text_input(key="learn_custom_order").input(" ".join(map(str, range(n, 0, -1)))))
    assert _score(at, "Score") >= _score(at, "Worst possible")
    run(at.text_input(key="learn_custom_order").input("1 1"))
    assert "exactly once" in texts(at)


def test_view_learn_states_the_interpolation_method():
    assert INTERPOLATION_METHOD in texts(_learn())


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
    at = _learn()
    run(at.selectbox(key="learn_model").set_value("Claude-1.3"))
    run(at.radio(key="learn_curve_n").set_value(30))
    assert "with 30 documents" in texts(at)
    run(at.selectbox(key="learn_model").set_value("GPT-3.5-Turbo"))
    assert at.radio(key="learn_curve_n").value in load_position_curves().doc_counts("GPT-3.5-Turbo")


def test_view_learn_lists_every_strategy_best_first_with_its_score():
    scores = table(_learn(), "of the way from worst to best")
    assert len(scores) == 5 and list(scores["score"]) == sorted(scores["score"], reverse=True)
    assert scores["of the way from worst to best"].between(0, 1).all()


def test_view_learn_with_no_document_in_the_block_says_so_under_both_document_sections():
    at = _learn(empty=True)
    headings = [h.value for h in at.subheader]
    assert "2 · What the reorder does with your documents" in headings
    assert "3 · Score any ordering" in headings
    said = [i.value for i in at.info]
    assert said.count("No document is in the block yet; load documents or raise the budget.") == 2
    assert not at.slider  # neither the stepper nor the ordering controls are drawn


def test_view_learn_names_documents_by_the_engines_rank_and_says_when_values_are_interpolated():
    # scenario 3's sample in relevance order: the answer is rank 13 in the trace, and Learn says 13 too
    at = _learn(sample="clinical_abstracts", budget=2400)
    said = texts(at)
    assert "is rank 13: the reorder puts it at pos" in said
    bars = _bars(at)
    assert all(t == "" or t.startswith("rank ") for t in bars["text"])
    assert "(interpolated from the published points)" in said or "measured accuracy" in said


def test_view_learn_explains_when_a_reorder_cannot_help_and_opens_a_case_where_it_does():
    at = _learn(sample="support_faq")
    said = texts(at)
    assert "Here a reorder cannot beat relevance order: the most relevant document is first" in said
    assert at.button(key="learn_open_helping").label.startswith("Show a case where it helps")
