"""The lab's page: sidebar in, one build, one view out (a fragment), and the URL kept in step."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from contextlab.errors import InvalidInputError
from contextlab.lab.config import LabConfig
from contextlab.types import ContextResult, Document

from .context import LabContext
from .downloads import BuildSnapshot, latest_build
from .engine import build_cached, warm_up_figures
from .eval_link import evaluate_params
from .inputs import DocumentsInput
from .loading import score_if_needed
from .parts import WHOLE_PAGE, whole_page
from .questions import question_origin
from .scenarios import drop_scenario_if_left, picked_scenario, scenario_story
from .share import apply_url_once, share_panel, sync_url, url_params
from .sidebar import presenter_bar, sidebar
from .state import chosen
from .table import documents_editor, remember_for_table
from .text import error, info, md_line, warning
from .views import DEFAULT_VIEW, VIEWS

__all__ = ["main", "PRESENTATION_CSS"]

#: Presentation mode: larger type everywhere a room reads (text, tables, dropdowns, headline
#: numbers), no developer toolbar, for a projector at 1280×720. The page starts at the top of the
#: window (the header, holding only the sidebar button, lets clicks through; the left margin
#: leaves that button room), and the source line stays one line: the view's evidence must be on
#: the first screen. The presenter's bar keeps the page's usual type: it is the presenter's, and
#: at 1280 px its five controls show their whole values only at that size.
PRESENTATION_CSS = """
<style>
[data-testid="stMainBlockContainer"] {
  font-size: 1.25rem; padding: 0.5rem 1.5rem 2rem 3.5rem; max-width: 100%;
}
[data-testid="stHeader"] { background: transparent; }
[data-testid="stHeader"], [data-testid="stHeader"] * { pointer-events: none; }
[data-testid="stHeader"] button, [data-testid="stHeader"] button * { pointer-events: auto; }
.st-key-source_line p { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li { font-size: 1.25rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.6rem; padding: 0; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricValue"],
[data-testid="stMainBlockContainer"] [data-testid="stMetricValue"] * {
  font-size: 3.2rem !important; line-height: 1.15;
}
[data-testid="stMainBlockContainer"] [data-testid="stMetricLabel"] * { font-size: 1.25rem !important; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricDelta"] * { font-size: 1.2rem !important; }
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"],
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] * { font-size: 1.2rem; }
[data-testid="stMainBlockContainer"] [data-baseweb="select"] *,
[data-testid="stMainBlockContainer"] [data-testid="stWidgetLabel"] *,
[data-testid="stMainBlockContainer"] input { font-size: 1.15rem !important; }
[data-baseweb="popover"] li, [data-baseweb="popover"] li * { font-size: 1.15rem !important; }
[data-testid="stMainBlockContainer"] [data-testid="stTable"] td,
[data-testid="stMainBlockContainer"] [data-testid="stTable"] th { font-size: 1.15rem; }
[data-testid="stCode"] code { font-size: 1.05rem; }
.st-key-presenter_bar [data-baseweb="select"] *, .st-key-presenter_bar [data-testid="stWidgetLabel"] *,
.st-key-presenter_bar input, .st-key-presenter_bar p, .st-key-view p, .st-key-present p { font-size: 1rem !important; }
[data-testid="stToolbarActions"], [data-testid="stAppDeployButton"], [data-testid="stMainMenu"] {
  display: none !important;
}
</style>
"""


def _page_mode() -> bool:
    """Return True in presentation mode, after setting the page up for it (or back from it)."""
    present = bool(st.session_state.get("present", False))
    if present:
        st.set_page_config(layout="wide", initial_sidebar_state="collapsed")
        st.html(PRESENTATION_CSS)
    elif st.session_state.get("_was_presenting"):
        st.set_page_config(initial_sidebar_state="expanded")  # leaving presentation: sidebar back
    st.session_state["_was_presenting"] = present
    return present


def _presentation_switch() -> None:
    """Draw the presentation switch (a change reruns the whole page: the layout changes)."""
    st.toggle(
        "Presentation",
        key="present",
        width="content",
        on_change=whole_page,
        help="Wide layout, larger type, sidebar closed (scenario, sample and budget stay "
        "above the view): for a projector.",
    )


def _title(present: bool) -> str:
    """Draw the title and the presentation switch; return the view to show (a valid one).

    While presenting there is no title row: the first screen is the presenter's bar, the view
    switch (the presentation switch beside it) and the evidence.
    """
    if not present:
        head, toggle = st.columns([4, 1], vertical_alignment="center")
        with head:
            st.title("contextlab", anchor=False)
        with toggle:
            _presentation_switch()
    # Re-stored every run: the switch is drawn only beside a build, and Streamlit forgets the
    # value of a widget a run does not draw (no documents yet must not reset the view).
    stored = st.session_state.get("view")
    view: str = stored if stored in VIEWS else DEFAULT_VIEW
    st.session_state["view"] = view
    return view


@st.fragment
def _view(ctx: LabContext, url: Callable[..., dict[str, str]], story: Callable[[], None] | None = None) -> None:
    """Draw the view switch, the scenario's ``story`` (if any) and the picked view, the URL kept in step.

    A fragment: picking another view, or using a widget inside one, reruns only this part, so
    the sidebar and the build are neither run nor sent again (on a first visit that is a
    third of the wait). A view whose change reaches further (a scenario, the sidebar's
    settings) sets ``WHOLE_PAGE`` in its callback, and the whole page runs instead.
    """
    if st.session_state.pop(WHOLE_PAGE, False):
        st.rerun(scope="app")
    views = list(VIEWS)
    switch, toggle = st.columns([6.6, 1.4], vertical_alignment="center") if ctx.presentation else (st.container(), None)
    view = chosen(
        views,
        switch.segmented_control(
            "View",
            views,
            key="view",
            required=True,
            width="stretch",
            format_func=lambda v: VIEWS[v][0],
            label_visibility="collapsed",
        ),
    )
    if toggle is not None:
        with toggle:
            _presentation_switch()
    if story is not None:
        story()
    try:
        VIEWS[view][1](ctx)
    except InvalidInputError as exc:
        error(exc)
    # After the view: its widgets (Evaluate's questions and grid) are in the link too.
    params = url(view=view)
    if view == "evaluate":  # a bundled question's own top_k, when the link names one, is kept
        for name, value in evaluate_params(ctx.config.effective_tokenizer).items():
            params.setdefault(name, value)
    sync_url(params)


def _documents(brought: DocumentsInput, config: LabConfig, *, source_line: bool = True) -> list[Document]:
    """Return the documents to build on: the table's edits applied, the unscored ones scored.

    ``source_line`` False leaves out the line naming the source and query (a presented scenario
    says both in its story, and the first screen is the evidence's).
    """
    documents = brought.documents
    remember_for_table(brought)
    if st.session_state.get("doc_source") == "table":
        with st.expander(f"Documents ({len(documents)}) — edit in the table", expanded=True):
            documents = documents_editor(documents)
    documents, note = score_if_needed(documents, config.query)
    if source_line:
        with st.container(key="source_line"):
            st.caption(
                md_line(
                    f"{brought.label} · {len(documents):,} documents"
                    + (f" · query: “{config.query}”" if config.query else ""),
                    limit=160,
                )
            )
    if note:
        info(note)  # may quote a scoring error about the input
    return documents


def _nothing_to_build(brought: DocumentsInput) -> None:
    if brought.errors:
        st.error("Nothing to build: the input could not be read. What is wrong, and where, is shown in the sidebar.")
    else:
        st.info("No documents yet: pick a sample set, paste text or upload a file in the sidebar.")


def _build(documents: list[Document], config: LabConfig) -> ContextResult | None:
    """Return the build, or None after showing why the input cannot be built (bad input only)."""
    try:
        return build_cached(documents, config)
    except InvalidInputError as exc:
        error(exc)
        return None


def main() -> None:
    """Draw the lab."""
    holder = latest_build()
    holder.started()
    warnings = apply_url_once(list(VIEWS))
    present = _page_mode()
    drop_scenario_if_left()
    view = _title(present)
    if present:
        presenter_bar()
    brought, config = sidebar(present=present)
    for message in warnings:
        warning(message)
    scenario = picked_scenario()
    documents = _documents(brought, config, source_line=not (present and scenario is not None))
    source = st.session_state.get("doc_source", "sample")
    url = partial(
        url_params,
        config,
        default_view=DEFAULT_VIEW,
        present=present,
        sample=brought.sample,
        source=source,
        scenario=scenario.key if scenario else None,
        question=question_origin(documents),
    )
    with st.sidebar, st.expander("Share and export", expanded=False):
        share_panel(config, source=source, sample=brought.sample)
    result = _build(documents, config) if documents else None
    holder.finished(BuildSnapshot(config, tuple(documents), result))
    if result is None:
        if present:
            _presentation_switch()  # no view switch to stand beside: a way out of presenting
        sync_url(url(view=view))
        if not documents:
            _nothing_to_build(brought)
        return
    for result_note in result.notes:  # e.g. scores outside 0-1: what was seen, how it is shown
        info(result_note)
    ctx = LabContext(
        documents=list(documents),
        config=config,
        result=result,
        history=list(brought.history),
        system_prompt=brought.system_prompt,
        source_label=brought.label,
        presentation=present,
        answer=brought.answer_indices(documents),
        gold_answers=brought.gold_answers,
    )
    _view(ctx, url, partial(scenario_story, scenario, ctx) if scenario is not None else None)
    warm_up_figures()  # after the view is drawn: prepares the other views while this one is read
