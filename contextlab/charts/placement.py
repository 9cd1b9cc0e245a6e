"""The Placement view's figure: where each document sits in the block, under the accuracy curve.

Positions and ranks are the engine's trace; user text reaches plotly only through ``style.label``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from contextlab.types import ContextResult, DocTrace

from .style import ANSWER_COLOR, CURVE_COLOR, FATE_COLORS, FATE_LABELS, add_band, doc_label, doc_tag, label, layout

__all__ = ["placement_chart", "tick_step"]


def placement_chart(
    result: ContextResult,
    curve: Sequence[float] | None = None,
    *,
    curve_label: str = "",
    middle: tuple[float, float] | None = None,
    answer: Collection[int] = (),
    height: int = 540,
    band: tuple[Sequence[float], Sequence[float]] | None = None,
) -> go.Figure:
    """Return two panels over the block's positions: the accuracy curve, and the documents.

    Top: ``curve[k]``, the measured accuracy (%) when the answer sits at position ``k + 1``,
    on a 0-100 axis. Bottom: each document at its position (x) and relevance rank (y); the
    documents whose input index is in ``answer`` are ringed. ``middle`` = (first, last)
    positions shaded as the low-attention zone. ``band`` = (low, high) per position: a measured
    curve's 95% interval, drawn around it.
    """
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position or 0)
    n = len(placed)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.36, 0.64], vertical_spacing=0.1)
    if curve is not None and len(curve) and band is not None:
        add_band(fig, list(range(1, len(curve) + 1)), band, row=1, col=1)
    if curve is not None and len(curve):
        fig.add_trace(
            go.Scatter(
                x=list(range(1, len(curve) + 1)),
                y=list(curve),
                mode="lines+markers",
                line=dict(color=CURVE_COLOR, width=3),
                marker=dict(size=6),
                name=label(f"accuracy{': ' + curve_label if curve_label else ' by position'}"),
                legendrank=1,
                hovertemplate="pos %{x}: %{y:.1f}% of answers correct<extra></extra>",
            ),
            row=1,
            col=1,
        )
    if n:
        _placement_dots(fig, placed, set(answer))
    if middle is not None and n:
        fig.add_vrect(
            x0=middle[0] - 0.5,
            x1=middle[1] + 0.5,
            fillcolor="#ffe0b2",
            opacity=0.35,
            line_width=0,
            layer="below",
            row="all",
            col=1,
            exclude_empty_subplots=False,
        )
    fig.update_xaxes(title="position in the block (pos 1 = first)", row=2, col=1)
    fig.update_xaxes(dtick=1 if n <= 30 else None, range=[0.5, max(n, 1) + 0.5])
    fig.update_yaxes(title="accuracy (%)", range=[0, 100], ticksuffix="%", row=1, col=1)
    deepest = max((t.relevance_rank or 1 for t in placed), default=1)
    # At most about ten rank labels, so 27 ranks do not crowd each other (rank 1 always labelled).
    fig.update_yaxes(
        title="relevance rank",
        range=[deepest + 0.7, 0.3],
        tick0=1,
        dtick=tick_step(deepest),
        zeroline=False,
        row=2,
        col=1,
    )
    title = "Where each document sits (rank 1 = most relevant)"
    if middle is not None and n:
        title += "; shaded: the middle, read least"
    return layout(fig, title, height=height)


def tick_step(count: int, most: int = 10) -> int:
    """Return the step between axis labels (1, 2, 5, 10, 20, 50, …) that labels at most ``most`` of ``count``."""
    step, factors = 1, (2, 2.5, 2)
    k = 0
    while count / step > most:
        step = int(step * factors[k % 3])
        k += 1
    return step


#: How the placement chart names each fate a document in the block can have (its legend).
_IN_BLOCK_NAMES = {
    "included": "document, whole",
    "truncated": "document, cut to fit",
    "summarized": "document, summarized",
}


def _placement_dots(fig: go.Figure, placed: Sequence[DocTrace], answer: set[int]) -> None:
    n = len(placed)
    ranks = sorted(t.relevance_rank or 0 for t in placed)
    fig.add_trace(
        go.Scatter(
            x=list(range(1, n + 1)),
            y=ranks,
            mode="lines",
            line=dict(color="#b0bec5", dash="dot", width=2),
            name="relevance order",
            hoverinfo="skip",
        ),
        row=2,
        col=1,
    )
    # One trace per fate, so the legend names every colour a dot can have (a cut one is orange).
    for fate, name in _IN_BLOCK_NAMES.items():
        group = [t for t in placed if t.fate == fate]
        if not group:
            continue
        fig.add_trace(
            go.Scatter(
                x=[t.position for t in group],
                y=[t.relevance_rank for t in group],
                mode="markers+text" if n <= 25 else "markers",
                text=[doc_tag(t.input_index) for t in group],
                textposition="top center",
                # rank 1 sits at the top of the panel: its label may reach into the gap above
                cliponaxis=False,
                marker=dict(size=14 if n <= 25 else 8, color=FATE_COLORS[fate], line=dict(color="white", width=1)),
                customdata=[[label(doc_label(t, 60)), FATE_LABELS[t.fate].lower()] for t in group],
                hovertemplate="pos %{x} · rank %{y}<br>%{customdata[0]} (%{customdata[1]})<extra></extra>",
                name=name,
            ),
            row=2,
            col=1,
        )
    ringed = [t for t in placed if t.input_index in answer]
    if ringed:
        fig.add_trace(
            go.Scatter(
                x=[t.position for t in ringed],
                y=[t.relevance_rank for t in ringed],
                mode="markers",
                marker=dict(size=26, color="rgba(0,0,0,0)", line=dict(color=ANSWER_COLOR, width=3)),
                name="holds the answer",
                hoverinfo="skip",
                cliponaxis=False,
            ),
            row=2,
            col=1,
        )
