"""Budget: the staircase of documents filling the budget, what was cut, estimated vs exact tokens."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from contextlab.charts.budget import budget_chart, tokenizer_comparison
from contextlab.charts.style import FATE_LABELS, doc_label
from contextlab.lab.counts import BLOCK_COST, TEXT_TOKENS, block_counts
from contextlab.types import SHORTENED_FATES

from ..context import LabContext
from ..engine import block_vocabulary, budget_walk, kept_words, token_counts_cached
from ..parts import explain, on_request, show_chart, show_table
from ..text import md, md_line, plain
from .length_section import length_curve_section

__all__ = ["render"]


def render(ctx: LabContext) -> None:
    """Draw the budget staircase, what was cut from a truncated document, and tokenizer counts."""
    result, config = ctx.result, ctx.config
    walk = (
        "from most to least relevant"
        if config.budget_before_reorder and not config.seed_compatible
        else "in block order (after reordering, as the original algorithm does)"
    )
    headers = (
        "Headers and separators count"
        if config.budget_includes_headers and not config.seed_compatible
        else "Headers are not counted (the block can end up over budget)"
    )
    explain(
        f"The budget walks the documents {walk} and keeps each one that still fits. The first that "
        f"does not fit is {'summarized' if config.summarize_overflow else 'cut'} if enough room is left; "
        f"the rest are left out. {headers}. Each bar is a document's *{BLOCK_COST}* (its kept text "
        f"and header); a left-out one floats at its *{TEXT_TOKENS}*."
    )
    cols = st.columns(4)
    counts = block_counts(result)
    cols[0].metric("Budget", f"{result.tokens_budget:,}")
    cols[1].metric(
        "Used", f"{result.tokens_used:,}", delta=f"{result.utilization_pct:.1f}%", delta_color="off", delta_arrow="off"
    )
    cols[2].metric(
        "In the block",
        counts.in_block,
        help=f"{counts.included} whole, {counts.shortened} shortened (cut to fit or summarized).",
    )
    cols[3].metric("Left out for budget", counts.excluded)
    st.caption(counts.sentence() + ".")
    if result.tokens_used > result.tokens_budget:
        st.warning(
            f"The block uses {result.tokens_used} tokens, more than the budget of "
            f"{result.tokens_budget}: headers were not counted when documents were picked."
        )
    order, label = budget_walk(result, config)
    show_chart(ctx, "budget_chart", budget_chart, result, order, walk_label=label)
    _shortened(ctx)
    length_curve_section(ctx)
    # Drawn when opened: a second chart on the first visit costs the reader a quarter second.
    section = on_request("Estimated vs exact tokens: words × 1.3 against your vocabulary", "budget_tokenizers_open")
    if section is not None:
        with section:
            _tokenizer_comparison(ctx)


def _shortened(ctx: LabContext) -> None:
    result = ctx.result
    for t in (t for t in result.trace if t.fate in SHORTENED_FATES):
        kept = result.included_docs[(t.position or 1) - 1].content
        original = ctx.documents[t.input_index].content
        title = f"{FATE_LABELS[t.fate]}: {doc_label(t, 60)} (pos {t.position})"
        with st.expander(md_line(title), expanded=True):
            left, right = st.columns(2)
            left.markdown("**In the block**")
            left.text(plain(kept))
            if t.fate == "truncated":
                kept_n = kept_words(kept)
                right.markdown(f"**Cut away** (about {len(original.split()) - kept_n} words)")
                right.text(plain(" ".join(original.split()[kept_n:])))
            else:
                right.markdown("**Original**")
                right.text(plain(original))


def _tokenizer_comparison(ctx: LabContext) -> None:
    candidates = [t for t in ctx.result.trace if t.relevance_rank is not None]
    if not candidates:
        st.info("No documents passed the filter.")
        return
    texts = tuple(ctx.documents[t.input_index].content for t in candidates)
    heuristic = token_counts_cached("heuristic", texts)
    vocabulary = block_vocabulary(ctx.result)
    exact = token_counts_cached(vocabulary, texts)
    h_total, e_total = sum(heuristic), sum(exact)
    off = (h_total - e_total) / max(e_total, 1) * 100
    explain(
        f"The original algorithm estimates tokens as words × 1.3. On these documents that gives {h_total:,} tokens "
        f"where {md(vocabulary)} counts {e_total:,}: {abs(off):.0f}% {'over' if off >= 0 else 'under'}. "
        "An estimate that is too low overfills the prompt; too high wastes budget."
    )
    left, right = st.columns([3, 2]) if not ctx.presentation else (st.container(), st.container())
    labels = [doc_label(t, 30) for t in candidates]
    with left:
        show_chart(ctx, "tokenizer_chart", tokenizer_comparison, labels, heuristic, exact)
    with right:
        frame = pd.DataFrame(
            {
                "doc": [plain(x) for x in labels],
                "heuristic": heuristic,
                "exact": exact,
                "difference": [h - e for h, e in zip(heuristic, exact, strict=False)],
            }
        )
        show_table(ctx, frame, key="tokenizer_table", hide_index=True, width="stretch", height=380)
