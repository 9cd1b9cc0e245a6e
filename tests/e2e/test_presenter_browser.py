"""The presenter's first screen in Chromium at 1280×720: the evidence, not the scroll bar.

For each scenario, opened as a presenter opens it (``?present=1&scenario=…``), the controls and the
view switch take at most the top 30% of the screen, the story is one or two lines with its number,
at least 200 px of the view's first figure are on screen without scrolling, and no label, option
or number is cut off. The pictures go to
artifacts/ (untracked); ``CONTEXTLAB_SCREENSHOTS=docs/screenshots pytest tests/e2e/test_presenter_browser.py``
writes the README's.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from contextlab.charts.orderings import STRATEGY_LABELS
from contextlab.lab.samples import load_sample_set, sample_set_names
from contextlab.lab.scenarios import all_scenarios, scenario_keys

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


#: Where the controls and the view switch must end: 30% of the screen's height.
CONTROLS_END = 216
#: How much of the view's first figure (chart, block, or the duplicate pair) must be on the first screen.
FIGURE_SHOWN = 200
#: The first figure of each view a scenario opens.
FIRST_FIGURE = {
    "placement": ".st-key-placement_chart",
    "compare": ".st-key-cmp_positions_chart",
    "duplicates": '[data-testid="stHtml"]:has-text("Kept:")',
    "final": '[data-testid="stCode"]',
}

#: Every text on the first screen that is cut off: wider than the box that clips it, past its column or
#: the window's edge, or an input whose value does not fit (plotly's own text and the grid are left out).
CUT_JS = """() => {
  const cut = [];
  const onScreen = b => b.width > 0 && b.bottom > 0 && b.top < innerHeight;
  const skip = el => el.closest('.js-plotly-plot') || el.closest('[data-testid="stDataFrame"]');
  for (const el of document.querySelectorAll('[data-testid="stMain"] *')) {
    if (skip(el) || !onScreen(el.getBoundingClientRect())) continue;
    if (el.tagName === 'INPUT') {
      if (el.scrollWidth > el.clientWidth + 1) cut.push(el.value);
      continue;
    }
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    const text = range.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) cut.push(el.innerText);
    if (text.right > innerWidth + 1) cut.push(el.innerText);
    const column = el.closest('[data-testid="stColumn"]');
    if (column && text.right > column.getBoundingClientRect().right + 1) cut.push(el.innerText);
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (!['hidden', 'clip'].includes(getComputedStyle(a).overflowX)) continue;
      const box = a.getBoundingClientRect();
      if (text.right > box.right + 1 || text.left < box.left - 1) cut.push(el.innerText);
      break;
    }
  }
  return [...new Set(cut)];
}"""

#: Whether every option of the bar's pickers fits its box whole: the room left by the longest (px).
OPTIONS_JS = """(options) => {
  const out = {};
  const ctx = document.createElement('canvas').getContext('2d');
  for (const [key, texts] of Object.entries(options)) {
    const input = document.querySelector('.st-key-' + key + ' input');
    const s = getComputedStyle(input);
    ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    const room = input.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    out[key] = room - Math.max(...texts.map(t => ctx.measureText(t).width));
  }
  return out;
}"""


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
    bar.get_by_role("button", name="Orders").click()
    page.wait_for_url("**view=final**", timeout=60_000)
    wait_for_app(page)
    section = page.get_by_text("Ask the model in several orders: the answer moved from first to last")
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


@pytest.mark.parametrize("scenario", scenario_keys())
def test_presenter_first_screen_fits_controls_figure_and_whole_labels(page, scenario):
    _open(page, f"present=1&scenario={scenario}")
    controls = [page.locator(".st-key-presenter_bar"), page.locator(".st-key-view")]
    ends = [c.bounding_box()["y"] + c.bounding_box()["height"] for c in controls]
    assert max(ends) <= CONTROLS_END, f"{scenario}: the controls and view switch end at {max(ends):.0f} px"
    view = next(s.view for s in all_scenarios() if s.key == scenario)
    assert view in FIRST_FIGURE, f"name the first figure of the {view} view in FIRST_FIGURE"
    figure = page.locator(FIRST_FIGURE[view]).first
    expect(figure).to_be_visible(timeout=30_000)
    box = figure.bounding_box()
    shown = min(box["y"] + box["height"], HEIGHT) - max(box["y"], 0)
    assert shown >= FIGURE_SHOWN, f"{scenario}: {shown:.0f} px of the {view} view's first figure on screen"
    assert page.evaluate(CUT_JS) == []
    page.screenshot(path=str(screenshot_dir() / f"presenter_first_screen_{scenario}.png"))


def test_presenter_bar_shows_every_option_whole(page):
    _open(page, "present=1&scenario=lost_in_the_middle")
    options = {
        "scenario": [s.title for s in all_scenarios()] + ["Free play (no scenario)"],
        "sample_name": [load_sample_set(n).title.split(":")[0] for n in sample_set_names()],
        "cfg_placement": list(STRATEGY_LABELS.values()),
    }
    room = page.evaluate(OPTIONS_JS, options)
    assert all(left >= 0 for left in room.values()), room
