"""The lab's session state: which key holds which setting, and seeding it once or on purpose.

Widgets read their value from ``st.session_state[key]``; the URL, an imported configuration, a
scenario, a captured run and "Reset parameters" write there before the widgets are drawn. This
module is that one set of keys and writers, so no input module needs another one to seed state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import TypeVar

import streamlit as st

from contextlab.lab.config import LabConfig

__all__ = [
    "CONFIG_KEYS",
    "B_KEY",
    "B_FIELDS",
    "TABLE_ANSWER",
    "b_key",
    "seed_once",
    "seed_config",
    "reset_parameters",
    "apply_config_b",
    "keep_values",
    "chosen",
]

Option = TypeVar("Option")


def chosen(options: Sequence[Option], answer: object) -> Option:
    """Return the option a select widget (selectbox, radio, segmented control) answered, typed as the options.

    Streamlit types these widgets with ``typing.Never``, which exists from Python 3.11; mypy,
    checking for the package's 3.10 floor, reads it as Any and types every answer as None.
    Looking the answer up in ``options`` gives it its real type, and fails loudly if it is not one.
    """
    for option in options:
        if option == answer:
            return option
    raise LookupError(f"the widget answered {answer!r}, which is not one of its {len(options)} options")


def keep_values(*keys: str) -> None:
    """Keep the values of widgets this run may not draw (a folded section, another tab or view).

    Streamlit forgets a widget's value at the end of a run that does not draw it; written back
    before the widget would be drawn, the value stays in the session. Keys not set are skipped.
    """
    state = st.session_state
    for key in keys:
        if key in state:
            state[key] = state[key]


#: Session-state key of each ``LabConfig`` field's widget: ``cfg_`` and the field's name.
CONFIG_KEYS: dict[str, str] = {f.name: f"cfg_{f.name}" for f in fields(LabConfig)}
#: The key prefix of Compare's configuration B widgets.
B_KEY = "cmp_b"
#: The parameters B can change; the query stays A's (both builds answer the same question).
B_FIELDS: tuple[str, ...] = (
    "max_context_tokens",
    "dedup_threshold",
    "min_doc_tokens",
    "placement",
    "summarize_overflow",
    "tokenizer",
    "seed_compatible",
    "budget_before_reorder",
    "budget_includes_headers",
)


def b_key(name: str, key: str = B_KEY) -> str:
    """Return the session-state key of B's widget for setting ``name``: ``key``, ``_`` and the field's name."""
    return f"{key}_{name}"


#: Session-state key of the table source's answer: ``(answer_source, answer_keys, gold_answers)`` of
#: whatever seeded the table (the snapshotted source, or an evaluation question opened in the lab).
TABLE_ANSWER = "table_answer"


def seed_once(key: str, value: object) -> None:
    """Put ``value`` under ``key`` unless the session already holds one; returns nothing."""
    if key not in st.session_state:
        st.session_state[key] = value


def seed_config(config: LabConfig, *, include_query: bool = True, force: bool = False) -> None:
    """Put ``config`` into the parameter widgets' state (all of it with ``force``); returns nothing."""
    for name, key in CONFIG_KEYS.items():
        if name == "query" and not include_query:
            continue
        if force or key not in st.session_state:
            st.session_state[key] = getattr(config, name)


def reset_parameters() -> None:
    """Put the default configuration back into every parameter widget but the query."""
    seed_config(LabConfig(), include_query=False, force=True)


def apply_config_b(config: LabConfig, key: str = B_KEY) -> None:
    """Make ``config`` Compare's configuration B; returns nothing.

    Call it before the Compare view draws (from a callback, or before ``render``), e.g. when a
    scenario with ``compare_with`` is picked; only the fields B can change are taken.
    """
    for name in B_FIELDS:
        st.session_state[b_key(name, key)] = getattr(config, name)
