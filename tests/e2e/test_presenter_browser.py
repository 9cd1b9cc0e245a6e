"""The presenter's first screen in Chromium at 1280×720 (issue 29): the evidence, not the scroll bar.

For each scenario, opened as a presenter opens it (``?present=1&scenario=…``), the story is one or two
lines with its number and the view's evidence is on screen without scrolling. The pictures go to
artifacts/ (untracked); ``CONTEXTLAB_SCREENSHOTS=docs/screenshots pytest tests/e2e/test_presenter_browser.py``
writes the README's.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .lab_server import lab_page, screenshot_dir, wait_for_app

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1280, 720
#: What each scenario's view must show above the fold: a locator (CSS or text), what it must hold, and
#: how much of it must be on screen (pixels from its top; None: all of it).
EVIDENCE = {
    # the change list's first line: B leaves the answer out (the Compare numbers are above it)
    "second_best_cut": ("text=/B leaves out wiki\\/postmortems\\/2025-11-12-checkout-latency\\.md/", "D23", 34),
    "faq_copies": ("text=D10 · support/kb/refund-policy-internal.md", "D10", None),
    "lost_in_the_middle": (".st-key-placement_chart", "", None),
}


@pytest.fixture(scope="module")
def page():
    with lab_page(WIDTH, HEIGHT) as page:
        yield page


def _open(page, query: str):
    page.goto(f"{page.base_url}/?{query}")
    wait_for_app(page)
    page.wait_for_function("() => !document.getAnimations().some(a => a.playState === 'running')")
    return page


def _on_first_screen(box: dict | None, top: float | None = None) -> bool:
    """True when ``box`` (or its first ``top`` pixels) lies inside the 1280×720 window, unscrolled."""
    if box is None:
        return False
    shown = box["height"] if top is None else top
    return box["y"] >= 0 and box["y"] + shown <= HEIGHT and box["x"] + box["width"] <= WIDTH


@pytest.mark.parametrize("scenario", list(EVIDENCE))
def test_presenter_first_screen_shows_each_scenarios_evidence(page, scenario):
    _open(page, f"present=1&scenario={scenario}")
    story = page.locator(".st-key-scenario_story")
    box = story.bounding_box()
    # one or two lines of 20 px type, with the punchline's number, in its bordered box
    assert box and box["height"] <= 110, f"the story takes {box and box['height']} px"
    assert re.search(r"\d", story.inner_text())
    where, holds, top = EVIDENCE[scenario]
    evidence = page.locator(where).first
    expect(evidence).to_be_visible(timeout=30_000)
    assert _on_first_screen(evidence.bounding_box(), top), f"{scenario}: the evidence is below the fold"
    assert holds in evidence.inner_text()
    page.screenshot(path=str(screenshot_dir() / f"presenter_{scenario}.png"))


def test_presenter_duplicates_pair_is_in_projector_type_and_on_the_first_screen(page):
    _open(page, "present=1&scenario=faq_copies")
    kept = page.get_by_text(re.compile(r"^Kept: D6 · ")).first
    expect(kept).to_be_visible(timeout=30_000)
    assert kept.bounding_box()["y"] < HEIGHT - 60  # the pair's first lines read without scrolling
    size = page.evaluate("""() => {
        const box = [...document.querySelectorAll('[data-testid="stHtml"] div')]
            .find(d => d.innerText.startsWith('Kept:'));
        return parseFloat(getComputedStyle(box).fontSize);
    }""")
    assert size >= 19.5  # 1.25rem, as every other text a room reads (it was 15 px)


def test_presenter_bar_holds_the_placement_and_the_three_orders(page):
    _open(page, "present=1&scenario=lost_in_the_middle")
    bar = page.locator(".st-key-presenter_bar")
    assert _on_first_screen(bar.bounding_box())
    bar.get_by_role("combobox", name="Placement").click()
    page.get_by_role("option", name="contextlab (lost in the middle)").click()
    page.wait_for_url("**placement=lost_in_the_middle**", timeout=60_000)
    wait_for_app(page)
    said = page.locator('[data-testid="stMain"]').inner_text()
    assert "Here the reorder helps: it moves it from pos 9 in relevance order (54.8%) to pos 5 (58.1%)" in said
    bar.get_by_role("button", name="Three orders").click()
    page.wait_for_url("**view=final**", timeout=60_000)
    wait_for_app(page)
    section = page.get_by_text("Ask the model in three orders: the answer first, in the middle, last")
    expect(section).to_be_visible(timeout=30_000)
    expect(page.get_by_role("button", name="Count the calls")).to_be_visible()
    assert _on_first_screen(page.get_by_role("button", name="Count the calls").bounding_box())


def test_presenter_story_opens_the_whole_story_on_request(page):
    _open(page, "present=1&scenario=lost_in_the_middle")
    page.locator(".st-key-scenario_story").get_by_role("button", name="The story").click()
    told = page.get_by_text(re.compile(r"^★ The answer, D27 · "))
    expect(told).to_be_visible(timeout=30_000)
    expect(
        page.get_by_text(re.compile(r"the meta-analysis that answers the question lands in the middle"))
    ).to_be_visible()
