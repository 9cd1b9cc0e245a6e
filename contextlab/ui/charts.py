"""Plotly figures of one build, as pure functions: engine results in, ``go.Figure`` out.

Nothing here imports streamlit or recomputes what the engine decided; each builder draws the
trace, the duplicate pairs or numbers the caller got from the engine, so every figure is
tested without a browser.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from contextlab.types import ContextResult, DocTrace

__all__ = [
    "FATE_COLORS",
    "FATE_LABELS",
    "doc_label",
    "fate_sankey",
    "similarity_heatmap",
    "similarity_histogram",
    "placement_chart",
    "budget_chart",
    "tokenizer_comparison",
]

#: One colour per fate, used by every figure and table so a fate looks the same everywhere.
FATE_COLORS: dict[str, str] = {
    "included": "#2e7d32",
    "truncated": "#ef8f00",
    "summarized": "#7b1fa2",
    "excluded": "#9e9e9e",
    "duplicate": "#c62828",
    "filtered": "#bdbdbd",
}
FATE_LABELS: dict[str, str] = {
    "included": "Included",
    "truncated": "Truncated",
    "summarized": "Summarized",
    "excluded": "Over budget",
    "duplicate": "Duplicate",
    "filtered": "Too short",
}
_BUDGET_COLOR = "#d32f2f"
_CURVE_COLOR = "#1565c0"
_FONT = dict(family="Inter, 'Source Sans Pro', sans-serif", size=13)


def doc_label(entry: DocTrace, width: int = 28) -> str:
    """Return ``#i source`` for a trace entry, the source shortened to ``width`` characters."""
    source = entry.source or "(no source)"
    if len(source) > width:
        source = "…" + source[-(width - 1):]
    return f"#{entry.input_index} {source}"


def _layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"),
        height=height,
        margin=dict(l=10, r=10, t=60, b=10),
        font=_FONT,
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1),
    )
    return fig


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


# -- overview --------------------------------------------------------------------------------


def fate_sankey(result: ContextResult) -> go.Figure:
    """Return a Sankey of where every input document went: filter, dedup, then the budget."""
    counts = result.fate_counts()
    total = len(result.trace)
    passed = total - counts["filtered"]
    unique = passed - counts["duplicate"]
    nodes = [
        (f"Input: {total}", "#546e7a"),
        (f"{FATE_LABELS['filtered']}: {counts['filtered']}", FATE_COLORS["filtered"]),
        (f"Long enough: {passed}", "#78909c"),
        (f"{FATE_LABELS['duplicate']}: {counts['duplicate']}", FATE_COLORS["duplicate"]),
        (f"Unique: {unique}", "#90a4ae"),
    ]
    final = ["included", "truncated", "summarized", "excluded"]
    for fate in final:
        nodes.append((f"{FATE_LABELS[fate]}: {counts[fate]}", FATE_COLORS[fate]))
    links = [
        (0, 1, counts["filtered"], FATE_COLORS["filtered"]),
        (0, 2, passed, "#78909c"),
        (2, 3, counts["duplicate"], FATE_COLORS["duplicate"]),
        (2, 4, unique, "#90a4ae"),
    ]
    links += [(4, 5 + k, counts[fate], FATE_COLORS[fate]) for k, fate in enumerate(final)]
    links = [link for link in links if link[2] > 0]
    used = sorted({n for s, t, _, _ in links for n in (s, t)}) or [0]
    remap = {old: new for new, old in enumerate(used)}
    fig = go.Figure(
        go.Sankey(
            arrangement="snap",
            node=dict(
                label=[nodes[i][0] for i in used],
                color=[nodes[i][1] for i in used],
                pad=18,
                thickness=18,
                line=dict(width=0),
            ),
            textfont=dict(size=13, color="#263238"),
            link=dict(
                source=[remap[s] for s, _, _, _ in links],
                target=[remap[t] for _, t, _, _ in links],
                value=[v for _, _, v, _ in links],
                color=[_rgba(c, 0.35) for _, _, _, c in links],
                hovertemplate="%{value} documents<extra></extra>",
            ),
        )
    )
    return _layout(fig, "Where every document went", height=380)


# -- duplicates ------------------------------------------------------------------------------


def similarity_heatmap(
    matrix: Sequence[Sequence[float]], labels: Sequence[str], threshold: float
) -> go.Figure:
    """Return a heatmap of pairwise shingle similarity; cells at or above ``threshold`` boxed."""
    n = len(labels)
    text = [[f"{v:.2f}" if i != j and v > 0 else "" for j, v in enumerate(row)] for i, row in enumerate(matrix)]
    fig = go.Figure(
        go.Heatmap(
            # The diagonal (a document against itself) is left blank so the pairs stand out.
            z=[[None if i == j else v for j, v in enumerate(row)] for i, row in enumerate(matrix)],
            x=list(labels),
            y=list(labels),
            zmin=0,
            zmax=1,
            colorscale=[[0, "#f7f9fc"], [0.3, "#9ecae1"], [0.7, "#3182bd"], [1, "#08306b"]],
            colorbar=dict(title="similarity", thickness=12),
            text=text,
            texttemplate="%{text}" if n <= 20 else None,
            hovertemplate="%{y}<br>%{x}<br>similarity %{z:.2f}<extra></extra>",
        )
    )
    # Outline the pairs the threshold calls duplicates, so moving it is predictable.
    for i in range(n):
        for j in range(n):
            if i != j and matrix[i][j] >= threshold:
                fig.add_shape(
                    type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                    line=dict(color=_BUDGET_COLOR, width=2),
                )
    every = dict(tickmode="array", tickvals=list(labels), ticktext=list(labels))  # no label skipped
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=10), scaleanchor="x", constrain="domain", **every)
    fig.update_xaxes(tickangle=-60, tickfont=dict(size=10), constrain="domain", **every)
    side = max(420, min(640, 16 * n + 220))
    return _layout(fig, f"Shingle similarity (red boxes: ≥ threshold {threshold:.2f})", height=side)


def similarity_histogram(similarities: Sequence[float], threshold: float, *, bins: int = 50) -> go.Figure:
    """Return a histogram of pair similarities with the threshold line and what it catches."""
    width = 1.0 / bins
    counts = [0] * bins
    for s in similarities:
        counts[min(int(s / width), bins - 1)] += 1
    centers = [(k + 0.5) * width for k in range(bins)]
    caught = sum(1 for s in similarities if s >= threshold)
    colors = [FATE_COLORS["duplicate"] if c + width / 2 > threshold else "#90a4ae" for c in centers]
    fig = go.Figure(
        go.Bar(
            x=centers, y=counts, width=width * 0.95, marker_color=colors,
            hovertemplate="similarity %{x:.2f}: %{y} pairs<extra></extra>", name="pairs",
        )
    )
    fig.add_vline(
        x=threshold, line=dict(color=_BUDGET_COLOR, width=2, dash="dash"),
        annotation_text=f"threshold {threshold:.2f}: {caught} pair{'s' if caught != 1 else ''} at or above",
        annotation_position="top left" if threshold > 0.5 else "top right",
    )
    fig.update_xaxes(title="shingle similarity (Jaccard of 5-word phrases)", range=[0, 1.02])
    fig.update_yaxes(title="pairs of documents", rangemode="tozero")
    fig.update_layout(showlegend=False, bargap=0)
    return _layout(fig, "How similar are the pairs?", height=360)


# -- placement -------------------------------------------------------------------------------


def placement_chart(
    result: ContextResult,
    curve: Sequence[float] | None = None,
    *,
    curve_label: str = "",
    middle: tuple[float, float] | None = None,
) -> go.Figure:
    """Return final position (x) against relevance rank (y), with an accuracy curve on y2.

    ``curve[k]`` is the accuracy (%) when the answer sits at position ``k + 1``; ``middle``
    the (first, last) positions shaded as the low-attention zone.
    """
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position)
    n = len(placed)
    fig = go.Figure()
    if middle is not None and n:
        fig.add_vrect(
            x0=middle[0] - 0.5, x1=middle[1] + 0.5, fillcolor="#ffe0b2", opacity=0.35, line_width=0,
            annotation_text="middle: least attention", annotation_position="bottom left",
        )
    if n:
        ranks = sorted(t.relevance_rank for t in placed)
        fig.add_trace(
            go.Scatter(
                x=list(range(1, n + 1)), y=ranks, mode="lines",
                line=dict(color="#b0bec5", dash="dot", width=2),
                name="if kept in relevance order", hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=[t.position for t in placed],
                y=[t.relevance_rank for t in placed],
                mode="markers+text" if n <= 25 else "markers",
                text=[f"#{t.input_index}" for t in placed],
                textposition="top center",
                marker=dict(size=14 if n <= 25 else 8, color=[FATE_COLORS[t.fate] for t in placed],
                            line=dict(color="white", width=1)),
                customdata=[[doc_label(t, 40), t.fate] for t in placed],
                hovertemplate="position %{x}, relevance rank %{y}<br>%{customdata[0]} "
                              "(%{customdata[1]})<extra></extra>",
                name="document (rank 1 = most relevant)",
            )
        )
    if curve is not None and len(curve):
        fig.add_trace(
            go.Scatter(
                x=list(range(1, len(curve) + 1)), y=list(curve), yaxis="y2", mode="lines+markers",
                line=dict(color=_CURVE_COLOR, width=3), marker=dict(size=5),
                name=f"answer accuracy by position{': ' + curve_label if curve_label else ''}",
                hovertemplate="position %{x}: %{y:.1f}% accuracy<extra></extra>",
            )
        )
    fig.update_xaxes(title="position in the context block (1 = first)", dtick=1 if n <= 30 else None,
                     range=[0.5, max(n, 1) + 0.5])
    fig.update_yaxes(title="relevance rank (1 = most relevant)", autorange="reversed",
                     dtick=1 if n <= 30 else None, zeroline=False)
    fig.update_layout(
        yaxis2=dict(title=dict(text="answer accuracy (%)", font=dict(color=_CURVE_COLOR)), overlaying="y",
                    side="right", showgrid=False, rangemode="normal", tickformat=".0f", ticksuffix="%",
                    tickfont=dict(color=_CURVE_COLOR)),
    )
    return _layout(fig, "Where the most relevant documents ended up", height=460)


# -- budget ----------------------------------------------------------------------------------


def budget_chart(result: ContextResult) -> go.Figure:
    """Return a staircase of the documents the budget considered, by relevance rank.

    Each document in the block raises the running total by what it cost there (headers
    included); a truncated or summarized one shows its kept part and, hatched, what was cut;
    documents left out float grey above the running total, showing how far over they go.
    """
    walked = sorted(
        (t for t in result.trace if t.fate in ("included", "truncated", "summarized", "excluded")),
        key=lambda t: (t.relevance_rank or 0, t.input_index),
    )
    labels = [doc_label(t, 20) for t in walked]
    series: dict[str, dict[str, list]] = {}

    def add(name: str, x: str, base: int, height: int, entry: DocTrace, note: str) -> None:
        s = series.setdefault(name, {"x": [], "base": [], "y": [], "text": []})
        s["x"].append(x)
        s["base"].append(base)
        s["y"].append(height)
        s["text"].append(f"{doc_label(entry, 40)}<br>{note}")

    used = 0
    cut_at: str | None = None
    for label, t in zip(labels, walked):
        if t.fate == "excluded":
            add("excluded", label, used, t.tokens, t, f"{t.tokens} tokens, left out")
            cut_at = cut_at or label
            continue
        cost = t.block_tokens or 0
        add(t.fate, label, used, cost, t, f"{cost} tokens in the block")
        if t.fate != "included":
            cut_at = cut_at or label
            cut = max(t.tokens - cost, 0)
            if cut:
                add("cut", label, used + cost, cut, t, f"~{cut} tokens cut")
        used += cost

    fig = go.Figure()
    styles = {
        "included": dict(marker_color=FATE_COLORS["included"]),
        "truncated": dict(marker_color=FATE_COLORS["truncated"]),
        "summarized": dict(marker_color=FATE_COLORS["summarized"]),
        "cut": dict(marker=dict(color="rgba(239,143,0,0.15)", line=dict(color=FATE_COLORS["truncated"], width=1),
                                pattern=dict(shape="/", fgcolor=FATE_COLORS["truncated"]))),
        "excluded": dict(marker_color=_rgba(FATE_COLORS["excluded"], 0.45)),
    }
    names = {**FATE_LABELS, "cut": "Cut away"}
    for name in ("included", "truncated", "summarized", "cut", "excluded"):
        s = series.get(name)
        if not s:
            continue
        fig.add_trace(
            go.Bar(x=s["x"], y=s["y"], base=s["base"], name=names[name], text=s["text"],
                   textposition="none", hovertemplate="%{text}<extra></extra>", **styles[name])
        )
    fig.add_hline(
        y=result.tokens_budget, line=dict(color=_BUDGET_COLOR, width=2, dash="dash"),
        annotation_text=f"budget {result.tokens_budget}", annotation_position="top left",
    )
    if cut_at is not None:
        fig.add_vline(x=labels.index(cut_at) - 0.5, line=dict(color="#424242", width=1, dash="dot"))
        fig.add_annotation(x=cut_at, y=1, yref="paper", text="first document that did not fit",
                           showarrow=False, xanchor="left", yanchor="bottom", font=dict(size=11))
    fig.update_layout(barmode="overlay", bargap=0.15)
    fig.update_xaxes(title="documents, most relevant first", tickangle=-45, type="category",
                     categoryorder="array", categoryarray=labels,
                     showticklabels=len(labels) <= 40)
    fig.update_yaxes(title="tokens (running total)", rangemode="tozero")
    return _layout(fig, "Filling the token budget", height=460)


def tokenizer_comparison(
    labels: Sequence[str], heuristic: Sequence[int], exact: Sequence[int]
) -> go.Figure:
    """Return a scatter of the seed's word-count estimate against exact cl100k_base counts."""
    top = max([*heuristic, *exact, 1])
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=[0, top], y=[0, top], mode="lines", line=dict(color="#b0bec5", dash="dot"),
                   name="estimate = exact", hoverinfo="skip")
    )
    fig.add_trace(
        go.Scatter(
            x=list(heuristic), y=list(exact), mode="markers", text=list(labels),
            marker=dict(size=9, color=_CURVE_COLOR, opacity=0.75),
            hovertemplate="%{text}<br>estimate %{x}, exact %{y}<extra></extra>", name="document",
        )
    )
    fig.update_xaxes(title="heuristic estimate (words × 1.3)", rangemode="tozero")
    fig.update_yaxes(title="exact tokens (cl100k_base)", rangemode="tozero")
    return _layout(fig, "Estimated vs exact tokens per document", height=380)
