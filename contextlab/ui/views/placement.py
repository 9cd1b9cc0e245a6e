"""Placement: each document's final position against its relevance, under a measured curve."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from contextlab import charts
from contextlab.curves import published, scores
from contextlab.lab.counts import relevance_position
from contextlab.lab.teaching import (
    accuracy_phrase,
    dip_by_count,
    middle_zone,
    reorder_cannot_help,
)
from contextlab.types import DocTrace

from ..context import LabContext
from ..parts import (
    NO_CHANGE,
    by_index,
    explain,
    on_request,
    score_delta,
    show_chart,
    show_table,
    stale_notes,
)
from ..text import md_line
from .measured_curve import measured_curve_section

__all__ = ["render", "answer_sentence"]


def answer_sentence(entry: DocTrace, n: int, curve: Sequence[float], model: str,
                    relevance_pos: int | None = None) -> str:
    """Return where the answer document sits, what the curve says there, and in relevance order.

    ``relevance_pos`` is where relevance order would put it (``lab.counts.relevance_position``):
    its rank counts the duplicates and left-out documents above it, its position does not.
    """
    name = charts.doc_label(entry, 60)
    if entry.position is None:
        return (f"The document that holds the answer ({name}) is not in the block: "
                f"{charts.FATE_LABELS[entry.fate].lower()}. No placement can help it.")
    here = curve[entry.position - 1]
    text = (f"The document that holds the answer ({name}, rank {entry.relevance_rank}) is at pos "
            f"{entry.position} of {n}, where {accuracy_phrase(model, n, here)}")
    if relevance_pos is not None and relevance_pos != entry.position:
        text += f"; in relevance order it would be at pos {relevance_pos} ({curve[relevance_pos - 1]:.1f}%)"
    elif relevance_pos == entry.position:
        text += "; relevance order puts it in the same place"
    return text + "."


def render(ctx: LabContext) -> None:
    """Draw final position against relevance rank with the measured accuracy curve above it."""
    result = ctx.result
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position or 0)
    n = len(placed)
    explain(
        "Language models read the start and the end of a long context best and miss facts in the "
        "middle (Liu et al., *Lost in the Middle*). The top panel is their measured answer accuracy "
        "by position; below, this block's documents: the most relevant should sit where the curve is high."
    )
    models = sorted(published.curve_models(), key=lambda m: (not m.startswith("GPT-3.5-Turbo"), m))
    model = st.selectbox("Accuracy measured on", models, key="placement_model")
    curve = published.accuracy_curve(model, n) if n else None
    show_chart(ctx, "placement_chart", charts.placement_chart, result, curve, curve_label=model,
               middle=middle_zone(n), answer=ctx.answer)
    if ctx.config.placement == "relevance":
        st.caption("Lost-in-the-middle reorder is off: documents sit in relevance order (the grey line).")
    elif ctx.config.placement != "lost_in_the_middle":
        st.caption(md_line(f"Placement: {charts.STRATEGY_LABELS.get(ctx.config.placement, ctx.config.placement)}."))
    elif n < 4:
        st.caption("Three documents or fewer stay in relevance order.")
    stale_notes(ctx)
    if n and curve is not None:
        _headline(ctx, placed, curve, model)
        _count_note(model, n, curve)
        _strategies(ctx, placed, model)
    st.caption("Curve: " + md_line(published.CITATION))
    measured_curve_section(ctx, "placement")


def _headline(ctx: LabContext, placed: list[DocTrace], curve: Sequence[float], model: str) -> None:
    n = len(placed)
    relevances = [max(t.score, 0.0) for t in placed]
    report = scores.ordering_report(relevances, model)
    by_strategy = scores.compare_orderings(sorted(relevances, reverse=True), model)
    best = min(placed, key=lambda t: t.relevance_rank or 0)
    trace = by_index(ctx)
    answers = [trace[i] for i in ctx.answer if i in trace]
    cols = st.columns(3)
    if answers:
        a = min(answers, key=lambda t: (t.position is None, t.position or 0))
        cols[0].metric("Answer document", f"pos {a.position} of {n}" if a.position else "not in block",
                       help=md_line(charts.doc_label(a, 80)))
    else:
        cols[0].metric("Most relevant document", f"pos {best.position} of {n}",
                       help=md_line(charts.doc_label(best, 80)))
    cols[1].metric("Placement score of this block", f"{report.score:.3f}",
                   **score_delta(report.score - by_strategy["relevance"], "relevance order"),
                   help="Share of relevance (score) placed where the model reads well: "
                        "sum(score × accuracy) / (sum(score) × best accuracy).")
    cols[2].metric("Best possible", f"{report.best_score:.3f}",
                   help="The same documents with the most relevant at the most accurate positions.")
    if answers:
        st.info(md_line(" ".join(answer_sentence(a, n, curve, model, relevance_position(ctx.result, a))
                                 for a in answers)))
    if report.score - by_strategy["relevance"] < NO_CHANGE:
        why = reorder_cannot_help(curve, model) or (
            f"Here this placement does not beat relevance order: the positions it moves these documents "
            f"to are read no better by {model} than the ones relevance order gives them, so the most "
            f"relevant text gains nothing.")
        explain(why + " A reorder pays off when the answer sits deep in the ranking; the Learn view opens such a case.")


def _count_note(model: str, n: int, curve: Sequence[float]) -> None:
    dips = dip_by_count(model)
    low = min(range(n), key=lambda k: curve[k])
    sentence = (f"With {n} documents the {model} curve reads {curve[0]:.1f}% at pos 1, "
                f"{curve[-1]:.1f}% at pos {n} and {curve[low]:.1f}% at its lowest (pos {low + 1}). ")
    sentence += ("How much the middle loses depends on how many documents the prompt holds; the "
                 "published dip below the better end is " +
                 ", ".join(f"{d:.1f} points with {c}" for c, d in sorted(dips.items())) + " documents")
    if n < min(dips):
        sentence += f" ({n} is below the smallest count measured, so the {min(dips)}-document curve is used)"
    st.caption(md_line(sentence + ". The Learn view shows the curves side by side."))


def _strategies(ctx: LabContext, placed: list[DocTrace], model: str) -> None:
    # Drawn when opened: a table in a closed section still costs the first visit its drawing.
    section = on_request("Placement strategies compared on these documents", "placement_strategies_open")
    if section is None:
        return
    relevances = sorted((max(t.score, 0.0) for t in placed), reverse=True)
    by_strategy = scores.compare_orderings(relevances, model)
    with section:
        show_table(
            ctx, pd.DataFrame({"strategy": [charts.STRATEGY_LABELS.get(k, k) for k in by_strategy],
                          "placement score": list(by_strategy.values())}),
            key="placement_strategies", hide_index=True, width="stretch",
            column_config={"placement score": st.column_config.NumberColumn(format="%.3f")},
        )
        st.caption(md_line(published.INTERPOLATION_METHOD))
