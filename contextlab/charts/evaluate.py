"""Figures of an evaluation run: tokens vs expected accuracy, two settings as a heatmap, gold zones.

Pure functions: summaries or shares in (from ``contextlab.evaluation``), ``go.Figure`` out. Every
configuration label and setting value is user-influenced text and goes through ``label``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from contextlab.validation import bool_text

from .style import FATE_COLORS, label, layout

__all__ = [
    "tokens_accuracy_figure",
    "settings_heatmap_figure",
    "gold_zones_figure",
    "color_range",
    "ZONE_COLORS",
    "ESTIMATE_NOTE",
    "MIN_COLOR_SPAN",
]

#: One colour per zone of the block; "not in block" takes the engine's over-budget grey.
ZONE_COLORS: dict[str, str] = {
    "first": "#2e7d32",
    "middle": "#ef8f00",
    "last": "#1565c0",
    "not in block": FATE_COLORS["excluded"],
}
#: Said under every expected-accuracy axis: what the number is, and whose it is.
ESTIMATE_NOTE = "estimate from the published curve (Liu et al., TACL 2024)"
_FRONT_COLOR = "#d32f2f"


def tokens_accuracy_figure(
    summaries: Sequence[Mapping[str, Any]], front: Sequence[str], *, model: str = ""
) -> go.Figure:
    """Return mean tokens (x) against mean expected accuracy (y) per configuration, with the Pareto front.

    Error bars are the 95% bootstrap intervals; the front joins the configurations no other
    beats on both (fewer tokens and higher expected accuracy).
    """
    fig = go.Figure()
    points = [s for s in summaries if s.get("expected_accuracy") is not None]
    on_front = set(front)
    for group, name, color, size in (
        ([s for s in points if s["config"] not in on_front], "other configurations", "#9e9e9e", 9),
        ([s for s in points if s["config"] in on_front], "Pareto front", _FRONT_COLOR, 12),
    ):
        if not group:
            continue
        fig.add_trace(
            go.Scatter(
                x=[s["tokens_used"] for s in group],
                y=[s["expected_accuracy"] for s in group],
                mode="markers",
                name=name,
                marker=dict(color=color, size=size),
                error_y=dict(
                    type="data",
                    symmetric=False,
                    thickness=1,
                    width=3,
                    array=[s["expected_accuracy_high"] - s["expected_accuracy"] for s in group],
                    arrayminus=[s["expected_accuracy"] - s["expected_accuracy_low"] for s in group],
                ),
                text=[label(s["config"]) for s in group],
                customdata=[[s["gold_in_block"] * 100 if s["gold_in_block"] is not None else None] for s in group],
                hovertemplate="%{text}<br>%{x:.0f} tokens<br>expected accuracy %{y:.1f}%"
                "<br>gold in block %{customdata[0]:.1f}%<extra></extra>",
            )
        )
    by_name = {s["config"]: s for s in points}
    line = [by_name[n] for n in front if n in by_name]
    if len(line) > 1:
        fig.add_trace(
            go.Scatter(
                x=[s["tokens_used"] for s in line],
                y=[s["expected_accuracy"] for s in line],
                mode="lines",
                line=dict(color=_FRONT_COLOR, dash="dot"),
                showlegend=False,
                hoverinfo="skip",
            )
        )
    who = f", {label(model)}" if model else ""
    fig.update_xaxes(title_text="mean tokens in the block")
    fig.update_yaxes(title_text=f"expected accuracy % (estimate{who})")
    return layout(fig, f"Tokens vs expected accuracy (95% intervals) — {ESTIMATE_NOTE}")


#: The narrowest colour scale a heatmap of percentages gets, in points: a 1.4-point spread then
#: shows as the pale band it is, not as the full range from white to dark blue.
MIN_COLOR_SPAN = 10.0


def color_range(
    values: Sequence[float], *, percent_scale: bool, min_span: float = MIN_COLOR_SPAN
) -> tuple[float, float]:
    """Return ``(low, high)`` of a heatmap's colour scale: the values' range, widened to ``min_span`` if narrower.

    Widened around the values' midpoint, and kept within 0-100 on a percentage scale. Values
    that are not percentages (tokens) keep their own range.
    """
    lo, hi = min(values), max(values)
    if not percent_scale or hi - lo >= min_span:
        return (lo, hi)
    low = max(0.0, (lo + hi) / 2 - min_span / 2)
    high = min(100.0, low + min_span)
    return (high - min_span, high) if high - low < min_span else (low, high)


def settings_heatmap_figure(
    xs: Sequence[Any], ys: Sequence[Any], cells: Sequence[Sequence[float | None]], x_key: str, y_key: str, metric: str
) -> go.Figure:
    """Return a heatmap of ``metric`` over two settings (cells from ``setting_table``), values written in.

    The colour bar and the title state the colour scale's range and the cells' spread: a
    percentage scale spans at least ``MIN_COLOR_SPAN`` points, so small differences look small.
    """
    # Rates are fractions in the summaries (shown x100); measured accuracy is already a percent.
    fraction = metric in ("gold_retrieved", "gold_in_block", "answer_in_block", "gold_recall", "gold_via_copy")
    percent = fraction or metric == "accuracy"
    z = [[None if v is None else (v * 100 if fraction else v) for v in row] for row in cells]
    text = [["" if v is None else f"{v:.1f}" for v in row] for row in z]
    present = [v for row in z for v in row if v is not None]
    unit = " points" if percent or metric == "expected_accuracy" else ""
    scale = ""
    zmin = zmax = None
    if present:
        zmin, zmax = color_range(present, percent_scale=bool(unit))
        spread = max(present) - min(present)
        scale = (
            f" — cells {min(present):.1f} to {max(present):.1f} (spread {spread:.1f}{unit}); "
            f"colour scale {zmin:.1f} to {zmax:.1f}"
        )
    fig = go.Figure(
        go.Heatmap(
            x=[label(bool_text(x)) for x in xs],
            y=[label(bool_text(y)) for y in ys],
            z=z,
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=zmin,
            zmax=zmax,
            colorbar=dict(
                title=dict(text=("%" if percent else "") + (f"<br>{zmin:.1f}–{zmax:.1f}" if present else ""))
            ),
            hovertemplate=(
                f"{label(x_key)}=%{{x}}<br>{label(y_key)}=%{{y}}<br>{label(metric)}: %{{text}}<extra></extra>"
            ),
        )
    )
    fig.update_xaxes(title_text=label(x_key), type="category")
    fig.update_yaxes(title_text=label(y_key), type="category")
    # The title names what is shown; the estimate's source and the colour scale go on a second line
    # (one line of both was wider than the chart, and cut).
    note = "; ".join(
        part for part in (ESTIMATE_NOTE if metric == "expected_accuracy" else "", scale.lstrip(" —")) if part
    )
    fig = layout(fig, f"{label(metric)} by {label(x_key)} and {label(y_key)}")
    if note:
        fig.update_layout(title_subtitle_text=note, title_subtitle_font_size=12, margin_t=88)
    return fig


def gold_zones_figure(shares: Mapping[Any, Mapping[str, float]], by: str, pooled: str = "") -> go.Figure:
    """Return stacked bars: per value of ``by``, the share of gold documents first, middle, last or out.

    ``pooled`` says which other settings each bar pools (``"budgets 256, 512"``); the title says it.
    """
    keys = list(shares)
    fig = go.Figure()
    for zone, color in ZONE_COLORS.items():
        fig.add_trace(
            go.Bar(
                x=[label(bool_text(k)) for k in keys],
                y=[shares[k].get(zone, 0.0) * 100 for k in keys],
                name=zone,
                marker_color=color,
                hovertemplate=f"%{{x}}<br>{zone}: %{{y:.1f}}%<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(title_text=label(by), type="category")
    fig.update_yaxes(title_text="% of questions whose gold was retrieved", range=[0, 100])
    over = f" — pooled over {label(pooled)}" if pooled else ""
    return layout(fig, f"Where the gold document sits in the block, by {label(by)}{over}")
