"""Compare view: the same documents built two ways, and placement strategies side by side."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from contextlab.charts.compare import compare_positions_figure, compare_tokens_figure
from contextlab.charts.orderings import STRATEGY_LABELS, ordering_scores_figure, strategy_positions_figure
from contextlab.charts.style import doc_tag
from contextlab.curves import published, scores
from contextlab.errors import ContextLabError
from contextlab.lab.compare import ResultDiff, config_differences, diff_results
from contextlab.lab.config import LabConfig
from contextlab.lab.counts import block_counts
from contextlab.lab.teaching import most_marked_model, score_range_note
from contextlab.types import ContextResult

from ..context import LabContext
from ..engine import (
    EXACT_TOKENIZER,
    ORDERINGS,
    PLACEMENTS,
    VOCABULARIES,
    across_vocabularies,
    block_vocabulary,
    build_cached,
    exact_block_tokens,
    most_relevant_position,
    ordering_positions,
    tokenizer_label,
    tokenizer_options,
)
from ..parameters import tokenizer_option_label
from ..parts import MetricDelta, on_request, seed_fixed_key, show_chart, show_table
from ..state import B_FIELDS, B_KEY, apply_config_b, b_key, chosen, keep_values
from ..text import md, md_line, plain

__all__ = ["render", "config_b_editor", "changes_frame"]

_ENGINE_DOC = re.compile(r"\(doc (\d+)(?=[,)])")

# Sentences listed above the charts; the rest are in the table.
_SUMMARY_LINES = 6


def _preset_seed(config_a: LabConfig, key: str) -> None:
    # The one-click story: whichever side of "seed-compatible" A is on, B is the other.
    apply_config_b(config_a.with_changes(seed_compatible=not config_a.seed_compatible), key)


def config_b_editor(config_a: LabConfig, *, key: str = B_KEY) -> LabConfig:
    """Return configuration B as edited in the widgets here (first seeded as A, seed switch flipped).

    Every widget's key starts with ``key`` (``cmp_b_max_context_tokens``, ...); the preset buttons write
    to those keys in callbacks. The settings open on request (``{key}_settings_open``): the
    preset buttons, B's one-line description and the table of what differs say what B is,
    and nine widgets less make a first visit about 90 ms faster on two cores.
    """
    # First open: B is the seed-vs-default preset, so the view starts on a real difference.
    first_b = config_a.with_changes(seed_compatible=not config_a.seed_compatible)
    for name in B_FIELDS:
        st.session_state.setdefault(b_key(name, key), getattr(first_b, name))

    preset_cols = st.columns(2)
    preset_cols[0].button(
        "Seed-compatible vs default",
        key=f"{key}_preset_seed",
        on_click=_preset_seed,
        args=(config_a, key),
        width="stretch",
        help="B becomes A with the seed-compatible switch flipped: the original "
        "reorder-then-budget engine against this project's default, or the other way round.",
    )
    preset_cols[1].button(
        "Reset B to A",
        key=f"{key}_preset_reset",
        on_click=apply_config_b,
        args=(config_a, key),
        width="stretch",
    )

    section = on_request("All of B's settings", f"{key}_settings_open")
    if section is not None:
        with section:
            return _b_widgets(config_a, key)
    # Folded: B's values stay in the session while its widgets are not drawn.
    keep_values(*(b_key(name, key) for name in B_FIELDS))
    config_b: LabConfig = config_a.with_changes(**{name: st.session_state[b_key(name, key)] for name in B_FIELDS})
    return config_b


def _b_widgets(config_a: LabConfig, key: str) -> LabConfig:
    c1, c2, c3 = st.columns(3)
    budget = c1.number_input(
        "Token budget", min_value=0, max_value=200_000, step=64, key=b_key("max_context_tokens", key)
    )
    threshold = c2.slider("Duplicate threshold", min_value=0.05, max_value=1.0, step=0.05, key=f"{key}_dedup_threshold")
    min_tokens = c3.number_input(
        "Minimum tokens per document", min_value=0, max_value=1000, step=1, key=f"{key}_min_doc_tokens"
    )
    seed = c1.toggle(
        "Seed-compatible",
        key=f"{key}_seed_compatible",
        help="The original engine: heuristic token counts, reorder before the budget, headers not counted.",
    )
    # In seed mode these three show what B's engine really uses; B's own choices are kept.
    c2.selectbox(
        "Tokenizer",
        tokenizer_options(st.session_state.get(f"{key}_tokenizer"), config_a.tokenizer),
        key=seed_fixed_key("tokenizer", f"{key}_tokenizer", seed),
        disabled=seed,
        format_func=tokenizer_option_label,
        help="Another model's vocabulary counts the same documents in its tokens; seed mode counts heuristically.",
    )
    placement = c3.selectbox("Placement", PLACEMENTS, key=f"{key}_placement", format_func=STRATEGY_LABELS.__getitem__)
    c1.toggle(
        "Budget before reorder",
        disabled=seed,
        key=seed_fixed_key("budget_before_reorder", f"{key}_budget_before_reorder", seed),
    )
    c2.toggle(
        "Headers count toward the budget",
        disabled=seed,
        key=seed_fixed_key("budget_includes_headers", f"{key}_budget_includes_headers", seed),
    )
    summarize = c3.toggle("Summarize what does not fit", key=f"{key}_summarize_overflow")
    state = st.session_state
    config_b: LabConfig = config_a.with_changes(
        max_context_tokens=int(budget),
        dedup_threshold=round(float(threshold), 4),
        min_doc_tokens=int(min_tokens),
        placement=placement,
        summarize_overflow=summarize,
        tokenizer=state[f"{key}_tokenizer"],
        seed_compatible=seed,
        budget_before_reorder=state[f"{key}_budget_before_reorder"],
        budget_includes_headers=state[f"{key}_budget_includes_headers"],
    )
    return config_b


def changes_frame(diff: ResultDiff, *, show_unchanged: bool = False) -> pd.DataFrame:
    """Return one row per document that changed (or every document), blanks where A or B has none."""

    def pos(p: int | None) -> str:
        return "" if p is None else str(p)

    rows = [
        {
            "doc": doc_tag(c.input_index),
            "source": plain(c.source or ""),
            "change": c.change,
            "A": f"pos {c.position_a}" if c.position_a is not None else c.fate_a,
            "B": f"pos {c.position_b}" if c.position_b is not None else c.fate_b,
            "block cost A": c.tokens_a,
            "block cost B": c.tokens_b,
            "rank": pos(c.relevance_rank_a if c.relevance_rank_a is not None else c.relevance_rank_b),
        }
        for c in diff.changes
        if show_unchanged or c.change != "unchanged"
    ]
    return pd.DataFrame(rows, columns=["doc", "source", "change", "A", "B", "block cost A", "block cost B", "rank"])


def _describe(config: LabConfig) -> str:
    engine = "seed-compatible" if config.seed_compatible else "default"
    order = STRATEGY_LABELS.get(config.placement, config.placement)
    return (
        f"{engine} engine · budget {config.max_context_tokens:,} · {tokenizer_label(config.effective_tokenizer)} "
        f"tokens · {order} · duplicate threshold {config.dedup_threshold:g}"
    )


def _budget_delta(exact: int, budget: int) -> MetricDelta:
    """Return metric delta arguments: red "N over budget", or a grey "of the budget" share."""
    if exact > budget:
        return MetricDelta(delta=f"{exact - budget:+,} over its budget of {budget:,}", delta_color="inverse")
    return MetricDelta(delta=f"of its budget of {budget:,}", delta_color="off", delta_arrow="off")


def _counted(side: str, result: ContextResult, exact: int) -> str:
    """Return what a side's own engine counted, naming its tokenizer."""
    if result.tokenizer in VOCABULARIES:
        return f"{side}'s engine counts exactly ({result.tokenizer})"
    how = "its heuristic estimate (words × 1.3)" if result.tokenizer == "heuristic" else f"a {result.tokenizer}"
    return f"{side}'s engine counts with {how}: {result.tokens_used:,} by that count, {exact:,} in {EXACT_TOKENIZER}"


def _metrics(diff: ResultDiff, a: ContextResult, b: ContextResult) -> tuple[int, int]:
    """Draw both sides' exact tokens and what moved; return the exact counts (``_count_notes`` says how counted)."""
    exact_a, exact_b = exact_block_tokens(a), exact_block_tokens(b)
    in_a, in_b = block_counts(a).in_block, block_counts(b).in_block
    cols = st.columns(4)
    cols[0].metric("Tokens, A (exact)", f"{exact_a:,}", **_budget_delta(exact_a, a.tokens_budget))
    cols[1].metric("Tokens, B (exact)", f"{exact_b:,}", **_budget_delta(exact_b, b.tokens_budget))
    cols[2].metric("In the block, B", in_b, delta=f"{in_b - in_a:+d} vs A", delta_color="off")
    cols[3].metric("Gained / lost / moved", f"{len(diff.gained)} / {len(diff.lost)} / {len(diff.moved)}")
    return exact_a, exact_b


def _count_notes(a: ContextResult, b: ContextResult, exact_a: int, exact_b: int) -> None:
    """Say how each side counted its tokens, and warn about a side over its budget."""
    st.caption(
        md_line(
            f"Exact: each side's vocabulary on the finished block (A: {block_vocabulary(a)}, "
            f"B: {block_vocabulary(b)}). {_counted('A', a, exact_a)}; {_counted('B', b, exact_b)}."
            + across_vocabularies(a, b)
        )
    )
    for side, exact, result in (("A", exact_a, a), ("B", exact_b, b)):
        if exact > result.tokens_budget:
            st.warning(
                md_line(
                    f"{side} is over its budget: {exact:,} exact tokens for a budget of "
                    f"{result.tokens_budget:,} ({exact - result.tokens_budget:+,}). "
                    + (
                        "Its engine does not count headers, and estimates tokens."
                        if result.tokenizer not in VOCABULARIES
                        else ""
                    )
                )
            )


def _render_config_diff(ctx: LabContext, config_a: LabConfig, config_b: LabConfig) -> None:
    changed = config_differences(config_a, config_b)
    if not changed:
        st.info("B is the same configuration as A. Change a setting above, or press “Seed-compatible vs default”.")
        return
    show_table(
        ctx,
        pd.DataFrame([{"setting": n, "A": str(a), "B": str(b)} for n, a, b in changed]),
        hide_index=True,
        width="stretch",
    )


def _candidate_relevances(result: ContextResult) -> list[float]:
    """Return the scores of the documents that survived filter and dedup, best first.

    Negative scores (some retrievers return logits) count as no relevance at all.
    """
    return sorted((max(t.score, 0.0) for t in result.trace if t.fate not in ("filtered", "duplicate")), reverse=True)


def _render_strategies(ctx: LabContext) -> None:
    # Drawn only when opened: two more charts on the first visit cost the reader half a second.
    section = on_request("Placement strategies: the same documents placed five ways", "cmp_strategies_open")
    if section is not None:
        with section:
            _strategies_body(ctx)


def _strategies_body(ctx: LabContext) -> None:
    st.write(
        "The same documents, placed five ways. Each row is the block from first to last "
        "position; the number is the document's relevance rank, and the red box marks where "
        "the most relevant document lands."
    )
    in_block = sum(1 for t in ctx.result.trace if t.position is not None)
    default_n = max(in_block, 2)
    n = st.slider(
        "Number of documents in the block",
        min_value=2,
        max_value=max(30, default_n),
        value=default_n,
        key="cmp_strategy_n",
        help="Starts at the number of documents in A's block.",
    )
    orders = {key: ordering_positions(key, n) for key in ORDERINGS}
    show_chart(ctx, "cmp_strategy_chart", strategy_positions_figure, orders, STRATEGY_LABELS)

    rows = []
    for key in orders:
        pos = most_relevant_position(key, n)
        rows.append(
            {
                "strategy": STRATEGY_LABELS.get(key, key),
                "most relevant document at position": pos,
                "at the start": pos == 1,
                "at the end": pos == n,
            }
        )
    show_table(ctx, pd.DataFrame(rows), hide_index=True, width="stretch")

    counts = range(2, max(30, n) + 1)
    last_at = [k for k in counts if most_relevant_position("langchain", k) == k]
    if last_at:
        evens = [k for k in counts if k % 2 == 0]
        rule = "even" if last_at == evens else "one of " + ", ".join(map(str, last_at))
        here = most_relevant_position("langchain", n)
        other = n + 1
        there = most_relevant_position("langchain", other)
        st.warning(
            f"LangChain's LongContextReorder (and LlamaIndex's, identical for distinct scores) "
            f"puts the most relevant document **last** whenever the number of documents is "
            f"{rule}: it reverses the list before alternating, so the count's parity decides. "
            f"With {n} documents, as set above, it is at position {here} of {n}; with {other} "
            f"it would be at position {there}. contextlab puts it first either way."
        )

    relevances = _candidate_relevances(ctx.result)
    if not relevances:
        return
    models = published.curve_models()
    st.session_state.setdefault("cmp_strategy_model", most_marked_model())
    model = chosen(models, st.selectbox("Score under the measured curve of", models, key="cmp_strategy_model"))
    ranked = (relevances + [0.0] * n)[:n]
    by_strategy = scores.compare_orderings(ranked, model, n)
    report = scores.ordering_report(ranked, model, n)
    show_chart(
        ctx,
        "cmp_strategy_scores",
        ordering_scores_figure,
        by_strategy,
        (report.worst_score, report.best_score),
        STRATEGY_LABELS,
        title=f"Where {model} would read your top {n} documents' relevance",
    )
    st.caption(score_range_note(report.worst_score, report.best_score, n))


def render(ctx: LabContext) -> None:
    """Draw the Compare view for ``ctx``; returns nothing.

    In presentation mode what changes from A to B comes first, the two configurations below it:
    the difference is what a room should see on the first screen.
    """
    first, second = st.container(), st.container()
    settings, evidence = (second, first) if ctx.presentation else (first, second)
    with settings:
        st.header("Compare", anchor=False)
        st.write(
            "Build the same documents two ways and see exactly what changes: which documents get "
            "into the prompt or drop out, where they move, and what it costs in tokens."
        )
        if not ctx.documents:
            st.info("Load some documents in the sidebar to compare two configurations.")
            return
        col_a, col_b = st.columns(2)
        col_a.markdown("**A** · the settings in the sidebar")
        col_a.text(_describe(ctx.config))
        col_b.markdown("**B** · the settings below")
        b_description = col_b.empty()
        config_b = config_b_editor(ctx.config)
        b_description.text(_describe(config_b))
        _render_config_diff(ctx, ctx.config, config_b)
    try:
        result_b = build_cached(ctx.documents, config_b)
    except ContextLabError as exc:
        st.error(md(exc))
        return
    with evidence:
        _what_changes(ctx, ctx.result, result_b)
    st.divider()
    _render_strategies(ctx)


def _what_changes(ctx: LabContext, result_a: ContextResult, result_b: ContextResult) -> None:
    """Draw what changes from A to B: the exact tokens, the moves in words, the slope chart and the table."""
    diff = diff_results(result_a, result_b)
    if not ctx.presentation:  # presenting, the story above says what A and B are
        st.subheader("What changes from A to B", anchor=False)
    exact_a, exact_b = _metrics(diff, result_a, result_b)
    if not ctx.presentation:
        _count_notes(result_a, result_b, exact_a, exact_b)
    # The summary's last line is the block size: said in exact tokens, as the metrics above.
    va, vb = block_vocabulary(result_a), block_vocabulary(result_b)
    size = (
        f" ({va}): {exact_a:,} → {exact_b:,} tokens ({exact_b - exact_a:+,})"
        if va == vb
        else f": {exact_a:,} ({va}) → {exact_b:,} ({vb})"
    )
    lines = diff.summary()[:-1] + [f"Block size, exact{size}."]
    shown = (
        lines
        if len(lines) <= _SUMMARY_LINES + 1
        else lines[:_SUMMARY_LINES]
        + [f"… and {len(lines) - _SUMMARY_LINES - 1} more change(s) in the table below.", lines[-1]]
    )
    # Sources are user text: st.text shows them as typed, never as Markdown or HTML.
    bullets = [plain("• " + _ENGINE_DOC.sub(r"(D\1", line)) for line in shown]
    if ctx.presentation:  # presenting: the first change, the chart of every move, then the rest
        st.text(bullets[0])
        show_chart(ctx, "cmp_positions_chart", compare_positions_figure, diff)
        st.text("\n".join(bullets[1:]))
        _count_notes(result_a, result_b, exact_a, exact_b)
    else:
        st.text("\n".join(bullets))
        show_chart(ctx, "cmp_positions_chart", compare_positions_figure, diff)
    tokens = on_request("What each document costs in A and in B (chart)", "cmp_tokens_open")
    if tokens is not None:
        with tokens:
            show_chart(ctx, "cmp_tokens_chart", compare_tokens_figure, diff)

    show_all = st.toggle("Show unchanged documents too", key="cmp_show_unchanged")
    frame = changes_frame(diff, show_unchanged=show_all)
    if len(frame):
        show_table(ctx, frame, hide_index=True, width="stretch")
        st.caption(
            md_line(
                f"block cost: what a document takes up in each side's block, header included "
                f"when that side counts headers, by that side's own tokenizer (A: "
                f"{result_a.tokenizer}, B: {result_b.tokenizer})."
            )
        )

    blocks = on_request("The two blocks, side by side", "cmp_blocks_open")
    if blocks is not None:
        with blocks:
            _blocks_side_by_side(result_a, result_b)


def _blocks_side_by_side(result_a: ContextResult, result_b: ContextResult) -> None:
    col_a, col_b = st.columns(2)
    col_a.markdown(f"**A** — {exact_block_tokens(result_a):,} tokens (exact, {md(block_vocabulary(result_a))})")
    col_a.code(plain(result_a.context_block) or "(empty)", language=None, wrap_lines=True)
    col_b.markdown(f"**B** — {exact_block_tokens(result_b):,} tokens (exact, {md(block_vocabulary(result_b))})")
    col_b.code(plain(result_b.context_block) or "(empty)", language=None, wrap_lines=True)
