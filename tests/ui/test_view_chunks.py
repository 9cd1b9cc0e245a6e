"""Chunks view: boundaries coloured, overlaps shaded, user text escaped, sliders re-cut the sources."""

from __future__ import annotations

import pytest

from contextlab.loaders.chunking import Chunk
from contextlab.ui.views.chunks import chunk_html
from tests.ui.conftest import metric, open_view, run, specs

pytestmark = pytest.mark.integration


def test_view_chunks_html_escapes_user_text_and_shades_the_overlap():
    text = "<b>bold</b> & <script>x()</script> end"
    chunks = [Chunk(text[0:18], "s", 0, 18, 6), Chunk(text[12:38], "s", 12, 38, 9)]
    out = chunk_html(text, chunks, [False, True])
    assert "<b>" not in out and "<script>" not in out
    assert '<span style="background:#e3f2fd">&lt;b&gt;bold&lt;/b&gt; </span>' in out
    assert '<sup style="color:#546e7a;font-weight:600">[1]</sup>' in out
    assert '<sup style="color:#2e7d32;font-weight:600">[2 ✓]</sup>' in out
    assert '<span style="background:#ffd54f;border-bottom:2px solid #2e7d32">&amp; &lt;scr</span>' in out
    assert (
        '<span style="background:#e8f5e9;border-bottom:2px solid #2e7d32">ipt&gt;x()&lt;/script&gt; end</span>' in out
    )


def test_view_chunks_counts_sources_and_recuts_on_the_slider():
    at = open_view("chunks", budget=300)
    assert metric(at, "Sources") == "29"  # the sample's 29 documents
    first = int(metric(at, "Chunks"))
    assert first >= 29
    assert any(s["layout"]["title"]["text"] == "How full are the chunks?" for s in specs(at))
    run(at.slider(key="chunks_size").set_value(16))
    assert int(metric(at, "Chunks")) > first
    assert int(metric(at, "Chunks in the block")) >= 1
