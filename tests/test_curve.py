"""The position-curve experiment (contextlab.evaluation.curve) and placement "curve", without a model.

What a real model answers is tested in tests/test_models_server.py; here: which documents each
prompt holds and where, the file format, and how the "curve" placement follows a curve.
"""

from __future__ import annotations

import pytest

from contextlab import ContextManager, Document, PromptRequest
from contextlab.curves.curve_file import load_curve_file
from contextlab.curves.outcomes import file_evidence, load_outcomes, text_evidence
from contextlab.curves.published import accuracy_at, position_curve
from contextlab.errors import InvalidInputError
from contextlab.evaluation import RunOptions, run_evaluation
from contextlab.evaluation.curve import (
    CurveAnswer,
    CurvePlan,
    CurveResult,
    curve_csv,
    parse_positions,
    plan_curve,
    solved_examples,
    write_curve,
)
from contextlab.evaluation.sets import EvalQuestion
from contextlab.lab.config import LabConfig
from contextlab.stages.reorder import PositionCurve, curve_ordering

# -- the experiment's prompts -----------------------------------------------------------------


def test_curve_positions_are_parsed_and_checked():
    assert parse_positions("5, 1,5", 10) == [1, 5]
    with pytest.raises(InvalidInputError, match="positions must lie between 1 and documents=5"):
        parse_positions("1,6", 5)
    with pytest.raises(InvalidInputError, match="positions must be whole numbers"):
        parse_positions("1,x", 5)


def test_curve_plan_puts_the_gold_at_each_position_among_distractors():
    plan = plan_curve(documents=3, positions="1,3", limit=1)
    assert [(c.kind, c.total_docs, c.position) for c in plan.cases] == [
        ("closed_book", 0, None),
        ("oracle", 1, 1),
        ("position", 3, 1),
        ("position", 3, 3),
    ]
    gold = "Document [{}](Title: List of Nobel laureates in Physics) The first Nobel Prize in Physics"
    first, last = plan.cases[2].prompt, plan.cases[3].prompt
    assert gold.format(1) in first and gold.format(3) in last
    # the distractors: the most BM25-similar bundled passages without a gold answer, in that order
    assert "Document [2](Title: Nobel Prize in Literature)" in first
    assert "Document [1](Title: Nobel Prize in Literature)" in last
    assert "Document [3](Title: Henry Moseley)" in first and "Document [2](Title: Henry Moseley)" in last
    assert "Röntgen" not in first.replace(gold.format(1), "").split("Wilhelm Conrad Röntgen, of Germany")[-1]
    assert plan.cases[0].prompt.endswith("Question: who got the first nobel prize in physics\nAnswer:")
    assert "Document [" not in plan.cases[0].prompt


def test_curve_solved_examples_come_from_outside_the_run():
    assert [s.answer for s in solved_examples(2, set())] == ["1980s", "1603"]
    shots = solved_examples(2, {"nq-2654"})  # the last question is in the run: skipped
    assert [s.question for s in shots] == [
        "when was as you like it first performed",
        "character in macbeth who is murdered and appears as a ghost",
    ]
    assert [s.answer for s in shots] == ["1603", "Lord Banquo"]
    assert shots[0].documents.startswith("Document [1](Title: ")
    assert solved_examples(1, set(), with_documents=False)[0].documents == ""


def test_curve_file_has_the_bundled_format_and_loads_as_a_curve(tmp_path):
    questions = [EvalQuestion(f"q{i}", "which?", ("a",)) for i in range(4)]
    plan = CurvePlan(documents=3, positions=[1, 3], shots=0, questions=questions, cases=[])

    # scored rows as data (what run_curve makes of a model's answers), to test the writer and reader
    def rows_of(kind, total, position, marks):
        return [CurveAnswer(f"q{i}", kind, total, position, "a" if c else "b", bool(c)) for i, c in enumerate(marks)]

    rows = (
        rows_of("position", 3, 1, (1, 1, 0, 0))
        + rows_of("position", 3, 3, (1, 1, 1, 0))
        + rows_of("closed_book", 0, None, (0, 0, 0, 1))
        + rows_of("oracle", 1, 1, (1, 1, 1, 1))
    )
    result = CurveResult(plan, "tiny", rows, meta={"endpoint": "http://127.0.0.1:8080/v1", "api": "completions"})
    text = curve_csv(result, "Tiny model")
    assert [line for line in text.splitlines() if not line.startswith("#")] == [
        "model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high",
        "Tiny model,3,1,50.0,position,4,15.0,85.0",
        "Tiny model,3,3,75.0,position,4,30.1,95.4",
        "Tiny model,,,25.0,closed_book,4,4.6,69.9",
        "Tiny model,,,100.0,oracle,4,51.0,100.0",
    ]
    # One question differs (q2, right only at 3): McNemar p = 1; Bonett-Price [1/6 - 0.550, 0.25 + 0.550];
    # psi = delta = 1/4: (1.96 * 0.5 + 0.8416 * sqrt(0.1875))^2 / 0.0625 = 28.9 -> 29 questions.
    assert (
        "#   positions 1 and 3 differ by +25.0 [-38.3, +80.0] points, p = 1: not told apart on 4 questions; "
        "about 29 would tell a difference this size apart" in text.splitlines()
    )
    path = write_curve(result, tmp_path / "curve.csv", "Tiny model")
    data = load_curve_file(path)
    assert data.models() == ["Tiny model"]
    assert data.curve("Tiny model", 3) == [(1, 50.0), (3, 75.0)]
    assert (data.closed_book("Tiny model"), data.oracle("Tiny model")) == (25.0, 100.0)
    assert accuracy_at("Tiny model", 3, 2, data=data) == 62.5
    # the per-question outcomes beside it: the paired tests survive the file
    assert load_outcomes(path).by_position(3) == {1: [True, True, False, False], 3: [True, True, True, False]}
    assert (tmp_path / "curve.questions.csv").read_text().splitlines()[:2] == [
        "query_id,kind,total_docs,position,correct,answer",
        "q0,position,3,1,1,a",
    ]
    # one call gives what the file shows: paired with its outcomes beside it, from its points without
    assert file_evidence(path).paired and file_evidence(path).questions == 4
    alone = text_evidence(path.read_text(), name="curve.csv")
    assert not alone.paired and alone.questions == 4 and "(unpaired test)" in alone.headline
    assert text_evidence(path.read_text(), (tmp_path / "curve.questions.csv").read_text()).paired


def test_curve_file_errors_name_the_file(tmp_path):
    with pytest.raises(InvalidInputError, match="curve file .* does not exist"):
        load_curve_file(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("model,total_docs\nx,3\n")
    with pytest.raises(InvalidInputError, match="not in the curves' format"):
        load_curve_file(bad)


def test_curve_bundled_model_curve_ships_in_the_package_with_its_paired_tests():
    from importlib import resources

    path = resources.files("contextlab").joinpath("data", "gemma3_270m_measured.csv")
    text = path.read_text()
    assert "measured by `contextlab curve` on the first 223 bundled NaturalQuestions-Open questions" in text
    data = load_curve_file(path)
    model = data.models()[0]
    assert data.doc_counts(model) == [5] and data.questions == 223
    assert data.curve(model, 5) == [(1, 10.3), (3, 14.3), (5, 25.6)]
    assert (data.closed_book(model), data.oracle(model)) == (2.7, 36.3)
    # its per-question outcomes ship beside it: the tests stay paired wherever the curve is read
    evidence = file_evidence(path)
    assert evidence.paired and evidence.questions == 223
    assert evidence.shape == "reads_the_end_best" and not evidence.misses_middle
    assert [(d.first, d.second, d.resolved) for d in evidence.differences] == [(1, 3, True), (1, 5, True), (3, 5, True)]
    assert (
        "#   reads the end best: position 5 (25.6%) above every other position measured, on 223 questions"
        in text.splitlines()
    )
    assert (
        "#   Cochran's Q = 42.3 (2 df), p < 0.001 (permutation test): the positions do not share one accuracy"
        in text.splitlines()
    )


# -- placement "curve" ------------------------------------------------------------------------


def test_curve_placement_with_the_published_gpt35_curve_fills_the_front_then_the_end():
    curve = position_curve("GPT-3.5-Turbo")
    assert curve.points == ((0.0, 76.8), (4 / 9, 61.2), (1.0, 62.4))
    assert curve_ordering(10, curve) == [0, 1, 2, 3, 9, 8, 7, 6, 5, 4]


def test_curve_placement_with_a_recency_curve_puts_the_best_document_last():
    assert curve_ordering(5, PositionCurve.from_accuracies([8.0, 8.0, 12.0])) == [2, 3, 4, 1, 0]
    assert curve_ordering(["a", "b", "c"], PositionCurve.from_accuracies([1.0, 2.0, 3.0])) == ["c", "b", "a"]


def test_curve_placement_in_the_engine_needs_its_curve():
    with pytest.raises(InvalidInputError, match="placement 'curve' needs position_curve") as err:
        ContextManager(placement="curve")
    assert err.value.field == "position_curve"
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    docs = [
        Document(" ".join(words[i:] + words[:i]) + f" unique{i}", score=1 - i / 10, source=f"d{i}") for i in range(5)
    ]
    result = ContextManager(placement="curve", position_curve=[8.0, 8.0, 12.0]).build(PromptRequest("q", docs))
    assert [d.source for d in result.included_docs] == ["d2", "d3", "d4", "d1", "d0"]


def test_curve_placement_from_lab_config_and_grid_defaults_to_the_published_curve():
    assert LabConfig(placement="curve").make_manager().position_curve == position_curve("GPT-3.5-Turbo")
    result = run_evaluation(None, ["placement=curve,relevance"], RunOptions(limit=2))
    assert [r.config for r in result.rows] == ["placement=curve", "placement=relevance"] * 2


def test_curve_position_curve_rejects_bad_points():
    with pytest.raises(InvalidInputError, match="depth in \\[0, 1\\]"):
        PositionCurve(((1.5, 60.0),))
