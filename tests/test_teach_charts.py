"""Tests for the Compare, Learn and Window figures of contextlab.charts, checked as data."""

from __future__ import annotations

import re

import plotly.graph_objects as go

from contextlab.charts import compare, curves, orderings, style, window
from contextlab.lab.compare import diff_results
from contextlab.stages.reorder import lost_in_the_middle_order
from contextlab.types import ContextResult, DocTrace


def _result(positions: list[int | None], tokens: list[int], block: str) -> ContextResult:
    trace = [
        DocTrace(
            input_index=i,
            source=f"s{i}",
            score=0.9,
            tokens=t,
            relevance_rank=i + 1,
            position=p,
            fate="included" if p else "excluded",
            block_tokens=t if p else None,
        )
        for i, (p, t) in enumerate(zip(positions, tokens, strict=False))
    ]
    return ContextResult(
        context_block=block,
        included_docs=[],
        excluded_docs=[],
        citation_map={},
        tokens_used=sum(tokens),
        tokens_budget=100,
        duplicates_removed=0,
        truncated=False,
        trace=trace,
    )


def _diff():
    a = _result([1, 2, None], [10, 20, 30], "A")
    b = _result([1, None, 2], [10, 20, 30], "B")
    return diff_results(a, b)


def test_compare_positions_figure_draws_lost_doc_into_the_out_row():
    fig = compare.compare_positions_figure(_diff())
    assert isinstance(fig, go.Figure)
    lost = [t for t in fig.data if t.name == "lost"]
    assert len(lost) == 1
    assert list(lost[0].y) == [2, 3]  # position 2 in A, the "not in block" row (3) in B
    assert fig.layout.yaxis.ticktext[-1] == "not in block"


def test_compare_positions_figure_shows_each_change_once_in_legend():
    fig = compare.compare_positions_figure(_diff())
    legend = [t.name for t in fig.data if t.showlegend]
    assert sorted(legend) == ["gained", "lost", "unchanged"]


def test_compare_tokens_figure_skips_documents_in_neither_block():
    a = _result([1, None], [10, 20], "A")
    fig = compare.compare_tokens_figure(diff_results(a, a))
    assert list(fig.data[0].x) == ["D0"]
    assert list(fig.data[1].y) == [10]


def test_strategy_positions_figure_outlines_the_most_relevant_slot():
    orders = {"lost_in_the_middle": lost_in_the_middle_order(4), "relevance": [0, 1, 2, 3]}
    fig = orderings.strategy_positions_figure(orders, labels={"relevance": "None (relevance order)"})
    heat = fig.data[0]
    assert list(heat.y) == ["lost_in_the_middle", "None (relevance order)"]
    assert list(heat.z[0]) == [1, 3, 4, 2]
    assert [s.x0 + 0.5 for s in fig.layout.shapes] == [1, 1]


def test_strategy_positions_figure_pads_shorter_orders():
    fig = orderings.strategy_positions_figure({"a": [0, 1, 2], "b": [1, 0]})
    assert list(fig.data[0].z[1]) == [2, 1, None]


def test_ordering_scores_figure_puts_best_on_top_between_bounds():
    fig = orderings.ordering_scores_figure({"x": 0.5, "y": 0.7, "z": 0.6}, bounds=(0.5, 0.9))
    # horizontal bars draw bottom-up: the last bar is the top one
    assert list(fig.data[0].y) == ["x", "z", "y"]
    assert [round(v, 6) for v in fig.data[0].x] == [0.0, 0.25, 0.5]
    assert list(fig.data[0].text) == ["50.0%", "60.0%", "70.0%"]
    assert fig.layout.xaxis.ticktext[-1] == "best possible (90.0%)"


def test_ordering_scores_figure_equal_bounds_are_all_best():
    fig = orderings.ordering_scores_figure({"x": 0.8, "y": 0.8}, bounds=(0.8, 0.8))
    assert list(fig.data[0].x) == [1.0, 1.0]


def test_ordering_rows_figure_pairs_relevance_with_accuracy():
    fig = orderings.ordering_rows_figure([1, 2, 3], [0.9, 0.1, 0.5], [70.0, 50.0, 60.0])
    bars = next(t for t in fig.data if t.type == "bar")
    line = next(t for t in fig.data if t.type == "scatter")
    assert list(bars.y) == [0.9, 0.1, 0.5] and list(line.y) == [70.0, 50.0, 60.0]
    assert bars.yaxis != line.yaxis  # two panels, one y-axis each, not two axes on one chart
    accuracy_axis = fig.layout["yaxis" + line.yaxis[1:]]
    assert list(accuracy_axis.range) == [0, 100]


def test_position_curves_figure_one_line_per_model_with_references():
    by_model = {"M1": [(10, 60.0), (1, 70.0)], "M2": [(1, 50.0), (10, 55.0)]}
    fig = curves.position_curves_figure(by_model, n_docs=10, references={"closed book": 40.0}, highlight="M1")
    assert [t.name for t in fig.data] == ["M1", "M2"]
    assert list(fig.data[0].x) == [1, 10]  # sorted by position
    assert fig.data[0].line.width > fig.data[1].line.width
    assert fig.layout.shapes[0].y0 == 40.0
    assert list(fig.layout.xaxis.tickvals) == [1, 10]  # ticks where the paper measured


def test_reorder_step_figure_fills_slots_from_both_ends():
    order = lost_in_the_middle_order(6)  # ranks 0 2 4 5 3 1
    fig = orderings.reorder_step_figure(order, step=2, curve=[70, 60, 55, 55, 58, 65], answer_ranks={1})
    bars = next(t for t in fig.data if t.type == "bar")
    assert list(bars.text) == ["rank 1", "", "", "", "", "rank 2"]
    assert bars.marker.color[5] == "#f08c00"  # the document placed at this step
    assert bars.marker.line.color[5] == style.ANSWER_COLOR  # rank 2 holds the answer
    line = next(t for t in fig.data if t.type == "scatter")
    assert list(line.y) == [70, 60, 55, 55, 58, 65]
    assert list(fig.layout["yaxis" + line.yaxis[1:]].range) == [0, 100]


def test_reorder_step_figure_full_step_fills_every_slot():
    fig = orderings.reorder_step_figure([0, 1, 2], step=3)
    assert all(fig.data[0].text)
    assert len(fig.data) == 1


def test_curves_by_count_figure_one_panel_per_count_on_one_axis():
    by_count = {20: [(1, 75.0), (10, 52.0), (20, 63.0)], 10: [(1, 76.8), (5, 61.2), (10, 62.4)]}
    fig = curves.curves_by_count_figure(by_count, "M", closed_book=56.1)
    assert [a.text for a in fig.layout.annotations if re.fullmatch(r"\d+ documents", a.text)] == [
        "10 documents",
        "20 documents",
    ]
    assert "dotted: 56.1% with no documents" in [a.text for a in fig.layout.annotations]
    assert {t.yaxis for t in fig.data} == {"y", "y2"}
    assert list(fig.layout.yaxis.range) == [0, 100]
    dips = [a.text for a in fig.layout.annotations if "(−" in a.text]
    assert dips == ["61.2% (−15.6)", "52.0% (−23.0)"]


def test_window_sections_figure_both_bars_span_the_window():
    sections = [("system", 100, 40), ("documents", 500, 450), ("output_reserve", 150, 150)]
    fig = window.window_sections_figure(sections, max_tokens=1000)
    allowance = sum(t.x[0] for t in fig.data)
    used = sum(t.x[1] for t in fig.data)
    assert allowance == 1000 and used == 1000
    # the prompt's unused room sits inside the prompt, before the reserve that closes the window
    assert [t.name for t in fig.data] == ["system", "documents", "free", "output reserve"]
    assert fig.data[2].x[1] == 1000 - 40 - 450 - 150


def test_window_sections_figure_writes_no_caption_that_would_not_fit_its_segment():
    # 8 of 4,096 tokens: a caption there was drawn as an unreadable speck (or turned on its side)
    sections = [("system", 204, 8), ("documents", 2048, 2907), ("output_reserve", 615, 615)]
    fig = window.window_sections_figure(sections, max_tokens=4096)
    system, documents = fig.data[0], fig.data[1]
    assert list(system.text) == ["", ""] and system.hovertemplate  # still named on hover
    assert list(documents.text) == ["documents 2,048", "2,907"]
    assert all(t.textangle == 0 for t in fig.data)  # never turned on its side
