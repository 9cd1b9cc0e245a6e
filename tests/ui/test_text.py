"""The one Streamlit escaper: user text shown through Markdown must come out as typed."""

from __future__ import annotations

import re
import string

import pytest

from contextlab.ui.text import md, md_line, plain

from .conftest import open_lab, run, texts, unescape

HOSTILE = [
    "[click](https://evil.example) and <a href='https://evil.example'>x</a>",
    "query\n===\n# heading\n> quote\n- item\n1. item",
    "**bold** __bold__ *em* `code` ~~strike~~ $x^2$ :red[red] :smile: www.evil.example a@b.example",
    "    four spaces make a code block\n\tand a tab",
    "&lt;b&gt; entity &amp; <b>tag</b> \\ backslash",
]


def _unescaped_punctuation(markdown: str) -> list[str]:
    """Return every ASCII punctuation mark in ``markdown`` that is not escaped by a backslash."""
    out, escaped = [], False
    for ch in markdown:
        if escaped:
            escaped = False
            continue
        if ch == "\\":
            escaped = True
            continue
        if ch in string.punctuation:
            out.append(ch)
    return out


@pytest.mark.parametrize("text", HOSTILE)
def test_text_md_escapes_every_markdown_trigger(text):
    shown = md(text)
    assert _unescaped_punctuation(shown) == []
    assert not re.search(r"^\s", shown, re.M), "no line starts indented (a code block)"
    assert unescape(shown).replace("  \n", "\n") == "\n".join(line.lstrip() for line in text.split("\n"))


def test_text_md_shows_bidi_controls_instead_of_obeying_them():
    shown = unescape(md("invoice\u202efdp.exe \u2066x\u2069 zero\u200bwidth"))
    assert "\u202e" not in shown and "⟨U+202E⟩" in shown
    assert "⟨U+2066⟩" in shown and "⟨U+200B⟩" in shown


def test_text_md_line_keeps_one_line_and_cuts():
    assert md_line("a\n===\nb", limit=5) == "a \\=\\=…"
    assert plain("a\u202eb") == "a⟨U+202E⟩b"


def test_text_hostile_query_caption_is_escaped_on_the_page():
    at = open_lab()
    run(at.text_area(key="cfg_query").input("refund\n===\n[x](https://evil.example) **b**"))
    caption = next(c.value for c in at.caption if "query" in c.value)
    assert "\n" not in caption and _unescaped_punctuation(caption.split("query", 1)[1]) == []
    assert "[x](https://evil.example) **b**" in texts(at)


def test_text_md_breaks_bare_addresses_that_gfm_would_link():
    shown = md("see https://evil.example, www.evil.example and me@evil.example")
    assert "https\\:\u2060\\/" in shown and "www\u2060\\." in shown and "\\@\u2060" in shown
    assert unescape(shown) == "see https://evil.example, www.evil.example and me@evil.example"
