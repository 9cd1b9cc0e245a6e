"""The whole context window of seed 002: budget shares, hybrid ranking and the final layout.

``assemble_prompt`` lays a prompt out the way seed 002 draws it — system prompt, documents,
recent conversation, the query last, and room left for the answer — and explains every token:

- ``WindowBudget`` splits ``max_tokens`` into shares (system 5%, documents 50%, conversation 25%,
  output reserve 15%, buffer 5%). The prompt never exceeds ``max_tokens - output_reserve``,
  counted with the real tokenizer on the final text and on the chat messages.
- ``HybridRanking`` is the seed's ``0.5 * relevance + 0.25 * recency + 0.25 * importance`` with
  recency halving every ``half_life_hours``.
- The documents section is built by a ``ContextManager`` (dedup, budget, lost in the middle,
  citations) over hybrid-scored copies; the conversation by ``memory.fit_history`` (recent turns
  verbatim, older ones summarized — never silently dropped).

Lending (what a section does not use goes where it is needed, in this order):

1. The query is paid from the buffer (with the separators); a longer query takes unused shares,
   then squeezes documents, conversation and the system prompt. It is never truncated; a query
   that alone exceeds the window raises ``BudgetError``.
2. A system prompt longer than its share takes what the buffer has left, then unused shares;
   it is truncated only when that is not enough.
3. Documents take the unused shares of system and conversation; then the conversation takes
   what documents and system still leave unused. The buffer is never lent to these two: it
   is the window's safety margin.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .errors import BudgetError, InvalidInputError
from .memory import HistoryFit, Summarizer, coerce_messages, fit_history, format_message
from .tokenizers import Tokenizer, resolve_tokenizer
from .types import ContextResult, Document, Message, PromptRequest

if TYPE_CHECKING:  # the manager is imported lazily, like in contextlab/__init__.py
    from .manager import ContextManager

__all__ = [
    "AssembledPrompt",
    "HybridRanking",
    "SectionAccount",
    "WindowBudget",
    "assemble_prompt",
    "count_message_tokens",
    "MESSAGE_OVERHEAD_TOKENS",
    "REPLY_PRIMING_TOKENS",
    "SECTION_NAMES",
]

#: Tokens each chat message costs beyond its role and content (OpenAI's cookbook figure for
#: gpt-3.5-turbo / gpt-4: ``<|start|>{role}\n{content}<|end|>\n``).
MESSAGE_OVERHEAD_TOKENS = 3
#: Tokens every chat request spends priming the reply (``<|start|>assistant<|message|>``).
REPLY_PRIMING_TOKENS = 3

#: The prompt's sections, in the order they appear.
SECTION_NAMES: tuple[str, ...] = ("system", "documents", "conversation", "query")

DOCUMENTS_HEADER = "Documents:\n"
CONVERSATION_HEADER = "Conversation:\n"
QUERY_PREFIX = "Question: "
SECTION_SEPARATOR = "\n\n"

# A history message's role is one token in cl100k_base for every role OpenAI accepts; its
# chat overhead is charged per message when the conversation is fitted.
_ROLE_TOKENS = 1
# Shrink-and-rebuild rounds before the last-resort layout (the first round nearly always fits).
_MAX_FIT_ROUNDS = 8


def _is_finite_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _share_tokens(max_tokens: int, share: float) -> int:
    # round() first so 32000 * 0.15 = 4800.000000000001 stays 4800.
    return int(round(max_tokens * share, 6))


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
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens <= 0:
            raise InvalidInputError(
                f"WindowBudget.max_tokens must be a positive integer (the model's context "
                f"length, e.g. 32000); got {self.max_tokens!r}"
            )
        total = 0.0
        for name in ("system", "documents", "conversation", "output_reserve", "buffer"):
            value = getattr(self, name)
            if not _is_finite_number(value):
                raise InvalidInputError(f"WindowBudget.{name} must be a number in [0, 1]; got {value!r}")
            if not 0.0 <= value <= 1.0:
                raise InvalidInputError(
                    f"WindowBudget.{name} must be in [0, 1] (a fraction of max_tokens); got {value!r}"
                )
            total += value
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
        alloc = {name: _share_tokens(self.max_tokens, getattr(self, name))
                 for name in ("system", "documents", "conversation")}
        alloc["output_reserve"] = self.output_reserve_tokens
        alloc["buffer"] = self.limit - alloc["system"] - alloc["documents"] - alloc["conversation"]
        return alloc


@dataclass(frozen=True)
class HybridRanking:
    """Seed 002's document score: ``relevance * r + recency * t + importance * i``.

    ``recency = 0.5 ** (age_hours / half_life_hours)``: 1 for a document stamped now, 0.5 one
    half-life ago. A timestamp in the future counts as now. A document WITHOUT a timestamp gets
    recency 0: an undated document cannot show that it is fresh, and a neutral 0.5 would rank
    it above a document dated exactly one half-life ago — rewarding missing metadata.
    Relevance is the document's ``score``, importance its ``importance``.
    """

    relevance: float = 0.5
    recency: float = 0.25
    importance: float = 0.25
    half_life_hours: float = 24.0

    def __post_init__(self) -> None:
        for name in ("relevance", "recency", "importance"):
            value = getattr(self, name)
            if not _is_finite_number(value) or value < 0:
                raise InvalidInputError(
                    f"HybridRanking.{name} weight must be a finite number >= 0; got {value!r}"
                )
        if self.relevance + self.recency + self.importance <= 0:
            raise InvalidInputError(
                "HybridRanking weights are all 0; give at least one of relevance, recency, "
                "importance a positive weight (1/0/0 is pure relevance)"
            )
        hl = self.half_life_hours
        if not _is_finite_number(hl) or hl <= 0:
            raise InvalidInputError(
                f"HybridRanking.half_life_hours must be a finite number > 0; got {hl!r}"
            )

    def recency_of(self, document: Document, now: float | None = None) -> float:
        """Return the document's recency in [0, 1]; 0 when it has no timestamp."""
        if document.timestamp is None:
            return 0.0
        now = time.time() if now is None else now
        age_hours = max(now - document.timestamp, 0.0) / 3600.0
        return 0.5 ** (age_hours / self.half_life_hours)

    def components(self, document: Document, now: float | None = None) -> dict[str, float]:
        """Return the score's parts: relevance, recency, importance and the hybrid score."""
        recency = self.recency_of(document, now)
        score = (
            self.relevance * document.score
            + self.recency * recency
            + self.importance * document.importance
        )
        return {
            "relevance": document.score,
            "recency": recency,
            "importance": document.importance,
            "score": score,
        }

    def score(self, document: Document, now: float | None = None) -> float:
        """Return the document's hybrid score."""
        return self.components(document, now)["score"]

    def rescore(self, documents: Sequence[Document], now: float | None = None) -> list[Document]:
        """Return copies of ``documents`` in input order whose ``score`` is the hybrid score.

        Each copy's ``metadata["hybrid"]`` holds the parts (``relevance`` is the original score).
        The input documents are not changed.
        """
        docs = _check_documents(documents)
        now = time.time() if now is None else _check_now(now)
        out = []
        for doc in docs:
            parts = self.components(doc, now)
            out.append(replace(doc, score=parts["score"], metadata={**doc.metadata, "hybrid": parts}))
        return out

    def rank(self, documents: Sequence[Document], now: float | None = None) -> list[Document]:
        """Return hybrid-scored copies of ``documents``, best first (ties keep input order)."""
        return sorted(self.rescore(documents, now), key=lambda d: d.score, reverse=True)


def _check_now(now: Any) -> float:
    if not _is_finite_number(now):
        raise InvalidInputError(f"now must be a finite Unix time in seconds; got {now!r}")
    return float(now)


def _check_documents(documents: Any) -> list[Document]:
    if documents is None:
        return []
    if isinstance(documents, (str, bytes, Document)):
        raise InvalidInputError(
            f"documents must be a list of Document; got a single {type(documents).__name__}"
        )
    docs = list(documents)
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document):
            raise InvalidInputError(
                f"documents[{i}] must be a contextlab.Document; got {type(doc).__name__}"
            )
        for name in ("score", "importance"):
            value = getattr(doc, name)
            if not _is_finite_number(value):
                raise InvalidInputError(f"documents[{i}].{name} must be a finite number; got {value!r}")
        ts = doc.timestamp
        if ts is not None and not _is_finite_number(ts):
            raise InvalidInputError(
                f"documents[{i}].timestamp must be a finite Unix time in seconds or None; got {ts!r}"
            )
    return docs


def count_message_tokens(messages: Sequence[Mapping[str, str]], tokenizer: str | Tokenizer) -> int:
    """Return the tokens a chat request with ``messages`` costs, OpenAI-style.

    Each message costs ``MESSAGE_OVERHEAD_TOKENS`` + its role + its content; the request adds
    ``REPLY_PRIMING_TOKENS``. Exact for cl100k_base chat models, an estimate elsewhere.
    """
    tok = resolve_tokenizer(tokenizer)
    total = REPLY_PRIMING_TOKENS
    for m in messages:
        total += MESSAGE_OVERHEAD_TOKENS + tok.count(m["role"]) + tok.count(m["content"])
    return total


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


@dataclass
class AssembledPrompt:
    """A finished prompt in two forms (text and chat messages) and the account of every section.

    ``tokens_used`` counts ``text``; ``message_tokens`` counts ``messages`` with
    ``count_message_tokens``; both are at most ``tokens_limit`` (``max_tokens`` minus the output
    reserve). ``documents_result`` is the ``ContextManager`` result of the documents section
    (None when there were no documents), ``history`` the fitted conversation, and
    ``ranked_documents`` the hybrid-scored copies best first.
    """

    text: str
    messages: list[dict[str, str]]
    sections: dict[str, SectionAccount]
    tokens_used: int
    message_tokens: int
    tokens_limit: int
    budget: WindowBudget
    documents_result: ContextResult | None
    history: HistoryFit
    ranked_documents: list[Document]
    tokenizer: str
    notes: list[str] = field(default_factory=list)

    @property
    def output_reserve_tokens(self) -> int:
        """Tokens left free for the answer."""
        return self.budget.output_reserve_tokens

    def report(self) -> str:
        """Return the per-section account as a small fixed-width table, one line per section."""
        lines = [f"{'section':<13}{'budget':>7}{'used':>7}{'in':>5}{'out':>5}  notes"]
        for acc in self.sections.values():
            extra = acc.notes
            lines.append(
                f"{acc.name:<13}{acc.budget:>7}{acc.used:>7}{acc.items_in:>5}{acc.items_out:>5}  "
                + "; ".join(extra)
            )
        lines.append(
            f"{'total':<13}{self.tokens_limit:>7}{self.tokens_used:>7}"
            f"  (+{self.output_reserve_tokens} reserved for the answer; {self.tokenizer})"
        )
        return "\n".join(line.rstrip() for line in lines)

    def to_dict(self) -> dict[str, Any]:
        """Return the prompt and its account as plain JSON-serialisable data."""
        return {
            "text": self.text,
            "messages": [dict(m) for m in self.messages],
            "tokens_used": self.tokens_used,
            "message_tokens": self.message_tokens,
            "tokens_limit": self.tokens_limit,
            "output_reserve_tokens": self.output_reserve_tokens,
            "tokenizer": self.tokenizer,
            "budget": asdict(self.budget),
            "sections": {
                name: {**asdict(acc), "limit": acc.limit} for name, acc in self.sections.items()
            },
            "history": {
                "kept_indices": list(self.history.kept_indices),
                "summarized_indices": list(self.history.summarized_indices),
                "summary": self.history.summary,
            },
            "documents_result": None if self.documents_result is None else self.documents_result.to_dict(),
            "notes": list(self.notes),
        }


class _Layout:
    """The texts of the four sections and how to join them in both forms."""

    def __init__(self, tok: Tokenizer) -> None:
        self.tok = tok
        self.system = ""
        self.documents = ""  # the context block, without header
        self.history: HistoryFit | None = None
        self.query = ""

    def section_texts(self) -> dict[str, str]:
        texts = {
            "system": self.system,
            "documents": DOCUMENTS_HEADER + self.documents if self.documents else "",
            "conversation": (
                CONVERSATION_HEADER + self.history.text if self.history and self.history.text else ""
            ),
            "query": QUERY_PREFIX + self.query,
        }
        return texts

    def section_messages(self) -> dict[str, list[dict[str, str]]]:
        return {
            "system": [{"role": "system", "content": self.system}] if self.system else [],
            "documents": (
                [{"role": "system", "content": DOCUMENTS_HEADER + self.documents}] if self.documents else []
            ),
            "conversation": self.history.to_messages() if self.history else [],
            "query": [{"role": "user", "content": self.query}],
        }

    def text(self) -> str:
        return SECTION_SEPARATOR.join(t for t in self.section_texts().values() if t)

    def messages(self) -> list[dict[str, str]]:
        return [m for ms in self.section_messages().values() for m in ms]

    def totals(self) -> tuple[int, int]:
        return self.tok.count(self.text()), count_message_tokens(self.messages(), self.tok)


def _section_cost(tok: Tokenizer, text: str, messages: list[dict[str, str]]) -> int:
    """Return the larger of a section's text cost (with its separator) and its chat cost."""
    if not text:
        return 0
    text_cost = tok.count(text) + tok.count(SECTION_SEPARATOR) + 1
    msg_cost = sum(MESSAGE_OVERHEAD_TOKENS + tok.count(m["role"]) + tok.count(m["content"]) for m in messages)
    return max(text_cost, msg_cost)


def _system_cost(tok: Tokenizer, text: str) -> int:
    """Return what the system prompt costs as a section (text or chat form, the larger)."""
    return _section_cost(tok, text, [{"role": "system", "content": text}])


def _fit_system_prompt(tok: Tokenizer, text: str, limit: int) -> str:
    """Return ``text``, or its longest prefix whose section cost is within ``limit``."""
    if _system_cost(tok, text) <= limit:
        return text
    room = limit - (MESSAGE_OVERHEAD_TOKENS + _ROLE_TOKENS) - tok.count(SECTION_SEPARATOR) - 1
    cut = tok.truncate(text, max(room, 0)).rstrip()
    while cut and _system_cost(tok, cut) > limit:
        cut = tok.truncate(cut, max(tok.count(cut) - 1, 0)).rstrip()
    return cut


def _tokens(n: int) -> str:
    return f"{n} token" if n == 1 else f"{n} tokens"


def _was_cut(
    name: str, layout: _Layout, system_prompt: str, result: ContextResult | None, docs: list[Document]
) -> bool:
    """Return whether a built section holds less than it would with no limit."""
    if name == "system":
        return layout.system != system_prompt
    if name == "documents":
        return result is not None and any(
            t.fate in ("excluded", "truncated", "summarized") for t in result.trace
        )
    return bool(layout.history and layout.history.summarized_indices)


def _lend(
    accounts: dict[str, SectionAccount],
    spare: dict[str, int],
    borrower: str,
    amount: int,
    lenders: Sequence[str],
) -> int:
    """Move up to ``amount`` spare tokens from ``lenders`` to ``borrower``; return what moved."""
    moved = 0
    for lender in lenders:
        if moved >= amount:
            break
        give = min(spare.get(lender, 0), amount - moved)
        if give <= 0:
            continue
        spare[lender] -= give
        moved += give
        accounts[lender].lent += give
        accounts[lender].lent_to[borrower] = accounts[lender].lent_to.get(borrower, 0) + give
        accounts[borrower].borrowed += give
        accounts[borrower].borrowed_from[lender] = accounts[borrower].borrowed_from.get(lender, 0) + give
    return moved


def assemble_prompt(
    system_prompt: str,
    documents: Sequence[Document],
    history: Sequence[Message | Mapping[str, str]],
    query: str,
    *,
    budget: WindowBudget | None = None,
    manager: ContextManager | None = None,
    ranking: HybridRanking | None = None,
    now: float | None = None,
    summarizer: Summarizer | None = None,
    tokenizer: str | Tokenizer | None = None,
) -> AssembledPrompt:
    """Return the whole prompt laid out as seed 002 draws it, with a per-section token account.

    Layout (text form; empty sections are left out)::

        {system prompt}

        Documents:
        --- Source [1] ... ---            <- the ContextManager's block, hybrid-ranked

        Conversation:
        [Summary of N earlier messages]   <- only when older turns did not fit
        User: ...

        Question: {query}

    Chat form: the system prompt, the documents and the history summary are "system"
    messages, kept turns keep their roles, and the query is the last "user" message.
    ``budget`` defaults to ``WindowBudget()``, ``ranking`` to ``HybridRanking()``, ``manager``
    to ``ContextManager(tokenizer=tokenizer or "cl100k_base")``; the manager's tokenizer counts
    everything. ``now`` (Unix seconds) fixes the clock for recency. Raises ``BudgetError``
    when the query alone does not fit in ``max_tokens - output_reserve``.
    """
    if not isinstance(system_prompt, str):
        raise InvalidInputError(f"system_prompt must be a string; got {type(system_prompt).__name__}")
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be a string; got {type(query).__name__}")
    if budget is None:
        budget = WindowBudget()
    elif not isinstance(budget, WindowBudget):
        raise InvalidInputError(f"budget must be a WindowBudget; got {type(budget).__name__}")
    if ranking is None:
        ranking = HybridRanking()
    elif not isinstance(ranking, HybridRanking):
        raise InvalidInputError(f"ranking must be a HybridRanking; got {type(ranking).__name__}")
    if manager is None:
        from .manager import ContextManager

        manager = ContextManager(tokenizer=tokenizer if tokenizer is not None else "cl100k_base")
    tok = resolve_tokenizer(manager.tokenizer)
    if tokenizer is not None and resolve_tokenizer(tokenizer).name != tok.name:
        raise InvalidInputError(
            f"tokenizer {resolve_tokenizer(tokenizer).name!r} differs from the manager's "
            f"{tok.name!r}; pass only one of them"
        )
    if summarizer is not None and not callable(summarizer):
        raise InvalidInputError(
            f"summarizer must be callable (list[Message]) -> str; got {type(summarizer).__name__}"
        )
    now = time.time() if now is None else _check_now(now)
    docs = _check_documents(documents)
    msgs = coerce_messages(history, field_name="history")

    limit = budget.limit
    alloc = budget.allocation()
    accounts = {
        "system": SectionAccount("system", alloc["system"], items_in=1 if system_prompt else 0),
        "documents": SectionAccount("documents", alloc["documents"], items_in=len(docs)),
        "conversation": SectionAccount("conversation", alloc["conversation"], items_in=len(msgs)),
        "query": SectionAccount("query", 0, items_in=1),
        "buffer": SectionAccount("buffer", alloc["buffer"]),
    }
    notes: list[str] = []

    # --- what each section would need with no limit ---------------------------------------
    layout = _Layout(tok)
    layout.query = query
    q_need = _section_cost(tok, QUERY_PREFIX + query, layout.section_messages()["query"]) + REPLY_PRIMING_TOKENS
    if q_need > limit:
        raise BudgetError(
            f"the query alone needs {q_need} tokens but the window leaves {limit} "
            f"(max_tokens {budget.max_tokens} minus output reserve {budget.output_reserve_tokens}); "
            "shorten the query, raise max_tokens or lower output_reserve"
        )
    s_need = _system_cost(tok, system_prompt)
    history_overhead = MESSAGE_OVERHEAD_TOKENS + _ROLE_TOKENS
    header_cost = tok.count(CONVERSATION_HEADER) + tok.count(SECTION_SEPARATOR) + 1
    # fit_history's own cost model (line + newline + chat overhead per turn), so a share of
    # exactly c_need keeps every turn.
    c_need = (
        sum(tok.count(format_message(m)) + 1 + history_overhead for m in msgs) + header_cost if msgs else 0
    )
    scored = ranking.rescore(docs, now)
    ranked = sorted(scored, key=lambda d: d.score, reverse=True)
    doc_framing = (
        tok.count(DOCUMENTS_HEADER) + tok.count(SECTION_SEPARATOR) + 1 + MESSAGE_OVERHEAD_TOKENS + _ROLE_TOKENS
    )
    d_need = 0
    if docs:
        trial = manager.build(PromptRequest(query=query, documents=scored, max_context_tokens=limit))
        # The manager walks per-document costs (header and separator included); their sum can
        # exceed the joined block's count by a token or two, and it is what the walk needs.
        walked = sum(t.block_tokens or 0 for t in trial.trace if t.position is not None)
        d_need = max(trial.tokens_used, walked) + doc_framing if trial.context_block else 0
    needs = {"system": s_need, "documents": d_need, "conversation": c_need}

    # --- lending -------------------------------------------------------------------------------
    spare = {name: max(accounts[name].budget - needs[name], 0) for name in needs}
    spare["buffer"] = accounts["buffer"].budget
    grants = {name: min(needs[name], accounts[name].budget) for name in needs}
    # 1. The query (and the separators, inside its cost) is paid from the buffer first.
    q_lenders = ("buffer", "system", "conversation", "documents")
    q_short = q_need - _lend(accounts, spare, "query", q_need, q_lenders)
    if q_short > 0:
        # Still short: squeeze what the sections were granted, documents first.
        for lender in ("documents", "conversation", "system"):
            take = min(grants[lender], q_short)
            if take > 0:
                grants[lender] -= take
                spare[lender] = take
                _lend(accounts, spare, "query", take, (lender,))
                q_short -= take
    # 2. A long system prompt: what the buffer has left, then unused shares.
    s_short = needs["system"] - grants["system"]
    if s_short > 0:
        grants["system"] += _lend(accounts, spare, "system", s_short, ("buffer", "conversation", "documents"))
    # 3. Documents, then conversation, take what is left of the sections' shares.
    d_short = needs["documents"] - grants["documents"]
    if d_short > 0:
        grants["documents"] += _lend(accounts, spare, "documents", d_short, ("system", "conversation"))
    c_short = needs["conversation"] - grants["conversation"]
    if c_short > 0:
        grants["conversation"] += _lend(accounts, spare, "conversation", c_short, ("documents", "system"))
    for acc in accounts.values():
        if acc.lent_to:
            acc.notes.insert(0, "lent " + ", ".join(f"{n} to {k}" for k, n in acc.lent_to.items()))
        if acc.borrowed_from:
            acc.notes.insert(0, "borrowed " + ", ".join(f"{n} from {k}" for k, n in acc.borrowed_from.items()))

    # --- build, measure, shrink until both forms fit --------------------------------------------
    history_fits: dict[int, HistoryFit] = {}
    document_builds: dict[int, ContextResult] = {}
    summaries: dict[int, str] = {}

    def summarize_once(older: list[Message]) -> str:
        # ``older`` is always a prefix of the history, so its length identifies it.
        if len(older) not in summaries:
            summaries[len(older)] = summarizer(older)  # type: ignore[misc]
        return summaries[len(older)]

    # No summarizer keeps fit_history's own budget-aware extractive path.
    cached_summarizer = summarize_once if summarizer is not None else None

    def build(limits: dict[str, int]) -> ContextResult | None:
        nonlocal layout
        layout = _Layout(tok)
        layout.query = query
        # System prompt: truncated only when lending could not cover it.
        layout.system = _fit_system_prompt(tok, system_prompt, limits["system"])
        # Conversation (one fit per room: the summarizer may be a paid model call).
        room = max(limits["conversation"] - header_cost, 0)
        if room not in history_fits:
            history_fits[room] = fit_history(
                msgs, room, tok, cached_summarizer, message_overhead=history_overhead
            )
        layout.history = history_fits[room]
        # Documents (one manager build per room).
        result = None
        if docs:
            room = max(limits["documents"] - doc_framing, 0)
            if room not in document_builds:
                document_builds[room] = manager.build(
                    PromptRequest(query=query, documents=scored, max_context_tokens=room)
                )
            result = document_builds[room]
            layout.documents = result.context_block
        return result

    limits = dict(grants)
    documents_result = build(limits)
    text_tokens, message_tokens = layout.totals()
    # Documents rarely fill their limit exactly (whole documents), so the measured total leaves
    # slack. A section that was cut gets it — the system prompt first — if the result still fits.
    # What is left of the buffer stays free, except for the system prompt (as in the lending).
    for name in ("system", "documents", "conversation"):
        free = limit - max(text_tokens, message_tokens) - (0 if name == "system" else spare["buffer"])
        slack = min(free, needs[name] - limits[name])
        if slack <= 0 or not _was_cut(name, layout, system_prompt, documents_result, docs):
            continue
        before = layout.section_texts()[name]
        trial_limits = {**limits, name: limits[name] + slack}
        trial_result = build(trial_limits)
        totals = layout.totals()
        if max(totals) <= limit and layout.section_texts()[name] != before:
            limits, documents_result, (text_tokens, message_tokens) = trial_limits, trial_result, totals
            accounts[name].notes.append(f"took {_tokens(slack)} the built sections left free")
        else:
            documents_result = build(limits)
            text_tokens, message_tokens = layout.totals()
    rounds = 0
    while max(text_tokens, message_tokens) > limit and rounds < _MAX_FIT_ROUNDS:
        rounds += 1
        over = max(text_tokens, message_tokens) - limit
        texts = layout.section_texts()
        for name in ("documents", "conversation", "system"):
            if texts[name] and limits[name] > 0:
                limits[name] = max(limits[name] - over, 0)
                break
        documents_result = build(limits)
        text_tokens, message_tokens = layout.totals()
    if max(text_tokens, message_tokens) > limit:
        # Last resort (joined counts kept drifting): no documents, no conversation turns, and
        # the system prompt cut until the query fits beside it.
        limits["documents"] = limits["conversation"] = 0
        documents_result = build(limits)
        text_tokens, message_tokens = layout.totals()
        while layout.system and max(text_tokens, message_tokens) > limit:
            over = max(text_tokens, message_tokens) - limit
            layout.system = tok.truncate(layout.system, max(tok.count(layout.system) - over, 0)).rstrip()
            text_tokens, message_tokens = layout.totals()
        notes.append("the layout did not fit after shrinking; documents and conversation were dropped")
    if rounds:
        notes.append(
            f"rebuilt {rounds} time(s) so the measured total fits (joined text counts differ from parts)"
        )

    # --- the account ---------------------------------------------------------------------------
    texts = layout.section_texts()
    section_msgs = layout.section_messages()
    for name in SECTION_NAMES:
        acc = accounts[name]
        acc.used = tok.count(texts[name]) if texts[name] else 0
        acc.message_tokens = sum(
            MESSAGE_OVERHEAD_TOKENS + tok.count(m["role"]) + tok.count(m["content"]) for m in section_msgs[name]
        )
    # What the joined forms cost beyond their sections: separators, reply priming.
    accounts["buffer"].used = max(text_tokens - sum(accounts[n].used for n in SECTION_NAMES), 0)
    accounts["buffer"].message_tokens = REPLY_PRIMING_TOKENS
    sys_acc = accounts["system"]
    sys_acc.items_out = 1 if layout.system else 0
    if system_prompt and layout.system != system_prompt:
        sys_acc.notes.append(
            f"system prompt truncated to its share and what others could lend "
            f"({tok.count(layout.system)} of {tok.count(system_prompt)} tokens)"
        )
    doc_acc = accounts["documents"]
    if documents_result is not None:
        doc_acc.items_out = len(documents_result.included_docs)
        counts = documents_result.fate_counts()
        dropped = {k: v for k, v in counts.items() if v and k != "included"}
        if dropped:
            doc_acc.notes.append(", ".join(f"{v} {k}" for k, v in dropped.items()))
    hist = layout.history
    conv_acc = accounts["conversation"]
    conv_acc.items_out = len(hist.kept) if hist else 0
    if hist and hist.summarized_indices:
        conv_acc.notes.append(
            f"{len(hist.summarized_indices)} older messages "
            + ("summarized" if hist.summary else "covered by an empty summary (no room)")
        )
    accounts["query"].items_out = 1

    return AssembledPrompt(
        text=layout.text(),
        messages=layout.messages(),
        sections=accounts,
        tokens_used=text_tokens,
        message_tokens=message_tokens,
        tokens_limit=limit,
        budget=budget,
        documents_result=documents_result,
        history=hist if hist is not None else fit_history([], 0, tok),
        ranked_documents=ranked,
        tokenizer=tok.name,
        notes=notes,
    )
