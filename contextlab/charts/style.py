"""What every figure shares: one layout, one safe label, one name and colour per fate.

Plotly draws its labels (hover text, axis and tick labels, legend entries, Sankey nodes) as a
small HTML dialect: ``<b>``, ``<br>`` and ``<a href>`` in a document's source would become bold
text, line breaks or a live link. ``label`` turns user text into plain characters for plotly;
every builder passes user text through it, and only through it.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Sequence

import plotly.graph_objects as go

from contextlab.safe_text import visible_controls
from contextlab.types import DocTrace

__all__ = [
    "FATE_COLORS",
    "FATE_LABELS",
    "CURVE_COLOR",
    "BUDGET_COLOR",
    "ANSWER_COLOR",
    "FONT",
    "label",
    "doc_label",
    "short_label",
    "short_labels",
    "doc_tag",
    "layout",
    "rgba",
    "add_band",
    "for_projector",
    "stamp_revision",
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
#: How the lab names each of the engine's fates (``contextlab.types.FATES``).
FATE_LABELS: dict[str, str] = {
    "included": "Included",
    "truncated": "Truncated",
    "summarized": "Summarized",
    "excluded": "Left out for budget",
    "duplicate": "Duplicate",
    "filtered": "Too short",
}

#: The one colour of a measured accuracy-by-position curve, in every chart that draws one.
CURVE_COLOR = "#1565c0"
BUDGET_COLOR = "#d32f2f"
#: The ring around the document that holds the answer (when a sample knows it): near black, a hue
#: no fate has (the orange of a cut document once looked like it).
ANSWER_COLOR = "#212529"
FONT = dict(family="Inter, 'Source Sans Pro', sans-serif", size=13, color="#31333f")

#: The look every figure gets from ``layout``, written into the figure itself rather than as a
#: plotly template: a template is about nine tenths of a small figure's JSON, and a browser
#: redrawing a figure that carries one (Plotly.react) draws it again from scratch.
_PAGE = dict(
    paper_bgcolor="white",
    plot_bgcolor="white",
    hovermode="closest",
    hoverlabel=dict(align="left"),
    colorway=["#0068c9", "#ff8700", "#29b09d", "#ff2b2b", "#6d3fc0", "#83c9ff", "#ffd16a", "#7defa1"],
)
_AXIS = dict(gridcolor="#e6eaf1", linecolor="#d5dae5", zerolinecolor="#d5dae5", automargin=True)


def label(text: object) -> str:
    """Return ``text`` as plotly shows it literally: ``<``, ``>``, ``&`` as entities, controls visible.

    Plotly decodes ``&lt;``, ``&gt;`` and ``&amp;`` back to the characters, so the reader sees
    exactly what was typed, and no tag (``<a href>``, ``<b>``, ``<br>``) takes effect.
    """
    return html.escape(visible_controls(str(text)), quote=False)


def doc_tag(input_index: int) -> str:
    """Return the lab's name of a document: ``D`` and its input index (``D0`` is the first)."""
    return f"D{input_index}"


def short_label(text: object, width: int) -> str:
    """Return ``text`` in at most ``width`` characters, cut from the middle: its start, ``…``, its end.

    Whitespace runs become one space and control characters show as ``⟨U+…⟩``. The end keeps two
    thirds of the room: a file name, a page or a chunk number tells sources apart more often than
    the start does. Show the whole text on hover wherever a shortened one is drawn.
    """
    clean = visible_controls(" ".join(str(text).split()))
    return _cut(clean, width, (max(width, 2) - 1) * 2 // 3)


def _cut(clean: str, width: int, tail: int) -> str:
    """Return ``clean`` with its middle replaced by ``…``, keeping ``tail`` characters of its end."""
    if len(clean) <= width:
        return clean
    keep = max(width, 2) - 1
    tail = min(tail, keep)
    return clean[: keep - tail] + "…" + (clean[-tail:] if tail else "")


def short_labels(texts: Sequence[object], width: int) -> list[str]:
    """Return each of ``texts`` shortened as ``short_label`` does, two different texts never alike.

    Where two texts would share a shortened label, their cut moves (more of the start or of the
    end) and, if no cut at ``width`` tells them apart, grows a character at a time: at full
    length they differ. Equal texts keep equal labels.
    """
    cleaned = [visible_controls(" ".join(str(t).split())) for t in texts]
    labels = [short_label(c, width) for c in cleaned]
    while True:
        groups: dict[str, set[str]] = {}
        for shown, clean in zip(labels, cleaned, strict=True):
            groups.setdefault(shown, set()).add(clean)
        clashes = [sorted(g) for g in groups.values() if len(g) > 1]
        if not clashes:
            return labels
        taken = {shown for shown, g in groups.items() if len(g) == 1}
        for group in clashes:
            fixed = _distinct_cut(group, width, taken)
            taken.update(fixed.values())
            labels = [fixed.get(c, shown) for c, shown in zip(cleaned, labels, strict=True)]


def _distinct_cut(group: list[str], width: int, taken: set[str]) -> dict[str, str]:
    """Return a label per text of ``group`` (all different): the narrowest cut that tells them apart."""
    for room in range(width, max(len(c) for c in group) + 1):
        keep = max(room, 2) - 1
        preferred = (keep * 2 // 3, *range(keep, -1, -1))  # the usual cut first, then more of the end
        for tail in preferred:
            cut = {c: _cut(c, room, tail) for c in group}
            if len(set(cut.values())) == len(group) and not taken & set(cut.values()):
                return cut
    return {c: c for c in group}


def doc_label(entry: DocTrace, width: int = 28) -> str:
    """Return ``D3 · source`` for a trace entry, plain text, the source cut to ``width`` chars.

    The source is shortened from the middle (``short_label``): its end, the telling part, stays;
    the ``D`` number tells apart documents with the same source. Pass the result through ``label``
    before it goes into a figure.
    """
    return f"{doc_tag(entry.input_index)} · {short_label(entry.source or '(no source)', width)}"


def layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    """Return ``fig`` with the lab's title, size, margins, font and legend placement."""
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left", y=0.98, yanchor="top", font=dict(size=16, weight=600)),
        height=height,
        margin=dict(l=10, r=10, t=70, b=10),
        font=FONT,
        legend=dict(orientation="h", yanchor="bottom", y=1.01, xanchor="right", x=1),
        **_PAGE,
    )
    for axis in (*fig.select_xaxes(), *fig.select_yaxes()):
        for name, value in _AXIS.items():  # only what the figure's builder left unset
            if axis[name] is None:
                axis[name] = value
    fig.layout.template = None
    return fig


def stamp_revision(fig: go.Figure) -> go.Figure:
    """Return ``fig`` with ``layout.datarevision`` set to a digest of its content.

    ``Plotly.react`` (how a page redraws a figure it was given again, e.g. restyled) compares
    data arrays by identity unless a data revision is given: an equal copy is drawn again from
    scratch. With the digest, an unchanged figure is not redrawn and a changed one always is.
    """
    fig.layout.datarevision = None
    digest = hashlib.blake2b(fig.to_json(validate=False).encode(), digest_size=8).hexdigest()
    fig.layout.datarevision = digest
    return fig


def add_band(
    fig: go.Figure,
    x: Sequence[float],
    band: tuple[Sequence[float], Sequence[float]],
    *,
    color: str = CURVE_COLOR,
    name: str = "95% interval",
    row: int | None = None,
    col: int | None = None,
) -> go.Figure:
    """Return ``fig`` with a shaded band from ``band[0]`` (low) up to ``band[1]`` (high) over ``x``.

    A measured curve's 95% interval: drawn before (under) the curve's own line, one legend entry.
    """
    low, high = list(band[0]), list(band[1])
    where = {"row": row, "col": col} if row is not None else {}
    fig.add_trace(
        go.Scatter(
            x=list(x),
            y=high,
            mode="lines",
            line=dict(width=0),
            hoverinfo="skip",
            showlegend=False,
            legendgroup=name,
            name=name,
        ),
        **where,
    )
    fig.add_trace(
        go.Scatter(
            x=list(x),
            y=low,
            mode="lines",
            line=dict(width=0),
            fill="tonexty",
            fillcolor=rgba(color, 0.18),
            name=label(name),
            legendgroup=name,
            customdata=[[h] for h in high],
            hovertemplate="pos %{x}: 95% interval %{y:.1f}–%{customdata[0]:.1f}%<extra></extra>",
        ),
        **where,
    )
    return fig


def rgba(hex_color: str, alpha: float) -> str:
    """Return ``#rrggbb`` as an ``rgba(...)`` string with opacity ``alpha``."""
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def for_projector(fig: go.Figure) -> go.Figure:
    """Return ``fig`` with every text enlarged for a projector: title, axes, legend, Sankey labels."""
    fig.update_layout(font_size=18, title_font_size=24, legend_font_size=16, height=(fig.layout.height or 450) + 100)
    fig.update_xaxes(tickfont_size=16, title_font_size=18)
    fig.update_yaxes(tickfont_size=16, title_font_size=18)
    fig.update_annotations(font_size=16)
    fig.update_traces(textfont_size=18, selector=dict(type="sankey"))
    fig.update_traces(textfont_size=15, selector=dict(type="heatmap"))
    return fig
