"""The lab's page: sidebar in, one build, one view out, and the URL kept in step."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import streamlit as st

from contextlab.errors import ContextLabError

from . import views
from .context import LabContext
from .engine import build_cached
from .share import apply_url_once, share_panel, sync_url, url_params
from .scenario_picker import scenario_picker
from .sidebar import (
    apply_scenario,
    documents_editor,
    documents_panel,
    parameters_panel,
    remember_for_table,
    score_if_needed,
)

__all__ = ["main", "available_views", "CORE_VIEWS", "EXTRA_VIEWS", "DEFAULT_VIEW"]

View = Callable[[LabContext], None]

CORE_VIEWS: dict[str, tuple[str, View]] = {
    "overview": ("Overview", views.render_overview),
    "duplicates": ("Duplicates", views.render_duplicates),
    "placement": ("Placement", views.render_placement),
    "budget": ("Budget", views.render_budget),
    "final": ("Final block", views.render_final_block),
}
#: Views another module provides; a view whose module is missing is simply not offered.
EXTRA_VIEWS: dict[str, tuple[str, str]] = {
    "compare": ("Compare", "contextlab.ui.view_compare"),
    "learn": ("Learn", "contextlab.ui.view_learn"),
    "window": ("Window", "contextlab.ui.view_window"),
}
DEFAULT_VIEW = "overview"

_PRESENTATION_CSS = """
<style>
[data-testid="stMainBlockContainer"] { font-size: 1.25rem; padding-top: 2rem; max-width: 100%; }
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li { font-size: 1.25rem; }
[data-testid="stMetricValue"] { font-size: 2.6rem; }
[data-testid="stMetricLabel"] p { font-size: 1.15rem; }
[data-testid="stCode"] code { font-size: 1.05rem; }
</style>
"""


def available_views() -> dict[str, tuple[str, View]]:
    """Return every view that can be shown now: the core five, then the extras that exist."""
    found = dict(CORE_VIEWS)
    for name, (title, module_name) in EXTRA_VIEWS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise  # the module exists but is broken: show that, do not hide it
            continue
        found[name] = (title, module.render)
    return found


def main() -> None:
    """Draw the lab."""
    all_views = available_views()
    warnings = apply_url_once(list(all_views))
    present = bool(st.session_state.get("present", False))
    if present:
        st.set_page_config(layout="wide", initial_sidebar_state="collapsed")
        st.html(_PRESENTATION_CSS)
    elif st.session_state.get("_was_presenting"):
        st.set_page_config(initial_sidebar_state="expanded")  # leaving presentation: sidebar back
    st.session_state["_was_presenting"] = present

    with st.sidebar:
        st.header("contextlab")
        scenario_picker(key="scenario", on_change=apply_scenario)
        brought = documents_panel()
        for message in brought.errors:
            st.error(message)
        st.divider()
        config = parameters_panel(brought.default_query)

    head, toggle = st.columns([3, 1], vertical_alignment="center")
    with head:
        st.title("contextlab", anchor=False)
    with toggle:
        st.toggle("Presentation", key="present",
                  help="Wide layout, larger type, sidebar collapsed: for a projector.")
    st.session_state.setdefault("view", DEFAULT_VIEW)
    if st.session_state["view"] not in all_views:
        st.session_state["view"] = DEFAULT_VIEW
    view = st.segmented_control(
        "View", list(all_views), key="view", required=True, width="stretch",
        format_func=lambda v: all_views[v][0], label_visibility="collapsed",
    )
    for warning in warnings:
        st.warning(warning)

    documents = brought.documents
    remember_for_table(documents)
    if st.session_state.get("doc_source") == "table":
        with st.expander(f"Documents ({len(documents)}) — edit in the table", expanded=True):
            documents = documents_editor(documents)
    documents, note = score_if_needed(documents, config.query)

    st.caption(views.md_escape(f"{brought.label} · {len(documents)} documents"
                               + (f" · query: “{config.query[:120]}”" if config.query else "")))
    if note:
        st.info(note)

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
        st.error(str(exc))
        return

    ctx = LabContext(
        documents=list(documents), config=config, result=result, history=list(brought.history),
        system_prompt=brought.system_prompt, source_label=brought.label, presentation=present,
    )
    try:
        all_views[view][1](ctx)
    except (ValueError, ContextLabError) as exc:
        st.error(str(exc))
