"""The lab in a real browser: `streamlit run app.py` driven by Debian's Chromium via playwright.

Needs /usr/bin/chromium (`bash scripts/install_browser.sh`); it is not skipped when missing,
because a lab nobody has opened in a browser is not tested.
"""

from __future__ import annotations

from functools import partial

import pytest
from playwright.sync_api import expect

from .lab_server import CLIPPED_TEXT_JS, ROOT, lab_page, settle_ms, wait_for_app, watch_runs

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "artifacts"
MAIN_CODE = '[data-testid="stMain"] [data-testid="stCode"]'


@pytest.fixture(scope="module")
def page():
    ARTIFACTS.mkdir(exist_ok=True)
    with lab_page() as page:
        yield page


def _open(page, query: str = ""):
    page.goto(f"{page.base_url}/{query}")
    wait_for_app(page)
    return page


def test_lab_browser_opens_on_a_sample_and_shows_the_final_block(page):
    _open(page, "?view=final")
    code = page.locator(MAIN_CODE).first
    code.wait_for(timeout=30_000)
    text = code.inner_text()
    assert text.startswith("--- Source [1] ")
    assert "help-center/billing/refunds.md" in text
    page.screenshot(path=str(ARTIFACTS / "e2e_final.png"))
    body = page.locator("body").inner_text()
    assert "This is the exact text the model receives" in body
    assert "Download the block (text)" in body


def test_lab_browser_overview_draws_the_sankey_and_trace(page):
    _open(page)
    assert page.locator('[data-testid="stPlotlyChart"] .sankey').count() == 1
    body = page.locator("body").inner_text()
    for text in ("Documents in", "Duplicates removed", "Why each document ended where it did"):
        assert text in body
    assert page.locator('[data-testid="stAppDeployButton"]').count() == 0  # a lab, not a dev app
    page.screenshot(path=str(ARTIFACTS / "e2e_overview.png"))


def test_lab_browser_url_reproduces_parameters_and_the_budget_slider_steps_to_common_budgets(page):
    _open(page, "?view=budget&max_context_tokens=700")
    assert "budget 700" in page.locator('[data-testid="stPlotlyChart"]').first.inner_text()
    slider = page.get_by_role("slider", name="Token budget")
    slider.focus()
    slider.press("ArrowRight")  # one key step: the next common budget, not 701
    page.wait_for_url("**max_context_tokens=768**", timeout=30_000)
    # the URL changes during the rerun: wait for the chart it draws, not for a fixed time
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_contain_text("budget 768", timeout=60_000)
    wait_for_app(page)
    box = page.get_by_label("Exact budget")
    box.fill("1000")
    box.press("Enter")
    page.wait_for_url("**max_context_tokens=1000**", timeout=30_000)
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_contain_text("budget 1000", timeout=60_000)
    wait_for_app(page)
    page.screenshot(path=str(ARTIFACTS / "e2e_budget.png"))


def test_lab_browser_presentation_mode_collapses_the_sidebar(page):
    _open(page, "?present=1&view=placement")
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_attribute("data-collapsed") == "true"
    size = page.evaluate(
        "() => parseFloat(getComputedStyle("
        'document.querySelector(\'[data-testid="stMainBlockContainer"] [data-testid="stMarkdown"] p\')).fontSize)'
    )
    assert size >= 19  # 1.25rem: readable from the back of the room
    headline = page.evaluate(
        "() => Math.max(...Array.from(document.querySelectorAll('[data-testid=\"stMetricValue\"] *'))"
        ".map(e => parseFloat(getComputedStyle(e).fontSize)))"
    )
    assert headline >= 48  # headline numbers larger than the normal 36 px
    toggle = page.get_by_text("Presentation", exact=True).bounding_box()
    assert toggle and toggle["x"] + toggle["width"] <= 1440 and toggle["y"] >= 0  # fully on screen
    assert page.locator('[data-testid="stAppDeployButton"]').count() == 0
    axis_text = page.evaluate(
        "() => Math.max(...Array.from(document.querySelectorAll("
        "'.xtick text, .x2tick text, .ytick text, .y2tick text')).map(t => parseFloat(t.style.fontSize)))"
    )
    assert axis_text >= 16  # chart text enlarged too
    page.screenshot(path=str(ARTIFACTS / "e2e_presentation.png"))
    page.get_by_text("Presentation", exact=True).click()  # and back: the sidebar returns
    page.wait_for_function("() => !location.search.includes('present=1')", timeout=30_000)
    expect(sidebar).to_have_attribute("data-collapsed", "false", timeout=60_000)
    wait_for_app(page)


def test_lab_browser_pasted_html_is_shown_as_text(page):
    _open(page)
    page.get_by_text("Paste text", exact=True).click()
    wait_for_app(page)
    area = page.get_by_label("Documents as text")
    area.fill(
        "<b id='pwned'>bold?</b> refund policy for annual plans is pro rata\n\n---\n\n"
        "second document about cancelling the monthly plan in settings"
    )
    area.press("Control+Enter")
    # the rerun may not have started yet: wait for the pasted documents to be the input
    expect(page.locator("body")).to_contain_text(" · 2 documents", timeout=60_000)
    wait_for_app(page)
    page.get_by_role("radio", name="Final block").click()
    expect(page.locator(MAIN_CODE).first).to_contain_text("<b id='pwned'>bold?</b>", timeout=60_000)
    wait_for_app(page)
    assert page.locator("#pwned").count() == 0


VIEW_TEXT = {
    "overview": "Why each document ended where it did",
    "duplicates": "Just missed the threshold",
    "placement": "Where each document sits",
    "budget": "Estimated vs exact tokens",
    "final": "This is the exact text the model receives",
    "compare": "Placement strategies",
    "learn": "1 · What the research measured",
    "window": "The assembled prompt",
}


@pytest.mark.parametrize("view", list(VIEW_TEXT))
def test_lab_browser_every_view_draws_without_error(page, view):
    _open(page, f"?view={view}")
    body = page.locator("body").inner_text()
    assert VIEW_TEXT[view] in body
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    assert page.evaluate(CLIPPED_TEXT_JS) == []  # every chart label readable in full
    page.screenshot(path=str(ARTIFACTS / f"e2e_view_{view}.png"), full_page=True)


@pytest.mark.parametrize("view", list(VIEW_TEXT))
def test_lab_browser_presentation_mode_cuts_no_chart_label(page, view):
    # presentation mode enlarges every chart text: a label that fitted may no longer
    _open(page, f"?present=1&view={view}")
    assert VIEW_TEXT[view] in page.locator("body").inner_text()
    assert page.evaluate(CLIPPED_TEXT_JS) == []


def test_lab_browser_scenario_opens_its_story(page):
    _open(page)
    page.get_by_role("combobox", name="Scenario").click()
    page.get_by_role("option", name="The budget cuts your second-best document").click()
    page.wait_for_url("**view=compare**", timeout=30_000)
    expect(page.locator("body")).to_contain_text("What changes from A to B", timeout=60_000)
    wait_for_app(page)
    body = page.locator("body").inner_text()
    assert "What changes from A to B" in body
    assert "The postmortem that answers the question is rank 2" in body  # the punchline, its numbers
    page.screenshot(path=str(ARTIFACTS / "e2e_scenario.png"))


def _frames_during(page, action) -> int:
    """Return how many messages the server sends for the run ``action`` starts."""
    frames: list[object] = []

    def listener(payload: object) -> None:
        frames.append(payload)

    page.lab_socket.on("framereceived", listener)
    settle_ms(page, action)
    page.lab_socket.remove_listener("framereceived", listener)
    return len(frames)


def test_lab_browser_a_view_switch_reruns_only_the_view_and_the_url_follows(page):
    # The view is a fragment: picking one reruns it alone, and the address bar still names it.
    watch_runs(page)
    _open(page, "?max_context_tokens=700")
    sidebar_budget = page.get_by_role("slider", name="Token budget")
    sidebar_budget.focus()  # a sidebar setting reruns the whole page: there and back
    whole_page = [_frames_during(page, partial(sidebar_budget.press, key)) for key in ("ArrowRight", "ArrowLeft")]
    view_only = _frames_during(page, page.get_by_role("radio", name="Final block").click)
    assert view_only < min(whole_page) / 2, (view_only, whole_page)  # the sidebar is not sent again
    budget = sidebar_budget.get_attribute("aria-valuetext").replace(",", "")
    page.get_by_role("radio", name="Learn").click()
    page.get_by_role("tab", name="2 · What the reorder does with your documents").wait_for(timeout=30_000)
    wait_for_app(page)
    assert "view=learn" in page.url and f"max_context_tokens={budget}" in page.url
    page.get_by_role("tab", name="2 · What the reorder does with your documents").click()
    page.get_by_text("Documents placed").wait_for(timeout=30_000)
    wait_for_app(page)
    assert sidebar_budget.get_attribute("aria-valuetext").replace(",", "") == budget  # the sidebar kept it
    page.reload()
    wait_for_app(page)
    assert page.get_by_role("radio", name="Learn").get_attribute("aria-checked") == "true"
    assert "1 · What the research measured" in page.locator("body").inner_text()
