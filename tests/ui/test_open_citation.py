"""The Final block opens a citation in its source: the passage shown, the part in the block marked, text escaped."""

from __future__ import annotations

import pytest

from contextlab.lab.samples import load_sample_set
from contextlab.ui.citations import CitedPassage, passage_html

from .conftest import open_view, run, unescape

pytestmark = pytest.mark.integration


def test_open_citation_shows_the_answer_document_marked_whole():
    at = open_view("final")
    answer = load_sample_set("support_faq").answer_source
    picker = at.selectbox(key="final_open_citation")
    cited = next(k for k in picker.options if answer in k)
    at = run(picker.set_value(int(cited.split("]")[0].strip("["))))
    shown = [h.proto.body for h in at.get("html")]
    marked = [b for b in shown if "<mark" in b]
    assert len(marked) == 1
    assert f"{answer}: In the block whole (marked)." in [unescape(c.value) for c in at.caption]


def test_open_citation_marks_only_the_words_kept_when_cut():
    # At 400 tokens the sample's [3] is cut to fit: the words kept are marked, the words cut follow unmarked.
    at = open_view("final", budget=400)
    at = run(at.selectbox(key="final_open_citation").set_value(3))
    assert "support/macros/refund-annual-request.md: Cut to fit: the marked words are in the block, the rest not." in [
        unescape(c.value) for c in at.caption
    ]
    body = next(h.proto.body for h in at.get("html") if "<mark" in h.proto.body)
    kept, cut = body.split("</mark>", 1)
    assert kept.split("<mark", 1)[1].count(" ") > 10 and cut.removesuffix("</div>").strip().count(" ") > 5


def test_passage_html_escapes_user_text_and_marks_the_span():
    cited = CitedPassage("x", 'ab<script>alert(1)</script>"><img onerror=x>\u202eend', 2, 10, "")
    body = passage_html(cited)
    assert "<script>" not in body and "<img" not in body and "\u202e" not in body
    assert '<mark style="background:#fff59d">&lt;script&gt;</mark>' in body
    assert body.startswith('<div style="white-space:pre-wrap;line-height:1.6">ab<mark')
