"""The whole context window of seed 002: budget shares, conversation memory, hybrid ranking, layout.

``assemble_prompt`` (``assembly``) lays a prompt out in named phases; ``needs`` measures what each
section asks for, ``layout`` holds the window's value types, ``memory`` fits a conversation to its
share and ``ranking`` scores documents by relevance, recency and importance.
"""

from __future__ import annotations

from .assembly import assemble_prompt
from .layout import (
    MESSAGE_OVERHEAD_TOKENS,
    REPLY_PRIMING_TOKENS,
    SECTION_NAMES,
    AssembledPrompt,
    PromptLayout,
    SectionAccount,
    WindowBudget,
    count_message_tokens,
)
from .memory import HistoryFit, fit_history
from .ranking import HybridRanking

__all__ = [
    "AssembledPrompt",
    "HistoryFit",
    "HybridRanking",
    "PromptLayout",
    "SectionAccount",
    "WindowBudget",
    "assemble_prompt",
    "count_message_tokens",
    "fit_history",
    "MESSAGE_OVERHEAD_TOKENS",
    "REPLY_PRIMING_TOKENS",
    "SECTION_NAMES",
]
