"""The lab agrees with itself in a real browser: one count, exact tokens, a presenter who reaches the controls.

Each test is one point of issue 21, checked the way a tuner, a presenter or a teacher meets it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .lab_server import lab_page, wait_for_app

pytestmark = pytest.mark.browser

MAIN = '[data-testid="stMain"]'


@pytest.fixture(scope="module")
def page():
    with lab_page(1280, 720) as page:
        yield page


def _open(page, query: str = ""):
    page.goto(f"{page.base_url}/{query}")
    wait_for_app(page)
    return page


def _metric(page, label: str) -> int:
    box = page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text(label, exact=True)).first
    return int(box.locator('[data-testid="stMetricValue"]').inner_text().replace(",", ""))


def _sankey_nodes(page) -> dict[str, int]:
    labels = page.locator('[data-testid="stPlotlyChart"] .sankey text').all_text_contents()
    return {name: int(n) for name, n in (re.match(r"(.+): (\d+)$", t).groups() for t in labels)}


def test_lab_browser_counts_add_up_to_the_input_the_same_way_in_every_view(page):
    # budget 700 on the default sample: one document is cut to fit, which once counted twice
    _open(page, "?max_context_tokens=700")
    total, in_block, left_out = (
        _metric(page, "Documents in"),
        _metric(page, "In the block"),
        _metric(page, "Left out for budget"),
    )
    duplicates, too_short = _metric(page, "Duplicates removed"), _metric(page, "Too short")
    sentence = page.get_by_text(re.compile(r"^\d+ documents in: ")).inner_text()
    assert int(re.search(r"(\d+) too short", sentence).group(1)) == too_short
    # the headline row itself adds up: no bucket is only in the caption below it
    assert in_block + left_out + duplicates + too_short == total == 29
    nodes = _sankey_nodes(page)
    assert nodes["In the block"] == in_block and nodes["Left out for budget"] == left_out
    assert nodes["Input"] == total and nodes["Duplicate"] == duplicates
    page.get_by_role("radio", name="Budget").click()
    expect(page.get_by_text("Filling the token budget")).to_be_visible(timeout=60_000)
    wait_for_app(page)
    assert _metric(page, "In the block") == in_block and _metric(page, "Left out for budget") == left_out
    assert page.get_by_text(re.compile(r"^\d+ documents in: ")).inner_text() == sentence


def test_lab_browser_presenter_changes_budget_and_scenario_without_the_sidebar(page):
    _open(page, "?present=1")
    assert page.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true"
    bar = page.locator(".st-key-presenter_bar")
    box = bar.bounding_box()
    assert box and box["y"] + box["height"] <= 720  # above the fold at 1280x720
    exact = bar.get_by_label("Exact budget")
    exact.fill("700")
    exact.press("Enter")
    page.wait_for_url("**max_context_tokens=700**", timeout=60_000)
    wait_for_app(page)
    assert page.get_by_text("of 1,024").count() == 0 and page.get_by_text("700 tokens (cl100k_base)").count() >= 0
    bar.get_by_role("combobox", name="Scenario").click()
    page.get_by_role("option", name="The middle is where answers get lost").click()
    page.wait_for_url("**scenario=lost_in_the_middle**", timeout=60_000)
    story = page.locator(".st-key-scenario_story")
    expect(story).to_contain_text("The middle is where answers get lost", timeout=60_000)
    wait_for_app(page)
    said = story.inner_text()
    assert re.search(r"The answer, rank 13: pos \d+ of \d+ in relevance order, pos \d+ after the", said)
    story.get_by_role("button", name="The story").click()  # the whole story, where the answer is: on request
    expect(page.get_by_text(re.compile(r"^★ The answer, D27 · "))).to_be_visible(timeout=30_000)
    top = story.bounding_box()
    assert top and top["y"] < 720, "the story is above the fold"
    assert "present=1" in page.url and "view=placement" in page.url
    page.screenshot(path="artifacts/e2e_presenter_scenario.png")


def test_lab_browser_compare_counts_both_sides_exactly_and_flags_b_over_its_budget(page):
    _open(page, "?scenario=second_best_cut")
    expect(page.get_by_text("What changes from A to B")).to_be_visible(timeout=60_000)
    body = page.locator(MAIN).inner_text()
    assert "B is over its budget: " in body and "A is over its budget" not in body
    assert "B's engine counts with its heuristic estimate (words × 1.3)" in body
    assert "A's engine counts exactly (cl100k_base)" in body
    assert _metric(page, "Tokens, B (exact)") > 1000 >= _metric(page, "Tokens, A (exact)")


def test_lab_browser_a_reloaded_scenario_link_reproduces_the_view(page):
    _open(page, "?scenario=faq_copies")
    story = page.locator(".st-key-scenario_story").inner_text()
    shared = page.url
    assert "scenario=faq_copies" in shared and "view=duplicates" in shared
    page.reload()
    wait_for_app(page)
    assert page.url == shared
    assert page.locator(".st-key-scenario_story").inner_text() == story
    assert page.locator('[data-testid="stAlertContainer"]').filter(has_text="cannot").count() == 0


def test_lab_browser_a_link_on_pasted_documents_says_it_cannot_reproduce_them(page):
    _open(page, "?source=paste&query=seats&max_context_tokens=512")
    body = page.locator(MAIN).inner_text()
    assert "This link was made on pasted documents, which a link cannot carry, so it cannot reproduce" in body


def test_lab_browser_a_download_right_after_a_change_gives_the_new_build(page):
    _open(page, "?view=final")
    box = page.get_by_label("Exact budget")
    box.fill("400")
    box.press("Enter")
    time.sleep(0.15)  # a reader clicking right away, while the rerun is under way
    with page.expect_download(timeout=60_000) as info:
        page.get_by_role("button", name="Download the block (text)").click()
    downloaded = Path(info.value.path()).read_text(encoding="utf-8")
    page.wait_for_url("**max_context_tokens=400**", timeout=60_000)
    wait_for_app(page)
    shown = page.locator(f'{MAIN} [data-testid="stCode"]').first.inner_text()
    assert downloaded.count("--- Source [") == shown.count("--- Source [")
    assert downloaded.splitlines()[0] == shown.splitlines()[0]
    assert "--- Source [5]" not in downloaded  # the 1,024 block holds 7; 400 tokens hold fewer


def test_lab_browser_presentation_tables_show_user_text_as_typed(page):
    # presentation mode draws tables as static tables, whose cells are Markdown: they must be escaped
    import json

    docs = json.dumps(
        [
            {
                "content": "refund policy for annual plans is pro rata " * 3,
                "score": 0.9,
                "source": "<b id='pwn'>x</b> **bold** [l](https://e.x)",
            },
            {"content": "cancel the monthly plan in settings " * 3, "score": 0.5, "source": "b.md"},
        ]
    )
    _open(page, "?present=1")
    page.locator('[data-testid="stExpandSidebarButton"]').click()  # the sidebar stays reachable
    page.get_by_text("Paste text", exact=True).click()
    wait_for_app(page)
    area = page.get_by_label("Documents as text")
    area.fill(docs)
    area.press("Control+Enter")
    expect(page.locator("body")).to_contain_text(" · 2 documents", timeout=60_000)
    wait_for_app(page)
    cells = page.locator('[data-testid="stTable"] td').all_inner_texts()
    assert "<b id='pwn'>x</b> **bold** [l](https://e.x)" in [c.replace("\u2060", "") for c in cells]
    assert page.locator("#pwn").count() == 0 and page.locator('[data-testid="stTable"] a').count() == 0


def test_lab_browser_a_reloaded_open_in_the_lab_link_reproduces_the_question(page):
    from .lab_server import run_evaluate

    run_evaluate(page, limit=10)
    page.get_by_role("button", name="Open in the lab").click()
    page.wait_for_url("**question=**", timeout=60_000)
    expect(page.get_by_text("The document that holds the answer").first).to_be_visible(timeout=60_000)
    wait_for_app(page)
    shared, said = page.url, page.get_by_text("The document that holds the answer").first.inner_text()
    caption = page.get_by_text(re.compile(r"^Edited table · \d+ documents")).inner_text()
    page.goto(shared)  # a new session, as whoever the link was sent to
    wait_for_app(page)
    assert page.get_by_text(re.compile(r"^Edited table · \d+ documents")).inner_text() == caption
    assert page.get_by_text("The document that holds the answer").first.inner_text() == said
    assert "cannot" not in page.locator(MAIN).inner_text()
