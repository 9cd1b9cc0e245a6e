"""Overview: where every document went (a Sankey), the budget use, and why, per document."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from contextlab.charts.overview import fate_sankey
from contextlab.charts.style import FATE_LABELS, doc_tag
from contextlab.lab.counts import BLOCK_COST, TEXT_TOKENS, block_counts
from contextlab.types import DocTrace

from ..context import LabContext
from ..engine import block_tokens_in, block_vocabulary, build_cached
from ..parts import explain, show_chart, show_table
from ..text import md, plain

__all__ = ["render", "trace_frame", "FATE_ORDER"]

#: Table order: what is in the block first (by position), then what was left out and why.
FATE_ORDER: tuple[str, ...] = ("included", "truncated", "summarized", "excluded", "duplicate", "filtered")
_ENGINE_DOC = re.compile(r"#(\d+)")


def render(ctx: LabContext) -> None:
    """Draw where every document went, the budget use, and the per-document "why" table."""
    result = ctx.result
    counts = block_counts(result)
    explain(
        "Every retrieved document passes through the same steps: too-short ones are filtered out, "
        "duplicates dropped, the rest ranked by relevance and packed into the token budget. "
        "Follow each document from left to right, then read why in the table."
    )
    # The row adds up: in the block + left out + duplicates + too short = documents in.
    cols = st.columns(6)
    cols[0].metric("Documents in", counts.total, help="In the block + left out for budget + duplicates + too short.")
    cols[1].metric(
        "In the block",
        counts.in_block,
        help=f"{counts.included} whole, {counts.shortened} shortened (cut to fit or summarized).",
    )
    cols[2].metric("Left out for budget", counts.excluded, help="Did not fit the token budget.")
    cols[3].metric("Duplicates removed", counts.duplicate)
    cols[4].metric(
        "Too short",
        counts.filtered,
        help=f"Fewer than {ctx.config.min_doc_tokens} text tokens: filtered out before anything else.",
    )
    cols[5].metric(
        "Tokens used",
        f"{result.tokens_used:,}",
        delta=f"{result.utilization_pct:.1f}% of {result.tokens_budget:,}",
        delta_color="off",
        delta_arrow="off",
    )
    st.caption(counts.sentence() + ".")
    st.progress(
        min(result.utilization_pct / 100, 1.0),
        text=f"{result.tokens_used:,} of {result.tokens_budget:,} tokens ({result.tokenizer})",
    )
    if not ctx.config.seed_compatible:
        _seed_comparison(ctx)
    show_chart(ctx, "overview_sankey", fate_sankey, result)
    st.subheader("Why each document ended where it did", anchor=False)
    st.caption(
        "Documents are named D0, D1, … in the order they were given; pos is the place in "
        "the block ([n] in the final block); rank the relevance among the documents that "
        f"passed the filter (rank 1 = most relevant). *{TEXT_TOKENS}*: the document's own text; "
        f"*{BLOCK_COST}*: what it takes up in the block, its header line included."
    )
    frame = trace_frame(ctx)
    show_table(
        ctx,
        frame,
        key="overview_trace",
        hide_index=True,
        width="stretch",
        height=min(38 + 35 * len(frame), 560),
        column_config={
            "doc": st.column_config.TextColumn(width="small"),
            "source": st.column_config.TextColumn(width="medium"),
            "fate": st.column_config.TextColumn(width="small"),
            "why": st.column_config.TextColumn(width="large"),
            "score": st.column_config.NumberColumn(format="%.3f", width="small"),
            TEXT_TOKENS: st.column_config.NumberColumn(width="small"),
            BLOCK_COST: st.column_config.TextColumn(width="small"),
            "pos": st.column_config.TextColumn(width="small"),
            "rank": st.column_config.TextColumn(width="small"),
        },
    )
    if result.timings_ms:
        total = sum(result.timings_ms.values())
        detail = ", ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items())
        st.caption(f"Built in {total:.1f} ms ({detail} ms).")


def _seed_comparison(ctx: LabContext) -> None:
    """Say in one line what the original algorithm makes of the same documents."""
    seed = build_cached(ctx.documents, ctx.config.with_changes(seed_compatible=True))
    vocabulary = block_vocabulary(ctx.result)
    exact = block_tokens_in(seed, vocabulary)
    in_block = block_counts(seed).in_block
    over = exact - seed.tokens_budget
    verdict = f"**{over:,} tokens over the budget**" if over > 0 else f"{-over:,} tokens under the budget"
    st.caption(
        f"The original algorithm on the same documents: {in_block} in the block, "
        f"{seed.tokens_used:,} tokens by its words × 1.3 estimate, really {exact:,} "
        f"({md(vocabulary)}): {verdict}. Switch on *Seed-compatible* in the sidebar to see it."
    )


def _order(t: DocTrace) -> tuple[int, int]:
    # The block first, in position order whatever each one's fate; then the rest by fate and rank.
    if t.position is not None:
        return 0, t.position
    return FATE_ORDER.index(t.fate), (t.relevance_rank or 0) * 1000 + t.input_index


def _why(t: DocTrace) -> str:
    # The engine's reasons name a document "#i"; the lab's one name for it is "Di".
    return _ENGINE_DOC.sub(lambda m: doc_tag(int(m.group(1))), t.reason)


def trace_frame(ctx: LabContext) -> pd.DataFrame:
    """Return the per-document trace as a table: the block first, in position order, then the rest.

    Cells a document does not have (no position when it is left out) are empty, never "None".
    """
    answer = set(ctx.answer)
    rows = []
    for t in sorted(ctx.result.trace, key=_order):
        rows.append(
            {
                "doc": doc_tag(t.input_index)
                + (" ★ answer" if t.input_index in answer else "")
                + (" ⚠ stale" if ctx.documents[t.input_index].metadata.get("stale") else ""),
                "source": plain(t.source or ""),
                "fate": FATE_LABELS[t.fate],
                "pos": str(t.position) if t.position is not None else "",
                "rank": str(t.relevance_rank) if t.relevance_rank is not None else "",
                "why": plain(_why(t)),
                "score": t.score,
                TEXT_TOKENS: t.tokens,
                BLOCK_COST: str(t.block_tokens) if t.position is not None and t.block_tokens is not None else "",
            }
        )
    return pd.DataFrame(rows, columns=["doc", "source", "fate", "pos", "rank", "why", "score", TEXT_TOKENS, BLOCK_COST])
