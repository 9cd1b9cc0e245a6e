"""Duplicates: the pairs the dedup stage found, one pair side by side, the heatmap and the histogram (on request)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from contextlab.charts.duplicates import similarity_heatmap, similarity_histogram
from contextlab.charts.style import doc_label
from contextlab.lab.counts import block_counts
from contextlab.lab.thresholds import catching_threshold, similarity_floor, similarity_text, threshold_text
from contextlab.safe_text import visible_controls
from contextlab.types import DuplicatePair

from ..context import LabContext
from ..engine import (
    NEAR_MISS_MARGIN,
    SEED_MEASURE,
    build_cached,
    dedup_measure,
    near_misses_cached,
    pair_similarities_cached,
    shared_word_mask,
    similarity_matrix_cached,
    word_diff,
)
from ..parts import by_index, explain, on_request, show_chart, show_table
from ..state import chosen
from ..text import md_line, plain

__all__ = [
    "render",
    "marked_html",
    "case_marks",
    "HEATMAP_MAX_DOCS",
    "HISTOGRAM_MAX_DOCS",
    "NEAR_MISS_ROWS",
    "PAIR_TEXT_SIZE",
]

#: The heatmap shows at most this many documents (the most relevant); more is unreadable.
HEATMAP_MAX_DOCS = 30
#: The pair histogram compares at most this many documents (all pairs: n² / 2 comparisons).
HISTOGRAM_MAX_DOCS = 300
#: The near-miss table lists at most this many pairs (the most similar).
NEAR_MISS_ROWS = 20

_MARK = '<mark style="background:#ffe08a;padding:0 1px;border-radius:2px">'


def marked_html(marks: Sequence[tuple[str, bool]]) -> str:
    """Return the words as escaped HTML, runs of marked words wrapped in one ``<mark>``.

    Every word is escaped before any markup is added, so user text can never become HTML.
    """
    parts: list[str] = []
    run: list[str] = []
    for word, marked in marks:
        word = html.escape(visible_controls(word))
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


def _what_differs(a: str, b: str, measure: str = SEED_MEASURE) -> str:
    """Return one sentence on how two exact duplicates (the same words, ignoring case) differ."""
    if a == b:
        return "The two texts are identical, character for character."
    case = sum(1 for x, y in zip(a.split(), b.split(), strict=False) if x != y)
    spacing = re.split(r"\S+", a) != re.split(r"\S+", b)
    how = (
        "in another letter case"
        if measure == SEED_MEASURE
        else "written differently (letter case, Unicode form or an invisible character)"
    )
    parts = ([f"{case} word{'s' if case != 1 else ''} {how} (highlighted)"] if case else []) + (
        ["spacing or line breaks"] if spacing else []
    )
    if not parts:  # the same words split the same way: only invisible characters differ
        parts = ["invisible characters (zero-width spaces, joiners or direction marks)"]
    return "Same words; they differ only in " + " and ".join(parts) + "."


@dataclass(frozen=True)
class _NearMiss:
    """Two kept documents (input indices) whose similarity is just below the threshold."""

    kept_index: int
    dropped_index: int
    similarity: float
    kind: str = "near miss"


def _near_misses(ctx: LabContext, measure: str) -> list[_NearMiss]:
    """Return the kept pairs just below the threshold among the most relevant documents."""
    ranked = sorted((t for t in ctx.result.trace if t.relevance_rank is not None), key=lambda t: t.relevance_rank or 0)[
        :HISTOGRAM_MAX_DOCS
    ]
    texts = tuple(ctx.documents[t.input_index].content for t in ranked)  # the order dedup saw them in
    found = near_misses_cached(texts, ctx.config.dedup_threshold, measure)[:NEAR_MISS_ROWS]
    return [_NearMiss(ranked[i].input_index, ranked[j].input_index, sim) for i, j, sim in found]


def _near_miss_table(ctx: LabContext, misses: Sequence[_NearMiss]) -> None:
    threshold = ctx.config.dedup_threshold
    st.markdown("**Just missed the threshold**")
    if not misses:
        st.caption(
            f"No two kept documents score between {threshold_text(max(threshold - NEAR_MISS_MARGIN, 0))} "
            f"and {threshold_text(threshold)}: lowering the threshold that far would remove nothing more."
        )
        return
    trace = by_index(ctx)
    frame = pd.DataFrame(
        [
            {
                "kept": plain(doc_label(trace[m.kept_index], 48)),
                "also kept": plain(doc_label(trace[m.dropped_index], 48)),
                "similarity": similarity_floor(m.similarity),
            }
            for m in misses
        ]
    )
    show_table(
        ctx,
        frame,
        key="dup_near_misses",
        hide_index=True,
        width="stretch",
        column_config={"similarity": st.column_config.ProgressColumn(format="%.3f", min_value=0.0, max_value=1.0)},
    )
    st.caption(
        f"Kept pairs within {NEAR_MISS_MARGIN} below the threshold, most similar first. "
        + _lower_threshold_note(ctx, misses[0])
        + " Pick one above to see the words that differ."
    )


def _lower_threshold_note(ctx: LabContext, miss: _NearMiss) -> str:
    """Return what the highest slider step that catches the first near miss does, built to check it."""
    lower = catching_threshold(miss.similarity)
    now = block_counts(ctx.result).duplicate
    built = build_cached(ctx.documents, ctx.config.with_changes(dedup_threshold=lower))
    then = block_counts(built).duplicate
    gone = next(t for t in built.trace if t.input_index == miss.dropped_index).fate == "duplicate"
    pair = f"the first pair ({similarity_text(miss.similarity)})"
    if gone:
        return (
            f"At a threshold of {threshold_text(lower)} the less relevant of {pair} goes too: "
            f"{then} duplicates instead of {now}."
        )
    return f"At a threshold of {threshold_text(lower)} {then} duplicates instead of {now}; {pair} is still kept."


#: The side-by-side texts' type: the page's own, and in presentation mode the projector's 1.25rem (20 px).
PAIR_TEXT_SIZE = {False: "1rem", True: "1.25rem"}


def _pair_box(title: str, body: str, *, presentation: bool = False) -> str:
    # Lower in presentation mode: the pair sits below the pairs table on a 720-pixel first screen.
    height = 260 if presentation else 360
    return (
        '<div style="border:1px solid #e0e0e0;border-radius:8px;padding:10px 14px;'
        f"max-height:{height}px;overflow:auto;font-size:{PAIR_TEXT_SIZE[presentation]};line-height:1.5;"
        'white-space:pre-wrap;word-wrap:break-word">'
        f'<div style="font-weight:600;margin-bottom:6px">{html.escape(title)}</div>{body}</div>'
    )


#: How the view names each measure: (heatmap title, histogram axis, what it compares).
_MEASURES = {
    SEED_MEASURE: (
        "Shingle similarity",
        "shingle similarity (Jaccard of 5-word phrases)",
        "they share most of their 5-word phrases (the original algorithm's measure, used in seed-compatible mode)",
    ),
}
_WORDS = (
    "Word edit similarity",
    "word edit similarity (1 − word edits / words of the longer)",
    "most of their words match in order, once case, spacing, Unicode forms and invisible "
    "characters are folded: similarity = 1 − word edits ÷ words of the longer text, so two "
    "words edited in 30 score 0.93",
)


def render(ctx: LabContext) -> None:
    """Draw the duplicate pairs, one pair side by side, the near misses, the heatmap and the histogram.

    The pairs and one pair's words come first; in presentation mode the explanation of the
    measure follows them, so the evidence is on the first screen.
    """
    config = ctx.config
    measure = dedup_measure(config)
    said = (
        f"Two documents are duplicates when {_MEASURES.get(measure, _WORDS)[2]} (exact copies, "
        f"or near copies at or above the threshold, now {threshold_text(config.dedup_threshold)}). The more "
        "relevant one is kept, so the model does not read the same thing twice."
    )
    if not ctx.presentation:
        explain(said)
    pairs = ctx.result.duplicate_pairs
    misses = _near_misses(ctx, measure)
    if pairs:
        _pairs_table(ctx, pairs)
    else:
        st.info(
            f"No duplicates at threshold {threshold_text(config.dedup_threshold)}. Lower it in the sidebar to "
            "see which documents would be merged."
        )
    if pairs or misses:
        candidates: list[DuplicatePair | _NearMiss] = [*pairs, *misses]
        _pair_side_by_side(ctx, candidates, measure)
    _near_miss_table(ctx, misses)
    if ctx.presentation:
        explain(said)
    _heatmap_and_histogram(ctx, len(pairs), measure)


def _pairs_table(ctx: LabContext, pairs: Sequence[DuplicatePair]) -> None:
    trace = by_index(ctx)
    width = 36 if ctx.presentation else 48  # one line per pair at a projector's type
    frame = pd.DataFrame(
        [
            {
                "kept": plain(doc_label(trace[p.kept_index], width)),
                "dropped": plain(doc_label(trace[p.dropped_index], width)),
                "similarity": similarity_floor(p.similarity),
                "kind": p.kind,
            }
            for p in pairs
        ]
    )
    show_table(
        ctx,
        frame,
        key="dup_pairs",
        hide_index=True,
        width="stretch",
        column_config={"similarity": st.column_config.ProgressColumn(format="%.3f", min_value=0.0, max_value=1.0)},
    )


def _pair_side_by_side(ctx: LabContext, pairs: Sequence[DuplicatePair | _NearMiss], measure: str) -> None:
    trace = by_index(ctx)

    width = 40 if ctx.presentation else 24  # a projector's picker spans the page

    def title(k: int) -> str:
        p = pairs[k]
        return (
            f"{doc_label(trace[p.kept_index], width)} ↔ {doc_label(trace[p.dropped_index], width)}"
            f" ({p.kind}, {similarity_text(p.similarity)})"
        )

    # Open on a pair of the answer's copies when there is one (the story a scenario tells).
    answer = set(ctx.answer)
    first = next((k for k, p in enumerate(pairs) if answer & {p.kept_index, p.dropped_index}), 0)
    if st.session_state.get("dup_pair_choice") is None or st.session_state["dup_pair_choice"] >= len(pairs):
        st.session_state["dup_pair_choice"] = first
    numbers = list(range(len(pairs)))
    choice = st.selectbox(
        "Compare a pair side by side",
        numbers,
        key="dup_pair_choice",
        format_func=title,
        label_visibility="collapsed" if ctx.presentation else "visible",
    )
    pair = pairs[chosen(numbers, choice)]
    a, b = ctx.documents[pair.kept_index].content, ctx.documents[pair.dropped_index].content
    if pair.kind == "exact":
        how = md_line(_what_differs(a, b, measure))
        marks_a, marks_b = case_marks(a, b), case_marks(b, a)
    elif measure == SEED_MEASURE:
        how = "Highlighted: 5-word phrases the two documents share; the rest is what differs."
        marks_a, marks_b = shared_word_mask(a, b), shared_word_mask(b, a)
    else:
        diff = word_diff(a, b)
        how = (
            f"Highlighted: the words that differ, {diff.edits} word edit{'s' if diff.edits != 1 else ''} "
            "(inserted, deleted or replaced); every other word matches, in order."
        )
        marks_a, marks_b = diff.first, diff.second
    if not ctx.presentation:  # presenting, the two texts come first (the first screen is theirs)
        st.caption(how)
    left, right = st.columns(2)
    with left:
        st.html(
            _pair_box(
                f"Kept: {doc_label(trace[pair.kept_index], 60)}",
                marked_html(marks_a),
                presentation=ctx.presentation,
            )
        )
    with right:
        second = "Also kept" if pair.kind == "near miss" else "Dropped"
        st.html(
            _pair_box(
                f"{second}: {doc_label(trace[pair.dropped_index], 60)}",
                marked_html(marks_b),
                presentation=ctx.presentation,
            )
        )
    if ctx.presentation:
        st.caption(how)


def _heatmap_and_histogram(ctx: LabContext, dropped: int, measure: str) -> None:
    # Only documents that passed the length filter reach deduplication.
    candidates = sorted(
        (t for t in ctx.result.trace if t.relevance_rank is not None), key=lambda t: t.relevance_rank or 0
    )
    if len(candidates) < 2:
        return
    threshold = ctx.config.dedup_threshold
    heat = sorted(candidates[:HEATMAP_MAX_DOCS], key=lambda t: t.input_index)
    names = _MEASURES.get(measure, _WORDS)
    # Drawn when opened, like the histogram: the pairs, the near misses and the side-by-side
    # words are the view's point; the heatmap below them doubles a first visit's wait.
    section = on_request(f"Every pair among the {len(heat)} most relevant documents (heatmap)", "dup_heatmap_open")
    if section is not None:
        with section:
            matrix = similarity_matrix_cached(tuple(ctx.documents[t.input_index].content for t in heat), measure)
            show_chart(
                ctx,
                "dup_heatmap",
                similarity_heatmap,
                matrix,
                [doc_label(t, 16) for t in heat],
                threshold,
                full_labels=[doc_label(t, 120) for t in heat],
                measure_name=names[0],
            )
            if len(candidates) > HEATMAP_MAX_DOCS:
                st.caption(f"The {HEATMAP_MAX_DOCS} most relevant of {len(candidates)} documents.")
    hist = candidates[:HISTOGRAM_MAX_DOCS]
    values = pair_similarities_cached(tuple(ctx.documents[t.input_index].content for t in hist), measure)
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
            show_chart(ctx, "dup_histogram", similarity_histogram, nonzero, threshold, axis_title=names[1])
            st.caption(
                f"{len(values) - len(nonzero):,} of {len(values):,} pairs "
                + ("share no 5-word phrase" if measure == SEED_MEASURE else "have no word in common, in order")
                + " and are not drawn."
                + (
                    f" Pairs among the {HISTOGRAM_MAX_DOCS} most relevant documents."
                    if len(candidates) > HISTOGRAM_MAX_DOCS
                    else ""
                )
            )
