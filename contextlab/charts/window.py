"""The Window view's figure: the whole context window, each section's allowance against its use."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .style import layout

__all__ = ["SECTION_COLORS", "window_sections_figure"]


#: One color per section of the context window (the window's layout, top to bottom).
SECTION_COLORS: dict[str, str] = {
    "system": "#4c6ef5",
    "documents": "#2e9e5b",
    "conversation": "#edae49",
    "query": "#d1495b",
    "output_reserve": "#a0a7b4",
    "buffer": "#dee2e6",
}


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
