"""The Evaluate view in Chromium: run a grid on the bundled set, see the charts, open a question.

Saves artifacts/evaluate.png. The README's picture is the same run saved elsewhere:
``CONTEXTLAB_SCREENSHOTS=docs/screenshots pytest tests/e2e/test_evaluate_browser.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .lab_server import CHROMIUM, ROOT, lab_server, launch_browser, wait_for_app

SCREENSHOT = ROOT / os.environ.get("CONTEXTLAB_SCREENSHOTS", "artifacts") / "evaluate.png"


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: run `bash scripts/install_browser.sh`"
    with lab_server() as url, sync_playwright() as p:
        browser = launch_browser(p)
        page = browser.new_page(viewport={"width": 1440, "height": 1100})
        page.base_url = url  # type: ignore[attr-defined]
        yield page
        browser.close()


def test_evaluate_browser_runs_the_bundled_set_and_opens_a_question(page):
    page.goto(f"{page.base_url}/?view=evaluate")
    wait_for_app(page)
    limit = page.get_by_label("Questions (the first N)")
    limit.fill("150")
    limit.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name=re.compile(r"^Run: 150 questions × 8 configurations")).click()
    page.get_by_text("Where two configurations disagree").wait_for(timeout=120_000)
    wait_for_app(page, timeout_ms=120_000)

    main = page.locator('[data-testid="stMain"]')
    assert main.locator('[data-testid="stPlotlyChart"]').count() == 3  # Pareto, heatmap, gold zones
    body = main.inner_text()
    assert "150 questions × 8 configurations" in body
    assert "Tokens vs expected accuracy" in body and "Liu et al." in body
    # Streamlit scrolls inside its main block, so a tall window is what shows the whole view.
    page.set_viewport_size({"width": 1440, "height": 3300})
    wait_for_app(page)
    page.wait_for_function("() => !document.getAnimations().some(a => a.playState === 'running')")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1100})

    page.get_by_role("button", name="Open in the lab").click()
    # The question's 20 retrieved passages become the lab's documents, in the Placement view.
    page.get_by_text(re.compile(r"Edited table · 20 documents")).first.wait_for(timeout=60_000)
    wait_for_app(page)
    assert page.get_by_role("textbox", name="Query").input_value().strip() != ""
