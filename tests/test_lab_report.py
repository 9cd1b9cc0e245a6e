"""The HTML report: self-contained, every user text escaped, the block coloured by source, every fate and why."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from contextlab.lab.config import LabConfig
from contextlab.lab.report import SOURCE_COLORS, html_report
from contextlab.types import Document

HOSTILE_SOURCE = '"><img src=x onerror=alert(1)>'
DOCS = [
    Document(
        "<script>alert('content')</script> refunds take thirty days to reach the card after approval", 0.9, "a<b>.md"
    ),
    Document("Annual plans are refunded in full within thirty days of purchase or renewal.", 0.8, HOSTILE_SOURCE),
    Document("Shipping is free \u202eevil\u202c for orders above fifty euros in the whole union.", 0.7, "ship.md"),
    Document("Annual plans are refunded in full within thirty days of purchase or renewal.", 0.6, "copy.md"),
    Document("too short", 0.5, "short.md"),
]
QUERY = "<script>alert('query')</script> how do refunds work?"


class _Collect(HTMLParser):
    """Every start tag with its attributes, and the text of the block's div."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.block: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if self._depth or (tag == "div" and dict(attrs).get("class") == "block"):
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.block.append(data)


def _report() -> tuple[str, _Collect]:
    config = LabConfig(query=QUERY, max_context_tokens=400, min_doc_tokens=5)
    page = html_report(config.build(DOCS), config, DOCS)
    parsed = _Collect()
    parsed.feed(page)
    return page, parsed


def test_report_runs_no_script_and_loads_nothing() -> None:
    page, parsed = _report()
    assert {tag for tag, _ in parsed.tags} <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "div", "span", "mark",
        "ul", "li", "table", "thead", "tbody", "tr", "th", "td",
    }  # fmt: skip
    assert not any(name.startswith("on") or name in ("src", "href") for _, attrs in parsed.tags for name in attrs)
    assert not re.search(r"https?:|url\(|@import", page)


def test_report_escapes_hostile_sources_contents_and_query() -> None:
    page, _ = _report()
    assert "&lt;script&gt;alert(&#x27;query&#x27;)&lt;/script&gt; how do refunds work?" in page
    assert "&lt;script&gt;alert(&#x27;content&#x27;)&lt;/script&gt; refunds" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "a&lt;b&gt;.md" in page
    assert "<img" not in page and "<b>" not in page and "<script" not in page


def test_report_shows_bidi_controls_instead_of_obeying_them() -> None:
    page, _ = _report()
    assert "\u202e" not in page and "\u202c" not in page
    assert "free ⟨U+202E⟩evil⟨U+202C⟩ for orders" in page


def test_report_block_is_the_exact_block_with_each_document_marked_in_its_source_colour() -> None:
    config = LabConfig(query=QUERY, max_context_tokens=400, min_doc_tokens=5)
    result = config.build(DOCS[:2])
    page = html_report(result, config, DOCS[:2])
    parsed = _Collect()
    parsed.feed(page)
    assert "".join(parsed.block) == result.context_block
    marks = [attrs.get("style") for tag, attrs in parsed.tags if tag == "mark"]
    assert sorted(marks) == sorted([f"background:{SOURCE_COLORS[0]}", f"background:{SOURCE_COLORS[1]}"])


def test_report_gives_every_document_its_fate_and_reason_and_the_settings() -> None:
    page, _ = _report()
    assert "5 documents in, 3 in the block" in page
    assert "<td>filtered</td><td></td><td>2</td><td>2 tokens, below min_doc_tokens=5</td>" in page
    assert "<td>duplicate</td>" in page and "exact duplicate of #1" in page
    assert "<tr><th>max_context_tokens</th><td>400</td></tr>" in page
    assert "<tr><th>dedup_threshold</th><td>0.85</td></tr>" in page
