"""Placement: each document's final position against its relevance, under a measured curve."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from contextlab.charts.orderings import STRATEGY_LABELS
from contextlab.charts.placement import placement_chart
from contextlab.charts.style import FATE_LABELS, doc_label
from contextlab.curves import published
from contextlab.curves.curve_file import PositionData
from contextlab.curves.evidence import CurveEvidence
from contextlab.curves.scores import compare_orderings, ordering_report
from contextlab.lab.counts import relevance_position
from contextlab.lab.curve_views import BlockCurve, block_curve, measured_label, measured_points, move_undecided
from contextlab.lab.teaching import (
    ReorderVerdict,
    accuracy_phrase,
    dip_by_count,
    middle_zone,
    reorder_verdict,
    score_text,
)
from contextlab.types import DocTrace

from ..context import LabContext
from ..curve_store import loaded_curve
from ..engine import ordering_positions
from ..parts import (
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

__all__ = ["render", "answer_sentence", "placement_verdict"]


def answer_sentence(entry: DocTrace, n: int, curve: Sequence[float], model: str, *, measured: bool = False) -> str:
    """Return where the answer document sits in the block and what the curve reads there."""
    name = doc_label(entry, 60)
    if entry.position is None:
        return (
            f"The document that holds the answer ({name}) is not in the block: "
            f"{FATE_LABELS[entry.fate].lower()}. No placement can help it."
        )
    here = curve[entry.position - 1]
    where = (
        f"your measured curve of {model} reads {here:.1f}% (at that relative depth of its points)"
        if measured
        else accuracy_phrase(model, n, here)
    )
    return (
        f"The document that holds the answer ({name}, rank {entry.relevance_rank}) is at pos "
        f"{entry.position} of {n}, where {where}."
    )


def placement_verdict(
    ctx: LabContext,
    entry: DocTrace,
    n: int,
    curve: Sequence[float],
    model: str,
    what: str,
    *,
    evidence: CurveEvidence | None = None,
) -> ReorderVerdict | None:
    """Return what the placement does for ``entry``: from relevance order to its position, read off ``curve``.

    In relevance order (placement "relevance") it says what the lost-in-the-middle reorder would do.
    ``evidence`` (a measured curve's tests) decides whether the move can be called a help or a
    harm: only when the test of the measured positions it reads resolves them (``move_undecided``).
    """
    relevance_pos = relevance_position(ctx.result, entry)
    if relevance_pos is None or entry.position is None:
        return None
    placement = ctx.config.placement
    if placement == "relevance":
        after = ordering_positions("lost_in_the_middle", n).index(relevance_pos - 1) + 1
        return reorder_verdict(
            curve,
            relevance_pos,
            after,
            model,
            what=what,
            reorder="the lost-in-the-middle reorder",
            would=True,
            undecided=_undecided(evidence, n, relevance_pos, after),
        )
    name = "the reorder" if placement == "lost_in_the_middle" else "this placement"
    return reorder_verdict(
        curve,
        relevance_pos,
        entry.position,
        model,
        what=what,
        reorder=name,
        undecided=_undecided(evidence, n, relevance_pos, entry.position),
    )


def _undecided(evidence: CurveEvidence | None, n: int, before: int, after: int) -> str | None:
    return None if evidence is None else move_undecided(evidence, n, before, after)


#: The option of the curve picker that reads the measured curve the lab holds (``curve_store``).
MEASURED = "measured"


@dataclass(frozen=True)
class _Curve:
    """The curve Placement reads: its model in its data, how the page names it, its values and band."""

    model: str
    data: PositionData | None  # None: the published curves
    shown: BlockCurve
    #: A measured curve's tests (None: the published curves, N = 2,655 a point).
    evidence: CurveEvidence | None = None


def _curve(choice: str, n: int) -> _Curve:
    if choice != MEASURED:
        return _Curve(choice, None, block_curve(n, choice))
    _, data = loaded_curve()
    return _Curve(data.models()[0], data, block_curve(n, measured=data), measured_points(data).evidence)


def _curve_picker(models: list[str]) -> None:
    _, data = loaded_curve()
    st.selectbox(
        "Accuracy measured on",
        [*models, MEASURED],
        key="placement_model",
        format_func=lambda m: f"your curve: {measured_label(data)}" if m == MEASURED else m,
        help="A published curve (Liu et al., 2,655 questions a point), or the measured curve the lab "
        "holds (the bundled model's, or the file loaded under \"Your model's curve\").",
    )


#: The chart's height before a projector's enlargement: shorter in presentation mode, so the whole
#: chart fits the first screen at 1280×720 under the presenter's bar, the story and the view switch.
CHART_HEIGHT = {False: 540, True: 280}


def render(ctx: LabContext) -> None:
    """Draw final position against relevance rank with the measured accuracy curve above it.

    In presentation mode the chart comes first (the curve's model is picked below it).
    """
    result = ctx.result
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position or 0)
    n = len(placed)
    intro = (
        "Language models read the start and the end of a long context best and miss facts in the "
        "middle (Liu et al., *Lost in the Middle*). The top panel is their measured answer accuracy "
        "by position; below, this block's documents: the most relevant should sit where the curve is high."
    )
    models = sorted(published.curve_models(), key=lambda m: (not m.startswith("GPT-3.5-Turbo"), m))
    if not ctx.presentation:
        explain(intro)
        _curve_picker(models)
    chosen = _curve(st.session_state.get("placement_model") or models[0], max(n, 1))
    curve = chosen.shown.values if n else None
    show_chart(
        ctx,
        "placement_chart",
        placement_chart,
        result,
        curve,
        curve_label=chosen.shown.name,
        middle=middle_zone(n),
        answer=ctx.answer,
        height=CHART_HEIGHT[ctx.presentation],
        band=chosen.shown.band if n else None,
    )
    if ctx.presentation:
        _curve_picker(models)
    if ctx.config.placement == "relevance":
        st.caption("Lost-in-the-middle reorder is off: documents sit in relevance order (the grey line).")
    elif ctx.config.placement != "lost_in_the_middle":
        st.caption(md_line(f"Placement: {STRATEGY_LABELS.get(ctx.config.placement, ctx.config.placement)}."))
    elif n < 4:
        st.caption("Three documents or fewer stay in relevance order.")
    stale_notes(ctx)
    if n and curve is not None:
        _headline(ctx, placed, chosen)
        if chosen.data is None:
            _count_note(chosen.model, n, curve)
        _strategies(ctx, placed, chosen)
    if ctx.presentation:
        explain(intro)
    st.caption("Curve: " + md_line(published.CITATION))
    measured_curve_section(ctx, "placement")


def _headline(ctx: LabContext, placed: list[DocTrace], chosen: _Curve) -> None:
    n = len(placed)
    relevances = [max(t.score, 0.0) for t in placed]
    report = ordering_report(relevances, chosen.model, data=chosen.data)
    by_strategy = compare_orderings(sorted(relevances, reverse=True), chosen.model, data=chosen.data)
    best = min(placed, key=lambda t: t.relevance_rank or 0)
    trace = by_index(ctx)
    answers = [trace[i] for i in ctx.answer if i in trace]
    cols = st.columns(3)
    if answers:
        a = min(answers, key=lambda t: (t.position is None, t.position or 0))
        cols[0].metric(
            "Answer document",
            f"pos {a.position} of {n}" if a.position else "not in block",
            help=md_line(doc_label(a, 80)),
        )
    else:
        cols[0].metric("Most relevant document", f"pos {best.position} of {n}", help=md_line(doc_label(best, 80)))
    cols[1].metric(
        "Placement score of this block",
        score_text(report.score),
        **score_delta(report.score - by_strategy["relevance"], "relevance order"),
        help="Share of relevance (score) placed where the model reads well: "
        "sum(score × accuracy) / (sum(score) × best accuracy).",
    )
    cols[2].metric(
        "Best possible",
        score_text(report.best_score),
        help="The same documents with the most relevant at the most accurate positions.",
    )
    _verdicts(ctx, answers or [best], n, chosen, answered=bool(answers))


def _verdicts(ctx: LabContext, entries: list[DocTrace], n: int, chosen: _Curve, *, answered: bool) -> None:
    """Say where the answer (or the most relevant document) sits and what the placement does for it."""
    lines, helps = [], False
    curve = chosen.shown.values
    for entry in entries:
        if answered:
            lines.append(answer_sentence(entry, n, curve, chosen.model, measured=chosen.data is not None))
        what = "it" if answered else f"the most relevant document ({doc_label(entry, 60)})"
        verdict = placement_verdict(ctx, entry, n, curve, chosen.model, what, evidence=chosen.evidence)
        if verdict is not None:
            lines.append(verdict.text)
            helps = helps or verdict.helps
    if lines:
        st.info(md_line(" ".join(lines) + ("" if helps else " The Learn view opens such a case.")))


def _count_note(model: str, n: int, curve: Sequence[float]) -> None:
    dips = dip_by_count(model)
    low = min(range(n), key=lambda k: curve[k])
    sentence = (
        f"With {n} documents the {model} curve reads {curve[0]:.1f}% at pos 1, "
        f"{curve[-1]:.1f}% at pos {n} and {curve[low]:.1f}% at its lowest (pos {low + 1}). "
    )
    sentence += (
        "How much the middle loses depends on how many documents the prompt holds; the "
        "published dip below the better end is "
        + ", ".join(f"{d:.1f} points with {c}" for c, d in sorted(dips.items()))
        + " documents"
    )
    if n < min(dips):
        sentence += f" ({n} is below the smallest count measured, so the {min(dips)}-document curve is used)"
    st.caption(md_line(sentence + ". The Learn view shows the curves side by side."))


def _strategies(ctx: LabContext, placed: list[DocTrace], chosen: _Curve) -> None:
    # Drawn when opened: a table in a closed section still costs the first visit its drawing.
    section = on_request("Placement strategies compared on these documents", "placement_strategies_open")
    if section is None:
        return
    relevances = sorted((max(t.score, 0.0) for t in placed), reverse=True)
    by_strategy = compare_orderings(relevances, chosen.model, data=chosen.data)
    with section:
        show_table(
            ctx,
            pd.DataFrame(
                {
                    "strategy": [STRATEGY_LABELS.get(k, k) for k in by_strategy],
                    "placement score": [score_text(v) for v in by_strategy.values()],
                }
            ),
            key="placement_strategies",
            hide_index=True,
            width="stretch",
        )
        st.caption(md_line(published.INTERPOLATION_METHOD))
