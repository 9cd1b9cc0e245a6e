"""A length curve file read at the door, the sentence about it, and its figure (no browser)."""

from __future__ import annotations

import pytest

from contextlab.charts.length import length_curve_figure
from contextlab.curves.length_curve import LengthPoint, length_verdict, parse_length_curve
from contextlab.errors import InvalidInputError

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
        (f"{_HEADER}\nm,,1,50,length,10,,,lots\n", "length.csv, row 2: context_tokens is 'lots', not a whole number"),
        (f"{_HEADER}\nm,,1,50,length,0,,,500\n", "length.csv, row 2: questions is 0"),
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
