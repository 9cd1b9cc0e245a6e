"""Hostile input through every door of the lab, in a real browser: nothing may become markup.

User text comes in through paste, upload (file names and contents), the query, the URL and
the configuration import; the test visits every view, hovers every chart, and checks that no
user text is drawn as a link, bold or italic text, a heading, a list, a formula or an element,
that no dialog opens, and that bidi controls are shown instead of obeyed.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from .lab_server import lab_page, settle_ms, wait_for_app, watch_runs

pytestmark = pytest.mark.browser

EVIL = "https://evil.example/"
# Every hostile string carries "PWN" so its rendering can be found on the page.
MARKUP = (
    f"PWN<a href='{EVIL}a'>A</a><b id='pwned'>B</b><img src=x onerror=alert(1)> **PWNBOLD** "
    f"*PWNEM* [PWNLINK]({EVIL}l) $PWNMATH$ :red[PWNRED] \u202eRTL"
)
SOURCE = f"kb/{MARKUP}.md"
QUERY = f"annual plan refund\nPWNQ\n===\n[PWNQLINK]({EVIL}q) **PWNQBOLD** $PWNQMATH$"
BASE = (
    "Annual plans are refunded pro rata within six months of purchase and monthly plans are "
    "never refunded after the renewal date has passed for any reason at all"
)


def _documents() -> list[dict]:
    docs = [
        {"content": f"{BASE} {MARKUP}\n# PWNHEAD\n===\n- PWNLIST", "score": 0.9, "source": SOURCE},
        # the same words in another case: an exact duplicate, with its own hostile source
        {
            "content": f"{BASE.upper()} {MARKUP}\n# PWNHEAD\n===\n- PWNLIST",
            "score": 0.8,
            "source": f"<b>PWNDUP</b>{SOURCE}",
        },
    ]
    docs += [
        {
            "content": f"Document {i} about cancelling the monthly plan from the billing page, "
            f"step {i} of the guide. {MARKUP}",
            "score": 0.7 - i / 20,
            "source": f"[PWN{i}]({EVIL}{i})/notes.txt",
        }
        for i in range(6)
    ]
    return docs


# What must never be on the page: returns the offending nodes' descriptions.
OFFENCES_JS = """() => {
    const bad = [];
    const pwn = el => (el.textContent || '').includes('PWN');
    const outsideCode = el => !el.closest('pre, [data-testid="stCode"], textarea, input');
    for (const a of document.querySelectorAll('a')) {
        const href = a.getAttribute('href') || a.getAttribute('xlink:href') || '';
        if (href.includes('evil.example')) bad.push('link ' + href);
    }
    const shown = 'strong, b, em, i, h1, h2, h3, h4, h5, h6, li, blockquote, code, mark';
    for (const el of document.querySelectorAll(shown)) {
        if (pwn(el) && outsideCode(el) && el.tagName !== 'MARK') {
            bad.push(el.tagName + ' ' + el.textContent.slice(0, 60));
        }
    }
    for (const el of document.querySelectorAll('tspan[style*="bold"], tspan[style*="italic"]')) {
        if (pwn(el)) bad.push('plotly ' + el.textContent.slice(0, 60));
    }
    for (const el of document.querySelectorAll('.katex, #pwned, img[src="x"], iframe, script[src*="evil"]')) {
        bad.push('node ' + el.tagName + ' ' + (el.id || el.className));
    }
    if (document.body.innerText.includes('\\u202e')) bad.push('a right-to-left override is obeyed');
    return bad;
}"""


@pytest.fixture(scope="module")
def page():
    with lab_page(height=1400) as page:
        watch_runs(page)
        page.dialogs = []  # type: ignore[attr-defined]
        page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
        yield page


def _read(locator) -> list[str]:
    """Return the texts of ``locator`` as a reader sees them (the lab's invisible joiners removed)."""
    return [t.replace("\u2060", "") for t in locator.all_inner_texts()]


def _clean(page, where: str) -> None:
    offences = page.evaluate(OFFENCES_JS)
    assert offences == [], f"{where}: {offences}"
    assert page.dialogs == [], f"{where}: dialogs opened: {page.dialogs}"


def _hover_charts(page, where: str) -> int:
    """Move the mouse over every chart on a grid; return how many hover labels showed user text."""
    seen = 0
    charts = page.locator('[data-testid="stPlotlyChart"]')
    for i in range(charts.count()):
        chart = charts.nth(i)
        if not chart.is_visible():  # e.g. inside a closed expander or another tab
            continue
        chart.evaluate("el => el.scrollIntoView({block: 'center'})")
        box = chart.bounding_box()
        if not box:
            continue
        for fx in (0.15, 0.3, 0.45, 0.6, 0.75, 0.9):
            for fy in (0.25, 0.45, 0.65, 0.85):
                page.mouse.move(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
                # read every label at once: a label counted and then read could be gone by then
                labels = page.locator(".hoverlayer .hovertext").all_text_contents()
                if any("PWN" in label for label in labels):
                    seen += 1
                _clean(page, f"{where}, hovering a chart")
    return seen


def _view(page, view: str) -> None:
    from contextlab.ui.views import VIEWS as REGISTRY

    button = page.get_by_role("radio", name=REGISTRY[view][0], exact=True)
    if not button.is_checked():  # clicking the open view would not run the script
        settle_ms(page, button.click)


def _open_sections(page) -> int:
    """Open every section a view draws only on request (``parts.on_request``, keys ``*_open``)
    and every tab not yet shown; return how many were opened."""
    opened = 0
    closed = page.locator(
        '[data-testid="stMain"] [class*="st-key-"][class*="_open"] > [data-testid="stExpander"] '
        "details:not([open]) > summary"
    )
    while closed.count():
        settle_ms(page, closed.first.click)  # opening one reruns the script: it is drawn now
        opened += 1
    for tab in page.locator('[data-testid="stMain"] [role="tab"][aria-selected="false"]').all():
        settle_ms(page, tab.click)
        opened += 1
    return opened


def test_lab_browser_hostile_url_values_are_text(page):
    page.goto(
        f"{page.base_url}/?sample={quote('[PWNURL](' + EVIL + ')')}&view={quote('**PWNVIEW**')}"
        f"&max_context_tokens={quote('$PWNMATH$')}"
    )
    wait_for_app(page)
    warnings = _read(page.locator('[data-testid="stAlertContentWarning"]'))
    assert any(f"[PWNURL]({EVIL})" in w for w in warnings) and any("**PWNVIEW**" in w for w in warnings)
    _clean(page, "URL warnings")


def test_lab_browser_hostile_paste_and_query_in_every_view(page):
    page.goto(page.base_url)
    wait_for_app(page)
    settle_ms(page, page.get_by_text("Paste text", exact=True).click)
    area = page.get_by_label("Documents as text")
    area.fill(json.dumps(_documents()))
    settle_ms(page, lambda: area.press("Control+Enter"))
    query = page.get_by_role("textbox", name="Query")
    query.fill(QUERY)
    settle_ms(page, lambda: query.press("Control+Enter"))
    caption = _read(page.locator('[data-testid="stCaptionContainer"]').first)[0]
    assert "PWNQ ===" in caption and f"[PWNQLINK]({EVIL}q)" in caption
    from contextlab.ui.views import VIEWS as REGISTRY

    hovered = opened = 0
    for view in REGISTRY:  # every view the lab offers, including ones added after these tests
        _view(page, view)
        opened += _open_sections(page)  # what is drawn on request is checked too
        _clean(page, f"view {view}")
        hovered += _hover_charts(page, f"view {view}")
    assert hovered > 0, "some hover label showed a hostile source (as text)"
    assert opened >= 6, "the sections drawn on request were opened and checked"
    _view(page, "final")
    assert "⟨U+202E⟩" in page.locator('[data-testid="stMain"] [data-testid="stCode"]').first.inner_text()


def test_lab_browser_hostile_upload_names_and_contents_are_text(page):
    page.goto(page.base_url)
    wait_for_app(page)
    settle_ms(page, page.get_by_text("Upload files", exact=True).click)
    good = "\n".join(json.dumps(d) for d in _documents()).encode()
    uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text="Document files")
    settle_ms(
        page,
        lambda: uploader.locator('input[type="file"]').set_input_files(
            [
                {"name": f"PWN[up]({EVIL}u)**b**.jsonl", "mimeType": "application/json", "buffer": good},
                {
                    "name": f"PWN<b>bad</b>[x]({EVIL}x).json",
                    "mimeType": "application/json",
                    "buffer": b'[{"content": "x",}]',
                },
            ]
        ),
    )
    errors = _read(page.locator('[data-testid="stAlertContentError"]'))
    assert any(f"PWN<b>bad</b>[x]({EVIL}x).json" in e for e in errors), errors
    _clean(page, "upload")
    for view in ("overview", "duplicates", "budget"):
        _view(page, view)
        _clean(page, f"upload, view {view}")


def test_lab_browser_hostile_configuration_import_is_text(page):
    page.goto(page.base_url)
    wait_for_app(page)
    page.get_by_text("Share and export", exact=True).click()
    uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text="Import a configuration")
    settle_ms(
        page,
        lambda: uploader.locator('input[type="file"]').set_input_files(
            {
                "name": "PWN**imp**.json",
                "mimeType": "application/json",
                "buffer": json.dumps({f"[PWNKEY]({EVIL}k)": 1}).encode(),
            }
        ),
    )
    errors = _read(page.locator('[data-testid="stAlertContentError"]'))
    assert any(f"[PWNKEY]({EVIL}k)" in e for e in errors), errors
    _clean(page, "configuration import error")
    settle_ms(
        page,
        lambda: uploader.locator('input[type="file"]').set_input_files(
            {
                "name": f"PWN[ok]({EVIL}o).json",
                "mimeType": "application/json",
                "buffer": json.dumps({"max_context_tokens": 700}).encode(),
            }
        ),
    )
    # replacing the file may take two runs (the old file goes, the new one comes): wait for it
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="PWN").first.wait_for(timeout=30_000)
    wait_for_app(page)
    assert any(f"PWN[ok]({EVIL}o).json" in s for s in _read(page.locator('[data-testid="stAlertContentSuccess"]')))
    _clean(page, "configuration import success")
