"""Window view: the whole prompt — system, documents, conversation, query, reserve."""

from __future__ import annotations

from dataclasses import fields

import pandas as pd
import streamlit as st

from contextlab.charts.style import doc_tag
from contextlab.charts.window import window_sections_figure
from contextlab.errors import ContextLabError
from contextlab.lab.config import LabConfig
from contextlab.types import Document, Message
from contextlab.window import AssembledPrompt, HybridRanking, WindowBudget, assemble_prompt

from ..context import LabContext
from ..engine import documents_hash
from ..parts import on_request, show_chart, show_table
from ..text import md, plain

__all__ = ["render", "window_controls", "budget_sentence", "WINDOW_SIZES", "SHARE_NAMES"]

#: Context lengths offered, in tokens (common model windows and small ones that force cuts).
WINDOW_SIZES: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32000, 128000)
#: The window's shares (``WindowBudget``'s fields), in layout order, with their defaults.
SHARE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(WindowBudget) if f.name != "max_tokens")
_SHARE_DEFAULTS: dict[str, float] = {name: getattr(WindowBudget(), name) for name in SHARE_NAMES}
_RANKING_DEFAULTS = HybridRanking()
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
    max_tokens = st.select_slider(
        "Window size (tokens)", options=WINDOW_SIZES, key=f"{key}_max_tokens", format_func=lambda v: f"{v:,}"
    )
    cols = st.columns(len(SHARE_NAMES))
    shares = {}
    for col, name in zip(cols, SHARE_NAMES, strict=False):
        shares[name] = col.slider(
            name.replace("_", " ").capitalize(), min_value=0.0, max_value=1.0, step=0.01, key=f"{key}_share_{name}"
        )
    defaults = " / ".join(f"{_SHARE_DEFAULTS[n]:.0%}" for n in SHARE_NAMES)
    st.button(
        f"Reset shares to the defaults ({defaults})", key=f"{key}_reset_shares", on_click=_reset_shares, args=(key,)
    )
    with st.expander("Document ranking: relevance, recency, importance"):
        st.caption(
            "The window ranks documents by a mix of retrieval relevance, how recent they "
            "are (halving every half-life) and their importance."
        )
        w = st.columns(4)
        weights = {
            "relevance": w[0].number_input(
                "Relevance weight", 0.0, 1.0, _RANKING_DEFAULTS.relevance, 0.05, key=f"{key}_w_relevance"
            ),
            "recency": w[1].number_input(
                "Recency weight", 0.0, 1.0, _RANKING_DEFAULTS.recency, 0.05, key=f"{key}_w_recency"
            ),
            "importance": w[2].number_input(
                "Importance weight", 0.0, 1.0, _RANKING_DEFAULTS.importance, 0.05, key=f"{key}_w_importance"
            ),
            "half_life_hours": w[3].number_input(
                "Half-life (hours)", 1.0, 10_000.0, _RANKING_DEFAULTS.half_life_hours, 1.0, key=f"{key}_w_half_life"
            ),
        }
    return int(max_tokens), shares, weights


def _clock(documents: list[Document]) -> float | None:
    # Sample documents carry fixed dates; measuring recency from the newest one keeps the
    # picture the same tomorrow instead of decaying every document to zero.
    stamps = [d.timestamp for d in documents if d.timestamp is not None]
    return max(stamps) if stamps else None


@st.cache_data(max_entries=32, show_spinner=False)
def _assemble(
    docs_key: str,
    config_json: str,
    max_tokens: int,
    shares: tuple[float, ...],
    weights: tuple[float, ...],
    system_prompt: str,
    history: tuple[tuple[str, str], ...],
    now: float | None,
    _documents: list[Document],
) -> AssembledPrompt:
    # Keyed by every argument but ``_documents``, which ``docs_key`` stands for.
    config: LabConfig = LabConfig.from_json(config_json)
    budget = WindowBudget(max_tokens, *shares)
    ranking = HybridRanking(*weights)
    return assemble_prompt(
        system_prompt,
        _documents,
        [Message(r, c) for r, c in history],
        config.query,
        window_budget=budget,
        manager=config.make_manager(),
        ranking=ranking,
        now=now,
    )


def _sections(prompt: AssembledPrompt) -> list[tuple[str, int, int]]:
    """Return (name, allotted, used) per section, in layout order, for the figure."""
    out = [(name, acc.budget, acc.used) for name, acc in prompt.sections.items()]
    reserve = prompt.output_reserve_tokens
    out.append(("output_reserve", reserve, reserve))
    return out


def _account_table(prompt: AssembledPrompt) -> pd.DataFrame:
    rows = []
    for name, acc in prompt.sections.items():
        rows.append(
            {
                "section": name.replace("_", " "),
                "share (tokens)": acc.budget,
                "could use": acc.limit,
                "used": acc.used,
                "items in": acc.items_in,
                "items kept": acc.items_out,
                "notes": plain("; ".join(acc.notes)),
            }
        )
    rows.append(
        {
            "section": "output reserve",
            "share (tokens)": prompt.output_reserve_tokens,
            "could use": prompt.output_reserve_tokens,
            "used": 0,
            "items in": 0,
            "items kept": 0,
            "notes": "kept free for the answer",
        }
    )
    return pd.DataFrame(rows)


def _ranking_table(prompt: AssembledPrompt, documents: list[Document]) -> pd.DataFrame:
    """Return one row per document, best hybrid score first, with the score's parts."""
    index: dict[tuple[str, str | None], int] = {}
    for k, d in enumerate(documents):
        index.setdefault((d.content, d.source), k)

    def number(value: float | None) -> str:
        return "" if value is None else f"{value:.3f}"

    rows = []
    for rank, doc in enumerate(prompt.ranked_documents, start=1):
        parts = doc.metadata.get("hybrid", {})
        i = index.get((doc.content, doc.source))
        rows.append(
            {
                "hybrid rank": rank,
                "doc": doc_tag(i) if i is not None else "",
                "source": plain(doc.source or ""),
                "hybrid score": number(doc.score),
                "retrieval relevance": number(parts.get("relevance")),
                "recency": number(parts.get("recency")),
                "importance": number(parts.get("importance")),
            }
        )
    return pd.DataFrame(rows)


def budget_sentence(prompt: AssembledPrompt, sidebar_budget: int) -> str:
    """Return, up front, how this view's documents budget relates to the sidebar's token budget."""
    docs = prompt.sections["documents"]
    return (
        f"Here the documents get their share of the window: {prompt.window_budget.documents:.0%} of "
        f"{prompt.window_budget.max_tokens:,} tokens = {docs.budget:,} (could use {docs.limit:,} after "
        f"lending), and the engine built the block with a budget of {prompt.documents_budget:,} "
        f"once headers were paid — not the sidebar's token budget of {sidebar_budget:,}. Every "
        "other sidebar setting applies. Documents are ranked by the hybrid score (relevance, "
        "recency, importance), so this view can keep other documents than the rest of the lab."
    )


def render(ctx: LabContext) -> None:
    """Draw the Window view for ``ctx``; returns nothing."""
    st.header("Window", anchor=False)
    st.write(
        "A prompt is more than documents: the model's whole window also holds the instructions, "
        "the conversation so far, the question and room for the answer. This view lays it all "
        "out with the default shares, so you can see what each part gets and what it really uses."
    )
    max_tokens, shares, weights = window_controls()
    total = sum(shares.values())
    if total > 1.0 + 1e-9:
        st.error(f"The shares add up to {total:.0%}; lower one so they add up to at most 100%.")
        return
    try:
        prompt = _assemble(
            documents_hash(ctx.documents),
            ctx.config.to_json(),
            max_tokens,
            tuple(shares[n] for n in SHARE_NAMES),
            (weights["relevance"], weights["recency"], weights["importance"], weights["half_life_hours"]),
            ctx.system_prompt,
            tuple((m.role, m.content) for m in ctx.history),
            _clock(ctx.documents),
            ctx.documents,
        )
    except ContextLabError as exc:
        st.error(md(exc))
        return
    st.info(budget_sentence(prompt, ctx.config.max_context_tokens))
    _headline(ctx, prompt, max_tokens)
    _conversation(ctx, prompt)
    st.subheader("The assembled prompt", anchor=False)
    # Only the open tab is drawn (switching reruns): the browser lays out one form, not both.
    tab_text, tab_messages = st.tabs(["As text", "As chat messages"], key="win_prompt_tab", on_change="rerun")
    if tab_text.open:
        with tab_text:
            st.code(plain(prompt.text), language=None, wrap_lines=True, height=520)
    if tab_messages.open:
        with tab_messages:
            st.caption(f"{prompt.message_tokens:,} tokens as chat messages (with per-message overhead).")
            st.dataframe(
                pd.DataFrame([{k: plain(v) for k, v in m.items()} for m in prompt.messages]),
                hide_index=True,
                width="stretch",
            )


def _headline(ctx: LabContext, prompt: AssembledPrompt, max_tokens: int) -> None:
    cols = st.columns(4)
    cols[0].metric(
        "Prompt tokens", f"{prompt.tokens_used:,}", help=f"Counted with {prompt.tokenizer} on the finished text."
    )
    cols[1].metric("Prompt limit", f"{prompt.tokens_limit:,}", help="The window minus the output reserve.")
    cols[2].metric("Kept for the answer", f"{prompt.output_reserve_tokens:,}")
    docs_in = prompt.sections["documents"].items_out
    cols[3].metric(
        "Documents in the window",
        f"{docs_in:,} of {len(ctx.documents):,}",
        help="With this view's documents budget (above), not the sidebar's.",
    )
    show_chart(ctx, "win_sections_chart", window_sections_figure, _sections(prompt), max_tokens)
    st.caption(
        "Top bar: each section's planned share. Bottom bar: what this prompt really "
        "uses. Unused shares are lent to sections that need more (documents first, then "
        "conversation); the buffer pays for the question and otherwise stays free as a "
        "safety margin."
    )
    show_table(ctx, _account_table(prompt), hide_index=True, width="stretch")
    for note in prompt.notes:
        st.warning(md(note))
    ranking = on_request("How the documents were ranked (hybrid score)", "win_ranking_open")
    if ranking is None:
        return
    with ranking:
        st.caption(
            "The window ranks by a hybrid score: retrieval relevance, recency and importance, "
            "weighted as set above; the documents section then runs the engine on these "
            "scores, so the block's headers show the hybrid score. Recency is measured "
            "from the newest document's date."
        )
        show_table(ctx, _ranking_table(prompt, ctx.documents), hide_index=True, width="stretch")


def _conversation(ctx: LabContext, prompt: AssembledPrompt) -> None:
    st.subheader("Conversation", anchor=False)
    hist = prompt.history
    if not ctx.history:
        st.info("This document set has no conversation; the section stays empty.")
        return
    st.write(
        f"{len(hist.kept)} recent message(s) kept word for word, "
        f"{len(hist.summarized_indices)} older one(s) summarized — none dropped."
    )
    if hist.summary:
        st.text("Summary of the older messages:")
        st.code(plain(hist.summary), language=None, wrap_lines=True)
    account = hist.account()
    question = prompt.question_index

    def where(i: int) -> str:
        if i == question:
            return "the question: shown once, last"
        return account.get(i, "")

    st.dataframe(
        pd.DataFrame(
            [
                {"turn": i, "role": plain(m.role), "message": plain(m.content), "in the prompt as": where(i)}
                for i, m in enumerate(ctx.history)
            ]
        ),
        hide_index=True,
        width="stretch",
        column_config={
            "turn": st.column_config.NumberColumn(width="small"),
            "role": st.column_config.TextColumn(width="small"),
            "message": st.column_config.TextColumn(width="large"),
            "in the prompt as": st.column_config.TextColumn(width="medium"),
        },
    )
