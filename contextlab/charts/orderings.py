"""Figures of placement orders: where each strategy puts each rank, how they score under a curve, and
lost in the middle built one step at a time (the Compare and Learn views).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import ANSWER_COLOR, BUDGET_COLOR, CURVE_COLOR, label, layout

__all__ = [
    "STRATEGY_LABELS",
    "strategy_positions_figure",
    "ordering_scores_figure",
    "ordering_rows_figure",
    "reorder_step_figure",
]


#: How each placement strategy of ``contextlab.curves.published.ORDERINGS`` is named in the lab.
STRATEGY_LABELS: dict[str, str] = {
    "lost_in_the_middle": "contextlab (lost in the middle)",
    "relevance": "Relevance order (no reordering)",
    "reversed": "Reversed (best last)",
    "langchain": "LangChain LongContextReorder",
    "llamaindex": "LlamaIndex LongContextReorder",
    "curve": "Curve (best-read position first)",
}

_FILLED = "#74a3e8"
_EMPTY = "#e9ecef"
_NEWEST = "#f08c00"


def strategy_positions_figure(
    orders: Mapping[str, Sequence[int]], labels: Mapping[str, str] | None = None
) -> go.Figure:
    """Return a grid: one row per strategy, one cell per block position, the rank placed there.

    ``orders`` maps a strategy key to the 0-based relevance ranks in block order. The cell of
    the most relevant document (rank 1) is outlined so where each strategy puts it stands out.
    """
    labels = dict(labels or {})
    keys = list(orders)
    n = max((len(o) for o in orders.values()), default=0)
    z, text = [], []
    for key in keys:
        ranks = list(orders[key])
        z.append([r + 1 for r in ranks] + [None] * (n - len(ranks)))
        text.append([str(r + 1) for r in ranks] + [""] * (n - len(ranks)))
    rows = [labels.get(k, k) for k in keys]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(1, n + 1)),
            y=rows,
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            reversescale=True,
            showscale=False,
            xgap=2,
            ygap=2,
            hovertemplate="%{y}<br>pos %{x}: rank %{z}<extra></extra>",
        )
    )
    for row, key in enumerate(keys):
        ranks = list(orders[key])
        if 0 in ranks:
            col = ranks.index(0) + 1
            fig.add_shape(
                type="rect",
                x0=col - 0.5,
                x1=col + 0.5,
                y0=row - 0.5,
                y1=row + 0.5,
                line=dict(color=BUDGET_COLOR, width=3),
            )
    fig.update_xaxes(
        title="position in the block (pos 1 = first); each cell: the rank placed there", dtick=1, side="top"
    )
    fig.update_yaxes(autorange="reversed")
    return layout(fig, "", height=90 + 48 * max(len(keys), 1))


def ordering_scores_figure(
    scores: Mapping[str, float],
    bounds: tuple[float, float],
    labels: Mapping[str, str] | None = None,
    title: str = "Each ordering between the worst and the best placement",
) -> go.Figure:
    """Return one bar per strategy: how far its score gets from the worst to the best placement.

    ``scores`` are ordering scores (shares in [0, 1]); ``bounds`` = (worst, best) possible
    scores of the same documents. A bar's length is ``(score - worst) / (best - worst)`` (the
    axis says so: it shows differences, not the score); its label is the score itself.
    """
    labels = dict(labels or {})
    worst, best = bounds
    span = best - worst
    items = sorted(scores.items(), key=lambda kv: kv[1])
    relative = [(v - worst) / span if span > 0 else 1.0 for _, v in items]
    fig = go.Figure(
        go.Bar(
            x=relative,
            y=[labels.get(k, k) for k, _ in items],
            orientation="h",
            text=[f"{v:.1%}" for _, v in items],
            textposition="outside",
            marker_color=_FILLED,
            customdata=[v for _, v in items],
            hovertemplate="%{y}: score %{customdata:.2%}, %{x:.0%} of the way to the best<extra></extra>",
        )
    )
    fig.update_xaxes(
        range=[0, 1.18],
        tickvals=[0, 0.5, 1],
        ticktext=[f"worst possible ({worst:.1%})", "halfway", f"best possible ({best:.1%})"],
        title="bar length: the way from the worst to the best placement",
    )
    return layout(fig, title, height=140 + 40 * max(len(items), 1))


def ordering_rows_figure(
    positions: Sequence[int],
    relevances: Sequence[float],
    accuracies: Sequence[float],
    labels: Sequence[str] | None = None,
) -> go.Figure:
    """Return two panels over the positions: the model's accuracy there, and the relevance placed."""
    names = [label(t) for t in labels] if labels is not None else [f"pos {p}" for p in positions]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.4, 0.6], vertical_spacing=0.1)
    fig.add_trace(
        go.Scatter(
            x=list(positions),
            y=list(accuracies),
            mode="lines+markers",
            name="accuracy at this position",
            line=dict(color=CURVE_COLOR, width=3),
            hovertemplate="pos %{x}: %{y:.1f}% correct<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=list(positions),
            y=list(relevances),
            name="relevance of the document there",
            marker_color=_FILLED,
            customdata=names,
            hovertemplate="pos %{x}: %{customdata}<br>relevance %{y:.2f}<extra></extra>",
        ),
        row=2,
        col=1,
    )
    fig.update_yaxes(title="accuracy (%)", range=[0, 100], ticksuffix="%", row=1, col=1)
    fig.update_yaxes(title="relevance", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(dtick=1)
    fig.update_xaxes(title="position in the block", row=2, col=1)
    return layout(fig, "Relevance placed at each position, and how well the model reads it", height=460)


def reorder_step_figure(
    block_ranks: Sequence[int],
    step: int,
    labels: Sequence[str] | None = None,
    curve: Sequence[float] | None = None,
    answer_ranks: Collection[int] = (),
    *,
    rank_names: Sequence[int] | None = None,
    curve_name: str = "measured accuracy at this position",
) -> go.Figure:
    """Return the block as positions after ``step`` documents have been placed.

    ``block_ranks`` holds the 0-based relevance rank at each position of the finished block;
    a position is filled once its rank is below ``step``. ``labels`` names documents by rank
    (plain text); ``curve`` (accuracy % per position) is drawn in its own panel above;
    documents whose 0-based rank is in ``answer_ranks`` are outlined as holding the answer.
    ``rank_names[r]`` is the relevance rank the engine gave the document of 0-based rank ``r``
    (shown on its bar; default ``r + 1``), so the chart says "rank 13" where the trace does.
    ``curve_name`` names the curve, e.g. "… (interpolated from the published points)".
    """
    n = len(block_ranks)
    names = [label(t) for t in labels] if labels is not None else [f"rank {r + 1}" for r in range(n)]
    filled = [rank < step for rank in block_ranks]
    colors = [
        _NEWEST if r == step - 1 else (_FILLED if f else _EMPTY) for r, f in zip(block_ranks, filled, strict=False)
    ]
    edges = [
        ANSWER_COLOR if (r in answer_ranks and f) else "rgba(0,0,0,0)"
        for r, f in zip(block_ranks, filled, strict=False)
    ]
    rows = 2 if curve is not None else 1
    fig = make_subplots(
        rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.12, row_heights=[0.4, 0.6] if rows == 2 else [1.0]
    )
    if curve is not None:
        fig.add_trace(
            go.Scatter(
                x=list(range(1, n + 1)),
                y=list(curve),
                mode="lines+markers",
                name=label(curve_name),
                line=dict(color=CURVE_COLOR, width=3),
                hovertemplate="pos %{x}: %{y:.1f}% correct<extra></extra>",
            ),
            row=1,
            col=1,
        )
        fig.update_yaxes(title="accuracy (%)", range=[0, 100], ticksuffix="%", row=1, col=1)
    fig.add_trace(
        go.Bar(
            x=list(range(1, n + 1)),
            y=[n - r if f else 0.25 for r, f in zip(block_ranks, filled, strict=False)],
            marker=dict(color=colors, line=dict(color=edges, width=4)),
            name="document (taller = more relevant)",
            text=[
                f"rank {rank_names[r] if rank_names is not None else r + 1}" if f else ""
                for r, f in zip(block_ranks, filled, strict=False)
            ],
            textposition="inside",
            insidetextanchor="end",
            customdata=[names[r] if f else "empty" for r, f in zip(block_ranks, filled, strict=False)],
            hovertemplate="pos %{x}: %{customdata}<extra></extra>",
        ),
        row=rows,
        col=1,
    )
    fig.update_xaxes(dtick=1, range=[0.4, n + 0.6])
    fig.update_xaxes(title="position in the block (pos 1 = first, read first)", row=rows, col=1)
    fig.update_yaxes(title="relevance", showticklabels=False, range=[0, n + 0.5], row=rows, col=1)
    return layout(fig, f"Step {step} of {n}: {min(step, n)} placed", height=460 if rows == 2 else 360)
