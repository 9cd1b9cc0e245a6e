"""Plotly figures for the Compare, Learn and Window views, as pure functions.

Each builder takes engine results or plain data and returns a ``go.Figure``; nothing here
reads Streamlit state, so every figure is tested without a browser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from contextlab.lab.compare import ResultDiff

__all__ = [
    "STRATEGY_LABELS",
    "CHANGE_COLORS",
    "SECTION_COLORS",
    "compare_positions_figure",
    "compare_tokens_figure",
    "strategy_positions_figure",
    "ordering_scores_figure",
    "ordering_rows_figure",
    "position_curves_figure",
    "reorder_step_figure",
    "window_sections_figure",
]

#: One color per kind of change between build A and build B.
CHANGE_COLORS: dict[str, str] = {
    "gained": "#2e9e5b",
    "lost": "#d1495b",
    "moved": "#edae49",
    "resized": "#7b6fd6",
    "unchanged": "#a0a7b4",
}

#: One color per section of the context window (seed 002's layout, top to bottom).
SECTION_COLORS: dict[str, str] = {
    "system": "#4c6ef5",
    "documents": "#2e9e5b",
    "conversation": "#edae49",
    "query": "#d1495b",
    "output_reserve": "#a0a7b4",
    "buffer": "#dee2e6",
}

#: How each placement strategy of ``contextlab.positional.ORDERINGS`` is named in the lab.
STRATEGY_LABELS: dict[str, str] = {
    "lost_in_the_middle": "contextlab (lost in the middle)",
    "relevance": "Relevance order (no reordering)",
    "reversed": "Reversed (best last)",
    "langchain": "LangChain LongContextReorder",
    "llamaindex": "LlamaIndex LongContextReorder",
}

_FILLED = "#2e6fd1"
_EMPTY = "#e9ecef"
_CURVE = "#d1495b"


def _layout(fig: go.Figure, title: str, height: int = 360) -> go.Figure:
    fig.update_layout(title=dict(text=title, y=0.98, yanchor="top"), height=height,
                      margin=dict(l=10, r=10, t=70, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0))
    return fig


def _short_label(index: int, source: str | None, width: int = 26) -> str:
    """Return a chart label for a document: the last part of its source, shortened."""
    if not source:
        return f"doc {index}"
    tail = source.rstrip("/").rsplit("/", 1)[-1] or source
    return tail if len(tail) <= width else tail[: width - 1] + "…"


# -- Compare -------------------------------------------------------------------------------

def compare_positions_figure(diff: ResultDiff, label_a: str = "A", label_b: str = "B") -> go.Figure:
    """Return a slope chart: each document's block position under A (left) and B (right).

    Documents outside a block sit on an "not in block" row below the last position, so a
    document that is gained or lost is a line into or out of that row.
    """
    shown = [c for c in diff.changes if c.position_a is not None or c.position_b is not None]
    deepest = max([c.position_a or 0 for c in shown] + [c.position_b or 0 for c in shown] + [1])
    out_row = deepest + 1
    fig = go.Figure()
    seen: set[str] = set()
    for c in shown:
        ya = c.position_a if c.position_a is not None else out_row
        yb = c.position_b if c.position_b is not None else out_row
        name = f"doc {c.input_index}" + (f" · {c.source}" if c.source else "")
        short = _short_label(c.input_index, c.source)
        fig.add_trace(go.Scatter(
            x=[label_a, label_b], y=[ya, yb], mode="lines+markers+text",
            line=dict(color=CHANGE_COLORS[c.change], width=3 if c.change != "unchanged" else 1.5),
            marker=dict(size=10),
            text=[short if c.position_a is not None else "", short if c.position_b is not None else ""],
            textposition=["middle left", "middle right"],
            name=c.change, legendgroup=c.change, showlegend=c.change not in seen,
            # the source is user text: passed as data, never spliced into the template
            customdata=[[name, f"{c.change}: {c.fate_a} → {c.fate_b}"]] * 2,
            hovertemplate="%{customdata[0]}<br>%{customdata[1]}<extra></extra>",
        ))
        seen.add(c.change)
    ticks = list(range(1, out_row + 1))
    fig.update_yaxes(autorange="reversed", tickvals=ticks,
                     ticktext=[f"#{t}" for t in ticks[:-1]] + ["not in block"], title="position")
    fig.update_xaxes(range=[-1.6, 2.6], title="")
    return _layout(fig, "Where each document sits in the block", height=max(300, 40 * out_row + 120))


def compare_tokens_figure(diff: ResultDiff, label_a: str = "A", label_b: str = "B") -> go.Figure:
    """Return grouped bars: what each document costs in block A and in block B, in tokens."""
    shown = [c for c in diff.changes if c.tokens_a or c.tokens_b]
    names = [f"doc {c.input_index}" for c in shown]
    fig = go.Figure([
        go.Bar(name=label_a, x=names, y=[c.tokens_a for c in shown], marker_color="#4c6ef5"),
        go.Bar(name=label_b, x=names, y=[c.tokens_b for c in shown], marker_color="#edae49"),
    ])
    fig.update_layout(barmode="group", yaxis_title="tokens in the block")
    return _layout(fig, "Tokens each document takes up")


# -- Placement strategies ------------------------------------------------------------------

def strategy_positions_figure(orders: Mapping[str, Sequence[int]],
                              labels: Mapping[str, str] | None = None) -> go.Figure:
    """Return a grid: one row per strategy, one cell per block position, showing the rank there.

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
        text.append([f"#{r + 1}" for r in ranks] + [""] * (n - len(ranks)))
    rows = [labels.get(k, k) for k in keys]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(1, n + 1)), y=rows, text=text, texttemplate="%{text}",
        colorscale="Blues", reversescale=True, showscale=False, xgap=2, ygap=2,
        hovertemplate="%{y}<br>position %{x}: relevance rank %{z}<extra></extra>",
    ))
    for row, key in enumerate(keys):
        ranks = list(orders[key])
        if 0 in ranks:
            col = ranks.index(0) + 1
            fig.add_shape(type="rect", x0=col - 0.5, x1=col + 0.5, y0=row - 0.5, y1=row + 0.5,
                          line=dict(color=_CURVE, width=3))
    fig.update_xaxes(title="position in the block (1 = first)", dtick=1, side="top")
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, "", height=70 + 48 * max(len(keys), 1))


def ordering_scores_figure(scores: Mapping[str, float], bounds: tuple[float, float],
                           labels: Mapping[str, str] | None = None,
                           title: str = "Each ordering between the worst and the best placement"
                           ) -> go.Figure:
    """Return one bar per strategy: how far its score gets from the worst to the best placement.

    ``scores`` are ordering scores (shares in [0, 1]); ``bounds`` = (worst, best) possible
    scores of the same documents. A bar's length is ``(score - worst) / (best - worst)`` so
    small absolute differences stay readable; its label is the score itself. Best on top.
    """
    labels = dict(labels or {})
    worst, best = bounds
    span = best - worst
    items = sorted(scores.items(), key=lambda kv: kv[1])
    relative = [(v - worst) / span if span > 0 else 1.0 for _, v in items]
    fig = go.Figure(go.Bar(
        x=relative, y=[labels.get(k, k) for k, _ in items], orientation="h",
        text=[f"{v:.1%}" for _, v in items], textposition="outside", marker_color=_FILLED,
        customdata=[v for _, v in items],
        hovertemplate="%{y}: score %{customdata:.2%}, %{x:.0%} of the way to the best"
                      "<extra></extra>",
    ))
    fig.update_xaxes(range=[0, 1.18], tickvals=[0, 0.5, 1],
                     ticktext=[f"worst possible ({worst:.1%})", "halfway",
                               f"best possible ({best:.1%})"])
    return _layout(fig, title, height=110 + 40 * max(len(items), 1))


def ordering_rows_figure(positions: Sequence[int], relevances: Sequence[float],
                         accuracies: Sequence[float], labels: Sequence[str] | None = None) -> go.Figure:
    """Return bars of the relevance at each block position under the model's accuracy line."""
    labels = list(labels) if labels is not None else [f"position {p}" for p in positions]
    fig = go.Figure(go.Bar(
        x=list(positions), y=list(relevances), name="relevance of the document there",
        marker_color=_FILLED, customdata=labels,
        hovertemplate="position %{x}: %{customdata}<br>relevance %{y:.2f}<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=list(positions), y=list(accuracies), yaxis="y2", mode="lines+markers",
        name="accuracy at this position (%)", line=dict(color=_CURVE, width=3),
    ))
    fig.update_layout(yaxis2=dict(title="accuracy (%)", overlaying="y", side="right",
                                  showgrid=False))
    fig.update_xaxes(title="position in the block", dtick=1)
    fig.update_layout(yaxis=dict(title="relevance", rangemode="tozero"))
    return _layout(fig, "Relevance placed at each position, and how well the model reads it")


# -- Learn ---------------------------------------------------------------------------------

def position_curves_figure(curves: Mapping[str, Sequence[tuple[int, float]]], n_docs: int,
                           references: Mapping[str, float] | None = None,
                           highlight: str | None = None) -> go.Figure:
    """Return one accuracy-by-position line per model for ``n_docs`` documents.

    ``curves`` maps a model name to its measured ``(position, accuracy %)`` points;
    ``references`` adds dotted horizontal lines (e.g. the closed-book accuracy).
    The ``highlight`` model is drawn thick, the others thin.
    """
    fig = go.Figure()
    for model, points in curves.items():
        pts = sorted(points)
        strong = highlight is None or model == highlight
        fig.add_trace(go.Scatter(
            x=[p for p, _ in pts], y=[a for _, a in pts], mode="lines+markers", name=model,
            line=dict(width=4 if strong else 1.5), opacity=1.0 if strong else 0.45,
            hovertemplate=f"{model}<br>answer at position %{{x}}: %{{y:.1f}}% correct<extra></extra>",
        ))
    for name, value in (references or {}).items():
        fig.add_hline(y=value, line=dict(dash="dot", color="#6c757d"),
                      annotation_text=f"{name}: {value:.1f}%", annotation_position="top left")
    measured = sorted({p for points in curves.values() for p, _ in points})
    fig.update_xaxes(title=f"position of the document holding the answer (of {n_docs})",
                     range=[0.5, n_docs + 0.5], tickvals=measured)
    fig.update_yaxes(title="accuracy (%)")
    return _layout(fig, f"Accuracy by answer position, {n_docs} documents", height=420)


def reorder_step_figure(block_ranks: Sequence[int], step: int,
                        labels: Sequence[str] | None = None,
                        curve: Sequence[float] | None = None) -> go.Figure:
    """Return the block as slots after ``step`` documents have been placed.

    ``block_ranks`` holds the 0-based relevance rank in each slot of the finished block;
    a slot is filled once its rank is below ``step``. ``labels`` names documents by rank;
    ``curve`` (one accuracy value per slot) is drawn over the slots on a second axis.
    """
    n = len(block_ranks)
    labels = list(labels) if labels is not None else [f"#{r + 1}" for r in range(n)]
    filled = [rank < step for rank in block_ranks]
    newest = step - 1
    colors = ["#f08c00" if r == newest else (_FILLED if f else _EMPTY)
              for r, f in zip(block_ranks, filled)]
    fig = go.Figure(go.Bar(
        x=list(range(1, n + 1)), y=[n - r if f else 0.25 for r, f in zip(block_ranks, filled)],
        marker_color=colors, name="document (height = relevance)",
        text=[f"#{r + 1}" if f else "" for r, f in zip(block_ranks, filled)],
        textposition="inside", insidetextanchor="end",
        customdata=[labels[r] if f else "empty" for r, f in zip(block_ranks, filled)],
        hovertemplate="slot %{x}: %{customdata}<extra></extra>",
    ))
    if curve is not None:
        fig.add_trace(go.Scatter(
            x=list(range(1, n + 1)), y=list(curve), yaxis="y2", mode="lines+markers",
            name="measured accuracy at this slot (%)", line=dict(color=_CURVE, width=3),
        ))
        fig.update_layout(yaxis2=dict(title="accuracy (%)", overlaying="y", side="right",
                                      showgrid=False, tickformat=".0f"))
    fig.update_xaxes(title="slot in the block (1 = first, read first)", dtick=1,
                     range=[0.4, n + 0.6])
    # update_layout, not update_yaxes: the latter would also restyle the accuracy axis
    fig.update_layout(yaxis=dict(title="relevance (taller = more relevant)",
                                 showticklabels=False, range=[0, n + 0.5]))
    return _layout(fig, f"Step {step} of {n}: {min(step, n)} placed", height=360)


# -- Window --------------------------------------------------------------------------------

def window_sections_figure(sections: Sequence[tuple[str, int, int]], max_tokens: int) -> go.Figure:
    """Return the context window as two stacked bars: each section's allowance, and its use.

    ``sections`` holds ``(name, allotted tokens, used tokens)`` in layout order. The "used" bar
    shows the prompt's unused room as "free", placed before the output reserve (which always
    closes the window), so both bars span ``max_tokens``.
    """
    rows = ["allowance", "this prompt"]
    free = max(max_tokens - sum(used for _, _, used in sections), 0)
    unallotted = max(max_tokens - sum(allotted for _, allotted, _ in sections), 0)
    prompt_parts = [s for s in sections if s[0] != "output_reserve"]
    reserve = [s for s in sections if s[0] == "output_reserve"]
    fig = go.Figure()
    for name, allotted, used in prompt_parts + [("free", unallotted, free)] + reserve:
        label = name.replace("_", " ")
        is_free = name == "free"
        fig.add_trace(go.Bar(
            y=rows, x=[allotted, used], orientation="h", name=label,
            marker=(dict(color="rgba(0,0,0,0)", line=dict(color="#adb5bd", width=1)) if is_free
                    else dict(color=SECTION_COLORS.get(name, "#868e96"))),
            text=[f"{label} {allotted:,}" if allotted else "",
                  (f"{label} {used:,}" if is_free else f"{used:,}") if used else ""],
            textposition="inside", insidetextanchor="middle",
            hovertemplate=f"{label}: %{{x:,}} tokens<extra>%{{y}}</extra>",
        ))
    fig.update_layout(barmode="stack", legend=dict(traceorder="normal"))
    fig.update_xaxes(title=f"tokens (window = {max_tokens:,})", range=[0, max_tokens])
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, "The context window, section by section", height=260)
