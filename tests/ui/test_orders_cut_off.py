"""Final block's orders (AppTest): an answer the server stopped at ``max_tokens`` says it was cut off.

The server is a FAKE (tests/fault_server.py): it answers every order with a reply whose finish
reason is "length", a fault a real model cannot be made to show on demand.
"""

from __future__ import annotations

import pytest

from tests.fault_server import fault_server, send_json
from tests.ui.conftest import open_view, run, texts

pytestmark = pytest.mark.integration


def _reply(reason: str) -> dict[str, object]:
    return {"model": "m", "choices": [{"text": " Within 30 days of", "finish_reason": reason}]}


@pytest.mark.parametrize(("reason", "cut_lines"), [("length", 3), ("stop", 0)])
def test_three_orders_answer_stopped_at_max_tokens_says_cut_off(monkeypatch, tmp_path, reason, cut_lines):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a response cache of the test's own
    with fault_server() as server:
        server.on("POST", "/v1/completions", send_json(_reply(reason)))
        at = open_view("final", sample="support_faq", budget=400, state={"orders_open": True, "orders_who": "endpoint"})
        at.text_input(key="orders_endpoint").set_value(server.url)
        at.selectbox(key="orders_api").set_value("completions")
        at = run(at)
        at = run(at.button(key="orders_count").click())
        at = run(at.button(key="orders_send").click())
    said = texts(at)
    assert said.count("Within 30 days of") == 3
    cut = "Cut off at 32 tokens: the model had more to say than max_tokens allows."
    assert said.count(cut) == cut_lines
