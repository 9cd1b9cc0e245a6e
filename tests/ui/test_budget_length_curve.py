"""Budget view's length curve (AppTest): the bundled one by default, the user's own loaded, a bad file named.

The bundled curve is the one ``contextlab curve --vary length`` measured on the bundled model; the
uploads are small hand-written curves whose numbers the test states.
"""

from __future__ import annotations

import pytest

from tests.test_length_curve import _ANSWERS, _TEN, FALLING
from tests.ui.conftest import chart, open_view, run, texts, unescape

pytestmark = pytest.mark.integration

_BUNDLED = "The bundled model (Gemma 3 270M) answered the same NaturalQuestions-Open questions at each length"


def _upload(*files: tuple[str, bytes]):
    at = run(open_view("budget", budget=1500))
    uploads = [(name, data, "text/csv") for name, data in files]
    return run(at.file_uploader(key="budget_length_curve").set_value(uploads))


def test_budget_view_draws_the_bundled_length_curve_with_the_budget_and_its_paired_tests():
    at = run(open_view("budget", budget=1500))
    spec = chart(at, "budget_length_chart")
    assert list(spec["data"][0]["x"]) == [500, 1500, 3000]
    assert spec["layout"]["shapes"][0]["x0"] == 1500
    said = texts(at)
    assert _BUNDLED in said
    assert "500 tokens -> 3,000 tokens: accuracy" in said  # the paired test, from the answers shipped beside it


def test_budget_view_draws_your_curve_and_tests_it_question_by_question_with_its_answers():
    at = _upload(("length.csv", _TEN.encode()), ("length.questions.csv", _ANSWERS.encode()))
    assert not at.error
    assert list(chart(at, "budget_length_chart")["data"][0]["x"]) == [500, 3000]
    said = texts(at)
    assert "Your curve: length.csv." in said and _BUNDLED not in said
    assert "No change in accuracy shown: cannot tell on 10 questions." in said
    assert "about 14 would tell a difference this size apart." in said


def test_budget_view_curve_without_its_answers_says_what_the_intervals_show_and_asks_for_them():
    at = _upload(("length.csv", FALLING.encode()))
    said = texts(at)
    assert (
        "Accuracy falls as the context grows: 90% at 500 tokens, 40% at 3,000 tokens, "
        "and the 95% intervals do not overlap."
    ) in said
    assert "Load its .questions.csv file too to test the lengths question by question." in said


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ([("<b>bad</b>.csv", b"model,accuracy\n<b>x</b>,50\n")], "<b>bad</b>.csv: no column kind, questions"),
        ([("<b>bad</b>.csv", b"\xff\xfe\x00bad")], "<b>bad</b>.csv: not UTF-8 text"),
        ([("a.questions.csv", b"query_id\n")], "Load one length curve"),
    ],
)
def test_budget_view_bad_length_curve_is_one_error_and_the_bundled_curve_stays(files, said):
    at = _upload(*files)
    errors = [unescape(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith(said), errors
    assert list(chart(at, "budget_length_chart")["data"][0]["x"]) == [500, 1500, 3000]
    assert _BUNDLED in texts(at)
