"""Figures of the Compare, Learn and Window views, as pure functions of engine results.

Each builder takes engine results or plain data and returns a ``go.Figure``; nothing here
reads Streamlit state, so every figure is tested without a browser. User text reaches plotly
only through ``style.label``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from contextlab.lab.compare import ResultDiff

from .style import ANSWER_COLOR, BUDGET_COLOR, CURVE_COLOR, add_band, doc_tag, label, layout

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
    "curves_by_count_figure",
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


def _short_label(index: int, source: str | None, width: int = 22) -> str:
    """Return ``D3 · name``: the document's tag and the last part of its source, shortened."""
    if not source:
        return doc_tag(index)
    tail = source.rstrip("/").rsplit("/", 1)[-1] or source
    tail = tail if len(tail) <= width else tail[: width - 1] + "…"
    return f"{doc_tag(index)} · {tail}"


# -- Compare -------------------------------------------------------------------------------


def compare_positions_figure(diff: ResultDiff, label_a: str = "A", label_b: str = "B") -> go.Figure:
    """Return a slope chart: each document's block position under A (left) and B (right).

    Documents outside a block sit on an "not in block" row below the last position, so a
    document that is gained or lost is a line into or out of that row.
    """
    shown = [c for c in diff.changes if c.position_a is not None or c.position_b is not None]
    deepest = max([c.position_a or 0 for c in shown] + [c.position_b or 0 for c in shown] + [1])
    out_row = deepest + 1
    traces = []
    seen: set[str] = set()
    for c in shown:
        ya = c.position_a if c.position_a is not None else out_row
        yb = c.position_b if c.position_b is not None else out_row
        name = label(doc_tag(c.input_index) + (f" · {c.source}" if c.source else ""))
        short = label(_short_label(c.input_index, c.source, 16))
        traces.append(
            go.Scatter(
                x=[label_a, label_b],
                y=[ya, yb],
                mode="lines+markers+text",
                line=dict(color=CHANGE_COLORS[c.change], width=3 if c.change != "unchanged" else 1.5),
                marker=dict(size=10),
                text=[short if c.position_a is not None else "", short if c.position_b is not None else ""],
                textposition=["middle left", "middle right"],
                name=c.change,
                legendgroup=c.change,
                showlegend=c.change not in seen,
                # the source is user text: escaped, passed as data, never spliced into the template
                customdata=[[name, f"{c.change}: {c.fate_a} → {c.fate_b}"]] * 2,
                hovertemplate="%{customdata[0]}<br>%{customdata[1]}<extra></extra>",
            )
        )
        seen.add(c.change)
    fig = go.Figure(traces)  # one call: adding traces one by one re-validates the figure each time
    ticks = list(range(1, out_row + 1))
    fig.update_yaxes(
        autorange="reversed", tickvals=ticks, ticktext=[f"pos {t}" for t in ticks[:-1]] + ["not in block"], title=""
    )
    fig.update_xaxes(range=[-2.0, 3.0], title="")
    return layout(fig, "Where each document sits in the block", height=max(300, 40 * out_row + 120))


def compare_tokens_figure(diff: ResultDiff, label_a: str = "A", label_b: str = "B") -> go.Figure:
    """Return grouped bars from zero: what each document costs in block A and in block B."""
    shown = [c for c in diff.changes if c.tokens_a or c.tokens_b]
    names = [doc_tag(c.input_index) for c in shown]
    hover = [label(_short_label(c.input_index, c.source, 60)) for c in shown]
    fig = go.Figure(
        [
            go.Bar(
                name=label_a,
                x=names,
                y=[c.tokens_a for c in shown],
                marker_color="#4c6ef5",
                customdata=hover,
                hovertemplate="%{customdata}: %{y} tokens<extra>A</extra>",
            ),
            go.Bar(
                name=label_b,
                x=names,
                y=[c.tokens_b for c in shown],
                marker_color="#edae49",
                customdata=hover,
                hovertemplate="%{customdata}: %{y} tokens<extra>B</extra>",
            ),
        ]
    )
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="tokens in the block", rangemode="tozero")
    fig.update_xaxes(type="category")
    return layout(fig, "Tokens each document takes up")


# -- Placement strategies ------------------------------------------------------------------


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


# -- Learn ---------------------------------------------------------------------------------


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


# -- Window --------------------------------------------------------------------------------

#: The share of the window one character of a section's caption needs: about 120 characters
#: fit across the whole bar at a projector's 18 px on the lab's 1,100 px wide chart. A caption
#: a little over that is shrunk a little by plotly; a far longer one is left out.
_CHAR_SHARE = 1 / 120


def _fitting(caption: str, tokens: int, max_tokens: int) -> str:
    """Return ``caption`` if it fits a segment of ``tokens`` in the window, else ""."""
    # A caption too long for its segment would be turned on its side or shrunk to a speck
    # (worse with a projector's larger font): the legend and the hover name it instead.
    return caption if tokens and tokens / max(max_tokens, 1) >= len(caption) * _CHAR_SHARE else ""


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
        text = name.replace("_", " ")
        is_free = name == "free"
        fig.add_trace(
            go.Bar(
                y=rows,
                x=[allotted, used],
                orientation="h",
                name=text,
                marker=(
                    dict(color="rgba(0,0,0,0)", line=dict(color="#adb5bd", width=1))
                    if is_free
                    else dict(color=SECTION_COLORS.get(name, "#868e96"))
                ),
                text=[
                    _fitting(f"{text} {allotted:,}", allotted, max_tokens),
                    _fitting(f"{text} {used:,}" if is_free else f"{used:,}", used, max_tokens),
                ],
                textposition="inside",
                insidetextanchor="middle",
                textangle=0,
                hovertemplate=f"{text}: %{{x:,}} tokens<extra>%{{y}}</extra>",
            )
        )
    fig.update_layout(barmode="stack", legend=dict(traceorder="normal"))
    fig.update_xaxes(title=f"tokens (window = {max_tokens:,})", range=[0, max_tokens])
    fig.update_yaxes(autorange="reversed")
    return layout(fig, "The context window, section by section", height=280)
