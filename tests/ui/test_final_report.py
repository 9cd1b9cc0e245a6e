"""The Final block view offers the HTML report of the build it shows."""

from __future__ import annotations

from contextlab.lab.samples import load_sample_set

from .conftest import open_lab


def test_final_block_downloads_the_html_report_of_the_build_shown(downloads):
    at = open_lab(view="final")
    page = downloads["context_report.html"]
    assert page.startswith("<!DOCTYPE html>")
    assert "I&#x27;m on the annual Pro plan and want to cancel after three months." in page
    assert f"{len(load_sample_set('support_faq').documents)} documents in" in page
    assert "<tr><th>max_context_tokens</th><td>1024</td></tr>" in page
    assert at.code[0].value.splitlines()[0].replace("'", "&#x27;") in page
