"""The Evaluate view (AppTest) and its figures: run a small grid, read the charts, open a question."""

from __future__ import annotations

import pytest

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration

pytest.importorskip("streamlit")

from contextlab.charts.evaluate import (  # noqa: E402
    gold_zones_figure,
    settings_heatmap_figure,
    tokens_accuracy_figure,
)
from contextlab.evaluation import (  # noqa: E402
    ZONES,
    disagreements,
    gold_zone_shares,
    pareto_front,
    setting_table,
)
from contextlab.ui.views.evaluate import grid_from_choices  # noqa: E402
from tests.helpers import eval_row  # noqa: E402
from tests.ui.conftest import chart, open_lab, run, table, texts, traces, unescape  # noqa: E402


def _summary(config, tokens, accuracy, **settings):
    return {
        "config": config,
        "tokens_used": tokens,
        "expected_accuracy": accuracy,
        "expected_accuracy_low": accuracy - 1,
        "expected_accuracy_high": accuracy + 1,
        "gold_in_block": 0.9,
        **settings,
    }


def test_pareto_front_keeps_only_undominated_configs():
    summaries = [
        _summary("cheap", 100, 60),
        _summary("dominated", 200, 59),
        _summary("best", 300, 70),
        _summary("tie-but-costlier", 400, 70),
    ]
    assert pareto_front(summaries) == ["cheap", "best"]


def test_setting_table_averages_over_the_other_settings():
    summaries = [
        _summary("a", 1, 60, budget=256, placement="x", tokenizer="h"),
        _summary("b", 1, 70, budget=256, placement="x", tokenizer="c"),
        _summary("c", 1, 50, budget=512, placement="x", tokenizer="h"),
    ]
    xs, ys, cells = setting_table(summaries, "budget", "placement")
    assert xs == [256, 512] and ys == ["x"] and cells == [[65.0, 50.0]]


def test_gold_zone_shares_and_disagreements_read_rows():
    rows = [
        eval_row(
            {
                "config": "A",
                "query_id": "q1",
                "placement": "p",
                "gold_retrieved": True,
                "gold_in_block": True,
                "gold_position": 1,
                "in_block": 3,
                "tokens_used": 10,
            }
        ),
        eval_row(
            {
                "config": "B",
                "query_id": "q1",
                "placement": "r",
                "gold_retrieved": True,
                "gold_in_block": False,
                "gold_position": None,
                "in_block": 2,
                "tokens_used": 5,
            }
        ),
        eval_row(
            {
                "config": "A",
                "query_id": "q2",
                "placement": "p",
                "gold_retrieved": True,
                "gold_in_block": True,
                "gold_position": 2,
                "in_block": 3,
                "tokens_used": 10,
            }
        ),
        eval_row(
            {
                "config": "B",
                "query_id": "q2",
                "placement": "r",
                "gold_retrieved": True,
                "gold_in_block": True,
                "gold_position": 2,
                "in_block": 2,
                "tokens_used": 5,
            }
        ),
    ]
    shares = gold_zone_shares(rows, "placement")
    assert shares["p"] == {"first": 0.5, "middle": 0.5, "last": 0.0, "not in block": 0.0}
    assert shares["r"]["last"] == 0.5 and shares["r"]["not in block"] == 0.5
    diff = disagreements(rows, "A", "B")
    assert [d.query_id for d in diff] == ["q1"] and diff[0].a is True and diff[0].b is False


def test_evaluate_figures_escape_user_text():
    evil = "<a href='x'>click</a>"
    fig = tokens_accuracy_figure([_summary(evil, 100, 60)], [evil], model="GPT-3.5-Turbo")
    assert all("<a href" not in str(t) for t in fig.data[0].text)
    assert "Liu et al." in fig.layout.title.text and "estimate" in fig.layout.yaxis.title.text
    heat = settings_heatmap_figure([evil], ["y"], [[0.5]], "budget", "placement", "gold_in_block")
    assert "<a href" not in "".join(heat.data[0].x) and heat.data[0].z[0][0] == 50.0
    bars = gold_zones_figure({evil: dict.fromkeys(ZONES, 0.25)}, "config")
    assert [t.name for t in bars.data] == list(ZONES) and "<a href" not in bars.data[0].x[0]


def test_grid_from_choices_varies_only_multi_valued_settings():
    grid, fixed = grid_from_choices([256, 1024], ["relevance"], [0.85], [5, 20], ["cl100k_base"])
    assert grid == {"max_context_tokens": [256, 1024], "min_doc_tokens": [5, 20]}
    assert fixed == {"placement": "relevance", "dedup_threshold": 0.85, "tokenizer": "cl100k_base"}


@pytest.mark.slow
def test_evaluate_view_runs_a_grid_and_opens_a_question():
    at = open_lab(view="evaluate")
    at.number_input(key="eval_limit").set_value(40)
    at = run(at)
    at = run(at.button(key="eval_run").click())
    summary = table(at, "gold in block %")
    assert len(summary) == 8  # budgets 256, 512, 768, 1024 x placements lost_in_the_middle, relevance
    assert "estimate" in texts(at) and "Liu et al." in texts(at)
    assert chart(at, "eval_pareto")["data"] and chart(at, "eval_zones")["data"]
    assert chart(at, "eval_heatmap")["data"][0]["type"] == "heatmap"
    # A (budget 256, lost in the middle) and B (budget 1024, relevance) disagree on some question.
    disagreeing = table(at, "A gold at")
    assert len(disagreeing) > 0
    assert not disagreeing.isna().any().any()
    assert not disagreeing.astype(str).isin(["None", "nan"]).any().any()
    question = at.selectbox(key="eval_pick").value
    at = run(at.button(key="eval_open").click())
    assert at.session_state["view"] == "placement"
    assert at.session_state["doc_source"] == "table"
    assert len(at.session_state["table_documents"]) == 20
    assert (
        at.session_state["cfg_max_context_tokens"] == 256 and at.session_state["cfg_placement"] == "lost_in_the_middle"
    )
    evalset = at.session_state["eval_set"]
    assert at.session_state["cfg_query"] == next(q.query for q in evalset.questions if q.query_id == question)


@pytest.mark.slow
def test_evaluate_open_question_marks_its_gold_as_the_answer_document():
    at = open_lab(view="evaluate")
    at.number_input(key="eval_limit").set_value(40)
    at = run(at)
    at = run(at.button(key="eval_run").click())
    # Questions that differ on "gold in the block" had their gold retrieved (it is in one block).
    question = at.selectbox(key="eval_pick").value
    evalset = at.session_state["eval_set"]
    asked = next(q for q in evalset.questions if q.query_id == question)
    at = run(at.button(key="eval_open").click())
    docs = at.session_state["table_documents"]
    gold = [i for i, d in enumerate(docs) if str(d.metadata.get("id")) in asked.gold_ids]
    assert gold, "the opened question's gold passage was retrieved"
    assert at.session_state["view"] == "placement"
    assert [m.label for m in at.metric][0] == "Answer document"
    assert "The document that holds the answer" in texts(at)
    ringed = traces(chart(at, "placement_chart"), name="holds the answer")
    in_block = at.metric[0].value.startswith("pos ")
    # Passages of one article share a title: only the gold passage (named by its id) is ringed.
    assert (len(ringed) == 1 and 1 <= len(ringed[0]["x"]) <= len(gold)) if in_block else not ringed


@pytest.mark.slow
def test_evaluate_view_single_configuration_still_draws():
    at = open_lab(view="evaluate")
    at.number_input(key="eval_limit").set_value(10)
    at.select_slider(key="eval_budgets").set_range(512, 512)
    at.multiselect(key="eval_placements").set_value(["relevance"])
    at = run(at)
    at = run(at.button(key="eval_run").click())
    summary = table(at, "gold in block %")
    assert list(summary["configuration"]) == ["default"]
    assert "Run at least two configurations" in texts(at) and "Vary two settings" in texts(at)
    assert chart(at, "eval_zones")["data"]


def test_heatmap_states_its_colour_range_and_small_spreads_look_small():
    # Cells 71.2 to 72.6 (a 1.4-point spread) on a scale of at least 10 points: 66.9 to 76.9.
    heat = settings_heatmap_figure(
        [256, 512], ["x", "y"], [[0.712, 0.720], [0.726, None]], "budget", "placement", "gold_in_block"
    )
    assert (heat.data[0].zmin, heat.data[0].zmax) == pytest.approx((66.9, 76.9))
    # the scale is the title's second line: one line of both was wider than the chart, and cut
    assert heat.layout.title.text == "gold_in_block by budget and placement"
    assert heat.layout.title.subtitle.text == "cells 71.2 to 72.6 (spread 1.4 points); colour scale 66.9 to 76.9"
    assert "66.9–76.9" in heat.data[0].colorbar.title.text
    # Tokens keep their own range.
    tokens = settings_heatmap_figure([256], ["x", "y"], [[250.0], [900.0]], "budget", "placement", "tokens_used")
    assert (tokens.data[0].zmin, tokens.data[0].zmax) == (250.0, 900.0)


def test_gold_zones_figure_says_what_it_pools():
    bars = gold_zones_figure({"relevance": dict.fromkeys(ZONES, 0.25)}, "placement", "max_context_tokens 256, 512")
    assert bars.layout.title.text.endswith("by placement — pooled over max_context_tokens 256, 512")


@pytest.mark.slow
def test_evaluate_view_shows_paired_differences_sorted_and_a_recommendation():
    at = open_lab(view="evaluate")
    at.number_input(key="eval_limit").set_value(20)
    at.select_slider(key="eval_budgets").set_range(128, 512)
    at.multiselect(key="eval_placements").set_value(["relevance"])
    at.multiselect(key="eval_thresholds").set_value([0.85, 0.95])
    at = run(at)
    at = run(at.button(key="eval_run").click())
    summary = table(at, "Δ gold in block vs baseline")
    # The dedup threshold is a grid key in the lab: 3 budgets x 2 thresholds.
    assert len(summary) == 6 and any("dedup_threshold=0.95" in c for c in summary["configuration"])
    assert summary["Δ gold in block vs baseline"].iloc[0] == 0.0 and summary["Δ 95% interval"].iloc[0] == "baseline"
    shown = texts(at)
    assert "Recommendation — On gold in block (no model answered): " in shown
    assert "gold in block gained per extra 100 tokens" in shown
    assert "Each bar pools every question under" in shown
    at = run(at.selectbox(key="eval_sort").set_value("largest difference first"))
    ordered = table(at, "Δ gold in block vs baseline")["Δ gold in block vs baseline"].tolist()
    assert ordered == sorted(ordered, reverse=True)
    last = at.selectbox(key="eval_baseline").options[-1]
    at = run(at.selectbox(key="eval_baseline").set_value(last))
    again = table(at, "Δ gold in block vs baseline")
    assert again.loc[again["configuration"] == last, "Δ 95% interval"].item() == "baseline"


@pytest.mark.slow
def test_evaluate_view_link_carries_its_settings_and_the_table_leads_with_the_difference():
    at = open_lab(view="evaluate")
    at.number_input(key="eval_limit").set_value(30)
    at.select_slider(key="eval_budgets").set_range(256, 768)
    at.multiselect(key="eval_placements").set_value(["relevance"])
    at = run(at)
    link = {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}
    assert (link["limit"], link["grid"]) == ("30", "max_context_tokens=256,512,768;placement=relevance")
    opened = open_lab(**link)  # the link opens Evaluate as it was left, ready to run the same grid
    assert opened.number_input(key="eval_limit").value == 30
    assert opened.select_slider(key="eval_budgets").value == (256, 768)
    assert opened.multiselect(key="eval_placements").value == ["relevance"]
    assert "These settings came with the link: press Run to reproduce the shared run." in texts(opened)
    assert opened.button(key="eval_run").label == "Run: 30 questions × 3 configurations"
    at = run(opened.button(key="eval_run").click())
    columns = list(table(at, "Δ gold in block vs baseline").columns)
    # Δ and p right after the configuration: on screen without scrolling the table sideways
    assert columns[:5] == [
        "configuration",
        "Δ gold in block vs baseline",
        "Δ 95% interval",
        "p (McNemar)",
        "mean tokens",
    ]
    assert (
        "This chart reads expected accuracy, an estimate from the published curve; the recommendation reads "
        "gold in block." in texts(at)
    )


def test_evaluate_view_a_bad_link_value_is_a_warning_not_a_failure():
    at = open_lab(view="evaluate", grid="placement=nope;budget=5", limit="x")
    said = [unescape(w.value) for w in at.warning]
    assert "ignored URL parameter limit='x': a whole number from 1 to 1,000,000" in said
    assert any(w.startswith("ignored grid 'placement=nope' in the link: placement takes some of") for w in said)
    assert any(w.startswith("ignored grid 'budget=5' in the link: Evaluate varies max_context_tokens") for w in said)


def test_evaluate_view_measures_note_says_when_chart_and_recommendation_disagree():
    from contextlab.evaluation import Recommendation
    from contextlab.ui.views.evaluate import measures_note

    advice = Recommendation("gold_in_block", "", config="max_context_tokens=512")
    assert measures_note(advice, ["max_context_tokens=256"]).endswith(
        "Here they do: the recommended max_context_tokens=512 is not on this chart's front, which holds "
        "max_context_tokens=256."
    )
    assert measures_note(advice, ["max_context_tokens=512"]).endswith(
        "Here the recommended max_context_tokens=512 is on this chart's front too."
    )


def test_heatmap_of_measured_accuracy_is_not_scaled_twice():
    summaries = [
        {"config": "a", "budget": 256, "placement": "x", "accuracy": 41.5},
        {"config": "b", "budget": 512, "placement": "x", "accuracy": 47.0},
    ]
    xs, ys, cells = setting_table(summaries, "budget", "placement", "accuracy")
    heat = settings_heatmap_figure(xs, ys, cells, "budget", "placement", "accuracy")
    # Already percent: not x100; a 5.5-point spread gets a 10-point scale around its middle, 44.25.
    assert list(heat.data[0].z[0]) == [41.5, 47.0] and (heat.data[0].zmin, heat.data[0].zmax) == (39.25, 49.25)


def test_evaluate_view_reads_expected_accuracy_off_the_loaded_measured_curve_with_its_band():
    at = open_lab(view="evaluate")
    at.session_state["evaluate_measured_open"] = True  # the curve section, as a click opens it
    at.number_input(key="eval_limit").set_value(10)
    at.select_slider(key="eval_budgets").set_range(512, 512)
    at.selectbox(key="eval_model").set_value("measured")
    at = run(at)
    band = [t for t in chart(at, "evaluate_measured_chart")["data"] if t["name"].startswith("95% interval")]
    assert len(band) == 2  # the same loaded curve Learn and Placement draw, with its 95% band
    at = run(at.button(key="eval_run").click())
    result = at.session_state["eval_result"]
    assert result.curve_model == "Gemma-3-270M Q4_K_M (bundled) (measured curve gemma3_270m_measured.csv)"
    read = {r.metrics.curve for r in result.rows if r.metrics.expected_accuracy is not None}
    assert read and all(c.startswith("measured: Gemma-3-270M Q4_K_M (bundled)") for c in read)
    # a point measured on 223 questions carries its interval (8 to 11 points wide at the measured
    # positions) into every row it is read for; a published point (2,655 questions) is under 4 wide
    widths = [r.metrics.curve_high - r.metrics.curve_low for r in result.rows if r.metrics.curve_low is not None]
    assert min(widths) > 4.0 and max(widths) > 8.0


def test_evaluate_link_grid_takes_a_model_name_for_the_tokenizer():
    from contextlab.ui.eval_link import _parse_grid

    chosen, warnings = _parse_grid("tokenizer=gpt-4o,llama3")
    assert chosen == {"tokenizer": ["gpt-4o", "llama3"]} and warnings == []
    chosen, warnings = _parse_grid("tokenizer=bert-base")
    assert chosen == {} and warnings == [
        "ignored grid 'tokenizer=bert-base' in the link: tokenizer takes some of "
        "cl100k_base, o200k_base, llama3, qwen3, heuristic, claude, gemini"
    ]
