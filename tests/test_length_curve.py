"""A length curve file read at the door, the sentence about it, and its figure (no browser)."""

from __future__ import annotations

import pytest

from contextlab.charts.length import length_curve_figure
from contextlab.errors import InvalidInputError
from contextlab.evaluation.experiments.length_file import (
    LengthPoint,
    bundled_length_curve,
    length_claims,
    length_verdict,
    parse_length_curve,
    parse_length_outcomes,
    read_length_curve,
)

_HEADER = "model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high,context_tokens"
# As contextlab curve --vary length writes it: # lines first, then one row per length.
FALLING = f"""# contextlab curve --vary length
# paired tests: see the questions file
{_HEADER}
m,,1,90.0,length,100,82.6,94.5,500
m,,1,40.0,length,100,30.9,49.8,3000
"""
UNCLEAR = f"""{_HEADER}
m,,1,80.0,length,10,49.0,94.3,500
m,,1,60.0,length,10,31.3,83.2,1500
"""


def test_parse_length_curve_keeps_each_length_with_its_wilson_interval():
    points = parse_length_curve(FALLING, name="length.csv")
    assert [(p.context_tokens, p.accuracy, p.questions) for p in points] == [(500, 90.0, 100), (3000, 40.0, 100)]
    assert points[0].low == pytest.approx(82.56, abs=0.01) and points[0].high == pytest.approx(94.48, abs=0.01)
    assert points[1].low == pytest.approx(30.94, abs=0.01) and points[1].high == pytest.approx(49.80, abs=0.01)


def test_parse_length_curve_sorts_by_length_and_skips_other_kinds():
    text = f"{_HEADER}\nm,,1,60.0,length,10,,,1500\nm,10,1,50.0,position,10,,,\nm,,1,80.0,length,10,,,500\n"
    assert [p.context_tokens for p in parse_length_curve(text)] == [500, 1500]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "model,total_docs,position,accuracy,kind\nm,10,1,50,position\n",
            "length.csv: no column questions, context_tokens",
        ),
        (f"{_HEADER}\nm,10,1,50.0,position,10,,,\n", "length.csv: no rows of kind length"),
        (
            f"{_HEADER}\nm,,1,150,length,10,,,500\n",
            "length.csv, row 2: accuracy is '150'; give a percent from 0 to 100",
        ),
        (f"{_HEADER}\nm,,1,nan,length,10,,,500\n", "length.csv, row 2: accuracy is 'nan'"),
        (
            f"{_HEADER}\nm,,1,50,length,10,,,lots\n",
            "length.csv, row 2: context_tokens must be a whole number >= 1, got 'lots'",
        ),
        (f"{_HEADER}\nm,,1,50,length,0,,,500\n", "length.csv, row 2: questions must be a whole number >= 1, got '0'"),
        (f"{_HEADER}\nm,,1,50,length,10,,,500\nm,,1,60,length,10,,,500\n", "row 3: context_tokens 500 is given twice"),
    ],
)
def test_parse_length_curve_refuses_a_bad_file_naming_it(text, said):
    with pytest.raises(InvalidInputError) as caught:
        parse_length_curve(text, name="length.csv")
    assert said in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_length_verdict_says_falls_only_when_the_intervals_are_apart():
    assert length_verdict(parse_length_curve(FALLING)) == (
        "Accuracy falls as the context grows: 90% at 500 tokens, 40% at 3,000 tokens, "
        "and the 95% intervals do not overlap."
    )
    assert length_verdict(parse_length_curve(UNCLEAR)) == (
        "Cannot tell on 10 questions whether the length changes accuracy: 80% at 500 tokens, "
        "60% at 1,500 tokens, and the 95% intervals overlap."
    )


def test_length_verdict_says_rises_and_one_length_is_not_a_curve():
    rising = [LengthPoint(500, 40.0, 100, 30.9, 49.8), LengthPoint(3000, 90.0, 100, 82.6, 94.5)]
    assert length_verdict(rising).startswith("Accuracy rises as the context grows: 40% at 500 tokens")
    assert length_verdict(rising[:1]) == "One length only: measure two or more to see what length does."


def test_length_curve_figure_draws_points_intervals_and_the_budget_line():
    points = [LengthPoint(500, 90.0, 100, 82.5, 94.5), LengthPoint(3000, 40.0, 100, 31.0, 50.0)]
    spec = length_curve_figure(points, 1200).to_plotly_json()
    (trace,) = spec["data"]
    assert list(trace["x"]) == [500, 3000] and list(trace["y"]) == [90.0, 40.0]
    assert list(trace["error_y"]["array"]) == pytest.approx([4.5, 10.0])
    assert list(trace["error_y"]["arrayminus"]) == pytest.approx([7.5, 9.0])
    (line,) = spec["layout"]["shapes"]
    assert line["x0"] == 1200 and line["x1"] == 1200
    assert spec["layout"]["annotations"][0]["text"] == "budget 1,200"


# Ten questions at 500 and 3,000 tokens: right 9 then 4 — five questions go from right to wrong, none back.
_ANSWERS = "query_id,kind,level,correct,abstained,context_tokens,prompt_tokens,answer\n" + "".join(
    f"q{i},length,{level},{int(right)},0,{level},{level + 100},x\n"
    for level, rights in ((500, 9), (3000, 4))
    for i, right in enumerate([True] * rights + [False] * (10 - rights))
)
_TEN = f"""{_HEADER}
m,,1,90.0,length,10,59.6,98.2,500
m,,1,40.0,length,10,16.8,68.7,3000
"""


def test_read_length_curve_pairs_the_answers_and_tests_them_question_by_question():
    curve = read_length_curve(_TEN, _ANSWERS, name="length.csv")
    assert curve.outcomes is not None and sum(curve.outcomes[500]) == 9 and sum(curve.outcomes[3000]) == 4
    claims = length_claims(curve)
    assert claims[0] == "No change in accuracy shown: cannot tell on 10 questions."
    assert claims[1].startswith("500 tokens -> 3,000 tokens: accuracy -50.0 [")
    assert claims[1].endswith(
        "p = 0.062: cannot tell on 10 questions; about 14 would tell a difference this size apart."
    )


def test_length_claims_without_answers_fall_back_to_the_intervals():
    assert length_claims(read_length_curve(FALLING)) == [length_verdict(parse_length_curve(FALLING))]


@pytest.mark.parametrize(
    ("answers", "said"),
    [
        ("query_id,level\nq1,500\n", "no column kind, correct"),
        ("query_id,kind,level,correct\nq1,length,500,yes\n", "row 2: correct is 'yes'; give 1 (right) or 0"),
        ("query_id,kind,level,correct\nq1,length,²,1\n", "row 2: level must be a whole number >= 1, got '²'"),
        ("query_id,kind,level,correct\nq1,length,500,1\nq1,length,500,0\n", "question 'q1' is answered twice"),
        ("query_id,kind,level,correct\nq1,length,500,1\nq2,length,3000,0\n", "not answered on the same questions"),
    ],
)
def test_parse_length_outcomes_refuses_a_bad_file_naming_it(answers, said):
    with pytest.raises(InvalidInputError) as caught:
        parse_length_outcomes(answers, name="length.questions.csv")
    assert "length.questions.csv" in str(caught.value) and said in str(caught.value)


def test_read_length_curve_refuses_answers_of_another_run():
    other = _ANSWERS.replace("q0,length,3000,1", "q0,length,3000,0")
    with pytest.raises(InvalidInputError, match="does not match the curve at 3,000 tokens"):
        read_length_curve(_TEN, other, name="length.csv")


def test_the_bundled_length_curve_has_200_questions_or_more_at_every_length_with_its_answers():
    curve = bundled_length_curve()
    assert len(curve.points) >= 3 and all(p.questions >= 200 for p in curve.points)
    assert curve.outcomes is not None and set(curve.outcomes) == {p.context_tokens for p in curve.points}
