"""The Duplicates view's figures: pairwise similarity as a heatmap, and its spread against the threshold.

The similarities are the dedup measure's, computed by the caller; user text (sources) reaches
plotly only through ``style.label``.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .style import BUDGET_COLOR, FATE_COLORS, label, layout

__all__ = ["CELL_TEXT_FLOOR", "similarity_heatmap", "similarity_histogram"]


#: The heatmap writes a pair's similarity in its cell from this value up (the hover shows any).
CELL_TEXT_FLOOR = 0.2


def similarity_heatmap(
    matrix: Sequence[Sequence[float]],
    labels: Sequence[str],
    threshold: float,
    *,
    full_labels: Sequence[str] | None = None,
    measure_name: str = "Shingle similarity",
) -> go.Figure:
    """Return a heatmap of pairwise similarity: each pair once, its value written in the cell.

    ``measure_name`` names the dedup measure the matrix holds (the title says it).

    ``labels`` are the short tick labels, ``full_labels`` (default: the same) what the hover
    shows; both are plain text. Cells at or above ``threshold`` are outlined. Similarity is
    symmetric, so only the lower triangle (row below column) is drawn: every pair once, and
    half the cell texts for the browser to lay out.
    """
    n = len(labels)
    ticks = [label(t) for t in labels]
    # The cells sit on the full labels (what the hover names); the axes show the short ones.
    full = [label(t) for t in (full_labels or labels)]
    # Values are written where they tell something (from CELL_TEXT_FLOOR up); the hover gives
    # every cell's. Fewer cell texts also draw faster: the browser measures each one.
    text = [
        ["" if j >= i or v < CELL_TEXT_FLOOR else f"{v:.2f}" for j, v in enumerate(row)] for i, row in enumerate(matrix)
    ]
    fig = go.Figure(
        go.Heatmap(
            # The diagonal (a document against itself) and the mirror half are left blank.
            z=[[None if j >= i else v for j, v in enumerate(row)] for i, row in enumerate(matrix)],
            x=full,
            y=full,
            zmin=0,
            zmax=1,
            colorscale=[[0, "#f7f9fc"], [0.3, "#9ecae1"], [0.7, "#3182bd"], [1, "#08306b"]],
            colorbar=dict(title="similarity", thickness=12),
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=11 if n <= 15 else 9),
            hovertemplate="%{y}<br>%{x}<br>similarity %{z:.2f}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    # One layout update for every outline: add_shape per cell is quadratic in the shapes.
    fig.update_layout(
        shapes=[
            dict(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5, line=dict(color=BUDGET_COLOR, width=2))
            for i in range(n)
            for j in range(i)
            if matrix[i][j] >= threshold
        ]
    )
    every = dict(type="category", tickmode="array", tickvals=full, ticktext=ticks)  # no label skipped
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=12), **every)
    fig.update_xaxes(tickangle=-50, tickfont=dict(size=12), **every)
    side = max(480, min(820, 26 * n + 260))
    return layout(
        fig,
        f"{label(measure_name)} (red boxes: ≥ threshold {threshold:.2f}; values from {CELL_TEXT_FLOOR:.1f} written)",
        height=side,
    )


def similarity_histogram(
    similarities: Sequence[float],
    threshold: float,
    *,
    bins: int = 50,
    axis_title: str = "shingle similarity (Jaccard of 5-word phrases)",
) -> go.Figure:
    """Return a histogram of pair similarities with the threshold line and what it catches
    (``axis_title`` names the measure)."""
    width = 1.0 / bins
    counts = [0] * bins
    for s in similarities:
        counts[min(int(s / width), bins - 1)] += 1
    centers = [(k + 0.5) * width for k in range(bins)]
    caught = sum(1 for s in similarities if s >= threshold)
    colors = [FATE_COLORS["duplicate"] if c + width / 2 > threshold else "#90a4ae" for c in centers]
    fig = go.Figure(
        go.Bar(
            x=centers,
            y=counts,
            width=width * 0.95,
            marker_color=colors,
            hovertemplate="similarity %{x:.2f}: %{y} pairs<extra></extra>",
            name="pairs",
        )
    )
    fig.add_vline(
        x=threshold,
        line=dict(color=BUDGET_COLOR, width=2, dash="dash"),
        annotation_text=f"threshold {threshold:.2f}: {caught} pair{'s' if caught != 1 else ''} at or above",
        annotation_position="top left" if threshold > 0.5 else "top right",
    )
    fig.update_xaxes(title=label(axis_title), range=[0, 1.02])
    fig.update_yaxes(title="pairs of documents", rangemode="tozero")
    fig.update_layout(showlegend=False, bargap=0)
    return layout(fig, "How similar are the pairs?", height=360)
