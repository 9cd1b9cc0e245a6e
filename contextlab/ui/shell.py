"""The lab's page: sidebar in, one build, one view out, and the URL kept in step."""

from __future__ import annotations

import streamlit as st

from contextlab.errors import ContextLabError

from .context import LabContext
from .engine import build_cached, warm_up_figures
from .scenario_picker import scenario_picker
from .share import apply_url_once, share_panel, sync_url, url_params
from .sidebar import (
    apply_scenario,
    documents_editor,
    documents_panel,
    parameters_panel,
    remember_for_table,
    score_if_needed,
)
from .text import error, info, md_line, warning
from .views import DEFAULT_VIEW, VIEWS

__all__ = ["main", "PRESENTATION_CSS"]

#: Presentation mode: larger type and headline numbers, no developer toolbar, for a projector.
PRESENTATION_CSS = """
<style>
[data-testid="stMainBlockContainer"] { font-size: 1.25rem; padding-top: 2.5rem; max-width: 100%; }
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li { font-size: 1.25rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricValue"],
[data-testid="stMainBlockContainer"] [data-testid="stMetricValue"] * { font-size: 3.2rem !important; line-height: 1.15; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricLabel"] * { font-size: 1.25rem !important; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricDelta"] * { font-size: 1.2rem !important; }
[data-testid="stCode"] code { font-size: 1.05rem; }
[data-testid="stToolbar"], [data-testid="stAppDeployButton"], [data-testid="stMainMenu"] { display: none !important; }
</style>
"""


def main() -> None:
    """Draw the lab."""
    all_views = VIEWS
    warnings = apply_url_once(list(all_views))
    present = bool(st.session_state.get("present", False))
    if present:
        st.set_page_config(layout="wide", initial_sidebar_state="collapsed")
        st.html(PRESENTATION_CSS)
    elif st.session_state.get("_was_presenting"):
        st.set_page_config(initial_sidebar_state="expanded")  # leaving presentation: sidebar back
    st.session_state["_was_presenting"] = present

    with st.sidebar:
        st.header("contextlab")
        scenario_picker(key="scenario", on_change=apply_scenario)
        brought = documents_panel()
        for message in brought.errors:
            error(message)
        st.divider()
        config = parameters_panel(brought.default_query)

    head, toggle = st.columns([4, 1], vertical_alignment="center")
    with head:
        st.title("contextlab", anchor=False)
    with toggle:
        st.toggle("Presentation", key="present", width="content",
                  help="Wide layout, larger type, sidebar collapsed: for a projector.")
    st.session_state.setdefault("view", DEFAULT_VIEW)
    if st.session_state["view"] not in all_views:
        st.session_state["view"] = DEFAULT_VIEW
    view = st.segmented_control(
        "View", list(all_views), key="view", required=True, width="stretch",
        format_func=lambda v: all_views[v][0], label_visibility="collapsed",
    )
    for message in warnings:
        warning(message)

    documents = brought.documents
    remember_for_table(brought)
    if st.session_state.get("doc_source") == "table":
        with st.expander(f"Documents ({len(documents)}) — edit in the table", expanded=True):
            documents = documents_editor(documents)
    documents, note = score_if_needed(documents, config.query)

    st.caption(md_line(f"{brought.label} · {len(documents)} documents"
                       + (f" · query: “{config.query}”" if config.query else ""), limit=160))
    if note:
        info(note)  # may quote a scoring error about the input

    sync_url(url_params(config, view=view, default_view=DEFAULT_VIEW, present=present,
                        sample=brought.sample))
    with st.sidebar:
        with st.expander("Share and export", expanded=False):
            share_panel(config, documents, source=st.session_state.get("doc_source", "sample"),
                        sample=brought.sample)
    if not documents:
        if brought.errors:
            st.error("Nothing to build: the input could not be read. What is wrong, and where, "
                     "is shown in the sidebar.")
        else:
            st.info("No documents yet: pick a sample set, paste text or upload a file in the sidebar.")
        return
    try:
        result = build_cached(documents, config)
    except (ValueError, ContextLabError) as exc:
        error(exc)
        return

    ctx = LabContext(
        documents=list(documents), config=config, result=result, history=list(brought.history),
        system_prompt=brought.system_prompt, source_label=brought.label, presentation=present,
        answer=brought.answer_indices(documents),
    )
    try:
        all_views[view][1](ctx)
    except (ValueError, ContextLabError) as exc:
        error(exc)
    warm_up_figures()  # after the view is drawn: prepares the other views while this one is read
