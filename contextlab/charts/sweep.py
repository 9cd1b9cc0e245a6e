"""The figure of a parameter sweep: what each (threshold, budget) pair kept, as heatmaps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import layout

__all__ = ["sweep_figure"]


def sweep_figure(rows: Sequence[Mapping[str, Any]]) -> go.Figure:
    """Return heatmaps of documents included and budget used over dedup threshold x budget.

    ``rows`` are ``contextlab sweep`` rows (``contextlab.lab.sweep``): each has at least
    dedup_threshold, max_context_tokens, in_block, duplicate, truncated, excluded, tokens_used,
    utilization_pct.
    """
    if not rows:
        fig = go.Figure()
        fig.add_annotation(text="No sweep results to show", showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
        fig.update_layout(xaxis_visible=False, yaxis_visible=False)
        return fig

    thresholds = sorted({float(r["dedup_threshold"]) for r in rows})
    budgets = sorted({int(r["max_context_tokens"]) for r in rows})
    cell = {(float(r["dedup_threshold"]), int(r["max_context_tokens"])): r for r in rows}

    def grid(key: str) -> list[list[Any]]:
        return [[cell[(t, b)][key] if (t, b) in cell else None for b in budgets] for t in thresholds]

    hover = [
        [
            (
                f"threshold {t:g}, budget {b}<br>in the block {r['in_block']} ({r['truncated']} "
                f"truncated), duplicates {r['duplicate']}, excluded {r['excluded']}<br>"
                f"{r['tokens_used']} tokens ({r['utilization_pct']}% of budget)"
            )
            if (r := cell.get((t, b))) is not None
            else ""
            for b in budgets
        ]
        for t in thresholds
    ]
    x = [str(b) for b in budgets]
    y = [f"{t:g}" for t in thresholds]
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.14,
        subplot_titles=("Documents in the block", "Budget used (%)"),
    )
    fig.add_trace(
        go.Heatmap(
            z=grid("in_block"),
            x=x,
            y=y,
            text=hover,
            hoverinfo="text",
            colorscale="Blues",
            texttemplate="%{z}",
            colorbar={"title": "docs", "x": 0.43},
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Heatmap(
            z=grid("utilization_pct"),
            x=x,
            y=y,
            text=hover,
            hoverinfo="text",
            colorscale="Greens",
            zmin=0,
            zmax=100,
            texttemplate="%{z:.0f}",
            colorbar={"title": "%", "x": 1.0},
        ),
        row=1,
        col=2,
    )
    for col in (1, 2):
        fig.update_xaxes(title_text="token budget", type="category", row=1, col=col)
        fig.update_yaxes(title_text="dedup threshold", type="category", row=1, col=col)
    return layout(fig, "Parameter sweep", height=480)
