"""The query and every engine parameter as widgets, returned as one ``LabConfig``.

Each widget's value lives in ``st.session_state[CONFIG_KEYS[field]]`` (what the URL, an import,
a scenario and "Reset parameters" write). The budget widgets can be drawn on their own, so the
presenter's bar can hold them while the sidebar is closed.
"""

from __future__ import annotations

import streamlit as st

from contextlab.charts.orderings import STRATEGY_LABELS
from contextlab.lab.config import LabConfig
from contextlab.lab.thresholds import SLIDER_STEP, threshold_decimals
from contextlab.settings import DEDUP_THRESHOLD_RANGE, WHOLE_RANGES

from .engine import PLACEMENTS, tokenizer_label, tokenizer_options
from .loading import sample, sample_names
from .parts import seed_fixed_key
from .state import CONFIG_KEYS, reset_parameters, seed_config, seed_once

__all__ = [
    "BUDGET_STEPS",
    "TOKENIZER_LABELS",
    "tokenizer_option_label",
    "BUDGET_NOTE",
    "budget_widgets",
    "set_budget",
    "placement_widget",
    "parameters_panel",
    "current_config",
]

#: Token budgets the budget slider stops at (common context sizes); the box beside it takes any.
BUDGET_STEPS: tuple[int, ...] = (
    0,
    64,
    128,
    256,
    384,
    512,
    768,
    1024,
    1536,
    2048,
    3072,
    4096,
    6144,
    8192,
    12288,
    16384,
    24576,
    32768,
    65536,
    131072,
)
TOKENIZER_LABELS = {
    "cl100k_base": "cl100k_base: GPT-4, GPT-3.5",
    "o200k_base": "o200k_base: GPT-4o, GPT-4.1, GPT-5, o-series",
    "llama3": "llama3: Llama 3",
    "qwen3": "qwen3: Qwen 2.5, Qwen 3",
    "heuristic": "heuristic (words × 1.3)",
    "claude": "Claude (estimate in cl100k_base)",
    "gemini": "Gemini (estimate in o200k_base)",
}


def tokenizer_option_label(name: str) -> str:
    """Return how a tokenizer picker shows ``name``: its vocabulary and the models that use it."""
    return TOKENIZER_LABELS.get(name) or tokenizer_label(name)


def _copy_budget(source: str, target: str) -> None:
    value = st.session_state.get(source)
    if value is not None:
        st.session_state[target] = int(value)


def opening_budget(sample_name: str | None) -> int:
    """Return the budget the lab opens at: the sample set's own when it states one, else the default."""
    stated = sample(sample_name).max_context_tokens if sample_name in sample_names() else None
    return LabConfig().max_context_tokens if stated is None else stated


#: Session-state key of the sentence saying why the budget just changed by itself (a new sample set).
BUDGET_NOTE = "_budget_note"


def set_budget(value: int, why: str, key: str = CONFIG_KEYS["max_context_tokens"]) -> None:
    """Set the budget to ``value`` for a reason the user did not type (``why``), said under the budget once."""
    before = st.session_state.get(key)
    st.session_state[key] = value
    if before is not None and int(before) != value:
        st.session_state[BUDGET_NOTE] = f"Budget set to {value:,} tokens (it was {int(before):,}): {why}."


def budget_widgets(key: str = CONFIG_KEYS["max_context_tokens"], *, in_bar: bool = False) -> None:
    """Draw the budget as a slider over common budgets plus a box for any exact number.

    The value lives in ``st.session_state[key]`` (what the URL, import and reset write); both
    widgets show it and write their changes back to it. ``in_bar``: the presenter's bar, whose
    columns align at the bottom, so the box needs no room for a label.
    """
    names = sample_names()
    seed_once(key, opening_budget(st.session_state.get("sample_name", names[0] if names else None)))
    value = int(st.session_state[key])
    st.session_state["budget_step"] = value
    st.session_state["budget_exact"] = value
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.select_slider(
        "Token budget",
        sorted({*BUDGET_STEPS, value}),
        key="budget_step",
        on_change=_copy_budget,
        args=("budget_step", key),
        format_func=lambda v: f"{v:,}",
        help="The most tokens the context block may use. The slider stops at common "
        "budgets; type any number in the box.",
    )
    right.number_input(
        "Exact budget",
        min_value=WHOLE_RANGES["max_context_tokens"][0],
        max_value=WHOLE_RANGES["max_context_tokens"][1],
        step=64,
        key="budget_exact",
        on_change=_copy_budget,
        args=("budget_exact", key),
        label_visibility="collapsed" if in_bar else "hidden",
    )
    said = st.session_state.pop(BUDGET_NOTE, None)
    if said:  # the budget changed without the user touching it: say so where it happened
        st.caption(said)


def _reset() -> None:
    # The defaults, at the budget the current sample set opens at.
    reset_parameters()
    st.session_state[CONFIG_KEYS["max_context_tokens"]] = opening_budget(st.session_state.get("sample_name"))


def placement_widget(key: str = CONFIG_KEYS["placement"]) -> None:
    """Draw the placement picker (the sidebar's, or the presenter's bar's while presenting)."""
    st.selectbox(
        "Placement",
        PLACEMENTS,
        key=key,
        format_func=STRATEGY_LABELS.__getitem__,
        help="Where each document goes in the block. Lost in the middle puts the most "
        "relevant at the start and the end, where models read best.",
    )


def _engine_widgets(seed_mode: bool, presenting: bool) -> None:
    keys = CONFIG_KEYS
    # The slider writes the value the build uses: a linked 0.776 reads 0.776, not a rounded 0.78.
    decimals = threshold_decimals(float(st.session_state.get(keys["dedup_threshold"], 0.85)))
    st.slider(
        "Duplicate threshold",
        *DEDUP_THRESHOLD_RANGE,
        key=keys["dedup_threshold"],
        step=SLIDER_STEP,
        format=f"%.{decimals}f",
        help="Two documents at least this similar are duplicates (the Duplicates view says how "
        "similarity is measured); the more relevant one is kept. 1.0 removes only copies.",
    )
    min_tokens = st.session_state[keys["min_doc_tokens"]]
    st.slider(
        "Minimum document tokens",
        0,
        max(200, min_tokens),
        key=keys["min_doc_tokens"],
        help="Shorter documents are filtered out before anything else.",
    )
    if not presenting:
        placement_widget()
    st.toggle(
        "Summarize overflow",
        key=keys["summarize_overflow"],
        help="Documents that do not fit get a one-sentence synopsis while budget remains.",
    )
    with st.expander("Tokenizer and budget order", expanded=False):
        if seed_mode:
            st.caption("Seed-compatible mode fixes these: heuristic tokens, reorder first, headers free.")
        # In seed mode the disabled widgets show what the engine uses; the user's choices are kept.
        st.radio(
            "Tokenizer",
            tokenizer_options(st.session_state.get(keys["tokenizer"])),
            disabled=seed_mode,
            key=seed_fixed_key("tokenizer", keys["tokenizer"], seed_mode),
            format_func=tokenizer_option_label,
            help="Exact counts, offline, in your model's vocabulary; an estimate for Claude and Gemini, "
            "which publish no tokenizer; or the original algorithm's words × 1.3.",
        )
        st.toggle(
            "Budget before reorder",
            disabled=seed_mode,
            key=seed_fixed_key("budget_before_reorder", keys["budget_before_reorder"], seed_mode),
            help="Pick documents by relevance until the budget is spent, then reorder. "
            "Off: reorder first, so the budget cuts the end of the block.",
        )
        st.toggle(
            "Headers count toward the budget",
            disabled=seed_mode,
            key=seed_fixed_key("budget_includes_headers", keys["budget_includes_headers"], seed_mode),
            help="Count the '--- Source [n] ---' headers, so the block never exceeds the budget.",
        )


def parameters_panel(default_query: str = "", *, presenting: bool = False) -> LabConfig:
    """Draw the query and every engine parameter; return them as one ``LabConfig``.

    ``presenting`` leaves the budget and placement widgets out (the presenter's bar draws them).
    """
    keys = CONFIG_KEYS
    seed_config(LabConfig(), include_query=False)
    seed_once(keys["query"], default_query)
    st.text_area(
        "Query",
        key=keys["query"],
        height=80,
        help="The question the documents were retrieved for. Unscored documents are scored against it.",
    )
    st.toggle(
        "Seed-compatible (the original design)",
        key=keys["seed_compatible"],
        help="Run the original algorithm exactly: word-count tokens, reorder before the budget, headers not counted.",
    )
    if not presenting:
        budget_widgets(keys["max_context_tokens"])
    _engine_widgets(bool(st.session_state[keys["seed_compatible"]]), presenting)
    st.button("Reset parameters", key="reset_parameters", on_click=_reset)
    return current_config()


def current_config() -> LabConfig:
    """Return the configuration the parameter widgets hold now."""
    return LabConfig(**{name: st.session_state[key] for name, key in CONFIG_KEYS.items()})
