"""Evaluate's settings in the link: the questions, the retrieval, the curve's model and the grid.

A link to the Evaluate view carries what its Run button runs, in the command line's words:
``limit``, ``top_k``, ``curve_model`` and ``grid`` (``KEY=V1,V2`` per setting, ``;`` between them, as
``contextlab eval --grid`` takes them), defaults left out; opening it puts them in the widgets and
says that Run reproduces the shared run. An uploaded set cannot travel in a link: the link says so
(``evalset=upload``) and opening it says which set is open instead; so does a curve file
(``curve_model=measured&curve=upload``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from contextlab.errors import InvalidInputError
from contextlab.evaluation import DEFAULT_TOP_K
from contextlab.settings import DEFAULT_CURVE_MODEL
from contextlab.validation import message_value, parse_int

from .curve_store import LOADED_CURVE
from .engine import LAB_TOKENIZERS, PLACEMENTS, check_tokenizer_name
from .state import seed_once

__all__ = [
    "BUDGET_CHOICES",
    "THRESHOLD_CHOICES",
    "MIN_TOKEN_CHOICES",
    "DEFAULT_LIMIT",
    "GRID_WIDGETS",
    "seed_evaluate_widgets",
    "evaluate_params",
    "apply_evaluate_params",
    "OPENED_FROM_LINK",
    "MEASURED_CURVE",
    "MAX_LINK_TOP_K",
]

BUDGET_CHOICES: tuple[int, ...] = (128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192)
THRESHOLD_CHOICES: tuple[float, ...] = (0.5, 0.7, 0.85, 0.95, 1.0)
MIN_TOKEN_CHOICES: tuple[int, ...] = (0, 5, 20, 50)
#: Questions a run takes unless told otherwise (the set's size when smaller).
DEFAULT_LIMIT = 200
#: The most documents retrieved per question a link can ask for (Evaluate's "Retrieve top k" box).
MAX_LINK_TOP_K = 100
#: Grid setting -> (its widget's key, the values it offers, the widget's default).
GRID_WIDGETS: dict[str, tuple[str, tuple[Any, ...], list[Any]]] = {
    "max_context_tokens": ("eval_budgets", BUDGET_CHOICES, [256, 512, 768, 1024]),
    "placement": ("eval_placements", tuple(PLACEMENTS), ["lost_in_the_middle", "relevance"]),
    "dedup_threshold": ("eval_thresholds", THRESHOLD_CHOICES, [0.85]),
    "min_doc_tokens": ("eval_min_tokens", MIN_TOKEN_CHOICES, [5]),
    "tokenizer": ("eval_tokenizers", LAB_TOKENIZERS, []),  # default: the lab's own tokenizer
}
#: The curve option that reads the measured curve the lab holds (``curve_store``), as the link writes it.
MEASURED_CURVE = "measured"
#: Session-state key set when a link opened Evaluate with settings of its own (the view says so once).
OPENED_FROM_LINK = "_eval_from_link"


def _values(key: str) -> list[Any]:
    """Return the values the grid widget ``key`` holds (the budgets' range as the budgets in it)."""
    value = st.session_state.get(key)
    if key == "eval_budgets":
        if value is None:
            return []
        low, high = value
        return [b for b in BUDGET_CHOICES if low <= b <= high]
    return list(value or [])


def seed_evaluate_widgets(tokenizer: str, n_questions: int) -> None:
    """Put each Evaluate widget's default in the session unless a link (or the reader) set it; returns nothing."""
    for _name, (key, _, default) in GRID_WIDGETS.items():
        if key == "eval_budgets":
            seed_once(key, (min(default), max(default)))
        else:
            seed_once(key, default or [tokenizer])
    seed_once("eval_model", DEFAULT_CURVE_MODEL)
    seed_once("eval_limit", min(DEFAULT_LIMIT, n_questions))
    seed_once("eval_top_k", DEFAULT_TOP_K)
    if st.session_state["eval_limit"] > n_questions:
        st.session_state["eval_limit"] = n_questions


def evaluate_params(tokenizer: str) -> dict[str, str]:
    """Return the URL parameters that reproduce Evaluate's settings (those not at their defaults)."""
    state = st.session_state
    params: dict[str, str] = {}
    if state.get("eval_set_choice") == "upload":
        params["evalset"] = "upload"
    if state.get("eval_limit", DEFAULT_LIMIT) != DEFAULT_LIMIT:
        params["limit"] = str(state["eval_limit"])
    if state.get("eval_top_k", DEFAULT_TOP_K) != DEFAULT_TOP_K:
        params["top_k"] = str(state["eval_top_k"])
    if state.get("eval_model", DEFAULT_CURVE_MODEL) != DEFAULT_CURVE_MODEL:
        params["curve_model"] = str(state["eval_model"])
        if state["eval_model"] == MEASURED_CURVE and LOADED_CURVE in state:
            params["curve"] = "upload"  # a loaded file: the link cannot carry it, and says so
    grid = []
    for name, (key, _, default) in GRID_WIDGETS.items():
        if key in state and _values(key) != (default or [tokenizer]):
            grid.append(f"{name}=" + ",".join(_text(v) for v in _values(key)))
    if grid:
        params["grid"] = ";".join(grid)
    return params


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _parse_grid(spec: str) -> tuple[dict[str, list[Any]], list[str]]:
    """Return the grid a link's ``grid`` names (values the widgets offer) and one warning per part ignored."""
    chosen: dict[str, list[Any]] = {}
    warnings = []
    for part in (p.strip() for p in spec.split(";") if p.strip()):
        name, _, raw = part.partition("=")
        if name not in GRID_WIDGETS:
            warnings.append(f"ignored grid {part!r} in the link: Evaluate varies {', '.join(GRID_WIDGETS)}")
            continue
        _, offered, _ = GRID_WIDGETS[name]
        by_text = {_text(v): v for v in offered}
        picked = [by_text.get(v.strip(), _model_name(name, v.strip())) for v in raw.split(",") if v.strip()]
        if not picked or None in picked:
            warnings.append(
                f"ignored grid {part!r} in the link: {name} takes some of {', '.join(_text(v) for v in offered)}"
            )
            continue
        chosen[name] = picked
    return chosen, warnings


def _model_name(name: str, text: str) -> str | None:
    """Return ``text`` when the grid's tokenizer list may hold it (a model's name, as the sidebar takes), else None."""
    if name != "tokenizer":
        return None
    try:
        return check_tokenizer_name(text)
    except ValueError:
        return None


def _whole(params: Mapping[str, str], name: str, low: int, high: int) -> tuple[int | None, list[str]]:
    raw = params.get(name)
    if raw is None:
        return None, []
    try:
        return parse_int(raw, field=name, low=low, high=high), []
    except InvalidInputError:
        return None, [f"ignored URL parameter {name}={message_value(raw)}: a whole number from {low:,} to {high:,}"]


def apply_evaluate_params(params: Mapping[str, str], models: list[str]) -> list[str]:
    """Put a link's Evaluate settings into the widgets' state; return one warning per value ignored."""
    warnings: list[str] = []
    if params.get("evalset") == "upload":
        warnings.append(
            "This link was made on an uploaded evaluation set, which a link cannot carry: the "
            "bundled set is open instead. Upload the same file to reproduce the run."
        )
    limit, said = _whole(params, "limit", 1, 1_000_000)
    top_k, more = _whole(params, "top_k", 1, MAX_LINK_TOP_K)
    warnings += said + more
    chosen, said = _parse_grid(params.get("grid", ""))
    warnings += said
    if params.get("curve") == "upload":
        warnings.append(
            "This link was made on a curve file, which a link cannot carry: the bundled model's "
            'curve is read instead. Load the same file under "Your model\'s curve" to reproduce.'
        )
    model = params.get("curve_model")
    if model is not None and model not in (*models, MEASURED_CURVE):
        warnings.append(f"ignored URL parameter curve_model={model!r}: choose one of: {', '.join(models)}")
        model = None
    state = st.session_state
    for name, values in chosen.items():
        key = GRID_WIDGETS[name][0]
        state[key] = (min(values), max(values)) if key == "eval_budgets" else values
    for key, value in (("eval_limit", limit), ("eval_top_k", top_k), ("eval_model", model)):
        if value is not None:
            state[key] = value
    if chosen or limit is not None or top_k is not None or model is not None:
        state[OPENED_FROM_LINK] = True
    return warnings
