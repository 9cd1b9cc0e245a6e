"""The sidebar: the scenario, where documents come from, the query and every engine parameter.

While presenting, the sidebar is closed, so the controls a presenter reaches for — scenario,
sample set, placement, budget and the three-orders demonstration — are drawn in the presenter's
bar in the main area instead (``presenter_bar``), never twice.
"""

from __future__ import annotations

import streamlit as st

from contextlab.lab.config import LabConfig

from .inputs import DocumentsInput
from .parameters import budget_widgets, parameters_panel, placement_widget
from .parts import open_three_orders
from .scenario_picker import scenario_picker
from .scenarios import SCENARIO_KEY, apply_scenario
from .sources import documents_panel, sample_picker
from .text import error, warning

__all__ = ["sidebar", "presenter_bar"]


def presenter_bar() -> None:
    """Draw scenario, sample set, placement, budget and "Orders" in the main area, for a presenter."""
    with st.container(key="presenter_bar"):
        # Widths that show each control's longest option whole at 1280 px (the browser test checks it).
        cols = st.columns([5.0, 2.5, 3.9, 2.8, 1.7], vertical_alignment="bottom")
        with cols[0]:
            scenario_picker(key=SCENARIO_KEY, on_change=apply_scenario)
        with cols[1]:
            if st.session_state.get("doc_source", "sample") == "sample":
                sample_picker(short=True)
            else:
                st.caption("Documents: your own (change them in the sidebar).")
        with cols[2]:
            placement_widget()
        with cols[3]:
            budget_widgets(in_bar=True)
        with cols[4]:
            st.button(
                "Orders",
                key="bar_three_orders",
                on_click=open_three_orders,
                width="stretch",
                help="Ask the model the same question with the answer document moved from first to last "
                "(Final block view).",
            )


def sidebar(*, present: bool) -> tuple[DocumentsInput, LabConfig]:
    """Draw the sidebar; return the documents brought and the configuration set there.

    With ``present`` the scenario, sample, placement and budget widgets are left to ``presenter_bar``.
    """
    with st.sidebar:
        st.header("contextlab")
        if not present:
            scenario_picker(key=SCENARIO_KEY, on_change=apply_scenario)
        brought = documents_panel(sample_here=not present)
        for message in brought.errors:
            error(message)
        for message in brought.warnings:
            warning(message)
        st.divider()
        config = parameters_panel(brought.default_query, presenting=present)
    return brought, config
