"""The sidebar: the scenario, where documents come from, the query and every engine parameter.

While presenting, the sidebar is closed, so the controls a presenter reaches for — scenario,
sample set and budget — are drawn in the presenter's bar in the main area instead
(``presenter_bar``), never twice.
"""

from __future__ import annotations

import streamlit as st

from contextlab.lab.config import LabConfig

from .inputs import DocumentsInput
from .parameters import budget_widgets, parameters_panel
from .scenario_picker import scenario_picker
from .scenarios import SCENARIO_KEY, apply_scenario
from .sources import documents_panel, sample_picker
from .text import error, warning

__all__ = ["sidebar", "presenter_bar"]


def presenter_bar() -> None:
    """Draw scenario, sample set and budget in the main area, for a presenter whose sidebar is closed."""
    with st.container(border=True, key="presenter_bar"):
        left, middle, right = st.columns([3, 3, 4], vertical_alignment="bottom")
        with left:
            scenario_picker(key=SCENARIO_KEY, on_change=apply_scenario)
        with middle:
            if st.session_state.get("doc_source", "sample") == "sample":
                sample_picker()
            else:
                st.caption("Documents: your own (change them in the sidebar).")
        with right:
            budget_widgets()


def sidebar(*, present: bool) -> tuple[DocumentsInput, LabConfig]:
    """Draw the sidebar; return the documents brought and the configuration set there.

    With ``present`` the scenario, sample and budget widgets are left to ``presenter_bar``.
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
        config = parameters_panel(brought.default_query, with_budget=not present)
    return brought, config
