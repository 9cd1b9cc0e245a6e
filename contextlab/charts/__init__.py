"""Every plotly figure of contextlab, as pure functions: engine results in, ``go.Figure`` out.

The lab's views place these figures; the CLI's ``sweep --html`` imports ``sweep_figure``.
Nothing here imports streamlit or ``contextlab.ui``, and user text reaches plotly only
through ``label`` (plotly would otherwise draw ``<a href>``, ``<b>`` and ``<br>`` in it).
"""

from __future__ import annotations

from .pipeline import (
    CELL_TEXT_FLOOR,
    budget_chart,
    fate_sankey,
    placement_chart,
    similarity_heatmap,
    similarity_histogram,
    tokenizer_comparison,
)
from .style import (
    ANSWER_COLOR,
    CURVE_COLOR,
    FATE_COLORS,
    FATE_LABELS,
    doc_label,
    doc_tag,
    for_projector,
    label,
    layout,
    stamp_revision,
)
from .sweep import sweep_figure
from .teach import (
    CHANGE_COLORS,
    SECTION_COLORS,
    STRATEGY_LABELS,
    compare_positions_figure,
    compare_tokens_figure,
    curves_by_count_figure,
    ordering_rows_figure,
    ordering_scores_figure,
    position_curves_figure,
    reorder_step_figure,
    strategy_positions_figure,
    window_sections_figure,
)

__all__ = [
    # shared look and safe labels
    "ANSWER_COLOR",
    "CURVE_COLOR",
    "FATE_COLORS",
    "FATE_LABELS",
    "CHANGE_COLORS",
    "SECTION_COLORS",
    "STRATEGY_LABELS",
    "doc_label",
    "doc_tag",
    "for_projector",
    "stamp_revision",
    "label",
    "layout",
    # one build
    "fate_sankey",
    "similarity_heatmap",
    "CELL_TEXT_FLOOR",
    "similarity_histogram",
    "placement_chart",
    "budget_chart",
    "tokenizer_comparison",
    # compare, learn, window
    "compare_positions_figure",
    "compare_tokens_figure",
    "strategy_positions_figure",
    "ordering_scores_figure",
    "ordering_rows_figure",
    "position_curves_figure",
    "curves_by_count_figure",
    "reorder_step_figure",
    "window_sections_figure",
    # the CLI's sweep
    "sweep_figure",
]
