"""Shortened source labels: cut from the middle, the telling end kept, two sources never alike."""

from __future__ import annotations

from contextlab.charts.style import doc_label, short_label, short_labels
from contextlab.types import DocTrace


def test_short_label_keeps_a_short_text_whole() -> None:
    assert short_label("faq/refunds.md", 14) == "faq/refunds.md"


def test_short_label_cuts_the_middle_and_keeps_the_end() -> None:
    assert short_label("docs.python.org/3.11/library/tempfile.html", 20) == "docs.py…empfile.html"


def test_short_label_at_one_past_the_width_cuts() -> None:
    assert short_label("abcdefghij", 10) == "abcdefghij"
    assert short_label("abcdefghijk", 10) == "abc…fghijk"


def test_short_label_flattens_whitespace_and_shows_controls() -> None:
    assert short_label("a\n\tb\u202ec", 40) == "a b⟨U+202E⟩c"


def test_short_labels_tell_apart_sources_that_share_start_and_end() -> None:
    sources = [
        "https://docs.python.org/3.11/library/tempfile.html",
        "https://docs.python.org/3.12/library/tempfile.html",
    ]
    shown = short_labels(sources, 30)
    assert shown == ["…rg/3.11/library/tempfile.html", "…rg/3.12/library/tempfile.html"]


def test_short_labels_tell_apart_sources_that_differ_only_at_the_start() -> None:
    shown = short_labels(["alpha/reports/2025/chapter-four.pdf", "omega/reports/2025/chapter-four.pdf"], 16)
    assert len(set(shown)) == 2
    assert all(len(s) <= 36 for s in shown)


def test_short_labels_keep_equal_sources_equal_and_short_ones_whole() -> None:
    assert short_labels(["a/chunk0", "b/chunk0", "a/chunk0", "x"], 20) == ["a/chunk0", "b/chunk0", "a/chunk0", "x"]


def test_short_labels_never_repeat_a_label_for_different_sources() -> None:
    sources = [f"https://example.org/library/section-{i}/page.html" for i in range(12)]
    shown = short_labels(sources, 12)
    assert len(set(shown)) == 12


def test_doc_label_shortens_the_source_from_the_middle() -> None:
    entry = DocTrace(
        input_index=3,
        source="docs.python.org/3.11/library/tempfile.html",
        score=1.0,
        tokens=10,
        relevance_rank=1,
        position=1,
        fate="included",
    )
    assert doc_label(entry, 20) == "D3 · docs.py…empfile.html"
