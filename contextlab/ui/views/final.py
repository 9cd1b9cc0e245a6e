"""Final block: the exact text the model receives, the orders asked of a model, the citations, the downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from contextlab.charts.style import FATE_LABELS, doc_label, doc_tag, short_labels

from ..citations import cited_passage, passage_html
from ..context import LabContext
from ..downloads import download_newest
from ..parts import by_index, explain, show_table, stale_notes
from ..text import md_line, plain
from .orders import three_orders_section

__all__ = ["render", "citation_frame"]

#: The widest source the citation table shows before it shortens one (from the middle).
_SOURCE_WIDTH = 40


def citation_frame(ctx: LabContext) -> pd.DataFrame:
    """Return one row per citation: [n], the document (★ when it holds the answer), source, how it went in."""
    result = ctx.result
    by_position = {t.position: t for t in result.trace if t.position is not None}
    answer = set(ctx.answer)
    how = {"included": "whole", "truncated": "cut to fit", "summarized": "as a one-sentence summary"}
    rows = []
    cited = sorted(result.citation_map.items())
    # Shortened from the middle, never two alike: the cell shows it whole when clicked.
    sources = dict(zip((n for n, _ in cited), short_labels([s for _, s in cited], _SOURCE_WIDTH), strict=True))
    for n, _source in cited:
        t = by_position.get(n)
        fate = FATE_LABELS[t.fate].lower() if t else ""
        rows.append(
            {
                "citation": f"[{n}]",
                "doc": (doc_tag(t.input_index) + (" ★" if t.input_index in answer else "")) if t else "",
                "source": sources[n],
                "in the block": (
                    f"{how.get(t.fate, fate)}, {t.block_tokens or t.tokens} tokens, rank {t.relevance_rank}"
                    if t
                    else ""
                ),
            }
        )
    return pd.DataFrame(rows, columns=["citation", "doc", "source", "in the block"])


def render(ctx: LabContext) -> None:
    """Draw the block exactly as the model sees it, the orders, the citation map and the downloads.

    In presentation mode "Ask the model in several orders" comes first: the presenter's bar opens it.
    """
    result = ctx.result
    if ctx.presentation:
        three_orders_section(ctx)
    explain(
        "This is the exact text the model receives as context. Each document is labelled "
        "[n] (its position in the block) so the answer can cite it; the map below turns a "
        "citation back into its source."
    )
    trace = by_index(ctx)
    for i in ctx.answer:
        t = trace.get(i)
        if t is not None:
            where = (
                f"is cited as [{t.position}]"
                if t.position is not None
                else f"is not in the block ({FATE_LABELS[t.fate].lower()})"
            )
            st.info(md_line(f"★ The document that holds the answer, {doc_label(t, 60)}, {where}."))
    if not ctx.presentation:
        three_orders_section(ctx)
    stale_notes(ctx)
    if not result.context_block:
        st.warning("The block is empty: no document passed the filter, or the budget is too small.")
    else:
        shown = plain(result.context_block)
        st.code(shown, language=None, wrap_lines=True, height=520 if not ctx.presentation else 640)
        if shown != result.context_block:
            st.caption(
                "The block holds invisible control characters, shown here as ⟨U+…⟩ so they "
                "cannot reorder the text; the download holds the exact text."
            )
    st.caption(
        f"{result.tokens_used:,} tokens ({result.tokenizer}) of a {result.tokens_budget:,} budget; "
        f"{len(result.citation_map)} citations."
    )
    left, right = st.columns([3, 2])
    with left:
        show_table(
            ctx,
            citation_frame(ctx),
            key="citation_map",
            hide_index=True,
            width="stretch",
            column_config={
                "citation": st.column_config.TextColumn(width="small"),
                "doc": st.column_config.TextColumn(width="small"),
                "source": st.column_config.TextColumn(
                    width="large", help="Long sources are shortened in the middle; click a cell to read it whole."
                ),
                "in the block": st.column_config.TextColumn(width="medium"),
            },
        )
        _open_citation(ctx)
    with right:
        _downloads()
        if ctx.system_prompt:
            st.markdown("**System prompt of this sample**")
            st.text(plain(ctx.system_prompt))


def _open_citation(ctx: LabContext) -> None:
    """Draw a picker of the block's citations and the picked one's passage in its source, highlighted."""
    cited = sorted(ctx.result.citation_map)
    if not cited:
        return
    n = st.selectbox(
        "Open a citation in its source",
        cited,
        format_func=lambda k: plain(f"[{k}] {ctx.result.citation_map[k]}"),
        key="final_open_citation",
    )
    passage = cited_passage(ctx, int(n)) if n is not None else None
    if passage is None:
        return
    st.caption(md_line(f"{passage.name}: {passage.note}"))
    st.html(passage_html(passage))


def _downloads() -> None:
    """Draw the download buttons: the block, the full result, the HTML report."""
    # Made when clicked, from the newest build: a click during a rerun waits for it.
    download_newest(
        "Download the block (text)", "block", file_name="context.txt", mime="text/plain", key="download_block"
    )
    download_newest(
        "Download the full result (JSON)",
        "result",
        file_name="context_result.json",
        mime="application/json",
        key="download_result",
    )
    download_newest(
        "Download a report (HTML)",
        "report",
        file_name="context_report.html",
        mime="text/html",
        key="download_report",
        help="One page that opens in any browser, offline: the block coloured by source, "
        "every document's fate and why, the settings and the query.",
    )
