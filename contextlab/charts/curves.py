"""Figures of position curves: accuracy by the answer's position, per model or per document count
(the Learn view and a measured curve).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import CURVE_COLOR, add_band, label, layout

__all__ = ["position_curves_figure", "curves_by_count_figure"]


def position_curves_figure(
    curves: Mapping[str, Sequence[tuple[int, float]]],
    n_docs: int,
    references: Mapping[str, float] | None = None,
    highlight: str | None = None,
    bands: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> go.Figure:
    """Return one accuracy-by-position line per model for ``n_docs`` documents, on 0-100 %.

    ``curves`` maps a model name to its measured ``(position, accuracy %)`` points;
    ``references`` adds dotted horizontal lines (e.g. the closed-book accuracy).
    The ``highlight`` model is drawn thick in the curve colour, the others thin and grey.
    ``bands`` maps a model to the 95% interval (low, high) of each of its points, drawn around it.
    """
    fig = go.Figure()
    for model, points in curves.items():
        pts = sorted(points)
        strong = highlight is None or model == highlight
        if bands and model in bands and strong:
            add_band(fig, [p for p, _ in pts], bands[model], name=f"95% interval: {model}")
        fig.add_trace(
            go.Scatter(
                x=[p for p, _ in pts],
                y=[a for _, a in pts],
                mode="lines+markers",
                name=label(model),
                line=dict(width=4 if strong else 1.5, color=CURVE_COLOR if strong else None),
                opacity=1.0 if strong else 0.45,
                customdata=[label(model)] * len(pts),
                hovertemplate="%{customdata}<br>answer at pos %{x}: %{y:.1f}% correct<extra></extra>",
            )
        )
    for name, value in (references or {}).items():
        fig.add_hline(
            y=value,
            line=dict(dash="dot", color="#6c757d"),
            annotation_text=label(f"{name}: {value:.1f}%"),
            annotation_position="bottom left",
        )
    measured = sorted({p for points in curves.values() for p, _ in points})
    fig.update_xaxes(
        title=f"position of the document holding the answer (of {n_docs})", range=[0.5, n_docs + 0.5], tickvals=measured
    )
    fig.update_yaxes(title="accuracy (%)", range=[0, 100], ticksuffix="%")
    return layout(fig, f"Accuracy by answer position, {n_docs} documents", height=420)


def curves_by_count_figure(
    curves: Mapping[int, Sequence[tuple[int, float]]],
    model: str,
    closed_book: float | None = None,
    bands: Mapping[int, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> go.Figure:
    """Return one panel per document count (side by side, one shared 0-100 % axis) for ``model``.

    ``curves`` maps a document count to its measured ``(position, accuracy %)`` points. Each
    panel marks its lowest point and names the drop from the better end, so how the dip
    depends on the count is read at a glance. ``bands`` maps a count to its points' 95% interval.
    """
    counts = sorted(curves)
    fig = make_subplots(
        rows=1,
        cols=max(len(counts), 1),
        shared_yaxes=True,
        horizontal_spacing=0.04,
        subplot_titles=[f"{n} documents" for n in counts],
    )
    for col, n in enumerate(counts, start=1):
        pts = sorted(curves[n])
        if bands and n in bands:  # each point's 95% interval (the published N: 2,655 questions)
            add_band(fig, [p for p, _ in pts], bands[n], name="95% interval", row=1, col=col)
            fig.data[-1].showlegend = False
        low = min(pts, key=lambda p: p[1])
        ends = max(pts[0][1], pts[-1][1])
        fig.add_trace(
            go.Scatter(
                x=[p for p, _ in pts],
                y=[a for _, a in pts],
                mode="lines+markers",
                showlegend=False,
                line=dict(color=CURVE_COLOR, width=3),
                name=f"{n} documents",
                hovertemplate=f"{n} documents<br>answer at pos %{{x}}: %{{y:.1f}}% correct<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.add_annotation(
            x=low[0],
            y=low[1],
            text=f"{low[1]:.1f}% (−{ends - low[1]:.1f})",
            showarrow=True,
            arrowhead=2,
            ay=34,
            row=1,
            col=col,
        )
        if closed_book is not None:
            fig.add_hline(y=closed_book, line=dict(dash="dot", color="#6c757d"), row=1, col=col)
        fig.update_xaxes(title="answer at pos", tickvals=[p for p, _ in pts], range=[0.5, n + 0.5], row=1, col=col)
    fig.update_yaxes(range=[0, 100], ticksuffix="%")
    fig.update_yaxes(title="accuracy (%)", row=1, col=1)
    # Short enough for a projector at 1280 px: the closed-book line is named in its own note.
    title = label(f"{model}: the dip depends on the document count")
    if closed_book is not None:
        # Above the panels' own titles (on their line it would run into the last one's).
        fig.add_annotation(
            text=f"dotted: {closed_book:.1f}% with no documents",
            xref="paper",
            yref="paper",
            x=1,
            y=1.0,
            xanchor="right",
            yanchor="bottom",
            yshift=24,
            showarrow=False,
            font=dict(size=12),
        )
    return layout(fig, title, height=380)
