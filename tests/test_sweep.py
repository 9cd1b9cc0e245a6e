"""The parameter sweep as a library function: ranges, the grid, rows equal to single builds."""

from __future__ import annotations

import io

import pytest

from contextlab.lab.config import LabConfig
from contextlab.lab.sweep import SWEEP_COLUMNS, parse_range, run_sweep, sweep_grid, write_csv
from contextlab.manager import ContextManager
from contextlab.types import FATES, Document, PromptRequest


def documents() -> list[Document]:
    texts = [
        "Refunds are processed within five business days after we receive the returned item.",
        "Refunds are processed within five business days after we receive the returned item!",
        "Shipping is free for orders over fifty dollars in the continental United States.",
        "To start a return, open your order history and click the return button next to it.",
        "Gift cards cannot be refunded or exchanged for cash except where required by law.",
    ]
    scores = [0.92, 0.90, 0.41, 0.77, 0.63]
    return [Document(t, score=s, source=f"d{i}.md") for i, (t, s) in enumerate(zip(texts, scores, strict=False))]


@pytest.mark.parametrize(
    "spec,integer,expected",
    [
        ("0.5:1.0:0.05", False, [round(0.5 + i * 0.05, 10) for i in range(11)]),
        ("500:4000:500", True, [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000]),
        ("0.8, 0.9", False, [0.8, 0.9]),
        ("300", True, [300]),
        ("0.1:0.35:0.1", False, [0.1, 0.2, 0.3]),
    ],
)
def test_parse_range_values(spec, integer, expected):
    assert parse_range(spec, integer=integer) == expected


@pytest.mark.parametrize(
    "spec,match",
    [
        ("", "empty"),
        ("1:2", "start:stop:step"),
        ("x:2:1", "'x' is not a number"),
        ("nan", "not a finite number"),
        ("2:1:1", "stop is below start"),
    ],
)
def test_parse_range_rejects_bad_specs(spec, match):
    with pytest.raises(ValueError, match=match):
        parse_range(spec)


def test_run_sweep_rows_match_single_builds():
    docs = documents()
    rows = run_sweep(docs, LabConfig(query="refunds", tokenizer="heuristic"), [0.7, 1.0], [60, 200])
    assert len(rows) == 4
    for row in rows:
        result = ContextManager(dedup_threshold=row["dedup_threshold"], tokenizer="heuristic").build(
            PromptRequest(query="refunds", documents=docs, max_context_tokens=row["max_context_tokens"])
        )
        assert row["in_block"] == len(result.included_docs)
        assert row["included"] == sum(1 for t in result.trace if t.fate == "included")
        assert row["tokens_used"] == result.tokens_used
        assert row["duplicate"] == result.duplicates_removed
        assert sum(row[fate] for fate in FATES) == len(docs)


def test_sweep_figure_builds_two_heatmaps_over_the_grid():
    from contextlab.charts.sweep import sweep_figure

    rows = run_sweep(documents(), LabConfig(query="refunds", tokenizer="heuristic"), [0.7, 1.0], [60, 200, 400])
    fig = sweep_figure(rows)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert list(fig.data[0].x) == ["60", "200", "400"] and list(fig.data[0].y) == ["0.7", "1"]
    assert fig.data[0].z[0][2] == rows[2]["in_block"]
    assert fig.data[1].z[1][0] == rows[3]["utilization_pct"]


def test_sweep_figure_empty_rows():
    from contextlab.charts.sweep import sweep_figure

    fig = sweep_figure([])
    assert len(fig.data) == 0 and fig.layout.annotations[0].text == "No sweep results to show"


def test_sweep_grid_checks_values_and_names_the_given_flags():
    assert sweep_grid("0.5,1.0", "10:30:10") == ([0.5, 1.0], [10, 20, 30])
    with pytest.raises(ValueError, match=r"--threshold '0\.5,2': 2\.0 is outside 0\.01 to 1$"):
        sweep_grid("0.5,2", "10", names=("--threshold", "--budget", "--max-builds"))
    with pytest.raises(ValueError, match=r"--budget '-1': -1 is outside 0 to 10,000,000$"):
        sweep_grid("0.5", "-1", names=("--threshold", "--budget", "--max-builds"))


def test_sweep_grid_limit_can_be_raised():
    with pytest.raises(
        ValueError,
        match=r"6 builds, over the limit of 4; use larger steps or "
        r"raise the limit \(max_builds=N\)$",
    ):
        sweep_grid("0.5,0.6,0.7", "1,2", max_builds=4, names=("--threshold", "--budget", "--max-builds"))
    # One axis alone over the limit names the limit too, not only the step.
    with pytest.raises(
        ValueError,
        match=r"--threshold '0\.5:1\.0:0\.05' has 11 values, over the limit of 1 "
        r"builds; use a larger step or raise the limit \(max_builds=N\)",
    ):
        sweep_grid("0.5:1.0:0.05", "1", max_builds=1, names=("--threshold", "--budget", "--max-builds"))
    assert len(sweep_grid("0.01:1:0.00005", "1", max_builds=20_000)[0]) == 19_801


def test_sweep_rows_follow_the_config_placement():
    docs = documents()
    rows = run_sweep(docs, LabConfig(query="refunds", tokenizer="heuristic", placement="reversed"), [1.0], [400])
    expected = ContextManager(tokenizer="heuristic", placement="reversed", dedup_threshold=1.0).build(
        PromptRequest(query="refunds", documents=docs, max_context_tokens=400)
    )
    assert rows[0]["tokens_used"] == expected.tokens_used


def test_sweep_write_csv_has_the_columns_in_order():
    buffer = io.StringIO()
    write_csv([dict.fromkeys(SWEEP_COLUMNS, 1)], buffer)
    assert buffer.getvalue().splitlines() == [",".join(SWEEP_COLUMNS), ",".join(["1"] * len(SWEEP_COLUMNS))]


def test_sweep_progress_counts_every_build():
    seen: list[tuple[int, int]] = []
    run_sweep(
        [Document("alpha beta gamma delta epsilon", 0.5)],
        LabConfig(tokenizer="heuristic"),
        [0.8, 1.0],
        [10, 20, 30],
        progress=lambda done, total, note="": seen.append((done, total)),
    )
    assert seen == [(1, 6), (2, 6), (3, 6), (4, 6), (5, 6), (6, 6)]


def test_sweep_row_has_every_column_and_every_fate():
    from contextlab.lab.sweep import SweepRow

    assert tuple(SweepRow.__annotations__) == SWEEP_COLUMNS
    assert SWEEP_COLUMNS[2:8] == FATES
