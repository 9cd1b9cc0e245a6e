"""The figure of the Chunks view: how many tokens the chunks hold, against the chunk size."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .style import BUDGET_COLOR, FATE_COLORS, layout

__all__ = ["chunk_token_histogram"]


def chunk_token_histogram(tokens: Sequence[int], size: int, *, bins: int = 20) -> go.Figure:
    """Return a histogram of the chunks' token counts, with the chunk size (the hard maximum) as a line."""
    width = max(1, -(-size // bins))  # ceiling: every count from 0 to size falls in a bin
    counts = [0] * (size // width + 1)
    for count in tokens:
        counts[min(count // width, len(counts) - 1)] += 1
    fig = go.Figure(
        go.Bar(
            x=[(k + 0.5) * width for k in range(len(counts))],
            y=counts,
            width=width * 0.95,
            marker_color=FATE_COLORS["included"],
            hovertemplate="%{y} chunks of about %{x:.0f} tokens<extra></extra>",
            name="chunks",
        )
    )
    fig.add_vline(
        x=size,
        line=dict(color=BUDGET_COLOR, width=2, dash="dash"),
        annotation_text=f"chunk size {size}",
        annotation_position="top left",
    )
    fig.update_xaxes(title="tokens in a chunk", range=[0, size * 1.05])
    fig.update_yaxes(title="chunks", rangemode="tozero", dtick=max(1, -(-max(counts) // 5)))  # whole chunks
    fig.update_layout(showlegend=False, bargap=0)
    return layout(fig, "How full are the chunks?", height=300)
