"""The Duplicates view explains the default measure: the words that differ, and the near misses."""

from __future__ import annotations

import json

import pytest

from tests.ui.conftest import open_lab, open_view, run, table, texts

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration

BASE = [
    "the",
    "refund",
    "window",
    "for",
    "annual",
    "plans",
    "is",
    "thirty",
    "days",
    "from",
    "the",
    "date",
    "of",
    "purchase",
    "and",
    "any",
    "request",
    "after",
    "that",
    "date",
    "goes",
    "to",
    "the",
    "billing",
    "team",
    "for",
    "a",
    "manual",
    "review",
    "today",
]


def _edited(words: list[str], changes: dict[int, str]) -> str:
    return " ".join(changes.get(k, w) for k, w in enumerate(words))


def _lab_with(records: list[dict]):
    at = open_lab(view="duplicates")
    run(at.radio(key="doc_source").set_value("paste"))
    return run(at.text_area(key="paste_text").input(json.dumps(records)))


@pytest.mark.slow
def test_view_duplicates_marks_the_words_that_differ_and_lists_near_misses():
    two_edits = _edited(BASE, {3: "monthly", 20: "support"})  # 0.93: dropped at 0.85
    five_edits = _edited(BASE, {0: "a", 5: "plan", 9: "day", 14: "all", 27: "prompt"})  # 0.83: kept
    records = [
        {"content": " ".join(BASE), "score": 0.9, "source": "refunds.md"},
        {"content": two_edits, "score": 0.8, "source": "refunds-copy.md"},
        {"content": five_edits, "score": 0.7, "source": "refunds-old.md"},
    ]
    at = _lab_with(records)
    dropped = table(at, "dropped")
    assert list(dropped["similarity"].round(3)) == [0.933]
    assert "refunds-copy.md" in dropped["dropped"].iloc[0]
    misses = table(at, "also kept")  # the near-miss table (key dup_near_misses)
    assert list(misses["similarity"].round(3)) == [0.833]
    assert "refunds.md" in misses["kept"].iloc[0] and "refunds-old.md" in misses["also kept"].iloc[0]
    said = texts(at)
    assert "words match in order" in said and "Just missed the threshold" in said
    assert "2 word edits (inserted, deleted or replaced)" in said  # the dropped pair, shown first
    bodies = " ".join(h.proto.body for h in at.html)
    assert "<mark" in bodies and "monthly</mark>" in bodies and "support</mark>" in bodies
    box = at.selectbox(key="dup_pair_choice")
    miss = next(k for k in range(len(box.options)) if "(near miss, 0.833)" in box.format_func(k))
    at = run(box.set_value(miss))
    assert "5 word edits" in texts(at)
    assert "Also kept: " in " ".join(h.proto.body for h in at.html)


def test_view_duplicates_user_text_in_a_diff_stays_text():
    hostile = "<script>alert(1)</script> " + " ".join(BASE[1:])
    records = [
        {"content": " ".join(BASE), "score": 0.9, "source": "a.md"},
        {"content": hostile, "score": 0.8, "source": "b.md"},
    ]
    at = _lab_with(records)
    bodies = " ".join(h.proto.body for h in at.html)
    assert "<script>" not in bodies and "&lt;script&gt;alert(1)&lt;/script&gt;</mark>" in bodies


def test_view_duplicates_unicode_copies_are_exact_and_say_why():
    nfd = " ".join(BASE).replace("date", "da\u0301te")
    nfc = nfd.replace("a\u0301", "\u00e1")
    zwsp = nfc.replace(" ", " \u200b", 3)
    records = [
        {"content": nfc, "score": 0.9, "source": "nfc.md"},
        {"content": nfd, "score": 0.8, "source": "nfd.md"},
        {"content": zwsp, "score": 0.7, "source": "zwsp.md"},
    ]
    at = _lab_with(records)
    dropped = table(at, "dropped")
    assert list(dropped["kind"]) == ["exact", "exact"] and list(dropped["similarity"]) == [1.0, 1.0]
    assert "written differently (letter case, Unicode form or an invisible character)" in texts(at)


def test_view_duplicates_sample_near_misses_name_the_pricing_pair():
    at = open_view("duplicates")
    misses = table(at, "also kept")  # the near-miss table (key dup_near_misses)
    assert list(misses["similarity"].round(2)) == [0.78, 0.71]
    assert "pricing" in misses["kept"].iloc[0] and "pricing" in misses["also kept"].iloc[0]


def test_view_duplicates_seed_mode_explains_shingles():
    at = open_lab(view="duplicates", seed_compatible="true")
    said = texts(at)
    assert "5-word phrases" in said and "seed-compatible mode" in said


def test_view_duplicates_near_miss_hint_never_rounds_a_threshold_up():
    # the first near miss scores 0.776: at 0.78 it is kept (4 dropped), at 0.77 it goes (5 dropped)
    at = open_lab(dedup_threshold="0.78", view="duplicates")
    said = texts(at)
    assert (
        "At a threshold of 0.77 the less relevant of the first pair (0.776) goes too: 5 duplicates instead of 4."
    ) in said
    assert "threshold of 0.78 the less relevant" not in said
    assert table(at, "also kept")["similarity"].iloc[0] == 0.776  # cut to three places, never rounded up


def test_view_duplicates_a_linked_threshold_shows_what_it_builds():
    at = open_lab(dedup_threshold="0.776", view="duplicates")
    slider = at.slider(key="cfg_dedup_threshold")
    assert slider.value == 0.776 and slider.proto.format == "%.3f"
    said = texts(at)
    assert "at or above the threshold, now 0.776)" in said and "now 0.78)" not in said
    assert len(table(at, "dropped")) == 5  # 0.776 catches the pair at 0.776: the build used 0.776
    assert open_lab(view="duplicates").slider(key="cfg_dedup_threshold").proto.format == "%.2f"
