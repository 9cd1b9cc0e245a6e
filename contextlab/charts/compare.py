"""The Compare view's figures: what changes from build A to build B, per document.

The changes are ``contextlab.lab.compare.ResultDiff``'s; user text reaches plotly only through
``style.label``.
"""

from __future__ import annotations

import plotly.graph_objects as go

from contextlab.lab.compare import ResultDiff

from .style import doc_tag, label, layout, short_label

__all__ = ["CHANGE_COLORS", "compare_positions_figure", "compare_tokens_figure"]


#: One color per kind of change between build A and build B.
CHANGE_COLORS: dict[str, str] = {
    "gained": "#2e9e5b",
    "lost": "#d1495b",
    "moved": "#edae49",
    "resized": "#7b6fd6",
    "unchanged": "#a0a7b4",
}


def _short_label(index: int, source: str | None, width: int = 22) -> str:
    """Return ``D3 · name``: the document's tag and its source, shortened from the middle."""
    if not source:
        return doc_tag(index)
    return f"{doc_tag(index)} · {short_label(source, width)}"


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
