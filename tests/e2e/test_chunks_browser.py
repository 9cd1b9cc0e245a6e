"""A PDF, a web page and a file of hostile text uploaded in a real Chromium: the Chunks view shows their cuts."""

from __future__ import annotations

import pytest

from tests.e2e.lab_server import full_screenshot, lab_page, screenshot_dir, wait_for_app
from tests.files_maker import make_pdf

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PDF_PAGES = [
    "Refunds take five working days. They go back to the card you paid with.\n"
    "A refund for an annual plan is pro rata, counted from the day you cancel.",
    "Shipping is free over fifty euros. Parcels leave the warehouse within a day.\n"
    "Returns are accepted for thirty days if the item is unused.",
]
PAGE = (
    "<html><body><nav>Home | Shop | Cart</nav><main><h1>Refund policy</h1>"
    "<p>Refunds reach your card in five working days after we receive the item.</p>"
    "<p>Gift cards cannot be refunded; they can be moved to another account once.</p></main>"
    "<footer>Copyright Example Ltd</footer></body></html>"
)
HOSTILE = "<b id='pwned'>bold?</b> refund notes with <script>alert(1)</script> inside, kept as text.\n"


def test_chunks_browser_uploaded_files_show_their_chunks_and_user_text_stays_text():
    with lab_page(1440, 1100) as page:
        page.goto(page.base_url)
        wait_for_app(page)
        page.get_by_text("Upload files", exact=True).click()
        wait_for_app(page)
        uploader = page.get_by_test_id("stFileUploader").filter(has_text="Document files")
        uploader.locator('input[type="file"]').set_input_files(
            [
                {"name": "policy.pdf", "mimeType": "application/pdf", "buffer": make_pdf(PDF_PAGES)},
                {"name": "refunds.html", "mimeType": "text/html", "buffer": PAGE.encode()},
                {"name": "notes.txt", "mimeType": "text/plain", "buffer": HOSTILE.encode()},
            ]
        )
        wait_for_app(page)
        page.get_by_role("textbox", name="Query").fill("how long do refunds take")
        page.get_by_role("textbox", name="Query").press("Control+Enter")
        wait_for_app(page)
        page.get_by_role("radio", name="Chunks").click()
        wait_for_app(page)
        page.get_by_text("policy.pdf: ").first.wait_for(timeout=30_000)
        body = page.locator("body").inner_text()
        assert "refunds.html: 1 chunk" in body
        assert "Home | Shop | Cart" not in body  # the page's menu is not its text
        assert "<b id='pwned'>bold?</b>" in body and page.locator("#pwned").count() == 0
        full_screenshot(page, screenshot_dir() / "chunks.png", tall=2000)
