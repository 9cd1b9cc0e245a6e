"""Tests for contextlab.curves.published and .scores: the published curves, interpolation, scores."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextlab
from contextlab.curves.published import (
    CITATION,
    accuracy_at,
    accuracy_curve,
    load_position_curves,
)
from contextlab.curves.scores import compare_orderings, ordering_report, ordering_score
from contextlab.errors import InvalidInputError

CSV_PATH = Path(contextlab.__file__).parent / "data" / "lost_in_the_middle_liu2024.csv"
DATA = load_position_curves()
MODELS = DATA.models()


def _csv_rows() -> list[dict[str, str]]:
    lines = [ln for ln in CSV_PATH.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines))


# -- data ----------------------------------------------------------------------------------------


def test_load_position_curves_reads_every_model_and_count():
    assert MODELS == [
        "Claude-1.3",
        "Claude-1.3 (100K)",
        "GPT-3.5-Turbo",
        "GPT-3.5-Turbo (16K)",
        "MPT-30B-Instruct",
        "LongChat-13B (16K)",
    ]
    assert DATA.doc_counts("GPT-3.5-Turbo (16K)") == [10, 20, 30]
    assert DATA.doc_counts("GPT-3.5-Turbo") == [10, 20]
    assert DATA.curve("GPT-3.5-Turbo (16K)", 20) == [(1, 75.7), (5, 57.3), (10, 54.1), (15, 55.4), (20, 63.1)]


def test_load_position_curves_is_cached():
    assert load_position_curves() is DATA


def test_load_position_curves_closed_book_and_oracle():
    assert DATA.closed_book("GPT-3.5-Turbo") == 56.1
    assert DATA.oracle("GPT-3.5-Turbo") == 88.3
    assert DATA.oracle("LongChat-13B (16K)") == 83.4


def test_position_data_curve_unmeasured_count_raises():
    with pytest.raises(InvalidInputError, match=r"not 15.*accuracy_at"):
        DATA.curve("Claude-1.3", 15)


def test_citation_names_the_paper():
    assert "Lost in the Middle: How Language Models Use Long Contexts" in CITATION
    assert "12:157-173" in CITATION and "2024" in CITATION and "2307.03172" in CITATION
    assert DATA.citation == CITATION


# -- interpolation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "row",
    [r for r in _csv_rows() if r["kind"] == "position"],
    ids=lambda r: f"{r['model']}-{r['total_docs']}-{r['position']}",
)
def test_accuracy_at_equals_data_at_measured_points(row: dict[str, str]):
    value = accuracy_at(row["model"], int(row["total_docs"]), int(row["position"]))
    assert value == float(row["accuracy"])


def test_accuracy_at_between_positions_is_between_neighbours():
    # 20 docs, GPT-3.5-Turbo (16K): position 1 = 75.7, position 5 = 57.3
    value = accuracy_at("GPT-3.5-Turbo (16K)", 20, 3)
    assert value == pytest.approx(75.7 + (57.3 - 75.7) * 0.5)
    assert 57.3 < value < 75.7


def test_accuracy_at_between_counts_is_between_curves():
    # first position: 10 docs 76.9, 20 docs 75.7 -> 15 docs halfway
    assert accuracy_at("GPT-3.5-Turbo (16K)", 15, 1) == pytest.approx((76.9 + 75.7) / 2)
    # last position: 20 docs 63.1, 30 docs 63.7 -> 25 docs halfway
    assert accuracy_at("GPT-3.5-Turbo (16K)", 25, 25) == pytest.approx((63.1 + 63.7) / 2)


@given(model=st.sampled_from(MODELS), n=st.integers(10, 30), data=st.data())
def test_accuracy_at_lies_within_neighbouring_measured_values(model, n, data):
    position = data.draw(st.integers(1, n))
    value = accuracy_at(model, n, position)
    counts = DATA.doc_counts(model)
    near = [c for c in counts if c <= n][-1:] + [c for c in counts if c >= n][:1]
    depth = (position - 1) / (n - 1)
    bounds = []
    for c in near:
        pts = [((p - 1) / (c - 1), a) for p, a in DATA.curve(model, c)]
        left = max(d for d, _ in pts if d <= depth)
        right = min(d for d, _ in pts if d >= depth)
        bounds += [a for d, a in pts if d in (left, right)]
    assert min(bounds) - 1e-9 <= value <= max(bounds) + 1e-9


def test_accuracy_at_clamps_counts_outside_measured_range():
    assert accuracy_at("Claude-1.3", 5, 1) == 62.9  # below 10: the 10-doc curve
    assert accuracy_at("Claude-1.3", 60, 60) == 59.9  # above 30: the 30-doc curve
    assert accuracy_at("GPT-3.5-Turbo", 30, 30) == 63.2  # measured only up to 20
    assert accuracy_at("Claude-1.3", 1, 1) == 62.9


def test_accuracy_curve_has_one_value_per_position():
    curve = accuracy_curve("MPT-30B-Instruct", 20)
    assert len(curve) == 20
    assert curve[0] == 53.7 and curve[-1] == 56.3


def test_accuracy_at_model_name_is_case_insensitive():
    assert accuracy_at("gpt-3.5-turbo (16k)", 20, 1) == 75.7


@pytest.mark.parametrize(
    ("model", "n", "position", "message"),
    [
        ("GPT-4", 20, 1, r"unknown model 'GPT-4'; choose one of: Claude-1.3, .*LongChat-13B \(16K\)"),
        ("Claude-1.3", 0, 1, r"n_docs must be a whole number >= 1"),
        ("Claude-1.3", 10, 0, r"position must be between 1 and n_docs=10"),
        ("Claude-1.3", 10, 11, r"position must be between 1 and n_docs=10"),
        ("Claude-1.3", 10, float("nan"), r"position must be between"),
    ],
)
def test_accuracy_at_bad_input_raises(model, n, position, message):
    with pytest.raises(InvalidInputError, match=message):
        accuracy_at(model, n, position)


def test_ordering_score_bad_model_names_known_models():
    with pytest.raises(InvalidInputError, match=r"unknown model 'llama'.*GPT-3\.5-Turbo \(16K\)"):
        ordering_score([1.0, 0.5], "llama")
    with pytest.raises(ValueError):  # InvalidInputError is a ValueError
        DATA.doc_counts("nope")


# -- scoring -------------------------------------------------------------------------------------

U_SHAPED = [m for m in MODELS if all(DATA.curve(m, 20)[-1][1] > a for _, a in DATA.curve(m, 20)[1:-1])]


def test_u_shaped_models_are_the_expected_five():
    assert set(U_SHAPED) == set(MODELS) - {"LongChat-13B (16K)"}


@pytest.mark.parametrize("model", U_SHAPED)
@pytest.mark.parametrize("profile", ["harmonic", "linear", "retrieval"])
def test_ordering_score_ours_beats_relevance_on_u_shaped_curves(model, profile):
    relevances = {
        "harmonic": [1 / (i + 1) for i in range(20)],
        "linear": [1 - i / 20 for i in range(20)],
        "retrieval": [0.97 - 0.03 * i for i in range(20)],
    }[profile]
    scores = compare_orderings(relevances, model)
    assert scores["lost_in_the_middle"] >= scores["relevance"]


def test_ordering_score_reversed_wins_when_last_position_is_best():
    # MPT-30B-Instruct reads the last of 20 documents best (56.3 vs 53.7 first).
    scores = compare_orderings([1 / (i + 1) for i in range(20)], "MPT-30B-Instruct")
    assert scores["reversed"] > scores["lost_in_the_middle"] > scores["relevance"]


def test_ordering_score_relevance_wins_without_a_recency_bump():
    # LongChat-13B's 20-document curve has no rise at the end, so the middle-out order loses.
    scores = compare_orderings([1 / (i + 1) for i in range(20)], "LongChat-13B (16K)")
    assert scores["relevance"] > scores["lost_in_the_middle"]


def test_ordering_score_formula():
    acc = accuracy_curve("Claude-1.3", 10)
    relevances = [0.9, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5]
    expected = sum(r * a for r, a in zip(relevances, acc, strict=False)) / (sum(relevances) * max(acc))
    assert ordering_score(relevances, "Claude-1.3") == pytest.approx(expected)


def test_ordering_score_all_relevance_at_best_position_is_one():
    assert ordering_score([1.0, 0.0, 0.0, 0.0], "GPT-3.5-Turbo", 4) == pytest.approx(1.0)


def test_ordering_score_pads_to_n_docs():
    assert ordering_score([1.0], "GPT-3.5-Turbo (16K)", 20) == pytest.approx(1.0)
    middle = [0.0] * 9 + [1.0]
    assert ordering_score(middle, "GPT-3.5-Turbo (16K)", 20) == pytest.approx(
        accuracy_at("GPT-3.5-Turbo (16K)", 20, 10) / 75.7
    )


def test_ordering_score_zero_relevance_is_zero():
    assert ordering_score([0.0, 0.0, 0.0], "Claude-1.3") == 0.0


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.sampled_from(MODELS))
def test_ordering_score_in_unit_interval_and_bounded(relevances, model):
    report = ordering_report(relevances, model)
    eps = 1e-9
    assert 0.0 <= report.worst_score <= report.score + eps
    assert report.score <= report.best_score + eps
    assert report.best_score <= 1.0 + eps


def test_ordering_report_rows():
    report = ordering_report([0.9, 0.5, 0.7], "MPT-30B-Instruct", 5)
    assert [r.position for r in report.rows] == [1, 2, 3, 4, 5]
    assert [r.relevance for r in report.rows] == [0.9, 0.5, 0.7, 0.0, 0.0]
    assert report.rows[0].accuracy == accuracy_at("MPT-30B-Instruct", 5, 1)
    assert report.rows[0].weighted == pytest.approx(0.9 * report.rows[0].accuracy)
    assert report.to_dict()["rows"][2]["relevance"] == 0.7


@pytest.mark.parametrize(
    ("relevances", "n_docs", "message"),
    [
        ([], None, "relevances is empty"),
        ([1.0, -0.1], None, r"relevances\[1\] must be a finite number >= 0"),
        ([1.0, float("inf")], None, r"relevances\[1\]"),
        ([1.0, 1.0, 1.0], 2, "3 relevances do not fit in n_docs=2"),
    ],
)
def test_ordering_score_bad_relevances_raise(relevances, n_docs, message):
    with pytest.raises(InvalidInputError, match=message):
        ordering_score(relevances, "Claude-1.3", n_docs)


def test_load_position_curves_data_is_read_only():
    with pytest.raises(TypeError):
        DATA.curves["Claude-1.3"][10] = ()  # type: ignore[index]
    with pytest.raises(TypeError):
        DATA.oracle_accuracy["Claude-1.3"] = 0.0  # type: ignore[index]
