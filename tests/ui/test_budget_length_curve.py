"""Budget view's length curve (AppTest): a curve file uploaded, drawn with the budget marked, a bad one refused."""

from __future__ import annotations

import pytest

from tests.test_length_curve import FALLING
from tests.ui.conftest import chart, open_view, run, texts, unescape

pytestmark = pytest.mark.integration

_MAKE = (
    "No length curve comes with the lab yet. Make one with contextlab curve --vary length "
    "--lengths 500,1500,3000 --endpoint URL --out length.csv, then load it here."
)


def _upload(name: str, data: bytes):
    at = run(open_view("budget", budget=1500))
    assert _MAKE in texts(at)
    return run(at.file_uploader(key="budget_length_curve").set_value((name, data, "text/csv")))


def test_budget_length_curve_drawn_from_an_upload_with_the_budget_line_and_what_it_shows():
    at = _upload("length.csv", FALLING.encode())
    assert not at.exception and not at.error
    spec = chart(at, "budget_length_chart")
    assert list(spec["data"][0]["x"]) == [500, 3000]
    assert spec["layout"]["shapes"][0]["x0"] == 1500
    assert (
        "Accuracy falls as the context grows: 90% at 500 tokens, 40% at 3,000 tokens, "
        "and the 95% intervals do not overlap."
    ) in texts(at)
    assert _MAKE not in texts(at)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"model,accuracy\n<b>x</b>,50\n", "<b>bad</b>.csv: no column kind, questions, context_tokens"),
        (b"\xff\xfe\x00bad", "<b>bad</b>.csv: not UTF-8 text"),
    ],
)
def test_budget_length_curve_bad_file_is_one_error_naming_it(data, said):
    at = _upload("<b>bad</b>.csv", data)
    assert not at.exception
    errors = [unescape(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith(said), errors
