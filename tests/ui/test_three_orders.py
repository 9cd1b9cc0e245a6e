"""Final block's "Ask the model in several orders" (AppTest): calls counted before sending, the bundled model.

The fast test points the section at a port nothing listens on (no model, no fake): counting needs no
model, sending fails in one line. The slow one lets the lab start the bundled model on request, as a
presenter does, and asks it for real, then again from the cache.
"""

from __future__ import annotations

import socket

import pytest

from contextlab.models import free_port
from tests.ui.conftest import open_view, run, texts, unescape

pytestmark = pytest.mark.integration

_MOVED = (
    "The same question and the same 3 documents, 3 times: the answer (★ D6 · "
    "help-center/billing/refunds.md) first, in the middle and last"
)


def _section(**state):
    return open_view("final", sample="support_faq", budget=400, state={"orders_open": True, **state})


def test_three_orders_count_the_calls_before_anything_is_sent(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a response cache of the test's own
    endpoint = f"http://127.0.0.1:{free_port()}/v1"
    at = _section(orders_who="endpoint")
    at.text_input(key="orders_endpoint").set_value(endpoint)
    at = run(at)
    assert "Count the calls first: nothing is sent until you press Send." in texts(at)
    at = run(at.button(key="orders_count").click())
    said = texts(at)
    assert _MOVED in said
    assert f"This sends 3 calls, 1,341 prompt tokens (approximate: cl100k_base) to {endpoint}." in said
    at = run(at.button(key="orders_send").click())
    assert f"cannot reach the endpoint {endpoint}" in texts(at)


@pytest.mark.slow
def test_three_orders_start_the_bundled_model_on_request_and_answer_side_by_side(monkeypatch, tmp_path):
    pytest.importorskip("xllamacpp")
    from contextlab.ui.views.orders import stop_bundled_server

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    try:
        at = _section()
        at = run(at.button(key="orders_count").click())
        assert "This sends 3 calls" in texts(at)
        at = at.button(key="orders_send").click().run(timeout=900)
        assert not at.exception, [e.value for e in at.exception]
        said = texts(at)
        columns = [c for c in at.columns if any(m.value.startswith("**Answer ") for m in c.markdown)]
        titles = [next(m.value for m in c.markdown if m.value.startswith("**Answer ")) for c in columns]
        assert titles == [
            "**Answer first** · pos 1 of 3",
            "**Answer in the middle** · pos 2 of 3",
            "**Answer last** · pos 3 of 3",
        ]
        marks = [m.value for c in columns for m in c.markdown if "right" in m.value or "wrong" in m.value]
        assert len(marks) == 3  # the sample knows its answers: each one marked right or wrong
        # the caption claims an effect of order only when the marks differ
        right = sum("right" in m for m in marks)
        said_of_order = {3: "Right in all 3 orders", 0: "Wrong in all 3 orders"}.get(
            right, "The order changed the answer"
        )
        assert said_of_order in said
        assert "Answered by gemma-3-270m-q4_k_m at http://127.0.0.1:" in said
        # the same question again: every answer from the cache, nothing sent
        at = run(at.button(key="orders_count").click())
        assert "This sends 0 calls" in texts(at) and "3 answers come from the cache" in texts(at)
        assert at.button(key="orders_send").label == "Use the cached answers"
        at = run(at.button(key="orders_send").click())
        assert texts(at).count("from the cache") >= 3
    finally:
        stop_bundled_server()


def test_three_orders_bundled_model_moves_off_a_port_someone_else_holds_and_stays_there(monkeypatch):
    from contextlab.ui.views import orders

    with socket.socket() as taken:  # another program on the usual port (it answers nothing)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setattr(orders, "BUNDLED_PORT", taken.getsockname()[1])
        bundled = orders._Bundled()
        first = bundled.endpoint()
        assert first != f"http://127.0.0.1:{taken.getsockname()[1]}/v1"
        assert bundled.endpoint() == first  # kept: the answers' cache key holds the URL


def test_two_orders_when_asked_for_two_and_the_count_refused_past_the_block(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    at = _section(orders_who="endpoint")
    at.text_input(key="orders_endpoint").set_value(f"http://127.0.0.1:{free_port()}/v1")
    at.number_input(key="orders_n").set_value(2)
    at = run(at.button(key="orders_count").click())
    said = texts(at)
    assert (
        "The same question and the same 3 documents, 2 times: the answer (★ D6 · help-center/billing/refunds.md) "
        "first and last"
    ) in said
    assert "This sends 2 calls" in said
    at.number_input(key="orders_n").set_value(4)
    at = run(at.button(key="orders_count").click())
    assert [unescape(e.value) for e in at.error] == [
        "orders: the block holds 3 document(s), too few for 4 different places; raise the budget or ask fewer orders"
    ]
