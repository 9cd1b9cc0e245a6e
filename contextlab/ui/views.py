"""The lab's core views: Overview, Duplicates, Placement, Budget and Final block.

Each view explains itself in a sentence or two, then draws what the engine's trace says. User
text is always shown as text: ``st.code``/``st.text``/tables, or escaped HTML for highlights.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from contextlab.stages.budget import TRUNCATION_MARKER
from contextlab.stages.dedup import pair_similarities, shared_word_mask, similarity_matrix
from contextlab.types import DocTrace

from . import charts, teach_charts
from .context import LabContext
from .engine import build_cached, get_tokenizer_cached

__all__ = [
    "render_overview",
    "render_duplicates",
    "render_placement",
    "render_budget",
    "render_final_block",
    "marked_html",
    "md_escape",
    "middle_zone",
    "trace_frame",
    "HEATMAP_MAX_DOCS",
    "HISTOGRAM_MAX_DOCS",
]

#: The heatmap shows at most this many documents (the most relevant); more is unreadable.
HEATMAP_MAX_DOCS = 30
#: The pair histogram compares at most this many documents (all pairs: n² / 2 comparisons).
HISTOGRAM_MAX_DOCS = 300

_FATE_ICONS = {
    "included": "included",
    "truncated": "truncated",
    "summarized": "summarized",
    "excluded": "over budget",
    "duplicate": "duplicate",
    "filtered": "too short",
}


_MARKDOWN_SPECIALS = set("\\`*_{}[]()#+-.!|<>~:$&")


def md_escape(text: str) -> str:
    """Return ``text`` with every markdown-special character backslash-escaped (shown literally)."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in text)


def _show(fig: go.Figure, ctx: LabContext, key: str) -> None:
    if ctx.presentation:
        fig.update_layout(font_size=18, title_font_size=24, legend_font_size=16,
                          height=(fig.layout.height or 450) + 80)
        fig.update_xaxes(tickfont_size=16, title_font_size=18)
        fig.update_yaxes(tickfont_size=16, title_font_size=18)
    st.plotly_chart(fig, key=key, config={"displaylogo": False})


def _explain(text: str) -> None:
    st.markdown(f":gray[{text}]")


def _by_index(ctx: LabContext) -> dict[int, DocTrace]:
    return {t.input_index: t for t in ctx.result.trace}


# -- overview --------------------------------------------------------------------------------


def render_overview(ctx: LabContext) -> None:
    """Draw where every document went, the budget use, and the per-document "why" table."""
    result = ctx.result
    counts = result.fate_counts()
    _explain(
        "Every retrieved document passes through the same steps: too-short ones are filtered out, "
        "duplicates dropped, the rest ranked by relevance and packed into the token budget. "
        "Follow each document from left to right, then read why in the table."
    )
    in_block = counts["included"] + counts["truncated"] + counts["summarized"]
    cols = st.columns(5)
    cols[0].metric("Documents in", len(result.trace))
    cols[1].metric("In the block", in_block,
                   help="Included whole, plus truncated or summarized ones.")
    cols[2].metric("Duplicates removed", result.duplicates_removed)
    cols[3].metric("Tokens used", f"{result.tokens_used:,}",
                   delta=f"{result.utilization_pct:.1f}% of {result.tokens_budget:,}", delta_color="off",
                   delta_arrow="off")
    cols[4].metric("Left out for budget", counts["excluded"] + counts["truncated"] + counts["summarized"],
                   help="Excluded, or shortened to fit.")
    st.progress(min(result.utilization_pct / 100, 1.0),
                text=f"{result.tokens_used:,} of {result.tokens_budget:,} tokens ({result.tokenizer})")
    if not ctx.config.seed_compatible:
        _seed_comparison(ctx)
    _show(charts.fate_sankey(result), ctx, "overview_sankey")
    st.subheader("Why each document ended where it did")
    st.dataframe(trace_frame(ctx), key="overview_trace", hide_index=True, width="stretch",
                 height=min(38 + 35 * len(result.trace), 560),
                 column_config={
                     "doc": st.column_config.TextColumn(width="small"),
                     "source": st.column_config.TextColumn(width="medium"),
                     "fate": st.column_config.TextColumn(width="small"),
                     "why": st.column_config.TextColumn(width="large"),
                     "score": st.column_config.NumberColumn(format="%.3f", width="small"),
                     "tokens": st.column_config.NumberColumn(width="small"),
                     "rank": st.column_config.NumberColumn(width="small"),
                     "position": st.column_config.NumberColumn(width="small"),
                 })
    if result.timings_ms:
        total = sum(result.timings_ms.values())
        detail = ", ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items())
        st.caption(f"Built in {total:.1f} ms ({detail} ms).")


def _seed_comparison(ctx: LabContext) -> None:
    """Say in one line what the original design (seed 000) makes of the same documents."""
    seed = build_cached(ctx.documents, ctx.config.with_changes(seed_compatible=True))
    exact = get_tokenizer_cached("cl100k_base").count(seed.context_block)
    counts = seed.fate_counts()
    in_block = counts["included"] + counts["truncated"] + counts["summarized"]
    over = exact - seed.tokens_budget
    verdict = (f"**{over:,} tokens over the budget**" if over > 0
               else f"{-over:,} tokens under the budget")
    st.caption(
        f"The original design (seed 000) on the same documents: {in_block} in the block, "
        f"{seed.tokens_used:,} tokens by its words × 1.3 estimate, really {exact:,} "
        f"(cl100k_base): {verdict}. Switch on *Seed-compatible* in the sidebar to see it."
    )


def trace_frame(ctx: LabContext) -> pd.DataFrame:
    """Return the per-document trace as a table, in input order."""
    rows = []
    for t in ctx.result.trace:
        rows.append({
            "doc": f"#{t.input_index}",
            "source": t.source or "",
            "score": t.score,
            "tokens": t.tokens,
            "rank": t.relevance_rank,
            "position": t.position,
            "fate": _FATE_ICONS.get(t.fate, t.fate),
            "why": t.reason,
        })
    frame = pd.DataFrame(rows, columns=["doc", "source", "fate", "why", "rank", "position", "score", "tokens"])
    return frame.astype({"rank": "Int64", "position": "Int64"})


# -- duplicates ------------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=16)
def _matrix(texts: tuple[str, ...]) -> list[list[float]]:
    return similarity_matrix(texts)


@st.cache_data(show_spinner=False, max_entries=16)
def _pair_values(texts: tuple[str, ...]) -> list[float]:
    return [s for _, _, s in pair_similarities(texts)]


_MARK = '<mark style="background:#ffe08a;padding:0 1px;border-radius:2px">'


def marked_html(marks: Sequence[tuple[str, bool]]) -> str:
    """Return the words as escaped HTML, runs of marked words wrapped in one ``<mark>``.

    Every word is escaped before any markup is added, so user text can never become HTML.
    """
    parts: list[str] = []
    run: list[str] = []
    for word, marked in marks:
        if marked:
            run.append(html.escape(word))
            continue
        if run:
            parts.append(_MARK + " ".join(run) + "</mark>")
            run = []
        parts.append(html.escape(word))
    if run:
        parts.append(_MARK + " ".join(run) + "</mark>")
    return " ".join(parts)


def _pair_box(title: str, body: str) -> str:
    return (
        "<div style=\"border:1px solid #e0e0e0;border-radius:8px;padding:10px 14px;"
        "max-height:360px;overflow:auto;font-size:0.92rem;line-height:1.5;"
        "white-space:pre-wrap;word-wrap:break-word\">"
        f"<div style=\"font-weight:600;margin-bottom:6px\">{html.escape(title)}</div>{body}</div>"
    )


def _pair_label(ctx: LabContext, kept: int, dropped: int, sim: float, kind: str) -> str:
    trace = _by_index(ctx)
    return (f"{charts.doc_label(trace[kept], 24)} ↔ {charts.doc_label(trace[dropped], 24)} "
            f"({kind}, {sim:.2f})")


def render_duplicates(ctx: LabContext) -> None:
    """Draw the duplicate pairs, one pair side by side, the heatmap and the threshold histogram."""
    result, config = ctx.result, ctx.config
    _explain(
        "Two documents are duplicates when they share most of their 5-word phrases (exact copies, "
        f"or near copies at or above the threshold, now {config.dedup_threshold:.2f}). The more "
        "relevant one is kept, so the model does not read the same thing twice."
    )
    pairs = result.duplicate_pairs
    trace = _by_index(ctx)
    if pairs:
        frame = pd.DataFrame([
            {"kept": charts.doc_label(trace[p.kept_index], 40),
             "dropped": charts.doc_label(trace[p.dropped_index], 40),
             "similarity": p.similarity, "kind": p.kind}
            for p in pairs
        ])
        st.dataframe(frame, key="dup_pairs", hide_index=True, width="stretch",
                     column_config={"similarity": st.column_config.ProgressColumn(
                         format="%.2f", min_value=0.0, max_value=1.0)})
        options = list(range(len(pairs)))
        choice = st.selectbox(
            "Compare a pair side by side", options, key="dup_pair_choice",
            format_func=lambda k: _pair_label(ctx, pairs[k].kept_index, pairs[k].dropped_index,
                                              pairs[k].similarity, pairs[k].kind),
        )
        pair = pairs[choice if choice is not None and choice < len(pairs) else 0]
        a, b = ctx.documents[pair.kept_index].content, ctx.documents[pair.dropped_index].content
        st.caption("Highlighted: 5-word phrases the two documents share.")
        left, right = st.columns(2)
        with left:
            st.html(_pair_box(f"Kept: {charts.doc_label(trace[pair.kept_index], 60)}",
                              marked_html(shared_word_mask(a, b))))
        with right:
            st.html(_pair_box(f"Dropped: {charts.doc_label(trace[pair.dropped_index], 60)}",
                              marked_html(shared_word_mask(b, a))))
    else:
        st.info(f"No duplicates at threshold {config.dedup_threshold:.2f}. Lower it in the sidebar to "
                "see which documents would be merged.")

    # Only documents that passed the length filter reach deduplication.
    candidates = sorted((t for t in result.trace if t.relevance_rank is not None),
                        key=lambda t: t.relevance_rank)
    if len(candidates) < 2:
        return
    heat = sorted(candidates[:HEATMAP_MAX_DOCS], key=lambda t: t.input_index)
    hist = candidates[:HISTOGRAM_MAX_DOCS]
    left, right = st.columns([3, 2]) if not ctx.presentation else (st.container(), st.container())
    with left:
        matrix = _matrix(tuple(ctx.documents[t.input_index].content for t in heat))
        _show(charts.similarity_heatmap(matrix, [charts.doc_label(t, 18) for t in heat],
                                        config.dedup_threshold), ctx, "dup_heatmap")
        if len(candidates) > HEATMAP_MAX_DOCS:
            st.caption(f"The {HEATMAP_MAX_DOCS} most relevant of {len(candidates)} documents.")
    with right:
        values = _pair_values(tuple(ctx.documents[t.input_index].content for t in hist))
        nonzero = [v for v in values if v > 0]
        _show(charts.similarity_histogram(nonzero, config.dedup_threshold), ctx, "dup_histogram")
        st.caption(
            f"{len(values) - len(nonzero):,} of {len(values):,} pairs share no 5-word phrase and are "
            "not drawn. Red bars are pairs at or above the threshold; three copies of one text make "
            "three pairs, but only two documents are dropped."
            + (f" Pairs among the {HISTOGRAM_MAX_DOCS} most relevant documents."
               if len(candidates) > HISTOGRAM_MAX_DOCS else "")
        )


# -- placement -------------------------------------------------------------------------------



def render_placement(ctx: LabContext) -> None:
    """Draw final position against relevance rank with the published accuracy curve over it."""
    from contextlab import positional

    result, config = ctx.result, ctx.config
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position)
    n = len(placed)
    _explain(
        "Language models read the start and the end of a long context best and miss facts in the "
        "middle (Liu et al., *Lost in the Middle*). The blue line is their measured answer accuracy "
        "by position; the dots are this block's documents: the most relevant should sit where the line is high."
    )
    models = sorted(positional.curve_models(), key=lambda m: (not m.startswith("GPT-3.5-Turbo"), m))
    model = st.selectbox("Accuracy measured on", models, key="placement_model")
    curve = positional.accuracy_curve(model, n) if n else None
    _show(charts.placement_chart(result, curve, curve_label=model, middle=middle_zone(n)), ctx,
          "placement_chart")
    if not config.use_lost_in_middle:
        st.caption("Lost-in-the-middle reorder is off: documents sit in relevance order (the grey line).")
    elif n < 4:
        st.caption("Three documents or fewer stay in relevance order.")
    if n:
        best = min(placed, key=lambda t: t.relevance_rank or 0)
        relevances = [max(t.score, 0.0) for t in placed]
        report = positional.ordering_report(relevances, model)
        ranked = sorted(relevances, reverse=True)
        scores = positional.compare_orderings(ranked, model)
        cols = st.columns(3)
        cols[0].metric("Most relevant document", f"position {best.position} of {n}",
                       help=md_escape(charts.doc_label(best, 60)))
        cols[1].metric("Placement score of this block", f"{report.score:.3f}",
                       delta=f"{report.score - scores['relevance']:+.3f} vs relevance order",
                       help="Share of relevance (score) placed where the model reads well: "
                            "sum(score × accuracy) / (sum(score) × best accuracy).")
        cols[2].metric("Best possible", f"{report.best_score:.3f}",
                       help="The same documents with the most relevant at the most accurate positions.")
        with st.expander("Placement strategies compared on these documents"):
            st.dataframe(
                pd.DataFrame({"strategy": [teach_charts.STRATEGY_LABELS.get(k, k) for k in scores],
                              "placement score": list(scores.values())}),
                key="placement_strategies", hide_index=True, width="stretch",
                column_config={"placement score": st.column_config.ProgressColumn(
                    format="%.3f", min_value=0.0, max_value=1.0)},
            )
            st.caption(positional.INTERPOLATION_METHOD)
    st.caption("Curve: " + positional.CITATION)


def middle_zone(n: int) -> tuple[int, int] | None:
    """Return the first and last position of the middle third of ``n`` positions, or None."""
    # The middle third is the low part of every published U curve.
    if n < 3:
        return None
    first, last = n // 3 + 1, n - n // 3
    return (first, last) if first <= last else None


# -- budget ----------------------------------------------------------------------------------


def render_budget(ctx: LabContext) -> None:
    """Draw the budget staircase, what was cut from a truncated document, and tokenizer counts."""
    result, config = ctx.result, ctx.config
    walk = ("from most to least relevant" if config.budget_before_reorder and not config.seed_compatible
            else "in block order (after reordering, as the seed does)")
    headers = ("Headers and separators count" if config.budget_includes_headers and not config.seed_compatible
               else "Headers are not counted (the block can end up over budget)")
    _explain(
        f"The budget walks the documents {walk} and keeps each one that still fits. The first that "
        f"does not fit is {'summarized' if config.summarize_overflow else 'cut'} if enough room is left; "
        f"the rest are left out. {headers}."
    )
    cols = st.columns(4)
    counts = result.fate_counts()
    cols[0].metric("Budget", f"{result.tokens_budget:,}")
    cols[1].metric("Used", f"{result.tokens_used:,}", delta=f"{result.utilization_pct:.1f}%",
                   delta_color="off", delta_arrow="off")
    cols[2].metric("Shortened", counts["truncated"] + counts["summarized"])
    cols[3].metric("Left out", counts["excluded"])
    if result.tokens_used > result.tokens_budget:
        st.warning(f"The block uses {result.tokens_used} tokens, more than the budget of "
                   f"{result.tokens_budget}: headers were not counted when documents were picked.")
    _show(charts.budget_chart(result), ctx, "budget_chart")

    shortened = [t for t in result.trace if t.fate in ("truncated", "summarized")]
    for t in shortened:
        kept = result.included_docs[t.position - 1].content
        original = ctx.documents[t.input_index].content
        with st.expander(md_escape(f"{t.fate.capitalize()}: {charts.doc_label(t, 60)} — {t.reason}"),
                         expanded=True):
            left, right = st.columns(2)
            left.markdown("**In the block**")
            left.text(kept)
            if t.fate == "truncated":
                kept_words = len(kept.removesuffix(TRUNCATION_MARKER).split())
                cut = " ".join(original.split()[kept_words:])
                right.markdown(f"**Cut away** (about {len(original.split()) - kept_words} words)")
                right.text(cut)
            else:
                right.markdown("**Original**")
                right.text(original)

    st.subheader("Estimated vs exact tokens")
    _tokenizer_comparison(ctx)


@st.cache_data(show_spinner=False, max_entries=16)
def _token_counts(tokenizer: str, texts: tuple[str, ...]) -> list[int]:
    tok = get_tokenizer_cached(tokenizer)
    count_many = getattr(tok, "count_many", None)
    return count_many(texts) if count_many else [tok.count(t) for t in texts]


def _tokenizer_comparison(ctx: LabContext) -> None:
    candidates = [t for t in ctx.result.trace if t.relevance_rank is not None]
    if not candidates:
        st.info("No documents passed the filter.")
        return
    texts = tuple(ctx.documents[t.input_index].content for t in candidates)
    heuristic = _token_counts("heuristic", texts)
    exact = _token_counts("cl100k_base", texts)
    h_total, e_total = sum(heuristic), sum(exact)
    off = (h_total - e_total) / max(e_total, 1) * 100
    _explain(
        f"The seed estimates tokens as words × 1.3. On these documents that gives {h_total:,} tokens "
        f"where OpenAI's tokenizer counts {e_total:,}: {abs(off):.0f}% {'over' if off >= 0 else 'under'}. "
        "An estimate that is too low overfills the prompt; too high wastes budget."
    )
    left, right = st.columns([3, 2]) if not ctx.presentation else (st.container(), st.container())
    labels = [charts.doc_label(t, 30) for t in candidates]
    with left:
        _show(charts.tokenizer_comparison(labels, heuristic, exact), ctx, "tokenizer_chart")
    with right:
        frame = pd.DataFrame({"doc": labels, "heuristic": heuristic, "exact": exact,
                              "difference": [h - e for h, e in zip(heuristic, exact)]})
        st.dataframe(frame, key="tokenizer_table", hide_index=True, width="stretch", height=380)


# -- final block -----------------------------------------------------------------------------


def render_final_block(ctx: LabContext) -> None:
    """Draw the block exactly as the model sees it, the citation map and the downloads."""
    result = ctx.result
    _explain(
        "This is the exact text the model receives as context. Each document is labelled "
        "[n] so the answer can cite it; the map below turns a citation back into its source."
    )
    if not result.context_block:
        st.warning("The block is empty: no document passed the filter, or the budget is too small.")
    else:
        st.code(result.context_block, language=None, wrap_lines=True, height=520 if not ctx.presentation else 640)
    st.caption(f"{result.tokens_used:,} tokens ({result.tokenizer}) of a {result.tokens_budget:,} budget; "
               f"{len(result.citation_map)} citations.")
    left, right = st.columns([3, 2])
    with left:
        by_position = {t.position: t for t in result.trace if t.position is not None}
        frame = pd.DataFrame([
            {"citation": f"[{n}]", "source": source,
             "doc": f"#{by_position[n].input_index}" if n in by_position else "",
             "fate": _FATE_ICONS.get(by_position[n].fate, "") if n in by_position else ""}
            for n, source in sorted(result.citation_map.items())
        ], columns=["citation", "source", "doc", "fate"])
        st.dataframe(frame, key="citation_map", hide_index=True, width="stretch")
    with right:
        st.download_button("Download the block (text)", result.context_block, file_name="context.txt",
                           mime="text/plain", key="download_block", width="stretch")
        st.download_button("Download the full result (JSON)",
                           json.dumps(result.to_dict(), indent=2, ensure_ascii=False),
                           file_name="context_result.json", mime="application/json",
                           key="download_result", width="stretch")
        if ctx.system_prompt:
            st.markdown("**System prompt of this sample**")
            st.text(ctx.system_prompt)
