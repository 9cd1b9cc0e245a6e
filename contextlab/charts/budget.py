"""The Budget view's figures: the budget's walk as a staircase, and estimated against exact tokens.

Each document's cost is the engine's trace; user text reaches plotly only through ``style.label``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import plotly.graph_objects as go

from contextlab.types import IN_BLOCK_FATES, ContextResult, DocTrace

from .style import BUDGET_COLOR, FATE_COLORS, FATE_LABELS, doc_label, label, layout, rgba

__all__ = ["budget_chart", "tokenizer_comparison"]


def budget_chart(
    result: ContextResult, walk: Sequence[int] | None = None, *, walk_label: str = "most relevant first"
) -> go.Figure:
    """Return a staircase of the documents the budget considered, in the order it walked them.

    ``walk`` is the input indices in the engine's walk order (by relevance rank when None: the
    default engine's walk; seed-compatible mode walks the block order). Each document in the
    block raises the running total by its block cost (header included when counted); a
    truncated or summarized one shows its kept part and, hatched, what was cut; documents left
    out float grey above the running total, showing how far over their text tokens go.
    """
    considered = {t.input_index: t for t in result.trace if t.fate in (*IN_BLOCK_FATES, "excluded")}
    if walk is None:
        walked = sorted(considered.values(), key=lambda t: (t.relevance_rank or 0, t.input_index))
    else:
        walked = [considered[i] for i in walk if i in considered]
    labels = [label(doc_label(t, 20)) for t in walked]
    series, cut_at = _staircase(walked, labels)
    fig = go.Figure()
    names = {**FATE_LABELS, "cut": "Cut away"}
    for name in ("included", "truncated", "summarized", "cut", "excluded"):
        bars = series.get(name)
        if bars:
            fig.add_trace(
                go.Bar(
                    x=bars.x,
                    y=bars.y,
                    base=bars.base,
                    name=names[name],
                    customdata=bars.text,
                    hovertemplate="%{customdata}<extra></extra>",
                    **_BUDGET_STYLES[name],
                )
            )
    fig.add_hline(
        y=result.tokens_budget,
        line=dict(color=BUDGET_COLOR, width=2, dash="dash"),
        annotation_text=f"budget {result.tokens_budget}",
        annotation_position="top left",
    )
    if cut_at is not None:
        fig.add_vline(x=labels.index(cut_at) - 0.5, line=dict(color="#424242", width=1, dash="dot"))
        fig.add_annotation(
            x=cut_at,
            y=1,
            yref="paper",
            text="first document that did not fit",
            showarrow=False,
            xanchor="left",
            yanchor="bottom",
            font=dict(size=11),
        )
    fig.update_layout(barmode="overlay", bargap=0.15)
    fig.update_xaxes(
        title=f"documents in the budget's walk order: {walk_label}",
        tickangle=-45,
        type="category",
        categoryorder="array",
        categoryarray=labels,
        showticklabels=len(labels) <= 40,
    )
    fig.update_yaxes(title="tokens (running total)", rangemode="tozero")
    return layout(fig, "Filling the token budget", height=460)


_BUDGET_STYLES: dict[str, dict[str, object]] = {
    "included": dict(marker_color=FATE_COLORS["included"]),
    "truncated": dict(marker_color=FATE_COLORS["truncated"]),
    "summarized": dict(marker_color=FATE_COLORS["summarized"]),
    "cut": dict(
        marker=dict(
            color=rgba(FATE_COLORS["truncated"], 0.15),
            line=dict(color=FATE_COLORS["truncated"], width=1),
            pattern=dict(shape="/", fgcolor=FATE_COLORS["truncated"]),
        )
    ),
    "excluded": dict(marker_color=rgba(FATE_COLORS["excluded"], 0.45)),
}


@dataclass
class _Bars:
    """One series of the staircase: each bar's document (x), where it starts, its height, its hover."""

    x: list[str] = field(default_factory=list)
    base: list[int] = field(default_factory=list)
    y: list[int] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


def _staircase(walked: Sequence[DocTrace], labels: Sequence[str]) -> tuple[dict[str, _Bars], str | None]:
    """Return the staircase's bars per series (running total in walk order) and where the cut is."""
    series: dict[str, _Bars] = {}

    def add(name: str, x: str, base: int, height: int, entry: DocTrace, note: str) -> None:
        bars = series.setdefault(name, _Bars())
        bars.x.append(x)
        bars.base.append(base)
        bars.y.append(height)
        bars.text.append(f"{label(doc_label(entry, 60))}<br>rank {entry.relevance_rank}: {note}")

    used = 0
    cut_at: str | None = None
    for tick, t in zip(labels, walked, strict=False):
        if t.fate == "excluded":
            add("excluded", tick, used, t.tokens, t, f"{t.tokens} text tokens, left out")
            cut_at = cut_at or tick
            continue
        cost = t.block_tokens or 0
        add(t.fate, tick, used, cost, t, f"block cost {cost} tokens (text {t.tokens})")
        if t.fate != "included":
            cut_at = cut_at or tick
            cut = max(t.tokens - cost, 0)
            if cut:
                add("cut", tick, used + cost, cut, t, f"~{cut} tokens cut")
        used += cost
    return series, cut_at


def tokenizer_comparison(labels: Sequence[str], heuristic: Sequence[int], exact: Sequence[int]) -> go.Figure:
    """Return a scatter of the word-count estimate against exact cl100k_base counts."""
    top = max([*heuristic, *exact, 1])
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, top],
            y=[0, top],
            mode="lines",
            line=dict(color="#b0bec5", dash="dot"),
            name="estimate = exact",
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=list(heuristic),
            y=list(exact),
            mode="markers",
            customdata=[label(t) for t in labels],
            marker=dict(size=9, color="#5f3dc4", opacity=0.75),
            hovertemplate="%{customdata}<br>estimate %{x}, exact %{y}<extra></extra>",
            name="document",
        )
    )
    fig.update_xaxes(title="heuristic estimate (words × 1.3)", rangemode="tozero")
    fig.update_yaxes(title="exact tokens (cl100k_base)", rangemode="tozero")
    return layout(fig, "Estimated vs exact tokens per document", height=380)
