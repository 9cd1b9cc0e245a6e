"""Evaluate's statistics end to end: curves by block size, near-copy golds, honest intervals,
paired differences against a baseline, the recommendation, provenance, and `eval compare`."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

import pytest

import contextlab
from contextlab import ContextManager, Document, PromptRequest
from contextlab.curves.reading import read_curve
from contextlab.errors import InvalidInputError
from contextlab.evaluation import (
    EvalQuestion,
    RunOptions,
    evaluate_to_files,
    expand_grid,
    find_configuration,
    load_eval_set,
    parse_grid,
    prepare_question,
    question_metrics,
    run_evaluation,
    sort_by_difference,
    summary_table,
    write_results,
)
from contextlab.evaluation.aggregate import Aggregator
from contextlab.evaluation.compare import compare_runs, compare_table
from contextlab.evaluation.rows import EvalRow
from contextlab.intervals import wilson_interval
from tests.helpers import eval_row

MODEL = "GPT-3.5-Turbo"
FILLER = "Filler text about an unrelated subject that says nothing of use here at all, number {}."


def _filler(i: int) -> str:
    # Words of their own per document, so no two fillers are near copies of each other.
    return " ".join(f"w{i}x{j}" for j in range(12)) + "."


ANSWER = (
    "The lighthouse keeper of Skerry Point in the long cold winter of that year was a man called "
    "Tobias Wren, who kept the lamp lit through every storm of the season."
)


def _filler_docs(n: int, top: float = 0.5) -> list[Document]:
    return [Document(_filler(i), score=round(top - i / 1000, 4), source=f"doc-{i}") for i in range(n)]


# -- per question ---------------------------------------------------------------------------


def test_gold_dropped_as_a_near_copy_counts_through_its_kept_copy():
    kept = Document(ANSWER, score=0.9, source="kept")
    # One word added to 31: a near copy under either measure (shingle Jaccard 27/28, word edits 31/32).
    gold = Document(ANSWER + " Truly.", score=0.8, source="gold")
    docs = [kept, gold, *_filler_docs(3)]
    q = EvalQuestion("q", "who kept the skerry point light", answers=("Tobias Wren",), gold_sources=frozenset({"gold"}))
    result = ContextManager().build(PromptRequest(q.query, docs, max_context_tokens=2000))
    assert next(t for t in result.trace if t.input_index == 1).fate == "duplicate"
    row = question_metrics(prepare_question(q, docs), result, MODEL)
    kept_position = next(t.position for t in result.trace if t.input_index == 0)
    assert row.gold_in_block is True and row.gold_via_copy is True and row.gold_recall == 1.0
    assert row.gold_position == kept_position
    assert row.gold_note.startswith("gold D1 was dropped as a copy of D0, similarity 0.9")
    assert row.gold_note.endswith(f"it counts as present through D0 at pos {kept_position}")
    assert row.curve != "closed book"


def test_gold_recall_is_the_share_of_golds_in_the_block():
    docs = [
        Document(
            "The grey heron nests in tall trees near the river, in colonies of a few dozen pairs.",
            score=0.9,
            source="g0",
        ),
        Document("Herons hunt fish by standing still in shallow water and striking fast.", score=0.8, source="g1"),
        *_filler_docs(4, top=0.5),
    ]
    q = EvalQuestion("q", "heron", answers=("heron",), gold_sources=frozenset({"g0", "g1"}))
    prep = prepare_question(q, docs)
    one = ContextManager().build(PromptRequest(q.query, docs, max_context_tokens=40))
    both = ContextManager().build(PromptRequest(q.query, docs, max_context_tokens=2000))
    assert len(one.included_docs) == 1
    assert question_metrics(prep, one, MODEL).gold_recall == 0.5
    assert question_metrics(prep, both, MODEL).gold_recall == 1.0


def test_a_block_of_only_the_gold_reads_the_gold_only_accuracy():
    docs = [Document(ANSWER, score=0.9, source="gold"), *_filler_docs(5)]
    q = EvalQuestion("q", "lighthouse", answers=("Tobias Wren",), gold_sources=frozenset({"gold"}))
    result = ContextManager().build(PromptRequest(q.query, docs, max_context_tokens=60))
    assert len(result.included_docs) == 1
    row = question_metrics(prepare_question(q, docs), result, MODEL)
    # The curve file's own gold-only (oracle) accuracy for GPT-3.5-Turbo, not the 10-document 76.8.
    assert (row.expected_accuracy, row.curve) == (88.3, "gold only")


def test_a_block_larger_than_every_curve_says_so():
    docs = [Document(ANSWER, score=0.99, source="gold"), *_filler_docs(24)]
    q = EvalQuestion("q", "lighthouse", answers=("Tobias Wren",), gold_sources=frozenset({"gold"}))
    result = ContextManager(placement="relevance").build(PromptRequest(q.query, docs, max_context_tokens=8000))
    row = question_metrics(prepare_question(q, docs), result, MODEL)
    assert row.in_block == 25
    assert row.curve == "outside every curve: 25 documents, read on the 20-document curve"
    summary = Aggregator([]).add([EvalRow("c", "q", {}, row)]).summaries()[0]
    assert summary["outside_curves"] == 1


@pytest.mark.parametrize(
    "n_docs, position, value, curve",
    [
        (1, 1, 88.3, "gold only"),
        (10, 1, 76.8, "10 documents"),
        (10, 10, 62.4, "10 documents"),
        (15, 1, 76.3, "between 10 and 20 documents"),  # (76.8 + 75.8) / 2
        (4, 4, 79.667, "between gold only and 10 documents"),  # 88.3 + (62.4 - 88.3) * 3 / 9
        (3, None, 56.1, "closed book"),
    ],
)
def test_read_curve_uses_the_curve_the_block_size_calls_for(n_docs, position, value, curve):
    reading = read_curve(MODEL, n_docs, position)
    assert (reading.value, reading.curve) == (pytest.approx(value, abs=1e-3), curve)
    assert reading.low < reading.value < reading.high


# -- intervals ------------------------------------------------------------------------------


def _rows_at(readings: list[tuple[int, int | None]], n: int) -> list[EvalRow]:
    rows = []
    for k in range(n):
        docs, position = readings[k % len(readings)]
        r = read_curve(MODEL, docs, position)
        rows.append(
            eval_row(
                {
                    "config": "c",
                    "query_id": f"q{k}",
                    "expected_accuracy": r.value,
                    "curve_low": r.low,
                    "curve_high": r.high,
                    "curve": r.curve,
                }
            )
        )
    return rows


@pytest.mark.slow
def test_expected_accuracy_interval_at_2655_questions_is_at_least_the_curves_own():
    # Every gold first of ten: the questions add nothing; the interval is the curve point's own,
    # Wilson of 76.8% of 2,655: [75.156, 78.366] (the old bootstrap said [76.8, 76.8]).
    s = Aggregator([]).add(_rows_at([(10, 1)], 2655)).summaries()[0]
    low, high = (100 * v for v in wilson_interval(0.768 * 2655, 2655))
    assert (s["expected_accuracy_low"], s["expected_accuracy_high"]) == (
        pytest.approx(low, abs=1e-3),
        pytest.approx(high, abs=1e-3),
    )
    # Half first of ten, half not in the block: at least as wide as the two points' intervals averaged.
    mixed = Aggregator([]).add(_rows_at([(10, 1), (10, None)], 2655)).summaries()[0]
    curve_width = (
        read_curve(MODEL, 10, 1).high
        - read_curve(MODEL, 10, 1).low
        + read_curve(MODEL, 10, None).high
        - read_curve(MODEL, 10, None).low
    ) / 2
    width = mixed["expected_accuracy_high"] - mixed["expected_accuracy_low"]
    assert width >= curve_width > 3.3
    # ... and at least one 2,655-question rate's interval at the estimate itself:
    # (1,328 x 76.8 + 1,327 x 56.1) / 2,655 = 66.454%.
    low, high = wilson_interval(0.66454 * 2655, 2655)
    assert mixed["expected_accuracy"] == pytest.approx(66.454, abs=1e-3)
    # 2 x 1.96 x sqrt(0.222926 / 2655 + 3.8416 / (4 x 2655^2)) / 1.001447 = 3.590 points
    assert width >= 100 * (high - low) == pytest.approx(3.590, abs=1e-3)


def test_paired_p_values_keep_their_significant_digits():
    rows = [
        eval_row({"config": c, "query_id": f"q{k}", "gold_in_block": c == "b" or k >= 30})
        for k in range(40)
        for c in "ab"
    ]
    paired = Aggregator([]).add(rows).summaries()[1]["vs_baseline"]["gold_in_block"]
    # 30 questions gained, none lost: McNemar p = 2 / 2^30 = 1.863e-09, not rounded to 0.
    assert (paired["only_a"], paired["only_b"], paired["p_value"]) == (0, 30, 1.863e-09)


def _user_set(tmp_path, n: int = 10) -> str:
    records = []
    for k in range(n):
        docs = [{"content": FILLER.format(i), "source": f"doc-{i}", "score": round(0.5 - i / 100, 2)} for i in range(8)]
        docs[k % 8] = {
            "content": f"The code word for question {k} is pelican{k}, as everyone knows.",
            "source": f"gold-{k}",
            "score": 0.9,
        }
        records.append(
            {
                "id": f"q{k}",
                "query": f"code word {k}",
                "documents": docs,
                "gold_sources": [f"gold-{k}"],
                "answers": [f"pelican{k}"],
            }
        )
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return str(path)


def test_ten_question_set_never_prints_a_zero_width_interval(tmp_path):
    result = run_evaluation(load_eval_set(_user_set(tmp_path)), ["max_context_tokens=200,400"])
    for s in result.summaries():
        assert s["gold_in_block"] == 1.0
        for metric in ("gold_in_block", "answer_in_block", "gold_recall", "expected_accuracy"):
            assert s[f"{metric}_high"] - s[f"{metric}_low"] > 0.05, (s["config"], metric)
    paired = result.summaries()[1]["vs_baseline"]["gold_in_block"]
    assert (paired["difference"], paired["p_value"]) == (0.0, 1.0) and paired["high"] - paired["low"] > 0.4
    table = summary_table(result)
    assert "100.0 [100.0, 100.0]" not in table and "100.0 [ 72.2, 100.0]" in table


# -- paired differences, recommendation, provenance -----------------------------------------


def test_summary_carries_provenance_paired_differences_and_a_recommendation(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTEXTLAB_API_KEY", "sk-do-not-write-me")
    evalset = _user_set(tmp_path)
    out, summary = tmp_path / "r.csv", tmp_path / "s.json"
    evaluate_to_files(
        evalset,
        out,
        summary,
        grid=["max_context_tokens=5,400"],
        options=RunOptions(baseline="max_context_tokens=400", blocks=True),
    )
    text = summary.read_text(encoding="utf-8")
    data = json.loads(text)
    assert "sk-do-not-write-me" not in text
    assert data["contextlab_version"] == contextlab.__version__ and data["evalset"] == "set.jsonl"
    assert data["evalset_sha256"] == hashlib.sha256(Path(evalset).read_bytes()).hexdigest()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["created"]) and data["questions"] == 10
    assert data["settings"]["dedup_threshold"] == 0.85 and data["curve_model"] == MODEL
    assert data["results_csv"] == {"path": "r.csv", "sha256": hashlib.sha256(out.read_bytes()).hexdigest()}
    assert data["baseline"] == "max_context_tokens=400"
    small = next(c for c in data["configs"] if c["config"] == "max_context_tokens=5")
    paired = small["vs_baseline"]["gold_in_block"]
    # Nothing fits in 5 tokens: 10 of 10 questions lose their gold, McNemar p = 2 / 2^10.
    assert (paired["difference"], paired["n"], paired["p_value"]) == (-1.0, 10, 0.001953)
    assert data["configs"][1]["vs_baseline"] is None
    assert data["recommendation"]["metric"] == "gold_in_block"
    assert data["recommendation"]["text"].startswith("On gold in block (no model answered): ")
    rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
    assert rows[0]["query"] == rows[1]["query"] == "code word 0" and rows[0]["block"] == ""
    assert rows[1]["config"] == "max_context_tokens=400" and rows[1]["block"].startswith("--- Source [1] gold-0")


def test_baseline_is_a_label_or_settings_naming_one():
    configs = expand_grid(parse_grid({"max_context_tokens": [256, 512], "placement": ["relevance", "reversed"]}))
    assert (
        find_configuration(configs, "max_context_tokens=512 placement=reversed").label
        == "max_context_tokens=512 placement=reversed"
    )
    assert (
        find_configuration(configs, "placement=reversed max_context_tokens=256").label
        == "max_context_tokens=256 placement=reversed"
    )
    with pytest.raises(InvalidInputError, match="baseline 'max_context_tokens=512' matches 2 configurations") as err:
        find_configuration(configs, "max_context_tokens=512")
    assert err.value.field == "baseline"
    with pytest.raises(InvalidInputError, match="matches no configuration"):
        find_configuration(configs, "max_context_tokens=999")


def test_sort_by_difference_puts_the_largest_first_and_undefined_last():
    summaries = [
        {"config": "base", "vs_baseline": None},
        {"config": "up", "vs_baseline": {"gold_in_block": {"difference": 0.2}}},
        {"config": "none", "vs_baseline": {}},
        {"config": "down", "vs_baseline": {"gold_in_block": {"difference": -0.1}}},
    ]
    assert [s["config"] for s in sort_by_difference(summaries, "gold_in_block")] == ["up", "base", "down", "none"]
    assert [s["config"] for s in sort_by_difference(summaries, "gold_in_block", descending=False)] == [
        "down",
        "base",
        "up",
        "none",
    ]


def test_eval_compare_of_a_run_against_itself_shows_zero_differences(tmp_path):
    result = run_evaluation(load_eval_set(_user_set(tmp_path)), ["max_context_tokens=40,400"])
    write_results(result, tmp_path / "r.csv", tmp_path / "s.json")
    same = compare_runs(tmp_path / "s.json", tmp_path / "s.json")
    assert same.matched_questions == 10 and [c.config for c in same.configs] == [
        "max_context_tokens=40",
        "max_context_tokens=400",
    ]
    for c in same.configs:
        for metric, d in c.metrics.items():
            assert d.paired is True and d.difference == 0.0, metric
    table = compare_table(same)
    assert "Paired over 10 questions" in table and "(unpaired)" not in table and "+0.0 [" in table
    (tmp_path / "r.csv").unlink()
    alone = compare_table(compare_runs(tmp_path / "s.json", tmp_path / "s.json"))
    assert "Unpaired:" in alone and "(unpaired)" in alone


def test_measured_accuracy_is_a_percent_with_wilson_and_the_recommendation_uses_it():
    rows = []
    for k in range(10):
        for label, correct in (("cheap", k < 8), ("dear", k < 9)):
            rows.append(
                eval_row(
                    {
                        "config": label,
                        "query_id": f"q{k}",
                        "correct": correct,
                        "gold_in_block": True,
                        "tokens_used": 100 if label == "cheap" else 900,
                    }
                )
            )
    report = Aggregator([]).add(rows).report()
    cheap = report.configs[0]
    # 8 of 10: Wilson [0.490156, 0.943322], written in percent like expected_accuracy.
    assert (cheap["accuracy"], cheap["accuracy_low"], cheap["accuracy_high"]) == (
        80.0,
        pytest.approx(49.0156, abs=1e-3),
        pytest.approx(94.3322, abs=1e-3),
    )
    dear = report.configs[1]["vs_baseline"]["accuracy"]
    assert (dear["difference"], dear["only_a"], dear["only_b"], dear["p_value"]) == (0.1, 0, 1, 1.0)
    advice = report.recommendation
    assert advice.metric == "accuracy" and advice.config == "cheap"
    assert advice.text.startswith(
        "On measured accuracy (a model answered): these 2 configurations cannot be told apart on 10 questions"
    )
    assert "take cheap: 100 tokens on average, measured accuracy 80.0%" in advice.text


def test_summary_table_says_how_many_rows_were_read_outside_every_curve(tmp_path):
    records = [
        {
            "id": "q0",
            "query": "lighthouse",
            "answers": ["Tobias Wren"],
            "gold_sources": ["gold"],
            "documents": [
                {"content": ANSWER, "source": "gold", "score": 0.99},
                *({"content": _filler(i), "source": f"doc-{i}", "score": 0.5} for i in range(24)),
            ],
        }
    ]
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(records[0]) + "\n", encoding="utf-8")
    result = run_evaluation(load_eval_set(str(path)), ["max_context_tokens=100,8000"], RunOptions(top_k=30))
    assert [s["outside_curves"] for s in result.summaries()] == [0, 1]
    assert (
        "1 rows read outside every curve: their blocks hold more documents than any published curve "
        "(GPT-3.5-Turbo)" in summary_table(result)
    )


def _rows(budget: int, placement: str, gold: list[int]) -> list[EvalRow]:
    label = f"max_context_tokens={budget} placement={placement}"
    return [
        eval_row(
            {
                "config": label,
                "query_id": f"q{i}",
                "max_context_tokens": budget,
                "placement": placement,
                "gold_in_block": g,
                "tokens_used": budget - 10,
            }
        )
        for i, g in enumerate(gold)
    ]


def test_recommendation_says_a_setting_made_no_difference_when_its_rows_are_identical():
    from contextlab.evaluation import Aggregator

    small, big = [1, 0, 0, 1] * 10, [1, 1, 0, 1] * 10
    rows = (
        _rows(256, "lost_in_the_middle", small)
        + _rows(256, "relevance", small)
        + _rows(512, "lost_in_the_middle", big)
        + _rows(512, "relevance", big)
    )
    advice = Aggregator(["max_context_tokens", "placement"]).add(rows).report().recommendation
    assert advice.no_effect == ("placement",)
    assert advice.text.endswith(
        "Placement made no difference to gold in block here: every question's gold in "
        "block is the same "
        "under lost_in_the_middle and relevance, so the placement named above is a "
        "tie-break, not a finding."
    )
    # one question placed differently: the placement did make a difference, and nothing is said
    moved = _rows(512, "relevance", [0] + big[1:])
    rows = rows[: -len(moved)] + moved
    assert Aggregator(["max_context_tokens", "placement"]).add(rows).report().recommendation.no_effect == ()
