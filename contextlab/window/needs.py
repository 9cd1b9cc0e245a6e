"""The window's first two phases: the checked call, and what each section needs.

``assemble_prompt`` (``assembly.py``) checks its arguments into a ``Call`` (documents hybrid-scored,
a last turn repeating the query dropped), then measures each section's need with no limit into
a ``Plan``, which the later phases (lending, build and fit, accounting) fill in.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import BudgetError, InvalidInputError
from ..manager import ContextManager
from ..settings import DEFAULT_TOKENIZER
from ..stages.budget import fit_text
from ..stages.format import DEFAULT_SCORE_LABEL
from ..stages.messages import coerce_messages, format_message
from ..tokenizers import Tokenizer, resolve_tokenizer
from ..types import ContextResult, Document, Message, PromptRequest
from ..validation import text
from .layout import (
    CONVERSATION_HEADER,
    DOCUMENTS_HEADER,
    MESSAGE_OVERHEAD_TOKENS,
    QUERY_PREFIX,
    REPLY_PRIMING_TOKENS,
    SECTION_SEPARATOR,
    SHARE_SECTIONS,
    PromptLayout,
    SectionAccount,
    WindowBudget,
    count_message_tokens,
)
from .memory import Summarizer
from .ranking import HYBRID_SCORE_LABEL, HybridRanking, check_documents, check_now

__all__ = [
    "Call",
    "Plan",
    "HISTORY_OVERHEAD",
    "SummaryMemo",
    "build_documents",
    "check_call",
    "fit_system_prompt",
    "measure_needs",
    "section_cost",
    "system_cost",
]

# A history message's role is one token in cl100k_base for every role OpenAI accepts; its
# chat overhead is charged per message when the conversation is fitted.
_ROLE_TOKENS = 1
HISTORY_OVERHEAD = MESSAGE_OVERHEAD_TOKENS + _ROLE_TOKENS


@dataclass
class Call:
    """The checked arguments of one call; ``history`` without a last turn that repeats the query."""

    system_prompt: str
    query: str
    scored: list[Document]  # hybrid-scored copies, input order
    history: list[Message]
    question_index: int | None
    window_budget: WindowBudget
    manager: ContextManager
    tok: Tokenizer
    summarizer: Summarizer | None


@dataclass
class Plan:
    """The window's plan, passed from phase to phase: needs, accounts, grants, then the fitted layout."""

    needs: dict[str, int]
    query_need: int
    doc_framing: int
    conversation_framing: int
    accounts: dict[str, SectionAccount]
    grants: dict[str, int] = field(default_factory=dict)
    spare: dict[str, int] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)
    #: The fitted layout (phase 4); an empty one until then.
    layout: PromptLayout = field(default_factory=lambda: PromptLayout(""))
    totals: tuple[int, int] = (0, 0)
    notes: list[str] = field(default_factory=list)

    def documents_room(self, limits: Mapping[str, int]) -> int:
        """Return the ``max_context_tokens`` the documents' manager gets under ``limits``."""
        return max(limits["documents"] - self.doc_framing, 0)


def section_cost(tok: Tokenizer, text: str, messages: list[dict[str, str]]) -> int:
    """Return the larger of a section's text cost (with its separator) and its chat cost."""
    if not text:
        return 0
    chat_cost = count_message_tokens(messages, tok) - REPLY_PRIMING_TOKENS
    return max(tok.count(text) + tok.count(SECTION_SEPARATOR) + 1, chat_cost)


def system_cost(tok: Tokenizer, text: str) -> int:
    """Return what the system prompt costs as a section (text or chat form, the larger)."""
    return section_cost(tok, text, [{"role": "system", "content": text}])


def fit_system_prompt(tok: Tokenizer, text: str, limit: int) -> str:
    """Return ``text``, or ``fit_text``'s cut of it whose section cost is within ``limit`` ("" if none)."""
    cost = system_cost(tok, text)
    # The section costs the text's count plus a fixed framing (separator or chat overhead).
    return text if cost <= limit else fit_text(tok, text, limit - (cost - tok.count(text))) or ""


# --- phase 1: check the arguments ----------------------------------------------------------------


def check_call(
    system_prompt: object,
    documents: object,
    history: Iterable[Message | Mapping[str, Any]],
    query: object,
    *,
    window_budget: object,
    manager: ContextManager | None,
    ranking: object,
    now: object,
    summarizer: Summarizer | None,
    tokenizer: str | Tokenizer | None,
) -> Call:
    """Return ``assemble_prompt``'s arguments checked and defaulted, documents hybrid-scored."""
    checked_system = text("system_prompt", system_prompt)
    checked_query = text("query", query)
    budget = WindowBudget() if window_budget is None else window_budget
    if not isinstance(budget, WindowBudget):
        raise InvalidInputError(
            f"window_budget must be a WindowBudget; got {type(budget).__name__}", field="window_budget"
        )
    hybrid = HybridRanking() if ranking is None else ranking
    if not isinstance(hybrid, HybridRanking):
        raise InvalidInputError(f"ranking must be a HybridRanking; got {type(hybrid).__name__}", field="ranking")
    if summarizer is not None and not callable(summarizer):
        raise InvalidInputError(
            f"summarizer must be callable (list[Message]) -> str; got {type(summarizer).__name__}", field="summarizer"
        )
    checked_manager, tok = _window_manager(manager, tokenizer)
    clock = time.time() if now is None else check_now(now)
    scored = hybrid.rescore(check_documents(documents), clock)
    question_index, msgs = _split_history(coerce_messages(history, field_name="history"), checked_query)
    return Call(
        checked_system,
        checked_query,
        scored,
        msgs,
        question_index,
        budget,
        checked_manager,
        tok,
        None if summarizer is None else SummaryMemo(summarizer),
    )


def _window_manager(
    manager: ContextManager | None, tokenizer: str | Tokenizer | None
) -> tuple[ContextManager, Tokenizer]:
    """Return the manager that builds the documents (headers say "hybrid") and its tokenizer."""
    if manager is None:
        manager = ContextManager(tokenizer=tokenizer if tokenizer is not None else DEFAULT_TOKENIZER)
    if manager.score_label == DEFAULT_SCORE_LABEL:
        # The block's scores are hybrid scores; say so in its headers (on a copy: the caller's stays).
        manager = copy.copy(manager)
        manager.score_label = HYBRID_SCORE_LABEL
    tok = resolve_tokenizer(manager.tokenizer)
    if tokenizer is not None and resolve_tokenizer(tokenizer).name != tok.name:
        raise InvalidInputError(
            f"tokenizer {resolve_tokenizer(tokenizer).name!r} differs from the "
            f"manager's {tok.name!r}; pass only one of them",
            field="tokenizer",
        )
    return manager, tok


def _split_history(msgs: list[Message], query: str) -> tuple[int | None, list[Message]]:
    """Return the index of a last user turn that repeats the query (or None) and the history without it."""
    if msgs and msgs[-1].role == "user" and msgs[-1].content.split() == query.split():
        # Chat apps often keep the question as the last turn; the prompt shows it once, last.
        return len(msgs) - 1, msgs[:-1]
    return None, msgs


class SummaryMemo:
    """A pluggable summarizer called once per history prefix (it may be a paid model call).

    The conversation is fitted once per room and each fit may ask for several prefixes; ``older``
    is always a prefix of the history, so its length identifies it.
    """

    def __init__(self, summarizer: Summarizer) -> None:
        self.summarizer = summarizer
        self.summaries: dict[int, str] = {}

    def __call__(self, older: list[Message]) -> str:
        if len(older) not in self.summaries:
            self.summaries[len(older)] = self.summarizer(older)
        return self.summaries[len(older)]


# --- phase 2: what each section needs ------------------------------------------------------------


def measure_needs(call: Call) -> Plan:
    """Return a plan holding each section's need (its cost with no limit) and its open account."""
    tok, budget, limit = call.tok, call.window_budget, call.window_budget.limit
    query_messages = PromptLayout(call.query).section_messages()["query"]
    q_need = section_cost(tok, QUERY_PREFIX + call.query, query_messages)
    q_need += REPLY_PRIMING_TOKENS
    if q_need > limit:
        raise BudgetError(
            f"the query alone needs {q_need} tokens but the window leaves {limit} "
            f"(max_tokens {budget.max_tokens} minus output reserve {budget.output_reserve_tokens}); "
            "shorten the query, raise max_tokens or lower output_reserve"
        )
    framing = tok.count(SECTION_SEPARATOR) + 1
    conversation_framing = tok.count(CONVERSATION_HEADER) + framing
    # fit_history's own cost model (line + newline + chat overhead per turn), so a share of
    # exactly this need keeps every turn.
    c_need = sum(tok.count(format_message(m)) + 1 + HISTORY_OVERHEAD for m in call.history)
    doc_framing = tok.count(DOCUMENTS_HEADER) + framing + HISTORY_OVERHEAD
    d_need = 0
    if call.scored:
        trial = build_documents(call, limit)
        # The manager walks per-document costs (header and separator included); their sum can
        # exceed the joined block's count by a token or two, and it is what the walk needs.
        walked = sum(t.block_tokens or 0 for t in trial.trace if t.position is not None)
        d_need = max(trial.tokens_used, walked) + doc_framing if trial.context_block else 0
    alloc = budget.allocation()
    items = {"system": 1 if call.system_prompt else 0, "documents": len(call.scored), "conversation": len(call.history)}
    accounts = {name: SectionAccount(name, alloc[name], items_in=items[name]) for name in SHARE_SECTIONS}
    accounts["query"] = SectionAccount("query", 0, items_in=1)
    accounts["buffer"] = SectionAccount("buffer", alloc["buffer"])
    needs = {
        "system": system_cost(tok, call.system_prompt),
        "documents": d_need,
        "conversation": c_need + conversation_framing if call.history else 0,
    }
    return Plan(needs, q_need, doc_framing, conversation_framing, accounts)


def build_documents(call: Call, room: int) -> ContextResult:
    request = PromptRequest(query=call.query, documents=call.scored, max_context_tokens=room)
    return call.manager.build(request)
