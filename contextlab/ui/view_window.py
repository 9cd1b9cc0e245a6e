"""Window view: the whole prompt of seed 002 — system, documents, conversation, query, reserve."""

from __future__ import annotations

import importlib
from typing import Any

import pandas as pd
import streamlit as st

from contextlab.lab.config import LabConfig
from contextlab.errors import ContextLabError
from contextlab.types import Document, Message
from contextlab.ui import teach_charts
from contextlab.ui.context import LabContext
from contextlab.ui.engine import documents_hash

__all__ = ["render", "window_controls", "WINDOW_SIZES", "SHARE_NAMES"]

#: Context lengths offered, in tokens (common model windows and small ones that force cuts).
WINDOW_SIZES: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32000, 128000)
#: The shares of seed 002, in layout order, with their defaults.
SHARE_NAMES: tuple[str, ...] = ("system", "documents", "conversation", "output_reserve", "buffer")
_SHARE_DEFAULTS: dict[str, float] = {"system": 0.05, "documents": 0.50, "conversation": 0.25,
                                     "output_reserve": 0.15, "buffer": 0.05}
_DEFAULT_WINDOW = 4096


def _reset_shares(key: str) -> None:
    for name, value in _SHARE_DEFAULTS.items():
        st.session_state[f"{key}_share_{name}"] = value


def window_controls(key: str = "win") -> tuple[int, dict[str, float], dict[str, float]]:
    """Return the window size, the five shares and the hybrid-ranking weights set on the page.

    Widget keys start with ``key`` (``win_max_tokens``, ``win_share_documents``, ...).
    """
    st.session_state.setdefault(f"{key}_max_tokens", _DEFAULT_WINDOW)
    for name, value in _SHARE_DEFAULTS.items():
        st.session_state.setdefault(f"{key}_share_{name}", value)
    max_tokens = st.select_slider("Window size (tokens)", options=WINDOW_SIZES,
                                  key=f"{key}_max_tokens", format_func=lambda v: f"{v:,}")
    cols = st.columns(len(SHARE_NAMES))
    shares = {}
    for col, name in zip(cols, SHARE_NAMES):
        shares[name] = col.slider(name.replace("_", " ").capitalize(), min_value=0.0,
                                  max_value=1.0, step=0.01, key=f"{key}_share_{name}")
    defaults = " / ".join(f"{_SHARE_DEFAULTS[n]:.0%}" for n in SHARE_NAMES)
    st.button(f"Reset shares to seed 002 ({defaults})", key=f"{key}_reset_shares",
              on_click=_reset_shares, args=(key,))
    with st.expander("Document ranking: relevance, recency, importance"):
        st.caption("Seed 002 ranks documents by a mix of retrieval relevance, how recent they "
                   "are (halving every half-life) and their importance.")
        w = st.columns(4)
        weights = {
            "relevance": w[0].number_input("Relevance weight", 0.0, 1.0, 0.5, 0.05,
                                           key=f"{key}_w_relevance"),
            "recency": w[1].number_input("Recency weight", 0.0, 1.0, 0.25, 0.05,
                                         key=f"{key}_w_recency"),
            "importance": w[2].number_input("Importance weight", 0.0, 1.0, 0.25, 0.05,
                                            key=f"{key}_w_importance"),
            "half_life_hours": w[3].number_input("Half-life (hours)", 1.0, 10_000.0, 24.0, 1.0,
                                                 key=f"{key}_w_half_life"),
        }
    return int(max_tokens), shares, weights


def _clock(documents: list[Document]) -> float | None:
    # Sample documents carry fixed dates; measuring recency from the newest one keeps the
    # picture the same tomorrow instead of decaying every document to zero.
    stamps = [d.timestamp for d in documents if d.timestamp is not None]
    return max(stamps) if stamps else None


@st.cache_data(max_entries=32, show_spinner=False)
def _assemble(docs_key: str, config_json: str, max_tokens: int, shares: tuple[float, ...],
              weights: tuple[float, ...], system_prompt: str, history: tuple[tuple[str, str], ...],
              now: float | None, _documents: list[Document]) -> Any:
    # Keyed by every argument but ``_documents``, which ``docs_key`` stands for.
    from contextlab.window import HybridRanking, WindowBudget, assemble_prompt

    config = LabConfig.from_json(config_json)
    budget = WindowBudget(max_tokens, *shares)
    ranking = HybridRanking(*weights)
    return assemble_prompt(system_prompt, _documents, [Message(r, c) for r, c in history],
                           config.query, budget=budget, manager=config.make_manager(),
                           ranking=ranking, now=now)


def _sections(prompt: Any) -> list[tuple[str, int, int]]:
    """Return (name, allotted, used) per section, in seed 002's order, for the figure."""
    out = [(name, acc.budget, acc.used) for name, acc in prompt.sections.items()]
    if "buffer" not in prompt.sections:
        # Older accounts charge the query to the buffer: show that share as the buffer's.
        alloc = prompt.budget.allocation()
        out = [(n, 0 if n == "query" else b, u) for n, b, u in out]
        out.append(("buffer", alloc["buffer"], 0))
    reserve = prompt.output_reserve_tokens
    out.append(("output_reserve", reserve, reserve))
    return out


def _account_table(prompt: Any) -> pd.DataFrame:
    rows = []
    for name, acc in prompt.sections.items():
        rows.append({
            "section": name.replace("_", " "),
            "share (tokens)": acc.budget,
            "could use": acc.limit,
            "used": acc.used,
            "items in": acc.items_in,
            "items kept": acc.items_out,
            "notes": "; ".join(acc.notes),
        })
    rows.append({"section": "output reserve", "share (tokens)": prompt.output_reserve_tokens,
                 "could use": prompt.output_reserve_tokens, "used": 0, "items in": 0,
                 "items kept": 0, "notes": "kept free for the answer"})
    return pd.DataFrame(rows)


def _ranking_table(prompt: Any) -> pd.DataFrame:
    """Return one row per document, best hybrid score first, with the score's parts."""
    rows = []
    for rank, doc in enumerate(prompt.ranked_documents, start=1):
        parts = doc.metadata.get("hybrid", {})
        rows.append({"rank": rank, "source": doc.source or "",
                     "hybrid score": round(doc.score, 3),
                     "relevance": parts.get("relevance"),
                     "recency": None if parts.get("recency") is None else round(parts["recency"], 3),
                     "importance": parts.get("importance")})
    return pd.DataFrame(rows)


def render(ctx: LabContext) -> None:
    """Draw the Window view for ``ctx``; returns nothing."""
    st.header("Window")
    st.write(
        "A prompt is more than documents: the model's whole window also holds the instructions, "
        "the conversation so far, the question and room for the answer. This view lays it all "
        "out with seed 002's shares, so you can see what each part gets and what it really uses."
    )
    try:
        importlib.import_module("contextlab.window")
    except ImportError:
        st.info("The window layout needs contextlab.window, which is not installed yet.")
        return

    max_tokens, shares, weights = window_controls()
    total = sum(shares.values())
    if total > 1.0 + 1e-9:
        st.error(f"The shares add up to {total:.0%}; lower one so they add up to at most 100%.")
        return
    try:
        prompt = _assemble(
            documents_hash(ctx.documents), ctx.config.to_json(), max_tokens,
            tuple(shares[n] for n in SHARE_NAMES),
            (weights["relevance"], weights["recency"], weights["importance"],
             weights["half_life_hours"]),
            ctx.system_prompt, tuple((m.role, m.content) for m in ctx.history),
            _clock(ctx.documents), ctx.documents,
        )
    except ContextLabError as exc:
        st.error(str(exc))
        return

    cols = st.columns(4)
    cols[0].metric("Prompt tokens", f"{prompt.tokens_used:,}",
                   help=f"Counted with {prompt.tokenizer} on the finished text.")
    cols[1].metric("Prompt limit", f"{prompt.tokens_limit:,}",
                   help="The window minus the output reserve.")
    cols[2].metric("Kept for the answer", f"{prompt.output_reserve_tokens:,}")
    docs_in = prompt.sections["documents"].items_out
    cols[3].metric("Documents in", f"{docs_in} of {len(ctx.documents)}")

    st.plotly_chart(teach_charts.window_sections_figure(_sections(prompt), max_tokens),
                    width="stretch", key="win_sections_chart")
    st.caption("Top bar: each section's planned share. Bottom bar: what this prompt really "
               "uses. Unused shares are lent to sections that need more (documents first, then "
               "conversation); the buffer pays for the question and otherwise stays free as a "
               "safety margin. Documents go through the sidebar's settings, except the budget: "
               "here their share of the window is their budget.")
    st.dataframe(_account_table(prompt), hide_index=True, width="stretch")
    for note in prompt.notes:
        st.warning(note)

    with st.expander("How the documents were ranked (hybrid score)"):
        st.caption("Seed 002 ranks by relevance, recency and importance; the documents section "
                   "then runs the engine on these scores. Recency is measured from the newest "
                   "document's date.")
        st.dataframe(_ranking_table(prompt), hide_index=True, width="stretch")

    st.subheader("Conversation")
    hist = prompt.history
    if not ctx.history:
        st.info("This document set has no conversation; the section stays empty.")
    else:
        st.write(f"{len(hist.kept)} recent message(s) kept word for word, "
                 f"{len(hist.summarized_indices)} older one(s) summarized — none dropped.")
        if hist.summary:
            st.text("Summary of the older messages:")
            st.code(hist.summary, language=None, wrap_lines=True)
        account = hist.account()
        st.dataframe(pd.DataFrame([
            {"#": i, "role": m.role, "message": m.content, "in the prompt as": account.get(i, "")}
            for i, m in enumerate(ctx.history)
        ]), hide_index=True, width="stretch")

    st.subheader("The assembled prompt")
    tab_text, tab_messages = st.tabs(["As text", "As chat messages"])
    with tab_text:
        st.code(prompt.text, language=None, wrap_lines=True, height=520)
    with tab_messages:
        st.caption(f"{prompt.message_tokens:,} tokens as chat messages (with per-message overhead).")
        st.dataframe(pd.DataFrame(prompt.messages), hide_index=True, width="stretch")
