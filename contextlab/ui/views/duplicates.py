"""Duplicates: the pairs the dedup stage found, one pair side by side, the heatmap, the histogram (on request)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from contextlab import charts
from contextlab.types import DuplicatePair

from ..context import LabContext
from ..engine import pair_similarities_cached, shared_word_mask, similarity_matrix_cached
from ..parts import by_index, explain, on_request, show_chart, show_table
from ..text import md_line, plain

__all__ = ["render", "marked_html", "case_marks", "HEATMAP_MAX_DOCS", "HISTOGRAM_MAX_DOCS"]

#: The heatmap shows at most this many documents (the most relevant); more is unreadable.
HEATMAP_MAX_DOCS = 30
#: The pair histogram compares at most this many documents (all pairs: n² / 2 comparisons).
HISTOGRAM_MAX_DOCS = 300

_MARK = '<mark style="background:#ffe08a;padding:0 1px;border-radius:2px">'


def marked_html(marks: Sequence[tuple[str, bool]]) -> str:
    """Return the words as escaped HTML, runs of marked words wrapped in one ``<mark>``.

    Every word is escaped before any markup is added, so user text can never become HTML.
    """
    parts: list[str] = []
    run: list[str] = []
    for word, marked in marks:
        word = html.escape(charts.visible_controls(word))
        if marked:
            run.append(word)
            continue
        if run:
            parts.append(_MARK + " ".join(run) + "</mark>")
            run = []
        parts.append(word)
    if run:
        parts.append(_MARK + " ".join(run) + "</mark>")
    return " ".join(parts)


def case_marks(text: str, other: str) -> list[tuple[str, bool]]:
    """Return ``text``'s words, each marked when ``other`` has it in another letter case."""
    theirs = other.split()
    return [(w, i >= len(theirs) or w != theirs[i]) for i, w in enumerate(text.split())]


def _what_differs(a: str, b: str) -> str:
    """Return one sentence on how two exact duplicates (the same words, ignoring case) differ."""
    if a == b:
        return "The two texts are identical, character for character."
    case = sum(1 for x, y in zip(a.split(), b.split()) if x != y)
    spacing = re.split(r"\S+", a) != re.split(r"\S+", b)
    parts = ([f"{case} word{'s' if case != 1 else ''} in another letter case (highlighted)"] if case else []) \
        + (["spacing or line breaks"] if spacing else [])
    return "Same words; they differ only in " + " and ".join(parts) + "."


def _pair_box(title: str, body: str) -> str:
    return (
        "<div style=\"border:1px solid #e0e0e0;border-radius:8px;padding:10px 14px;"
        "max-height:360px;overflow:auto;font-size:0.95rem;line-height:1.5;"
        "white-space:pre-wrap;word-wrap:break-word\">"
        f"<div style=\"font-weight:600;margin-bottom:6px\">{html.escape(title)}</div>{body}</div>"
    )


def render(ctx: LabContext) -> None:
    """Draw the duplicate pairs, one pair side by side, the heatmap and the threshold histogram."""
    config = ctx.config
    explain(
        "Two documents are duplicates when they share most of their 5-word phrases (exact copies, "
        f"or near copies at or above the threshold, now {config.dedup_threshold:.2f}). The more "
        "relevant one is kept, so the model does not read the same thing twice."
    )
    pairs = ctx.result.duplicate_pairs
    if pairs:
        _pairs_table(ctx, pairs)
        _pair_side_by_side(ctx, pairs)
    else:
        st.info(f"No duplicates at threshold {config.dedup_threshold:.2f}. Lower it in the sidebar to "
                "see which documents would be merged.")
    _heatmap_and_histogram(ctx, len(pairs))


def _pairs_table(ctx: LabContext, pairs: Sequence[DuplicatePair]) -> None:
    trace = by_index(ctx)
    frame = pd.DataFrame([
        {"kept": plain(charts.doc_label(trace[p.kept_index], 48)),
         "dropped": plain(charts.doc_label(trace[p.dropped_index], 48)),
         "similarity": p.similarity, "kind": p.kind}
        for p in pairs
    ])
    show_table(ctx, frame, key="dup_pairs", hide_index=True, width="stretch",
                 column_config={"similarity": st.column_config.ProgressColumn(
                     format="%.2f", min_value=0.0, max_value=1.0)})


def _pair_side_by_side(ctx: LabContext, pairs: Sequence[DuplicatePair]) -> None:
    trace = by_index(ctx)

    def title(k: int) -> str:
        p = pairs[k]
        return (f"{charts.doc_label(trace[p.kept_index], 24)} ↔ {charts.doc_label(trace[p.dropped_index], 24)}"
                f" ({p.kind}, {p.similarity:.2f})")

    # Open on a pair of the answer's copies when there is one (the story a scenario tells).
    answer = set(ctx.answer)
    first = next((k for k, p in enumerate(pairs) if answer & {p.kept_index, p.dropped_index}), 0)
    if st.session_state.get("dup_pair_choice") is None or st.session_state["dup_pair_choice"] >= len(pairs):
        st.session_state["dup_pair_choice"] = first
    choice = st.selectbox("Compare a pair side by side", list(range(len(pairs))), key="dup_pair_choice",
                          format_func=title)
    pair = pairs[choice if choice is not None and choice < len(pairs) else 0]
    a, b = ctx.documents[pair.kept_index].content, ctx.documents[pair.dropped_index].content
    if pair.kind == "exact":
        st.caption(md_line(_what_differs(a, b)))
        marks_a, marks_b = case_marks(a, b), case_marks(b, a)
    else:
        st.caption("Highlighted: 5-word phrases the two documents share; the rest is what differs.")
        marks_a, marks_b = shared_word_mask(a, b), shared_word_mask(b, a)
    left, right = st.columns(2)
    with left:
        st.html(_pair_box(f"Kept: {charts.doc_label(trace[pair.kept_index], 60)}", marked_html(marks_a)))
    with right:
        st.html(_pair_box(f"Dropped: {charts.doc_label(trace[pair.dropped_index], 60)}", marked_html(marks_b)))


def _heatmap_and_histogram(ctx: LabContext, dropped: int) -> None:
    # Only documents that passed the length filter reach deduplication.
    candidates = sorted((t for t in ctx.result.trace if t.relevance_rank is not None),
                        key=lambda t: t.relevance_rank or 0)
    if len(candidates) < 2:
        return
    threshold = ctx.config.dedup_threshold
    heat = sorted(candidates[:HEATMAP_MAX_DOCS], key=lambda t: t.input_index)
    matrix = similarity_matrix_cached(tuple(ctx.documents[t.input_index].content for t in heat))
    show_chart(charts.similarity_heatmap(matrix, [charts.doc_label(t, 16) for t in heat], threshold,
                                         full_labels=[charts.doc_label(t, 120) for t in heat]),
               ctx, "dup_heatmap")
    if len(candidates) > HEATMAP_MAX_DOCS:
        st.caption(f"The {HEATMAP_MAX_DOCS} most relevant of {len(candidates)} documents.")
    hist = candidates[:HISTOGRAM_MAX_DOCS]
    values = pair_similarities_cached(tuple(ctx.documents[t.input_index].content for t in hist))
    nonzero = [v for v in values if v > 0]
    caught = sum(1 for v in values if v >= threshold)
    st.markdown(
        f"**{caught}** pair{'s' if caught != 1 else ''} at or above the threshold; **{dropped}** "
        f"document{'s' if dropped != 1 else ''} dropped (the table above)."
    )
    if caught != dropped:
        st.caption(
            "They differ because the histogram counts pairs and the table counts dropped "
            "documents: three copies of one text make three pairs, but two documents go, "
            "each listed once with the kept copy it matched first."
        )
    # Drawn only when opened: a second chart on the first visit costs the reader a quarter second.
    histogram = on_request("Every pair's similarity against the threshold (histogram)", "dup_histogram_open")
    if histogram is not None:
        with histogram:
            show_chart(charts.similarity_histogram(nonzero, threshold), ctx, "dup_histogram")
            st.caption(
                f"{len(values) - len(nonzero):,} of {len(values):,} pairs share no 5-word phrase and are "
                "not drawn."
                + (f" Pairs among the {HISTOGRAM_MAX_DOCS} most relevant documents."
                   if len(candidates) > HISTOGRAM_MAX_DOCS else "")
            )
