"""The values of seed 002's window: its shares, its sections, and where every token went.

``assemble_prompt`` (contextlab.window) takes a ``WindowBudget`` and returns these; they live here
so the window module holds only the layout's phases. ``PromptLayout`` joins the four sections as
text and as chat messages, ``SectionAccount`` is one section's budget, loans and use, and
``AssembledPrompt`` the finished result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TypedDict

from ..errors import InvalidInputError
from ..tokenizers import Tokenizer, resolve_tokenizer
from ..types import ContextResult, Document, ResultData
from ..validation import fraction, whole_number
from .memory import HistoryFit

__all__ = [
    "AssembledPrompt",
    "PromptLayout",
    "SectionAccount",
    "WindowBudget",
    "count_message_tokens",
    "CONVERSATION_HEADER",
    "DOCUMENTS_HEADER",
    "MESSAGE_OVERHEAD_TOKENS",
    "QUERY_PREFIX",
    "REPLY_PRIMING_TOKENS",
    "SECTION_NAMES",
    "SECTION_SEPARATOR",
    "SHARE_SECTIONS",
]

#: Tokens each chat message costs beyond its role and content (OpenAI's cookbook figure for
#: gpt-3.5-turbo / gpt-4: ``<|start|>{role}\n{content}<|end|>\n``).
MESSAGE_OVERHEAD_TOKENS = 3
#: Tokens every chat request spends priming the reply (``<|start|>assistant<|message|>``).
REPLY_PRIMING_TOKENS = 3
#: The prompt's sections, in the order they appear.
SECTION_NAMES: tuple[str, ...] = ("system", "documents", "conversation", "query")
#: The sections that get a share of the window (the query is paid from the buffer).
SHARE_SECTIONS: tuple[str, ...] = ("system", "documents", "conversation")

DOCUMENTS_HEADER = "Documents:\n"
CONVERSATION_HEADER = "Conversation:\n"
QUERY_PREFIX = "Question: "
SECTION_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class WindowBudget:
    """Shares of a model's context window, as in seed 002 (fractions of ``max_tokens``).

    ``output_reserve`` is kept free for the answer; ``buffer`` pays for the query and the
    separators and is the safety margin. Shares must each be in [0, 1] and sum to at most 1.
    """

    max_tokens: int = 32000
    system: float = 0.05
    documents: float = 0.50
    conversation: float = 0.25
    output_reserve: float = 0.15
    buffer: float = 0.05

    def __post_init__(self) -> None:
        whole_number("WindowBudget.max_tokens", self.max_tokens, minimum=1)
        total = sum(
            fraction(f"WindowBudget.{name}", getattr(self, name), allow_zero=True, hint="a fraction of max_tokens")
            for name in (*SHARE_SECTIONS, "output_reserve", "buffer")
        )
        if total > 1.0 + 1e-9:
            raise InvalidInputError(
                f"WindowBudget shares must sum to at most 1; system + documents + conversation + "
                f"output_reserve + buffer = {total:.4g}; lower one of them"
            )

    @property
    def output_reserve_tokens(self) -> int:
        """Tokens kept free for the model's answer (rounded up: the answer never gets less)."""
        return math.ceil(round(self.max_tokens * self.output_reserve, 6))

    @property
    def limit(self) -> int:
        """The most tokens the prompt may use: ``max_tokens`` minus the output reserve."""
        return self.max_tokens - self.output_reserve_tokens

    def allocation(self) -> dict[str, int]:
        """Return each share in tokens; "buffer" also holds whatever the shares leave unassigned."""
        # round() first so 32000 * 0.15 = 4800.000000000001 stays 4800.
        alloc = {name: int(round(self.max_tokens * getattr(self, name), 6)) for name in SHARE_SECTIONS}
        alloc["output_reserve"] = self.output_reserve_tokens
        alloc["buffer"] = self.limit - alloc["system"] - alloc["documents"] - alloc["conversation"]
        return alloc


def count_message_tokens(messages: Sequence[Mapping[str, str]], tokenizer: str | Tokenizer) -> int:
    """Return the tokens a chat request with ``messages`` costs, OpenAI-style.

    Each message costs ``MESSAGE_OVERHEAD_TOKENS`` + its role + its content; the request adds
    ``REPLY_PRIMING_TOKENS``. Exact for cl100k_base chat models, an estimate elsewhere.
    """
    tok = resolve_tokenizer(tokenizer)
    return REPLY_PRIMING_TOKENS + sum(
        MESSAGE_OVERHEAD_TOKENS + tok.count(m["role"]) + tok.count(m["content"]) for m in messages
    )


@dataclass
class SectionAccount:
    """Where one section's tokens went.

    ``budget`` is the section's share in tokens (for "query": the buffer). ``borrowed`` came
    from other sections, ``lent`` went to them; ``limit = budget - lent + borrowed`` is the
    most the section could use. ``used`` counts the section's text alone (header included),
    ``message_tokens`` its chat messages. ``items_in``/``items_out``: documents, messages,
    or 1 for the system prompt and the query.
    """

    name: str
    budget: int
    used: int = 0
    message_tokens: int = 0
    items_in: int = 0
    items_out: int = 0
    borrowed: int = 0
    lent: int = 0
    lent_to: dict[str, int] = field(default_factory=dict)
    borrowed_from: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def limit(self) -> int:
        """The most tokens this section could use after lending and borrowing."""
        return self.budget - self.lent + self.borrowed


class SectionData(TypedDict):
    """A ``SectionAccount`` as plain JSON data, its ``limit`` included."""

    name: str
    budget: int
    used: int
    message_tokens: int
    items_in: int
    items_out: int
    borrowed: int
    lent: int
    lent_to: dict[str, int]
    borrowed_from: dict[str, int]
    notes: list[str]
    limit: int


class HistoryData(TypedDict):
    """Which turns of the conversation were kept, and the summary of the rest."""

    kept_indices: list[int]
    summary: str
    summarized_indices: list[int]


class AssembledPromptData(TypedDict):
    """An ``AssembledPrompt`` as plain JSON data (``AssembledPrompt.to_dict``)."""

    text: str
    messages: list[dict[str, str]]
    tokens_used: int
    message_tokens: int
    tokens_limit: int
    output_reserve_tokens: int
    tokenizer: str
    window_budget: dict[str, float]
    documents_budget: int
    question_index: int | None
    sections: dict[str, SectionData]
    history: HistoryData
    documents_result: ResultData | None
    notes: list[str]


@dataclass
class AssembledPrompt:
    """A finished prompt in two forms (text and chat messages) and the account of every section.

    ``tokens_used`` counts ``text``; ``message_tokens`` counts ``messages`` with
    ``count_message_tokens``; both are at most ``tokens_limit`` (``max_tokens`` minus the output
    reserve). ``documents_result`` is the ``ContextManager`` result of the documents section
    (None when there were no documents), ``history`` the fitted conversation, and
    ``ranked_documents`` the hybrid-scored copies best first. ``documents_budget`` is the
    ``max_context_tokens`` that ``ContextManager`` was given: the documents share after lending
    and fitting, minus the section's header and chat framing (a caller's own document budget is
    not used). ``question_index`` is the index in the input history of a last user message that
    repeated the query (shown once, as the query), else None.
    """

    text: str
    messages: list[dict[str, str]]
    sections: dict[str, SectionAccount]
    tokens_used: int
    message_tokens: int
    tokens_limit: int
    window_budget: WindowBudget
    documents_result: ContextResult | None
    history: HistoryFit
    ranked_documents: list[Document]
    tokenizer: str
    notes: list[str] = field(default_factory=list)
    documents_budget: int = 0
    question_index: int | None = None

    @property
    def output_reserve_tokens(self) -> int:
        """Tokens left free for the answer."""
        return self.window_budget.output_reserve_tokens

    @property
    def documents_budget_note(self) -> str:
        """One line: the documents' share of the window, and the budget their ContextManager got."""
        share = f"{round(self.window_budget.documents * 100, 2):g}%"
        got = (
            f"the ContextManager got {self.documents_budget} after lending and headers"
            if self.sections["documents"].items_in
            else "no documents were given"
        )
        return (
            f"documents: {self.sections['documents'].budget} of the window's {self.window_budget.max_tokens} "
            f"tokens ({share}), not max_context_tokens; {got}"
        )

    def report(self) -> str:
        """Return the documents' budget line, then the account as a table, one line per section."""
        lines = [self.documents_budget_note, f"{'section':<13}{'budget':>7}{'used':>7}{'in':>5}{'out':>5}  notes"]
        for acc in self.sections.values():
            lines.append(
                f"{acc.name:<13}{acc.budget:>7}{acc.used:>7}{acc.items_in:>5}{acc.items_out:>5}  "
                + "; ".join(acc.notes)
            )
        lines.append(
            f"{'total':<13}{self.tokens_limit:>7}{self.tokens_used:>7}"
            f"  (+{self.output_reserve_tokens} reserved for the answer; {self.tokenizer})"
        )
        return "\n".join(line.rstrip() for line in lines)

    def to_dict(self) -> AssembledPromptData:
        """Return the prompt and its account as plain JSON-serialisable data."""
        hist = self.history
        return AssembledPromptData(
            text=self.text,
            messages=[dict(m) for m in self.messages],
            tokens_used=self.tokens_used,
            message_tokens=self.message_tokens,
            tokens_limit=self.tokens_limit,
            output_reserve_tokens=self.output_reserve_tokens,
            tokenizer=self.tokenizer,
            window_budget=asdict(self.window_budget),
            documents_budget=self.documents_budget,
            question_index=self.question_index,
            sections={name: _section_data(acc) for name, acc in self.sections.items()},
            history=HistoryData(
                kept_indices=list(hist.kept_indices),
                summary=hist.summary,
                summarized_indices=list(hist.summarized_indices),
            ),
            documents_result=None if self.documents_result is None else self.documents_result.to_dict(),
            notes=list(self.notes),
        )


def _section_data(acc: SectionAccount) -> SectionData:
    return SectionData(
        name=acc.name,
        budget=acc.budget,
        used=acc.used,
        message_tokens=acc.message_tokens,
        items_in=acc.items_in,
        items_out=acc.items_out,
        borrowed=acc.borrowed,
        lent=acc.lent,
        lent_to=dict(acc.lent_to),
        borrowed_from=dict(acc.borrowed_from),
        notes=list(acc.notes),
        limit=acc.limit,
    )


@dataclass
class PromptLayout:
    """The four sections of one built prompt, and how they join as text and as chat messages.

    ``documents`` is the ``ContextManager``'s block without the section header; ``history``
    the fitted conversation (None before it is built).
    """

    query: str
    system: str = ""
    documents: str = ""
    history: HistoryFit | None = None
    documents_result: ContextResult | None = None

    def section_texts(self) -> dict[str, str]:
        """Return each section's text ("" for an empty section), headers included."""
        history = self.history.text if self.history else ""
        return {
            "system": self.system,
            "documents": DOCUMENTS_HEADER + self.documents if self.documents else "",
            "conversation": CONVERSATION_HEADER + history if history else "",
            "query": QUERY_PREFIX + self.query,
        }

    def section_messages(self) -> dict[str, list[dict[str, str]]]:
        """Return each section's chat messages; the query is the last "user" message."""
        return {
            "system": [{"role": "system", "content": self.system}] if self.system else [],
            "documents": ([{"role": "system", "content": DOCUMENTS_HEADER + self.documents}] if self.documents else []),
            "conversation": self.history.to_messages() if self.history else [],
            "query": [{"role": "user", "content": self.query}],
        }

    def text(self) -> str:
        """Return the prompt as one text: the non-empty sections joined by a blank line."""
        return SECTION_SEPARATOR.join(t for t in self.section_texts().values() if t)

    def messages(self) -> list[dict[str, str]]:
        """Return the prompt as chat messages, in section order."""
        return [m for ms in self.section_messages().values() for m in ms]

    def totals(self, tok: Tokenizer) -> tuple[int, int]:
        """Return the tokens of the text form and of the chat form."""
        return tok.count(self.text()), count_message_tokens(self.messages(), tok)
