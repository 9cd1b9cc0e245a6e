"""Small pieces every view draws the same way: a chart, an explanation, a headline delta, a section on request."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Collection
from typing import Any, Literal, TypedDict

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from contextlab.charts.style import doc_label, for_projector, stamp_revision
from contextlab.lab.compare import ResultDiff
from contextlab.lab.teaching import score_change_text, score_text
from contextlab.settings import SEED_MODE
from contextlab.types import ContextResult, DocTrace

from .context import LabContext
from .state import keep_values
from .text import md_line, warning

__all__ = [
    "WHOLE_PAGE",
    "whole_page",
    "ORDERS_SECTION",
    "open_three_orders",
    "show_chart",
    "show_table",
    "stale_notes",
    "explain",
    "by_index",
    "score_delta",
    "MetricDelta",
    "NO_CHANGE",
    "SEED_FIXED",
    "seed_fixed_key",
    "on_request",
]

#: A placement-score difference smaller than this (half a point in a hundred) is no change:
#: the curves are published to one decimal of a percent, so a smaller difference is noise.
NO_CHANGE = 0.005


#: Set (by ``whole_page``) when a view's widget changes more than the view: the view runs as a
#: fragment (``shell._view``), and this makes its next run the whole page's.
WHOLE_PAGE = "_rerun_whole_page"


def whole_page() -> None:
    """In a view widget's callback: the change reaches beyond the view, so rerun the whole page."""
    st.session_state[WHOLE_PAGE] = True


#: Session-state key of Final block's "Ask the model in several orders" section (open or folded).
ORDERS_SECTION = "orders_open"


def open_three_orders() -> None:
    """A button callback (the presenter's bar): open Final block on its three-orders section."""
    st.session_state["view"] = "final"
    st.session_state[ORDERS_SECTION] = True
    whole_page()


#: What seed-compatible mode fixes, as ``ContextManager.seed_compatible`` sets it.
SEED_FIXED: dict[str, object] = dict(SEED_MODE)


def seed_fixed_key(name: str, key: str, seed_mode: bool) -> str:
    """Return the key to draw setting ``name``'s widget under: ``key``, or in seed mode a display key.

    In seed mode the disabled widget must show what the engine really uses (``SEED_FIXED``),
    not the user's own choice; that choice stays in ``st.session_state[key]`` (re-stored, as
    Streamlit forgets an undrawn widget's value) for when seed mode is switched off.
    """
    if not seed_mode:
        return key
    keep_values(key)
    shown = f"{key}__seed_fixed"
    st.session_state[shown] = SEED_FIXED[name]
    return shown


def on_request(label: str, key: str) -> DeltaGenerator | None:
    """Return a collapsed section's container once the reader has opened it, else None.

    For secondary charts: each plotly chart costs the browser a quarter second to draw on a
    view's first visit, so what is not the view's main point is drawn only when asked for
    (opening the section reruns the script; the section's state lives in ``st.session_state[key]``).
    """
    section = st.expander(label, key=key, on_change="rerun")
    return section if section.open else None


def _digest(value: object) -> bytes:
    """Return a content digest of a build or a comparison: one C-speed pickle, not a walk of every field."""
    return hashlib.blake2b(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), digest_size=16).digest()


# Streamlit's own hasher walks a build field by field (a third of a slider step's script time).
@st.cache_resource(show_spinner=False, max_entries=256, hash_funcs={ContextResult: _digest, ResultDiff: _digest})
def _figure(
    name: str,
    _builder: Callable[..., go.Figure],
    presentation: bool,
    args: tuple[object, ...],
    kwargs: dict[str, object],
) -> go.Figure:
    """Return ``builder(*args, **kwargs)`` as drawn (enlarged for a projector if asked), built once per process.

    Plotly checks every property as a figure is built: 20-120 ms per figure on two cores, paid
    again on every visit of a view. The figure is shared, so nothing may change it afterwards
    (``st.plotly_chart`` serialises a copy). ``name`` (the builder's) stands for the builder in the key.
    """
    fig = _builder(*args, **kwargs)
    return stamp_revision(for_projector(fig) if presentation else fig)


def show_chart(ctx: LabContext, key: str, builder: Callable[..., go.Figure], *args: Any, **kwargs: Any) -> None:
    """Place the figure ``builder(*args, **kwargs)`` under a stable ``key`` (built once for the same arguments).

    Drawn as built (``theme=None``), stamped with its revision: the browser then draws each
    chart once. With Streamlit's own chart theme, or without the stamp, the page restyles the
    figure after its first draw and plotly draws it a second time (100-160 ms per chart on two
    cores, on every first visit of a view).
    """
    fig = _figure(f"{builder.__module__}.{builder.__qualname__}", builder, ctx.presentation, args, kwargs)
    st.plotly_chart(fig, key=key, config={"displaylogo": False}, width="stretch", theme=None)


def show_table(ctx: LabContext, frame: pd.DataFrame, *, percent: Collection[str] = (), **dataframe_args: Any) -> None:
    """Place a table: an interactive grid, or in presentation mode a plain table a room can read.

    The grid draws on a canvas at 12–13 px that no page style reaches; presentation mode shows
    the same cells as a static table in the page's own (enlarged) type, numbers to three places,
    and the ``percent`` columns (shares the grid shows as percentages) as percentages.
    """
    if not ctx.presentation:
        st.dataframe(frame, **dataframe_args)
        return
    # A static table renders its cells as Markdown: text cells are escaped (``md_line``), so a
    # source like ``**x**`` or ``[a](https://…)`` shows as typed, never bold or a link.
    shown = frame.copy()
    for column in shown.columns:
        if column in percent:  # a share shown as a percentage in the grid reads the same here
            shown[column] = [("" if pd.isna(v) else score_text(v)) for v in shown[column]]
        elif pd.api.types.is_float_dtype(shown[column]):
            shown[column] = [("" if pd.isna(v) else f"{v:.3f}") for v in shown[column]]
        elif not pd.api.types.is_numeric_dtype(shown[column]):
            shown[column] = [md_line(v) for v in shown[column]]
    shown.columns = [md_line(c) for c in shown.columns]
    st.table(shown, hide_index=True)


def stale_notes(ctx: LabContext) -> None:
    """Warn about each document in the block that its sample marks stale (``metadata["stale"]``).

    A teaching sample may hold an outdated page on purpose; the page says so where it shows
    where that page landed, so nobody learns from the block that stale text is fine.
    """
    placed = sum(1 for t in ctx.result.trace if t.position is not None)
    for t in ctx.result.trace:
        why = ctx.documents[t.input_index].metadata.get("stale") if t.input_index < len(ctx.documents) else None
        if not why or t.position is None:
            continue
        where = (
            "last, right before the question, where a model reads best"
            if t.position == placed > 1
            else "first, where a model reads best"
            if t.position == 1
            else "in the middle"
        )
        warning(
            f"⚠ {doc_label(t, 60)} is stale: {why}. It is in the block at pos {t.position} of {placed}, "
            f"{where}. Placement cannot tell current from stale text: leave it out, or lower its score."
        )


def explain(text: str) -> None:
    """Show the view's own explanation (lab-written Markdown, never user text) in grey."""
    st.markdown(f":gray[{text}]")


def by_index(ctx: LabContext) -> dict[int, DocTrace]:
    """Return the build's trace entries by input index."""
    return {t.input_index: t for t in ctx.result.trace}


class MetricDelta(TypedDict, total=False):
    """The delta arguments of ``st.metric``: the text, its colour, its arrow."""

    delta: str
    delta_color: Literal["normal", "inverse", "off"]
    delta_arrow: Literal["auto", "off"]


def score_delta(difference: float, versus: str) -> MetricDelta:
    """Return ``st.metric`` delta arguments: "no change" in grey, or a signed, coloured delta."""
    if abs(difference) < NO_CHANGE:
        return MetricDelta(
            delta=f"no change vs {versus} ({score_change_text(difference)})", delta_color="off", delta_arrow="off"
        )
    return MetricDelta(delta=f"{score_change_text(difference)} vs {versus}", delta_color="normal")
