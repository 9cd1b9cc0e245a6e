"""The Evaluate view in Chromium: run a grid on the bundled set, see the charts, open a question.

Saves evaluate.png to artifacts/ (untracked). The README's picture is the same run saved
elsewhere: ``CONTEXTLAB_SCREENSHOTS=docs/screenshots pytest tests/e2e/test_evaluate_browser.py``
or ``python -m tests.e2e.lab_server --screenshots docs/screenshots --views evaluate``.
"""

from __future__ import annotations

import re

import pytest

from .lab_server import (
    CLIPPED_TEXT_JS,
    EVALUATE_LIMIT,
    full_screenshot,
    lab_page,
    run_evaluate,
    screenshot_dir,
    wait_for_app,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page():
    with lab_page() as page:
        yield page


def test_evaluate_browser_runs_the_bundled_set_and_opens_a_question(page):
    run_evaluate(page)
    main = page.locator('[data-testid="stMain"]')
    assert main.locator('[data-testid="stPlotlyChart"]').count() == 3  # Pareto, heatmap, gold zones
    body = main.inner_text()
    assert f"{EVALUATE_LIMIT} questions × 8 configurations" in body
    assert "Tokens vs expected accuracy" in body and "Liu et al." in body
    # every chart text in full at 1440 px: the heatmap's title (its scale on a second line) included
    assert page.evaluate(CLIPPED_TEXT_JS) == []
    full_screenshot(page, screenshot_dir() / "evaluate.png", tall=3300)

    page.get_by_role("button", name="Open in the lab").click()
    # The question's 20 retrieved passages become the lab's documents, in the Placement view,
    # with its gold passage marked as the answer document when it was retrieved.
    page.get_by_text(re.compile(r"Edited table · 20 documents")).first.wait_for(timeout=60_000)
    wait_for_app(page)
    assert page.get_by_role("textbox", name="Query").input_value().strip() != ""
    assert "Answer document" in main.inner_text()
