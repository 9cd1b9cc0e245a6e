"""Evaluate's "Answer with a model" (AppTest): the count before anything is sent, the key never shown.

One test points the section at a port nothing listens on (no model, no fake): counting the calls
already says, in one line, that nothing answers there. The slow one asks the bundled model for real.
"""

from __future__ import annotations

import pytest

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration

pytest.importorskip("streamlit")

from contextlab.models import free_port  # noqa: E402
from tests.ui.conftest import open_lab, run, table, texts, unescape  # noqa: E402

SECRET = "sk-contextlab-test-SECRET-view-42"


def _section(endpoint: str):
    at = open_lab(view="evaluate")
    at.number_input(key="eval_limit").set_value(2)
    at.number_input(key="eval_top_k").set_value(3)
    at.text_input(key="model_endpoint").set_value(endpoint)
    at.number_input(key="model_shots").set_value(0)
    return run(at)


@pytest.mark.slow
def test_models_view_unreachable_endpoint_is_one_line_when_counting_and_never_shows_the_key(monkeypatch):
    monkeypatch.setenv("CONTEXTLAB_API_KEY", SECRET)
    endpoint = f"http://127.0.0.1:{free_port()}/v1"
    at = _section(endpoint)
    assert "Key: from CONTEXTLAB_API_KEY (never shown or stored)." in texts(at)
    assert "nothing is sent until you press Send" in texts(at)
    at = run(at.button(key="model_count").click())
    errors = [unescape(e.value) for e in at.error]
    assert len(errors) == 1 and "\n" not in errors[0]
    assert errors[0].startswith(f"cannot reach the endpoint {endpoint} (connection refused); is the server running?")
    assert "model_send" not in [b.key for b in at.button]  # nothing can be sent
    assert SECRET not in texts(at)


@pytest.mark.slow
@pytest.mark.integration
def test_models_view_answers_with_the_bundled_model():
    pytest.importorskip("xllamacpp")
    from contextlab.models import LocalModelServer

    with LocalModelServer(port=0, parallel=2, context=2048) as server:
        at = _section(server.url)
        at.select_slider(key="eval_budgets").set_value((256, 256))
        at = run(at)
        at = run(at.button(key="model_count").click())
        assert "This run sends 2 calls" in texts(at)
        at = run(at.button(key="model_send").click())
        summary = table(at, "accuracy % (measured)")
        assert len(summary) == 2
        answers = table(at, "answer")
        assert list(answers["config"]) == ["placement=lost_in_the_middle", "placement=relevance"] * 2
        assert "a gold answer, SQuAD-normalised, contained in it" in texts(at)
        heading = next(m.value for m in at.markdown if "The model's answers" in m.value)
        assert heading.startswith("**The model's answers** ") and "\\*" not in heading  # bold, not asterisks
        assert "gemma-3-270m-q4_k_m at " in unescape(heading)
        # the answer sits beside its block: one column holds the block, the next the answer
        block = next(c for c in at.columns if c.code)
        assert any(m.value == "**The model's answer**" for c in at.columns if c is not block for m in c.markdown)
        # a rerun answered wholly from the cache still names the model by its id
        at = run(at.button(key="model_count").click())
        assert "This run sends 0 calls" in texts(at)
        at = run(at.button(key="model_send").click())
    heading = unescape(next(m.value for m in at.markdown if "The model's answers" in m.value))
    assert "gemma-3-270m-q4_k_m at " in heading and "(model at" not in heading


def test_models_view_progress_estimates_time_left_from_the_calls_so_far():
    from contextlab.models import CallStats
    from contextlab.ui.views.model_answers import progress_text

    stats = CallStats(total=8, done=4, calls=4, cached=0, prompt_tokens=4000, completion_tokens=40, started=0.0)
    stats.started = __import__("time").monotonic() - 110.0  # a wave of 4 answered in 110 s
    said = progress_text(stats.done, stats.total, stats.note())  # the one progress protocol: (done, total, note)
    assert (
        said == "4/8 prompts answered: 4 calls, 0 cached, 4,000+40 tokens; about 1m50s left at the pace of the "
        "calls so far"
    )
    first = CallStats(total=8, started=0.0)
    assert "left" not in progress_text(first.done, first.total, first.note())  # no call answered yet: no estimate


@pytest.mark.parametrize("view", ["learn", "placement"])
def test_models_view_learn_and_placement_draw_the_bundled_models_measured_curve(view):
    from importlib import resources

    from contextlab.curves.curve_file import load_curve_file
    from tests.ui.conftest import chart

    at = open_lab(view=view)
    at.session_state[f"{view}_measured_open"] = True  # what a click on the section does
    at = run(at)
    data = load_curve_file(resources.files("contextlab").joinpath("data", "gemma3_270m_measured.csv"))
    model = data.models()[0]
    spec = chart(at, f"{view}_measured_chart")
    line = next(t for t in spec["data"] if t["name"].startswith(f"{model} (your model, measured on 223 questions)"))
    assert list(zip(line["x"], line["y"], strict=False)) == [tuple(p) for p in data.curve(model, 5)]
    # its 95% band: Wilson at N = 223 of the counts in the outcomes shipped beside it, the file's own
    # intervals (10.3% [7.0, 15.0] at 1, 14.3% [10.4, 19.6] at 3, 25.6% [20.3, 31.7] at 5)
    band = [[round(v, 1) for v in t["y"]] for t in spec["data"] if t["name"].startswith("95% interval")]
    assert sorted(band) == [[7.0, 10.4, 20.3], [15.0, 19.6, 31.7]]
    said = texts(at)
    # the data show a recency effect and no dip: the page says what the paired tests resolve, never
    # "misses the middle" (position 3 is read better than position 1, not worse)
    assert "Watch the model miss the middle" not in said
    assert not [line for line in said.splitlines() if model in line and "misses the middle" in line]
    assert (
        f"What these questions show: {model} reads the end best: position 5 (25.6%) above every other "
        "position measured, on 223 questions."
    ) in said
