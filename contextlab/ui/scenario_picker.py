"""A selectbox that offers the ready-made scenarios; the shell decides where it goes."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from contextlab.lab.scenarios import Scenario, all_scenarios, get_scenario

__all__ = ["scenario_picker"]

_NONE = ""


def scenario_picker(key: str = "scenario", on_change: Callable[[], None] | None = None) -> Scenario | None:
    """Return the scenario picked in the selectbox, or None while "Free play" is selected.

    The widget's value lives in ``st.session_state[key]`` (a scenario key, "" for none),
    seeded once; the caller applies the scenario (sample set, configuration, view), typically
    in ``on_change`` so it happens once, when the pick changes, and tells its story where the
    room can read it (``contextlab.ui.scenarios.scenario_story``, in the main area).
    """
    st.session_state.setdefault(key, _NONE)
    scenarios = all_scenarios()
    options = [_NONE] + [s.key for s in scenarios]
    titles = {s.key: s.title for s in scenarios}
    picked = st.selectbox(
        "Scenario",
        options,
        key=key,
        format_func=lambda k: titles.get(k, "Free play (no scenario)"),
        help="Ready-made stories: each opens a sample set, settings and the view that shows the effect.",
        on_change=on_change,
    )
    return get_scenario(picked) if picked else None
