"""A measured curve uploaded in Chromium with its per-question outcomes reads paired (issue 27, point 4).

The same 40-question curve says "no position effect shown" on its points alone (the unpaired test
cannot tell 20 % from 40 %) and "reads the end best" once the outcomes file is uploaded beside it (8
questions answered at position 5 only, none the other way: McNemar's exact test resolves it).
Outcomes from another run are refused with a message under the upload, and the curve stays.
"""

from __future__ import annotations

import pytest

from contextlab.curves.outcomes import outcomes_csv
from contextlab.evaluation.curve import CurveAnswer
from contextlab.intervals import wilson_interval

from .lab_server import lab_page, screenshot_dir, wait_for_app

pytestmark = pytest.mark.browser

N = 40
CORRECT = {1: 8, 3: 8, 5: 16}  # the first k questions answered at each position (the same 8 at 1 and 3)


def _curve() -> bytes:
    lines = ["model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high"]
    for position, k in CORRECT.items():
        low, high = wilson_interval(k, N)
        lines.append(f"tiny,5,{position},{100 * k / N:.1f},position,{N},{100 * low:.1f},{100 * high:.1f}")
    return ("\n".join(lines) + "\n").encode()


def _outcomes(correct: dict[int, int]) -> bytes:
    return outcomes_csv(
        CurveAnswer(query_id=f"q{i}", kind="position", total_docs=5, position=p, answer="a", correct=i < k)
        for p, k in correct.items()
        for i in range(N)
    ).encode()


def _file(name: str, data: bytes) -> dict:
    return {"name": name, "mimeType": "text/csv", "buffer": data}


@pytest.fixture(scope="module")
def page():
    with lab_page(1440, 1100) as page:
        yield page


def _upload(page, *files: dict) -> None:
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="A curve file from")
    uploader.locator('input[type="file"]').set_input_files(list(files))
    wait_for_app(page)


def _shown(page) -> str:
    return page.get_by_text("What these questions show:").first.inner_text(timeout=30_000)


def test_curve_upload_browser_outcomes_beside_the_curve_make_its_tests_paired(page):
    page.goto(f"{page.base_url}/?view=learn")
    wait_for_app(page)
    page.get_by_text("Your model's curve, measured").first.click()
    wait_for_app(page)
    assert "Gemma-3-270M Q4_K_M (bundled) reads the end best" in _shown(page)

    _upload(page, _file("tiny.csv", _curve()))
    page.get_by_text("tiny: no position effect shown on 40 questions").first.wait_for(timeout=30_000)
    assert "(unpaired test)" in _shown(page)

    _upload(page, _file("tiny.questions.csv", _outcomes(CORRECT)))  # added beside the curve, as a user adds it
    page.get_by_text("tiny reads the end best").first.wait_for(timeout=30_000)
    assert _shown(page).startswith(
        "What these questions show: tiny reads the end best: position 5 (40.0%) above "
        "every other position measured, on 40 questions"
    )

    other = {1: 12, 3: 8, 5: 16}  # another run's answers: position 1 reads 30 %, the curve 20 %
    _upload(page, _file("tiny.questions.csv", _outcomes(other)))
    error = page.get_by_test_id("stAlertContentError").first.inner_text(timeout=30_000)
    assert error == (
        "tiny.csv: its outcomes give 30.0% at position 1 of 5, the curve 20.0%; they are from "
        "another run (one `contextlab curve` run writes both)"
    )
    assert "tiny reads the end best" in _shown(page)  # the curve loaded before stays
    page.get_by_test_id("stFileUploader").filter(has_text="A curve file from").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir() / "e2e_curve_upload.png"))
