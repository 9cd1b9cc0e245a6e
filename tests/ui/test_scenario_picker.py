"""AppTest tests for the scenario picker widget helper."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from contextlab.lab.scenarios import all_scenarios, get_scenario

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration


def _app() -> None:
    import streamlit as st

    from contextlab.ui.scenario_picker import scenario_picker

    picked = scenario_picker(key="scenario")
    st.text(f"picked: {picked.key if picked else None}")
    if picked is not None:
        st.text(f"view: {picked.view}")


def _run() -> AppTest:
    at = AppTest.from_function(_app, default_timeout=30).run()
    assert not at.exception, at.exception
    return at


def test_scenario_picker_starts_on_free_play():
    at = _run()
    box = at.selectbox(key="scenario")
    assert box.value == ""
    assert box.options[0] == "Free play (no scenario)"
    assert box.options[1:] == [s.title for s in all_scenarios()]
    assert at.text[0].value == "picked: None"


def test_scenario_picker_returns_the_picked_scenario_and_leaves_the_story_to_the_main_area():
    at = _run()
    at.selectbox(key="scenario").set_value("second_best_cut").run()
    assert at.text[0].value == "picked: second_best_cut"
    assert at.text[1].value == "view: compare"
    assert get_scenario("second_best_cut").story not in [c.value for c in at.caption]


def test_scenario_picker_keeps_its_value_across_reruns():
    at = _run()
    at.selectbox(key="scenario").set_value("faq_copies").run()
    at.run()
    assert at.session_state["scenario"] == "faq_copies"
