"""The whole context window of seed 002: budget shares and the final layout, in named phases.

``assemble_prompt`` lays a prompt out as seed 002 draws it — system prompt, documents, recent
conversation, the query last, room left for the answer — and explains every token. ``WindowBudget``
splits ``max_tokens`` into shares; the prompt never exceeds ``max_tokens - output_reserve``, counted
with the real tokenizer on the final text and on the chat messages. Documents go through a
``ContextManager`` over copies scored by ``HybridRanking`` (contextlab.window.ranking), with their share of
the window as their budget; the conversation through ``memory.fit_history`` (older turns summarized,
never silently dropped). Phases: check, needs, lending, build and fit, accounting.

Lending (what a section does not use goes where it is needed, in this order):

1. The query is paid from the buffer (with the separators); a longer query takes unused shares,
   then squeezes documents, conversation and the system prompt. It is never truncated; a query
   that alone exceeds the window raises ``BudgetError``.
2. A system prompt longer than its share takes what the buffer has left, then unused shares;
   it is cut (``fit_text``, with its marker) only when that is not enough.
3. Documents take the unused shares of system and conversation; then the conversation takes
   what documents and system still leave unused. The buffer is never lent to these two: it
   is the window's safety margin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..stages.budget import fit_text
from ..tokenizers import Tokenizer
from ..types import ContextResult, Document, Message
from .layout import (
    REPLY_PRIMING_TOKENS,
    SECTION_NAMES,
    SHARE_SECTIONS,
    AssembledPrompt,
    PromptLayout,
    WindowBudget,
    count_message_tokens,
)
from .memory import HistoryFit, Summarizer, fit_history
from .needs import (
    HISTORY_OVERHEAD,
    Call,
    Plan,
    build_documents,
    check_call,
    fit_system_prompt,
    measure_needs,
)
from .ranking import HybridRanking

if TYPE_CHECKING:
    from ..manager import ContextManager

__all__ = ["assemble_prompt"]

# Shrink-and-rebuild rounds before the last-resort layout (the first round nearly always fits).
_MAX_FIT_ROUNDS = 8
# Tries to hand measured slack to one cut section, each asking less after an overshoot.
_SLACK_TRIES = 3


# --- phase 3: lending ----------------------------------------------------------------------------


def _lend(plan: Plan, borrower: str, amount: int, lenders: Sequence[str]) -> int:
    """Move up to ``amount`` spare tokens from ``lenders`` to ``borrower``; return what moved."""
    accounts, moved = plan.accounts, 0
    for lender in lenders:
        give = min(plan.spare.get(lender, 0), amount - moved)
        if give <= 0:
            continue
        plan.spare[lender] -= give
        moved += give
        accounts[lender].lent += give
        accounts[lender].lent_to[borrower] = accounts[lender].lent_to.get(borrower, 0) + give
        accounts[borrower].borrowed += give
        accounts[borrower].borrowed_from[lender] = accounts[borrower].borrowed_from.get(lender, 0) + give
    return moved


def _lend_shares(plan: Plan) -> None:
    """Fill the plan's grants and spare tokens: the query first, then system, documents, conversation."""
    needs, accounts = plan.needs, plan.accounts
    plan.spare = {name: max(accounts[name].budget - needs[name], 0) for name in needs}
    plan.spare["buffer"] = accounts["buffer"].budget
    grants = plan.grants = {name: min(needs[name], accounts[name].budget) for name in needs}
    # 1. The query (and the separators, inside its cost) is paid from the buffer first; if that
    # and the unused shares are not enough, it squeezes the sections' grants, documents first.
    paid = _lend(plan, "query", plan.query_need, ("buffer", "system", "conversation", "documents"))
    short = plan.query_need - paid
    for lender in ("documents", "conversation", "system"):
        take = min(grants[lender], short)
        if take > 0:
            grants[lender] -= take
            plan.spare[lender] = take
            _lend(plan, "query", take, (lender,))
            short -= take
    # 2. A long system prompt: what the buffer has left, then unused shares.
    # 3. Documents, then conversation, take what is left of the sections' shares.
    for name, lenders in (
        ("system", ("buffer", "conversation", "documents")),
        ("documents", ("system", "conversation")),
        ("conversation", ("documents", "system")),
    ):
        if needs[name] > grants[name]:
            grants[name] += _lend(plan, name, needs[name] - grants[name], lenders)
    for acc in accounts.values():
        if acc.lent_to:
            acc.notes.insert(0, "lent " + ", ".join(f"{n} to {k}" for k, n in acc.lent_to.items()))
        if acc.borrowed_from:
            loans = ", ".join(f"{n} from {k}" for k, n in acc.borrowed_from.items())
            acc.notes.insert(0, "borrowed " + loans)


# --- phase 4: build and fit ----------------------------------------------------------------------


class _SectionBuilder:
    """Builds the layout for given section limits; each conversation and document room is built once."""

    def __init__(self, call: Call, plan: Plan) -> None:
        self.call, self.plan = call, plan
        self.history_fits: dict[int, HistoryFit] = {}
        self.document_builds: dict[int, ContextResult] = {}

    def build(self, limits: Mapping[str, int]) -> PromptLayout:
        """Return the layout whose sections fit ``limits`` (the system prompt cut only if needed)."""
        call, tok = self.call, self.call.tok
        system = fit_system_prompt(tok, call.system_prompt, limits["system"])
        layout = PromptLayout(call.query, system=system)
        room = max(limits["conversation"] - self.plan.conversation_framing, 0)
        if room not in self.history_fits:
            self.history_fits[room] = fit_history(
                call.history, room, tok, call.summarizer, message_overhead=HISTORY_OVERHEAD
            )
        layout.history = self.history_fits[room]
        if call.scored:
            room = self.plan.documents_room(limits)
            if room not in self.document_builds:
                self.document_builds[room] = build_documents(call, room)
            layout.documents_result = self.document_builds[room]
            layout.documents = layout.documents_result.context_block
        return layout

    def was_cut(self, name: str, layout: PromptLayout) -> bool:
        """Return whether a built section holds less than it would with no limit."""
        if name == "system":
            return layout.system != self.call.system_prompt
        if name == "documents":
            result = layout.documents_result
            return result is not None and any(t.fate in ("excluded", "truncated", "summarized") for t in result.trace)
        return bool(layout.history and layout.history.summarized_indices)

    def adopt(self, limits: dict[str, int]) -> PromptLayout:
        """Build under ``limits`` and make that the plan's layout; return it."""
        plan = self.plan
        plan.limits, plan.layout = limits, self.build(limits)
        plan.totals = plan.layout.totals(self.call.tok)
        return plan.layout


def _share_slack(builder: _SectionBuilder) -> None:
    """Give measured slack to sections that were cut, the system prompt first, while it still fits."""
    # Documents rarely fill their limit exactly (whole documents), so the measured total leaves
    # slack. What is left of the buffer stays free, except for the system prompt (as in lending).
    plan, limit = builder.plan, builder.call.window_budget.limit
    for name in SHARE_SECTIONS:
        free = limit - max(plan.totals) - (0 if name == "system" else plan.spare["buffer"])
        slack = min(free, plan.needs[name] - plan.limits[name])
        tries = _SLACK_TRIES if builder.was_cut(name, plan.layout) else 0
        while slack > 0 and tries:
            tries -= 1
            trial_limits = {**plan.limits, name: plan.limits[name] + slack}
            trial = builder.build(trial_limits)
            totals = trial.totals(builder.call.tok)
            if max(totals) > limit:
                # Section costs are estimates (one more chat message, merged tokens): try less.
                slack -= max(totals) - limit
                continue
            if trial.section_texts()[name] != plan.layout.section_texts()[name]:
                plan.limits, plan.layout, plan.totals = trial_limits, trial, totals
                noun = "token" if slack == 1 else "tokens"
                plan.accounts[name].notes.append(f"took {slack} {noun} the built sections left free")
            break


def _shrink_until_fits(builder: _SectionBuilder) -> None:
    """Shrink documents, then conversation, then system until both forms fit; last resort: drop them."""
    plan, tok, limit = builder.plan, builder.call.tok, builder.call.window_budget.limit
    rounds = 0
    while max(plan.totals) > limit and rounds < _MAX_FIT_ROUNDS:
        rounds += 1
        texts, limits = plan.layout.section_texts(), dict(plan.limits)
        order = ("documents", "conversation", "system")
        name = next((n for n in order if texts[n] and limits[n] > 0), None)
        if name is not None:
            limits[name] = max(limits[name] - (max(plan.totals) - limit), 0)
        builder.adopt(limits)
    if max(plan.totals) > limit:
        # Last resort (joined counts kept drifting): no documents, no conversation turns, and
        # the system prompt cut until the query fits beside it.
        layout = builder.adopt({**plan.limits, "documents": 0, "conversation": 0})
        while layout.system and max(plan.totals) > limit:
            room = tok.count(layout.system) - (max(plan.totals) - limit)
            layout.system = fit_text(tok, builder.call.system_prompt, room) or ""
            plan.totals = layout.totals(tok)
        plan.notes.append("the layout did not fit after shrinking; documents and conversation were dropped")
    if rounds:
        plan.notes.append(f"rebuilt {rounds} time(s) so the measured total fits (joined text counts differ from parts)")


def _build_and_fit(call: Call, plan: Plan) -> None:
    """Set the plan's layout: built under the grants, given measured slack, shrunk until it fits."""
    builder = _SectionBuilder(call, plan)
    builder.adopt(dict(plan.grants))
    _share_slack(builder)
    _shrink_until_fits(builder)


# --- phase 5: the account ------------------------------------------------------------------------


def _settle_accounts(call: Call, plan: Plan) -> None:
    """Write what each section used and kept, with notes on what was cut, into the plan's accounts."""
    tok, layout, accounts = call.tok, plan.layout, plan.accounts
    texts, section_msgs = layout.section_texts(), layout.section_messages()
    for name in SECTION_NAMES:
        accounts[name].used = tok.count(texts[name]) if texts[name] else 0
        accounts[name].message_tokens = count_message_tokens(section_msgs[name], tok) - REPLY_PRIMING_TOKENS
    # What the joined forms cost beyond their sections: separators, reply priming.
    accounts["buffer"].used = max(plan.totals[0] - sum(accounts[n].used for n in SECTION_NAMES), 0)
    accounts["buffer"].message_tokens = REPLY_PRIMING_TOKENS
    accounts["system"].items_out = 1 if layout.system else 0
    if call.system_prompt and layout.system != call.system_prompt:
        accounts["system"].notes.append(
            f"system prompt truncated to its share and what others could lend "
            f"({tok.count(layout.system)} of {tok.count(call.system_prompt)} tokens)"
        )
    result = layout.documents_result
    if result is not None:
        accounts["documents"].items_out = len(result.included_docs)
        dropped = {k: v for k, v in result.fate_counts().items() if v and k != "included"}
        if dropped:
            accounts["documents"].notes.append(", ".join(f"{v} {k}" for k, v in dropped.items()))
    hist, conversation = layout.history, accounts["conversation"]
    conversation.items_out = len(hist.kept) if hist else 0
    if hist and hist.summarized_indices:
        conversation.notes.append(
            f"{len(hist.summarized_indices)} older messages "
            + ("summarized" if hist.summary else "covered by an empty summary (no room)")
        )
    if call.question_index is not None:
        conversation.notes.append("its last message is the question, shown once as the query")
    accounts["query"].items_out = 1


def assemble_prompt(
    system_prompt: str,
    documents: Sequence[Document],
    history: Sequence[Message | Mapping[str, str]],
    query: str,
    *,
    window_budget: WindowBudget | None = None,
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
    messages, kept turns keep their roles, and the query is the last "user" message. A last
    history message from the user with the query's words is the question itself: it appears
    once, as the query, in both forms (``question_index`` says which it was).
    ``window_budget`` defaults to ``WindowBudget()``, ``ranking`` to ``HybridRanking()``, ``manager``
    to ``ContextManager(tokenizer=tokenizer or "cl100k_base")``; the manager's tokenizer counts
    everything. ``now`` (Unix seconds) fixes the clock for recency. Raises ``BudgetError``
    when the query alone does not fit in ``max_tokens - output_reserve``.
    """
    call = check_call(
        system_prompt,
        documents,
        history,
        query,
        window_budget=window_budget,
        manager=manager,
        ranking=ranking,
        now=now,
        summarizer=summarizer,
        tokenizer=tokenizer,
    )
    plan = measure_needs(call)
    _lend_shares(plan)
    _build_and_fit(call, plan)
    _settle_accounts(call, plan)
    layout = plan.layout
    return AssembledPrompt(
        text=layout.text(),
        messages=layout.messages(),
        sections=plan.accounts,
        tokens_used=plan.totals[0],
        message_tokens=plan.totals[1],
        tokens_limit=call.window_budget.limit,
        window_budget=call.window_budget,
        documents_result=layout.documents_result,
        history=layout.history if layout.history is not None else fit_history([], 0, call.tok),
        ranked_documents=sorted(call.scored, key=lambda d: d.score, reverse=True),
        tokenizer=call.tok.name,
        notes=plan.notes,
        documents_budget=plan.documents_room(plan.limits) if call.scored else 0,
        question_index=call.question_index,
    )
