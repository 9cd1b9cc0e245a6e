"""Figures of one build (Overview, Duplicates, Placement, Budget): engine results in, figures out.

Nothing here recomputes what the engine decided; each builder draws the trace, the duplicate
pairs or numbers the caller got from the engine, so every figure is tested without a browser.
User text (sources) reaches plotly only through ``style.label``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from contextlab.types import IN_BLOCK_FATES, SHORTENED_FATES, ContextResult, DocTrace

from .style import (
    ANSWER_COLOR,
    BUDGET_COLOR,
    CURVE_COLOR,
    FATE_COLORS,
    FATE_LABELS,
    add_band,
    doc_label,
    doc_tag,
    label,
    layout,
    rgba,
)

__all__ = [
    "fate_sankey",
    "similarity_heatmap",
    "similarity_histogram",
    "placement_chart",
    "tick_step",
    "budget_chart",
    "tokenizer_comparison",
]


# -- overview --------------------------------------------------------------------------------


def fate_sankey(result: ContextResult) -> go.Figure:
    """Return a Sankey of where every input document went: filter, dedup, then the budget.

    Its numbers are the lab's one count: too short + duplicates + in the block + left out for
    the budget = input; the block's node splits into whole and shortened documents.
    """
    counts = result.fate_counts()
    total = len(result.trace)
    passed = total - counts["filtered"]
    unique = passed - counts["duplicate"]
    in_block = sum(counts[fate] for fate in IN_BLOCK_FATES)
    nodes = [
        (f"Input: {total}", "#546e7a"),
        (f"{FATE_LABELS['filtered']}: {counts['filtered']}", FATE_COLORS["filtered"]),
        (f"Long enough: {passed}", "#78909c"),
        (f"{FATE_LABELS['duplicate']}: {counts['duplicate']}", FATE_COLORS["duplicate"]),
        (f"Unique: {unique}", "#90a4ae"),
        (f"In the block: {in_block}", FATE_COLORS["included"]),
        (f"{FATE_LABELS['excluded']}: {counts['excluded']}", FATE_COLORS["excluded"]),
    ]
    names = {"included": "Whole"}
    nodes += [(f"{names.get(fate, FATE_LABELS[fate])}: {counts[fate]}", FATE_COLORS[fate]) for fate in IN_BLOCK_FATES]
    links = [
        (0, 1, counts["filtered"], FATE_COLORS["filtered"]),
        (0, 2, passed, "#78909c"),
        (2, 3, counts["duplicate"], FATE_COLORS["duplicate"]),
        (2, 4, unique, "#90a4ae"),
        (4, 5, in_block, FATE_COLORS["included"]),
        (4, 6, counts["excluded"], FATE_COLORS["excluded"]),
    ]
    # The block's split is drawn only when something was shortened (else "Whole" repeats it).
    if sum(counts[fate] for fate in SHORTENED_FATES):
        links += [(5, 7 + k, counts[fate], FATE_COLORS[fate]) for k, fate in enumerate(IN_BLOCK_FATES)]
    links = [link for link in links if link[2] > 0]
    used = sorted({n for s, t, _, _ in links for n in (s, t)}) or [0]
    remap = {old: new for new, old in enumerate(used)}
    sankey = dict(
        type="sankey",
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
            color=[rgba(c, 0.35) for _, _, _, c in links],
            hovertemplate="%{value} documents<extra></extra>",
        ),
    )
    # Built unvalidated (a fixed, tested shape): plotly's validation is 17 of this figure's 18 ms,
    # paid on every budget step of the Overview. The labels are numbers and the lab's own words.
    fig = go.Figure(dict(data=[sankey]), _validate=False)
    return layout(fig, "Where every document went", height=380)


# -- duplicates ------------------------------------------------------------------------------


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


# -- placement -------------------------------------------------------------------------------


def placement_chart(
    result: ContextResult,
    curve: Sequence[float] | None = None,
    *,
    curve_label: str = "",
    middle: tuple[float, float] | None = None,
    answer: Collection[int] = (),
    height: int = 540,
    band: tuple[Sequence[float], Sequence[float]] | None = None,
) -> go.Figure:
    """Return two panels over the block's positions: the accuracy curve, and the documents.

    Top: ``curve[k]``, the measured accuracy (%) when the answer sits at position ``k + 1``,
    on a 0-100 axis. Bottom: each document at its position (x) and relevance rank (y); the
    documents whose input index is in ``answer`` are ringed. ``middle`` = (first, last)
    positions shaded as the low-attention zone. ``band`` = (low, high) per position: a measured
    curve's 95% interval, drawn around it.
    """
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position)
    n = len(placed)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.36, 0.64], vertical_spacing=0.1)
    if curve is not None and len(curve) and band is not None:
        add_band(fig, list(range(1, len(curve) + 1)), band, row=1, col=1)
    if curve is not None and len(curve):
        fig.add_trace(
            go.Scatter(
                x=list(range(1, len(curve) + 1)),
                y=list(curve),
                mode="lines+markers",
                line=dict(color=CURVE_COLOR, width=3),
                marker=dict(size=6),
                name=label(f"accuracy{': ' + curve_label if curve_label else ' by position'}"),
                legendrank=1,
                hovertemplate="pos %{x}: %{y:.1f}% of answers correct<extra></extra>",
            ),
            row=1,
            col=1,
        )
    if n:
        _placement_dots(fig, placed, set(answer))
    if middle is not None and n:
        fig.add_vrect(
            x0=middle[0] - 0.5,
            x1=middle[1] + 0.5,
            fillcolor="#ffe0b2",
            opacity=0.35,
            line_width=0,
            layer="below",
            row="all",
            col=1,
            exclude_empty_subplots=False,
        )
    fig.update_xaxes(title="position in the block (pos 1 = first)", row=2, col=1)
    fig.update_xaxes(dtick=1 if n <= 30 else None, range=[0.5, max(n, 1) + 0.5])
    fig.update_yaxes(title="accuracy (%)", range=[0, 100], ticksuffix="%", row=1, col=1)
    deepest = max((t.relevance_rank or 1 for t in placed), default=1)
    # At most about ten rank labels, so 27 ranks do not crowd each other (rank 1 always labelled).
    fig.update_yaxes(
        title="relevance rank",
        range=[deepest + 0.7, 0.3],
        tick0=1,
        dtick=tick_step(deepest),
        zeroline=False,
        row=2,
        col=1,
    )
    title = "Where each document sits (rank 1 = most relevant)"
    if middle is not None and n:
        title += "; shaded: the middle, read least"
    return layout(fig, title, height=height)


def tick_step(count: int, most: int = 10) -> int:
    """Return the step between axis labels (1, 2, 5, 10, 20, 50, …) that labels at most ``most`` of ``count``."""
    step, factors = 1, (2, 2.5, 2)
    k = 0
    while count / step > most:
        step = int(step * factors[k % 3])
        k += 1
    return step


#: How the placement chart names each fate a document in the block can have (its legend).
_IN_BLOCK_NAMES = {
    "included": "document, whole",
    "truncated": "document, cut to fit",
    "summarized": "document, summarized",
}


def _placement_dots(fig: go.Figure, placed: Sequence[DocTrace], answer: set[int]) -> None:
    n = len(placed)
    ranks = sorted(t.relevance_rank or 0 for t in placed)
    fig.add_trace(
        go.Scatter(
            x=list(range(1, n + 1)),
            y=ranks,
            mode="lines",
            line=dict(color="#b0bec5", dash="dot", width=2),
            name="relevance order",
            hoverinfo="skip",
        ),
        row=2,
        col=1,
    )
    # One trace per fate, so the legend names every colour a dot can have (a cut one is orange).
    for fate, name in _IN_BLOCK_NAMES.items():
        group = [t for t in placed if t.fate == fate]
        if not group:
            continue
        fig.add_trace(
            go.Scatter(
                x=[t.position for t in group],
                y=[t.relevance_rank for t in group],
                mode="markers+text" if n <= 25 else "markers",
                text=[doc_tag(t.input_index) for t in group],
                textposition="top center",
                # rank 1 sits at the top of the panel: its label may reach into the gap above
                cliponaxis=False,
                marker=dict(size=14 if n <= 25 else 8, color=FATE_COLORS[fate], line=dict(color="white", width=1)),
                customdata=[[label(doc_label(t, 60)), FATE_LABELS[t.fate].lower()] for t in group],
                hovertemplate="pos %{x} · rank %{y}<br>%{customdata[0]} (%{customdata[1]})<extra></extra>",
                name=name,
            ),
            row=2,
            col=1,
        )
    ringed = [t for t in placed if t.input_index in answer]
    if ringed:
        fig.add_trace(
            go.Scatter(
                x=[t.position for t in ringed],
                y=[t.relevance_rank for t in ringed],
                mode="markers",
                marker=dict(size=26, color="rgba(0,0,0,0)", line=dict(color=ANSWER_COLOR, width=3)),
                name="holds the answer",
                hoverinfo="skip",
                cliponaxis=False,
            ),
            row=2,
            col=1,
        )


# -- budget ----------------------------------------------------------------------------------


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
        s = series.get(name)
        if s:
            fig.add_trace(
                go.Bar(
                    x=s["x"],
                    y=s["y"],
                    base=s["base"],
                    name=names[name],
                    customdata=s["text"],
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


_BUDGET_STYLES: dict[str, dict] = {
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


def _staircase(walked: Sequence[DocTrace], labels: Sequence[str]) -> tuple[dict[str, dict[str, list]], str | None]:
    """Return the staircase's bars per series (running total in walk order) and where the cut is."""
    series: dict[str, dict[str, list]] = {}

    def add(name: str, x: str, base: int, height: int, entry: DocTrace, note: str) -> None:
        s = series.setdefault(name, {"x": [], "base": [], "y": [], "text": []})
        s["x"].append(x)
        s["base"].append(base)
        s["y"].append(height)
        s["text"].append(f"{label(doc_label(entry, 60))}<br>rank {entry.relevance_rank}: {note}")

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
    """Return a scatter of the seed's word-count estimate against exact cl100k_base counts."""
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
