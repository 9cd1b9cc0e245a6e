"""Evaluate's "Answer with a model": the same grid, answered by a real model behind an endpoint.

Endpoint and model are typed here; the key only ever comes from the environment
(``CONTEXTLAB_API_KEY``, else ``OPENAI_API_KEY``) and is never shown or stored. "Count the calls"
builds every block and prompt and says what answering will send; only "Send" sends it. The run
becomes the view's result (measured accuracy per configuration beside the estimate), and each
question shows the model's answer next to the block it saw.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from contextlab.errors import ContextLabError
from contextlab.evaluation import EvalResult, EvalRow, EvalSet, RunOptions
from contextlab.evaluation.measured import MeasuredRun, MeasureSettings, plan_measured
from contextlab.lab.config import LabConfig
from contextlab.models import APIS, DEFAULT_CONCURRENCY, api_key_source

from ..state import chosen
from ..text import caption, error, info, md_line, plain, warning

__all__ = ["answer_with_model", "answers_table", "progress_text"]

_DEFAULT_ENDPOINT = "http://127.0.0.1:8080/v1"


def _settings() -> MeasureSettings | None:
    a, b = st.columns(2)
    endpoint = a.text_input("Endpoint (OpenAI-compatible base URL)", _DEFAULT_ENDPOINT, key="model_endpoint")
    model = b.text_input("Model (empty: the endpoint's first)", "", key="model_name")
    c, d, e = st.columns(3)
    api = chosen(APIS, c.selectbox("API", APIS, index=APIS.index("completions"), key="model_api"))
    shots = d.number_input("Solved examples (shots)", 0, 8, 2, key="model_shots")
    concurrency = e.number_input("Requests at once", 1, 32, DEFAULT_CONCURRENCY, key="model_concurrency")
    source = api_key_source()
    caption(
        f"Key: from {source} (never shown or stored)."
        if source
        else "Key: none set (CONTEXTLAB_API_KEY or OPENAI_API_KEY); local servers need none. "
        "`contextlab model serve --port 8080` serves the bundled model here."
    )
    try:
        return MeasureSettings(
            endpoint=endpoint, model=model.strip() or None, api=api, shots=int(shots), concurrency=int(concurrency)
        )
    except (ValueError, ContextLabError) as exc:
        error(exc)
        return None


def answer_with_model(evalset: EvalSet, grid: dict[str, list[Any]], base: LabConfig, options: dict[str, Any]) -> None:
    """Draw the section: settings, the call count, then Send; a finished run becomes ``eval_result``."""
    with st.expander("Answer with a model (measured accuracy, not an estimate)", expanded=False):
        settings = _settings()
        if settings is None:
            return
        plan_options = {k: v for k, v in options.items() if k in ("limit", "top_k")}
        if st.button("Count the calls", key="model_count"):
            try:
                run = plan_measured(evalset, grid, RunOptions(base=base, **plan_options), measure=settings)
                st.session_state["model_run"] = (run, run.cost())
            except (ValueError, ContextLabError) as exc:
                error(exc)
                return
        planned = st.session_state.get("model_run")
        if planned is None:
            info("Count the calls first: nothing is sent until you press Send.")
            return
        run, cost = planned
        info(f"This run sends {cost.describe(run.client.endpoint)}; budgets counted in {run.budget_tokens}.")
        for line in run.notes:  # why budgets are approximate; a cache that keeps nothing new
            warning(line)
        if st.button(
            f"Send {cost.calls} calls" if cost.calls else "Use the cached answers", key="model_send", type="primary"
        ):
            if not run_and_keep(evalset, "Asking the model…", partial(_ask, run)):
                return
            st.session_state["model_blocks"] = run.blocks
            st.session_state["model_notes"] = list(run.notes)  # now with the answers that were cut
            del st.session_state["model_run"]
            st.rerun()


def progress_text(done: int, total: int, note: str = "") -> str:
    """Return how far a run is: the prompts answered, then the batch's note (``CallStats.note``)."""
    return f"{done}/{total} prompts answered" + (f": {note}" if note else "")


def _ask(run: MeasuredRun, bar: DeltaGenerator) -> EvalResult:
    """Ask the model, drawing each wave of answers below ``bar`` the moment it lands."""
    arrived = st.empty()

    def progress(done: int, total: int, note: str = "") -> None:
        bar.progress(done / max(total, 1), text=progress_text(done, total, note))

    def show(rows: list[EvalRow]) -> None:
        arrived.dataframe(
            pd.DataFrame(
                [
                    {
                        "config": plain(r.config),
                        "answer": plain(r.reply.answer if r.reply else ""),
                        "correct": r.reply.correct if r.reply else None,
                    }
                    for r in rows
                ]
            ),
            hide_index=True,
            width="stretch",
            height=min(38 + 35 * len(rows), 300),
        )

    return run.run(progress=progress, on_answers=show)


def run_and_keep(evalset: EvalSet, label: str, work: Callable[[DeltaGenerator], EvalResult]) -> bool:
    """Return True once ``work(bar)``'s result is the view's evaluation (a progress bar shown
    meanwhile); False after showing a bad-input error instead."""
    bar = st.progress(0.0, text=label)
    try:
        result = work(bar)
    except (ValueError, ContextLabError) as exc:
        error(exc)
        return False
    finally:
        bar.empty()
    st.session_state["eval_result"] = result
    st.session_state["eval_set"] = evalset
    return True


def answers_table(result: EvalResult) -> None:
    """Draw, for a measured result, each question's answer beside the block the model saw."""
    if not result.endpoint:
        return
    blocks: list[str] = st.session_state.get("model_blocks") or []
    st.markdown(
        "**The model's answers** "
        + md_line(f"({result.answer_model or 'the endpoint’s default model'} at {result.endpoint})")
    )
    for line in st.session_state.get("model_notes") or []:
        warning(line)
    frame = pd.DataFrame(
        [
            {
                "config": plain(r.config),
                "question": plain(result.questions.get(r.query_id, "")),
                "answer": plain(r.reply.answer if r.reply else ""),
                "correct": r.reply.correct if r.reply else None,
                "gold at": r.metrics.gold_position,
                "latency ms": (r.reply.latency_ms if r.reply else None),
            }
            for r in result.rows
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch", key="model_answers_table")
    if blocks and len(blocks) == len(result.rows):
        labels = [
            f"{i + 1}. {r.config} · {result.questions.get(r.query_id, r.query_id)}" for i, r in enumerate(result.rows)
        ]
        numbers = range(len(labels))
        pick = chosen(
            numbers,
            st.selectbox("Answer and block", numbers, format_func=lambda i: plain(labels[i]), key="model_answer_pick"),
        )
        row = result.rows[pick]
        block, answer = st.columns([3, 2])  # the answer beside the block it was given, not below it
        block.code(plain(blocks[pick]) or "(an empty block)", language=None, wrap_lines=True, height=360)
        with answer:
            st.markdown("**Question**")
            st.text(plain(result.questions.get(row.query_id, row.query_id)))
            st.markdown("**The model's answer**")
            st.text(plain(row.reply.answer if row.reply else "") or "(an empty answer)")
            correct = row.reply.correct if row.reply else None
            verdict = "not scored (no gold answer)" if correct is None else "✓ correct" if correct else "✗ not correct"
            caption(
                f"{verdict}: a gold answer, SQuAD-normalised, contained in it; the gold document at "
                + (
                    f"pos {row.metrics.gold_position}."
                    if row.metrics.gold_position
                    else "no position (not in the block)."
                )
            )
