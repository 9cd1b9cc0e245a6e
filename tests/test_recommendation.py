"""contextlab.evaluation.recommendation: ties on what is in the block are decided on the curve, or said to be ties."""

from __future__ import annotations

import itertools
import math

import pytest

from contextlab.evaluation.recommendation import recommend
from contextlab.evaluation.stats import PairedDifference
from contextlab.evaluation.verdict import verdict, verdict_words


def _summary(label, gold, tokens, expected, low, high):
    return {
        "config": label,
        "gold_in_block": gold,
        "tokens_used": tokens,
        "expected_accuracy": expected,
        "expected_accuracy_low": low,
        "expected_accuracy_high": high,
    }


GOLD = [1] * 39 + [0]  # every placement holds the same documents: 97.5% gold in block each


def _placements(spread: float):
    """Three placements on 40 questions; ``curve`` reads each question ``spread`` points above the others."""
    summaries = [
        _summary("placement=curve", 0.975, 2016.62, 20.0 + spread, 18.0 + spread, 22.0 + spread),
        _summary("placement=lost_in_the_middle", 0.975, 2016.59, 20.0, 18.0, 22.0),
        _summary("placement=relevance", 0.975, 2016.60, 20.0, 18.0, 22.0),
    ]
    values = {s["config"]: GOLD for s in summaries}
    expected = {
        "placement=curve": [20.0 + spread + (i % 2) for i in range(40)],
        "placement=lost_in_the_middle": [20.0 + (i % 2) for i in range(40)],
        "placement=relevance": [20.0 + (i % 2) for i in range(40)],
    }
    errors = {s["config"]: (2.0, 2.0) for s in summaries}
    return summaries, values, expected, errors


def test_recommend_decides_a_tie_on_gold_in_block_by_the_curves_expected_accuracy():
    # +6 points on every question; the curves' error, 2 points a side each, gives +6 +- 2.83 at least.
    summaries, values, expected, errors = _placements(6.0)
    out = recommend(summaries, values, "gold_in_block", yes_no=True, expected=expected, curve_error=errors)
    assert (out.config, out.decided_by, out.told_apart) == ("placement=curve", "expected_accuracy", True)
    assert out.text.startswith(
        "On gold in block (no model answered): the 3 configurations tie on gold in block "
        "on 40 questions, so the curve's expected accuracy decides: take placement=curve: "
        "2017 tokens on average, expected accuracy 26.0 [24.0, 28.0]%"
    )
    assert "the curve's own error included" in out.text


def test_recommend_says_when_the_curve_cannot_tell_the_tie_apart_either():
    # +2 points: within the curves' own error (2 points a side each: +-2.83), so no decision.
    summaries, values, expected, errors = _placements(2.0)
    out = recommend(summaries, values, "gold_in_block", yes_no=True, expected=expected, curve_error=errors)
    assert (out.decided_by, out.told_apart) == ("gold_in_block", False)
    assert out.text.startswith(
        "On gold in block (no model answered): these 3 configurations cannot be told apart "
        "on 40 questions, on gold in block nor on the curve's expected accuracy"
    )
    assert "the largest difference -2.0 [" in out.text
    # Not decided on 0.03 tokens: the costs are within 1%, the one the curve reads best is named.
    assert out.config == "placement=curve"


@pytest.mark.parametrize("spread", [6.0, 2.0, 0.0])
def test_recommend_does_not_depend_on_the_order_configurations_are_listed(spread):
    summaries, values, expected, errors = _placements(spread)
    answers = {
        json_of(recommend(list(order), values, "gold_in_block", yes_no=True, expected=expected, curve_error=errors))
        for order in itertools.permutations(summaries)
    }
    assert len(answers) == 1


def json_of(out):
    return (out.config, out.best, out.cheapest, out.decided_by, out.text)


def test_recommend_without_a_curve_still_takes_the_cheapest_when_costs_differ():
    best = [1] * 40 + [0] * 10
    close = [1] * 39 + [0] * 11
    summaries = [
        {"config": "b", "gold_in_block": 0.80, "tokens_used": 1000},
        {"config": "a", "gold_in_block": 0.78, "tokens_used": 500},
    ]
    for order in (summaries, summaries[::-1]):
        assert recommend(order, {"b": best, "a": close}, "gold_in_block", yes_no=True).config == "a"


# -- the command: a measured curve read on other block sizes, and two curves compared -----------

CURVE = (
    "model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high\n"
    "{name},5,1,{first},position,30,{low},{high}\n{name},5,3,13.3,position,30,5.3,29.7\n"
    "{name},5,5,20.0,position,30,9.5,37.3\n{name},,,3.3,closed_book,30,0.6,16.7\n"
)


def _curve_run(tmp_path, capsys, name, first, low, high):
    from contextlab.cli import main

    folder = tmp_path / name
    folder.mkdir()
    (folder / "curve.csv").write_text(CURVE.format(name=name, first=first, low=low, high=high))
    code = main(
        [
            "eval",
            "--curve",
            str(folder / "curve.csv"),
            "--limit",
            "20",
            "--grid",
            "placement=relevance",
            "--out",
            str(folder / "r.csv"),
            "--summary",
            str(folder / "s.json"),
        ]
    )
    assert code == 0
    return folder / "s.json", capsys.readouterr().err


@pytest.mark.slow
def test_curve_read_on_other_block_sizes_warns_and_compare_carries_both_curves_error(tmp_path, capsys):
    from contextlab.evaluation.compare import compare_runs

    a, said = _curve_run(tmp_path, capsys, "small", 13.3, 5.3, 29.7)
    assert "contextlab: note: the curve of small was measured with 5 documents, but " in said
    assert "read at relative depth (p - 1)/(n - 1) on the measured curve" in said
    b, _ = _curve_run(tmp_path, capsys, "other", 33.3, 19.2, 51.2)
    diff = compare_runs(a, b).configs[0].metrics["expected_accuracy"]
    # The questions alone give a narrow interval; each curve's point is +-12 to +-18 points on 30 questions.
    assert diff.curve_error is True
    assert diff.high - diff.low > 30
    same = compare_runs(a, a).configs[0].metrics["expected_accuracy"]
    assert same.curve_error is False and same.difference == 0.0


@pytest.mark.slow
def test_a_placement_decided_on_the_curve_is_not_called_a_tie_break(tmp_path, capsys):
    # the bundled curve (223 questions) reads the end best: the curve placement puts the best documents
    # there, so its expected accuracy is told apart although every question's gold in block is the same
    from importlib import resources

    from contextlab.cli import main

    bundled = str(resources.files("contextlab").joinpath("data", "gemma3_270m_measured.csv"))
    code = main(
        [
            "eval",
            "--curve",
            bundled,
            "--limit",
            "20",
            "--grid",
            "placement=curve,relevance",
            "--out",
            str(tmp_path / "r.csv"),
        ]
    )
    assert code == 0
    said = capsys.readouterr().out
    assert "the curve's expected accuracy decides: take placement=curve" in said
    assert (
        "Placement made no difference to gold in block here: every question's gold in block is the same under "
        "curve and relevance; the choice between them rests on the curve's expected accuracy above."
    ) in said
    assert "tie-break" not in said


# -- what a few questions can say ---------------------------------------------------------------


def _two(gold_a, gold_b, tokens=(100.0, 400.0)):
    summaries = [
        {"config": "small", "gold_in_block": sum(gold_a) / len(gold_a), "tokens_used": tokens[0]},
        {"config": "large", "gold_in_block": sum(gold_b) / len(gold_b), "tokens_used": tokens[1]},
    ]
    return recommend(summaries, {"small": gold_a, "large": gold_b}, "gold_in_block", yes_no=True)


def test_recommend_nothing_when_the_gold_reached_no_block():
    out = _two([0], [0])
    assert out.config is None
    assert out.text == (
        "On gold in block (no model answered): the gold reached no configuration's block on the 1 question, "
        "so none is recommended."
    )
    many = _two([0] * 30, [0] * 30)
    assert many.config is None and "on any of the 30 questions, so none is recommended" in many.text


def test_recommend_on_one_question_cannot_tell_and_never_calls_it_a_tie():
    out = _two([0], [1])
    assert out.config is None
    assert out.text == (
        "On gold in block (no model answered): cannot tell (N = 1): large 100.0% against small 0.0% on 1 "
        "question; one question carries no interval, so none is recommended; run more questions."
    )
    assert "tie" not in out.text


def test_recommend_says_a_difference_seen_is_within_the_noise_not_that_none_was_seen():
    # 2 of 10 questions differ, both for large: McNemar p = 0.5, so not told apart; a difference was seen.
    out = _two([1] * 6 + [0] * 4, [1] * 8 + [0] * 2)
    assert out.config == "small" and out.told_apart is False
    assert "no difference was seen" not in out.text
    assert out.text.startswith("On gold in block (no model answered): these 2 configurations cannot be told apart")
    same = _two([1] * 6 + [0] * 4, [1] * 6 + [0] * 4)
    assert "no difference was seen between the best and the cheapest" in same.text


def test_cli_eval_on_one_question_whose_gold_reaches_no_block_recommends_nothing(tmp_path, capsys):
    import json

    from contextlab.cli import main

    docs = [
        {"content": "Berlin is the capital of Germany and a big city with many people living there.", "source": "b"},
        {"content": "Rome is the capital of Italy and an old city with a long history and ruins.", "source": "r"},
        {"content": "Paris is the capital of France, a large city on the Seine river with museums.", "source": "p"},
    ]
    line = {"id": "q1", "query": "capital of France", "documents": docs, "gold_sources": ["p"], "answers": ["Paris"]}
    (tmp_path / "one.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    argv = ["eval", str(tmp_path / "one.jsonl"), "--out", str(tmp_path / "r.csv"), "--grid", "budget=20,25"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert (
        "Recommendation. On gold in block (no model answered): the gold reached no configuration's block on the "
        "1 question, so none is recommended."
    ) in out.splitlines()


@pytest.mark.parametrize(
    "diff, found",
    [
        (PairedDifference(1.0, 1.0, 1.0, 1, p_value=1.0, only_a=0, only_b=1), "cannot_tell"),
        (PairedDifference(0.0, 0.0, 0.0, 1), "cannot_tell"),
        (PairedDifference(0.5, 0.1, 0.9, 2), "above"),
        (PairedDifference(-0.5, -0.9, -0.1, 2), "below"),
        (PairedDifference(-0.5, -0.9, -0.1, 20, p_value=0.05, only_a=5, only_b=0), "cannot_tell"),
        (PairedDifference(-0.5, -0.9, -0.1, 20, p_value=0.049, only_a=5, only_b=0), "below"),
        (PairedDifference(0.1, 0.0, 0.2, 20), "cannot_tell"),
        (PairedDifference(0.0, -0.2, 0.2, 20, p_value=1.0, only_a=0, only_b=0), "same"),
        (PairedDifference(0.0, 0.0, 0.0, 20), "same"),
        (PairedDifference(math.nan, math.nan, math.nan, 0), "no_pairs"),
    ],
)
def test_verdict_decides_from_the_difference_and_its_interval(diff, found):
    assert verdict(diff) == found


def test_verdict_words_say_cannot_tell_with_n_below_two():
    assert verdict_words("cannot_tell", 1) == "cannot tell (N = 1)"
    assert verdict_words("cannot_tell", 2) == "cannot be told apart on 2 questions"
    assert verdict_words("same", 1_000) == "no difference on any of 1,000 questions"
