"""Scenarios in the lab: opening one (sample, settings, view, Compare's B) and telling its story.

The title and punchline are drawn in the main area, above the view, in a line or two with the
punchline's numbers; the story itself, the answer's place and the question open on request, so a
room sees the view's evidence on the first screen.
"""

from __future__ import annotations

import streamlit as st

from contextlab.charts.style import FATE_LABELS, doc_label
from contextlab.lab.scenarios import Scenario, get_scenario, scenario_keys

from .context import LabContext
from .engine import build_cached
from .state import apply_config_b, seed_config
from .text import md_line

__all__ = [
    "SCENARIO_KEY",
    "apply_scenario",
    "picked_scenario",
    "scenario_story",
    "answer_line",
    "drop_scenario_if_left",
]

#: Session-state key of the scenario picker ("" is free play).
SCENARIO_KEY = "scenario"
#: Session-state keys of view widgets a scenario resets, so each view opens on the scenario's point.
_VIEW_STATE = ("dup_pair_choice",)


def apply_scenario(key: str = SCENARIO_KEY) -> None:
    """Open the scenario picked under ``key``: its sample set, settings, view and B configuration."""
    name = st.session_state.get(key)
    if not name:
        return
    scenario = get_scenario(name)
    st.session_state["doc_source"] = "sample"
    st.session_state["sample_name"] = scenario.sample_set
    seed_config(scenario.config, force=True)
    st.session_state["view"] = scenario.view
    for stale in _VIEW_STATE:
        st.session_state.pop(stale, None)
    if scenario.compare_with is not None:
        apply_config_b(scenario.compare_with)


def picked_scenario(key: str = SCENARIO_KEY) -> Scenario | None:
    """Return the scenario picked under ``key``, or None in free play (or for an unknown key)."""
    name = st.session_state.get(key)
    return get_scenario(name) if name in scenario_keys() else None


def drop_scenario_if_left(key: str = SCENARIO_KEY) -> None:
    """Return to free play when the documents are no longer the scenario's sample set.

    Call it before the picker is drawn: the story must not be told over other documents.
    """
    scenario = picked_scenario(key)
    if scenario is None:
        return
    if (
        st.session_state.get("doc_source", "sample") != "sample"
        or st.session_state.get("sample_name") != scenario.sample_set
    ):
        st.session_state[key] = ""


def answer_line(ctx: LabContext) -> str | None:
    """Return where the answer document sits in this build ("★ The answer, D6 · …, is at pos 1 of 4"), or None."""
    placed = sum(1 for t in ctx.result.trace if t.position is not None)
    lines = []
    for t in ctx.result.trace:
        if t.input_index not in ctx.answer:
            continue
        name = doc_label(t, 60)
        if t.position is not None:
            lines.append(f"★ The answer, {name} (rank {t.relevance_rank}), is at pos {t.position} of {placed}.")
        else:
            lines.append(f"★ The answer, {name}, is not in the block: {FATE_LABELS[t.fate].lower()}.")
    return " ".join(lines) or None


def scenario_story(scenario: Scenario, ctx: LabContext) -> None:
    """Draw the scenario in one or two lines above the view: its title and punchline, with the numbers.

    The whole story, where the answer is and the question sit behind "The story" (a popover), so
    the view's evidence is on the first screen of a projector at 1280×720.
    """
    other = build_cached(ctx.documents, scenario.compare_with) if scenario.compare_with else None
    punchline = scenario.punchline(ctx.result, other)
    with st.container(border=True, key="scenario_story"):
        line, more = st.columns([11, 2], vertical_alignment="center")
        line.markdown(f"**{md_line(scenario.title)}.** {md_line(punchline)}")
        with more.popover("The story", width="stretch"):
            st.markdown(md_line(scenario.story))
            where = answer_line(ctx)
            if where:
                st.markdown(md_line(where))
            st.caption(
                md_line(
                    f"{ctx.source_label} · {len(ctx.documents):,} documents"
                    + (f" · the question: “{ctx.config.query}”" if ctx.config.query else "")
                )
            )
