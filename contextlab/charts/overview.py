"""The Overview's figure: where every document of one build went, as a Sankey.

Its numbers are the engine's trace, counted once (``ContextResult.fate_counts``).
"""

from __future__ import annotations

import plotly.graph_objects as go

from contextlab.types import IN_BLOCK_FATES, SHORTENED_FATES, ContextResult

from .style import FATE_COLORS, FATE_LABELS, layout, rgba

__all__ = ["fate_sankey"]


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
    fig = go.Figure(dict(data=[sankey]))
    return layout(fig, "Where every document went", height=380)
