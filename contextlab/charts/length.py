"""The Budget view's length curve: accuracy against context tokens, 95% intervals, the budget marked."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from ..evaluation.experiments.length_file import LengthPoint
from .style import BUDGET_COLOR, CURVE_COLOR, layout

__all__ = ["length_curve_figure"]


def length_curve_figure(points: Sequence[LengthPoint], budget: int) -> go.Figure:
    """Return accuracy (percent) against context tokens, each point with its 95% interval, and the budget's line.

    Nothing the user wrote is drawn: the axes, the numbers and the budget are the lab's own text.
    """
    fig = go.Figure(
        go.Scatter(
            x=[p.context_tokens for p in points],
            y=[p.accuracy for p in points],
            mode="lines+markers",
            name="accuracy",
            line=dict(color=CURVE_COLOR),
            error_y=dict(
                type="data",
                symmetric=False,
                array=[p.high - p.accuracy for p in points],
                arrayminus=[p.accuracy - p.low for p in points],
            ),
            customdata=[[p.questions, p.low, p.high] for p in points],
            hovertemplate=(
                "%{x:,} tokens: %{y:.0f}% right (95%: %{customdata[1]:.0f}–%{customdata[2]:.0f}%, "
                "%{customdata[0]} questions)<extra></extra>"
            ),
        )
    )
    fig.add_vline(
        x=budget,
        line=dict(color=BUDGET_COLOR, dash="dash"),
        annotation_text=f"budget {budget:,}",
        annotation_position="top",
    )
    layout(fig, "Accuracy against context length", height=360)
    fig.update_xaxes(title_text="context tokens")
    fig.update_yaxes(title_text="accuracy (%)", range=[0, 100])
    fig.update_layout(showlegend=False)
    return fig
