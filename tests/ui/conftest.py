"""The one harness of the lab's UI tests: open the app or a single view with AppTest, read it back.

``open_lab`` runs the whole app (``app.py``) with URL parameters; ``open_view`` runs one view's
``render`` on a sample set without the shell. The readers (``metric``, ``chart``, ``table``, ...)
find elements by label, key or column, never by position on the page or plotly trace order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60


def run(target) -> AppTest:
    """Rerun the app (``target`` is it, or a widget just set) and fail on any exception it shows."""
    at = target.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_lab(**params: str) -> AppTest:
    """Return the whole lab after its first run, opened with these URL parameters."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    return run(at)


def _view_script(
    view: str,
    sample: str,
    budget: int,
    empty: bool,
    presentation: bool,
    scenario: str | None,
    no_history: bool,
    answer: bool,
) -> None:
    # Runs inside AppTest: everything it needs is imported here.
    import streamlit as st

    from contextlab.lab.config import LabConfig
    from contextlab.lab.samples import load_sample_set
    from contextlab.ui.context import LabContext
    from contextlab.ui.engine import build_cached
    from contextlab.ui.views import VIEWS

    s = load_sample_set(sample)
    docs = [] if empty else list(s.documents)
    cfg = LabConfig(query=s.query, max_context_tokens=budget)
    if scenario and "picked" not in st.session_state:
        # what the shell does when a scenario is picked: B becomes its compare_with
        from contextlab.lab.scenarios import get_scenario
        from contextlab.ui.state import apply_config_b

        apply_config_b(get_scenario(scenario).compare_with)
        st.session_state["picked"] = True
    ctx = LabContext(
        docs,
        cfg,
        build_cached(docs, cfg),
        [] if no_history else list(s.conversation),
        s.system_prompt,
        f"Sample: {s.name}",
        presentation,
        answer=tuple(s.answer_indices()) if answer else (),
        gold_answers=tuple(s.answers) if answer else (),
    )
    VIEWS[view][1](ctx)


def open_view(
    view: str,
    *,
    sample: str = "support_faq",
    budget: int = 1024,
    empty: bool = False,
    presentation: bool = False,
    scenario: str | None = None,
    no_history: bool = False,
    answer: bool = True,
    state: dict | None = None,
) -> AppTest:
    """Return one view drawn alone on a sample set (the answer document marked unless ``answer``=False).

    ``state`` is put in the session before the first run (e.g. a section opened, as a click does).
    """
    at = AppTest.from_function(
        _view_script,
        default_timeout=TIMEOUT,
        kwargs=dict(
            view=view,
            sample=sample,
            budget=budget,
            empty=empty,
            presentation=presentation,
            scenario=scenario,
            no_history=no_history,
            answer=answer,
        ),
    )
    for name, value in (state or {}).items():
        at.session_state[name] = value
    return run(at)


def switch_view(at: AppTest, name: str) -> AppTest:
    """Pick view ``name`` on the lab's view switch and rerun."""
    at.segmented_control(key="view").set_value(name)
    return run(at)


def metric(at: AppTest, label: str) -> str:
    """Return the value of the metric called ``label``."""
    return next(m.value for m in at.metric if m.label == label)


def metric_element(at: AppTest, label: str):
    """Return the metric element called ``label`` (value, delta, help)."""
    return next(m for m in at.metric if m.label == label)


def specs(at: AppTest) -> list[dict]:
    """Return every plotly figure on the page as its JSON spec."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def chart(at: AppTest, key: str) -> dict:
    """Return the JSON spec of the plotly chart whose element key contains ``key``."""
    for element in at.get("plotly_chart"):
        if element.proto.id and key in element.proto.id:
            return json.loads(element.proto.spec)
    raise AssertionError(f"no chart {key!r} on the page")


def table(at: AppTest, column: str) -> pd.DataFrame:
    """Return the first table on the page that has ``column`` (a grid, or presentation mode's static table)."""
    return next(t.value for t in [*at.dataframe, *at.table] if column in t.value.columns)


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def unescape(markdown: str) -> str:
    """Return ``markdown`` as read on screen: an escaped punctuation mark is the mark, joiners unseen."""
    return _ESCAPED.sub(r"\1", markdown).replace("\u2060", "")


def texts(at: AppTest) -> str:
    """Return all visible text (markdown, captions, alerts, st.text) as read, for "says so" checks."""
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.success, *at.text]
    return "\n".join(unescape(p.value) for p in parts)


def traces(spec: dict, **match: str) -> list[dict]:
    """Return the traces of ``spec`` whose fields equal ``match`` (e.g. ``type="bar"``)."""
    return [t for t in spec["data"] if all(t.get(k) == v for k, v in match.items())]


class _Downloads(dict):
    """File name -> what its download gives; a deferred download's callable runs when read, as a click does."""

    def __getitem__(self, name: str) -> str:
        value = super().__getitem__(name)
        if callable(value):
            value = value()
        return value.decode() if isinstance(value, bytes) else value


@pytest.fixture
def downloads(monkeypatch):
    """Record what every download button offers, by file name (made when read, for deferred ones)."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    saved = _Downloads()
    original = MemoryMediaFileStorage.load_and_get_id
    original_deferred = MediaFileManager.add_deferred

    def spy(self, path_or_data, mimetype, kind, filename=None):
        saved[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    def spy_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        saved[file_name] = data_callable
        return original_deferred(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    monkeypatch.setattr(MediaFileManager, "add_deferred", spy_deferred)
    return saved
