"""A server's own timings that are nonsense never change an answer, and never become the pace's numbers.

A FAKE server injects the fault (llama.cpp's real ``timings`` are read in tests/test_curve_bundled.py);
it never stands in for a model's answer.
"""

from __future__ import annotations

import pytest

from contextlab.models import ModelClient, ResponseCache, answer_prompts
from contextlab.models.pace import measured_pace
from tests.fault_server import completion_body, fault_server, send_json


@pytest.mark.parametrize(
    "timings",
    [
        {"prompt_n": "many", "prompt_ms": 10.0},
        {"prompt_n": 10, "cache_n": -5, "prompt_ms": 10.0},
        {"prompt_n": 10, "prompt_ms": float("1e12")},
        "fast",
    ],
)
def test_pace_faults_nonsense_timings_are_ignored_and_the_answer_kept(timings, tmp_path):
    """Injects a fault: a completion whose ``timings`` are not counts and milliseconds a request can have."""
    with fault_server() as server:
        server.on("POST", "/v1/completions", send_json(completion_body("Paris", timings=timings)))
        client = ModelClient(server.url, "m", api="completions", max_retries=0, timeout=10)
        answers = answer_prompts(
            client, ["Question: capital of France?\nAnswer:"], cache=ResponseCache(tmp_path / "c.sqlite")
        )
    assert answers[0].text == "Paris" and answers[0].server is None
    pace = measured_pace(answers, 1.0, 1)
    assert pace.timings == () and pace.server_busy_s is None
    assert pace.lines()[-1] == "the server reports no timings of its own: wall time only"
