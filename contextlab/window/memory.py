"""Conversation memory: fit a whole chat to a token budget.

(Seed 000's ``format_memory``, which formats a chat's tail, lives in ``contextlab.stages.messages``.)
``fit_history`` is seed 002's "most recent first,
summarize old" step made real: recent turns are kept verbatim while the budget lasts, and the
older ones are covered by an extractive summary (or one from a pluggable ``summarizer``), so
no message is ever dropped without the result saying which summary covers it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import InvalidInputError
from ..stages.budget import TRUNCATION_MARKER, fit_text
from ..stages.messages import coerce_messages, format_message, role_label
from ..stages.summarize import split_sentences
from ..tokenizers import Tokenizer, resolve_tokenizer
from ..types import Message
from ..validation import whole_number

__all__ = [
    "HistoryFit",
    "Summarizer",
    "extractive_summary",
    "fit_history",
    "summary_header",
]

#: Turns older messages into a summary text (a real LLM call, for instance).
Summarizer = Callable[[list[Message]], str]

# One summary line never carries more than this many words of a turn: the summary is a
# reminder of what was said, not a second copy of it.
_MAX_SUMMARY_WORDS = 30


def summary_header(n_messages: int) -> str:
    """Return the first line of a history summary: ``[Summary of N earlier messages]``."""
    noun = "message" if n_messages == 1 else "messages"
    return f"[Summary of {n_messages} earlier {noun}]"


def _first_sentence(text: str) -> str:
    # The one sentence rule (``stages.summarize.split_sentences``), as document synopses use it.
    sentences = split_sentences(text)
    if not sentences:
        return ""
    sentence = sentences[0]
    words = sentence.split()
    if len(words) > _MAX_SUMMARY_WORDS:
        return " ".join(words[:_MAX_SUMMARY_WORDS]) + TRUNCATION_MARKER
    return sentence


def extractive_summary(
    messages: list[Message],
    max_tokens: int | None = None,
    tokenizer: str | Tokenizer = "heuristic",
) -> str:
    """Return ``- Label: first sentence`` lines for ``messages``, within ``max_tokens`` if given.

    No model and no network: each turn contributes its first sentence (at most 30 words).
    When a budget is given, user and system turns are chosen first (they carry the topics and
    the rules), then assistant and tool turns, each group oldest first; the chosen lines keep
    their conversation order. If not even one line fits, the first line is cut to fit.
    """
    messages = coerce_messages(messages)
    lines = [(i, f"- {role_label(m.role)}: {s}") for i, m in enumerate(messages) if (s := _first_sentence(m.content))]
    if max_tokens is None:
        return "\n".join(line for _, line in lines)
    tok = resolve_tokenizer(tokenizer)
    if max_tokens <= 0 or not lines:
        return ""
    primary = [(i, line) for i, line in lines if messages[i].role in ("user", "system")]
    secondary = [(i, line) for i, line in lines if messages[i].role not in ("user", "system")]
    chosen: list[tuple[int, str]] = []
    used = 0
    for i, line in primary + secondary:
        cost = tok.count(line) + 1  # + the newline that joins it
        if used + cost <= max_tokens:
            chosen.append((i, line))
            used += cost
    if not chosen:
        # Cut the first (preferred) line, but only if a word of the turn survives the cut:
        # "- User: [...]" says nothing.
        i, line = (primary or secondary)[0]
        prefix = f"- {role_label(messages[i].role)}: "
        cut = fit_text(tok, line, max_tokens) or ""
        return cut if cut.startswith(prefix) and cut[len(prefix) :] != TRUNCATION_MARKER.strip() else ""
    chosen.sort()
    text = "\n".join(line for _, line in chosen)
    # Counts of joined lines can differ from the sum of their parts; trust only the real count.
    while chosen and tok.count(text) > max_tokens:
        chosen.pop()
        text = "\n".join(line for _, line in chosen)
    return text


@dataclass
class HistoryFit:
    """A conversation fitted to a token budget: the turns kept verbatim and a summary of the rest.

    ``kept_indices`` and ``summarized_indices`` are indices into the input list; together
    they hold every index exactly once (no message is lost). ``summary`` is the whole summary
    text (header line included), "" when every message was kept. ``tokens_used`` is the count
    of ``text`` with the same tokenizer; ``tokens_used + message_overhead * len(items)`` never
    exceeds ``tokens_budget``.
    """

    kept: list[Message]
    kept_indices: list[int]
    summary: str
    summarized_indices: list[int]
    tokens_used: int
    tokens_budget: int
    tokenizer: str
    message_overhead: int = 0
    summary_truncated: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The history as prompt text: the summary (if any), then ``Label: content`` lines."""
        parts = [self.summary] if self.summary else []
        parts.extend(format_message(m) for m in self.kept)
        return "\n".join(parts)

    @property
    def n_items(self) -> int:
        """How many chat messages this history becomes (the summary counts as one)."""
        return len(self.kept) + (1 if self.summary else 0)

    def account(self) -> dict[int, str]:
        """Return the fate of every input message by index: "kept" or "summarized"."""
        fates = {i: "kept" for i in self.kept_indices}
        fates.update({i: "summarized" for i in self.summarized_indices})
        return dict(sorted(fates.items()))

    def to_messages(self) -> list[dict[str, str]]:
        """Return the history as chat messages; the summary becomes one "system" message."""
        out = [{"role": "system", "content": self.summary}] if self.summary else []
        out.extend({"role": m.role, "content": m.content} for m in self.kept)
        return out


def _summary_text(
    older: list[Message],
    room: int,
    tok: Tokenizer,
    summarizer: Summarizer | None,
) -> tuple[str, bool]:
    """Return the summary of ``older`` within ``room`` tokens, and whether it was cut."""
    header = summary_header(len(older))
    header_cost = tok.count(header)
    if room < header_cost:
        return "", True
    body_room = room - header_cost - 1  # the newline after the header
    if summarizer is None:
        full_body = extractive_summary(older)
        body = extractive_summary(older, body_room, tok) if body_room > 0 else ""
        cut = body != full_body
    else:
        raw = summarizer(list(older))
        if not isinstance(raw, str):
            raise InvalidInputError(
                f"summarizer must return a string; got {type(raw).__name__} "
                "(wrap your model call so it returns the summary text)"
            )
        full_body = raw.strip()
        body = fit_text(tok, full_body, body_room) or ""
        cut = body != full_body
    text = f"{header}\n{body}" if body else header
    while tok.count(text) > room and body:
        # Joined counts can exceed the sum of parts by a token; shave until the real count fits.
        body_room -= 1
        body = fit_text(tok, body, body_room) or ""
        text = f"{header}\n{body}" if body else header
        cut = True
    if tok.count(text) > room:
        return "", True
    return text, cut


def fit_history(
    messages: list[Message],
    max_tokens: int,
    tokenizer: str | Tokenizer = "cl100k_base",
    summarizer: Summarizer | None = None,
    *,
    message_overhead: int = 0,
) -> HistoryFit:
    """Return the conversation fitted to ``max_tokens``: recent turns verbatim, older ones summarized.

    Turns are taken most recent first while they fit (each costs its ``Label: content`` line,
    its newline and ``message_overhead``); the kept turns are always the most recent run, so
    the conversation never has holes. Everything older is covered by one summary: extractive by
    default (first sentences, user and system turns first; no model, no network), or
    ``summarizer(older_messages) -> str`` for a real one, cut to fit. If the summary would get
    too little room, the oldest kept turn moves into it. System messages keep their role in
    both the kept lines and the summary. ``message_overhead`` is the per-message cost of
    sending the history as chat messages (``assemble_prompt`` passes OpenAI's).
    """
    msgs = coerce_messages(messages)
    whole_number("max_tokens", max_tokens, minimum=0)
    whole_number("message_overhead", message_overhead, minimum=0)
    if summarizer is not None and not callable(summarizer):
        raise InvalidInputError(f"summarizer must be callable (list[Message]) -> str; got {type(summarizer).__name__}")
    tok = resolve_tokenizer(tokenizer)
    if not msgs:
        return HistoryFit([], [], "", [], 0, max_tokens, tok.name, message_overhead)
    fit = _fit_recent_first(msgs, max_tokens, tok, summarizer, message_overhead)
    _note_summary(fit)
    return fit


def _fit_recent_first(
    msgs: list[Message], max_tokens: int, tok: Tokenizer, summarizer: Summarizer | None, message_overhead: int
) -> HistoryFit:
    """Return the fit keeping the longest recent run that leaves the summary enough room."""
    n = len(msgs)
    costs = [tok.count(format_message(m)) + 1 + message_overhead for m in msgs]
    # Longest recent run that fits on its own.
    k, used = 0, 0
    for cost in reversed(costs):
        if used + cost > max_tokens:
            break
        used += cost
        k += 1

    # Each pass keeps one turn fewer, so the summarizer never sees the same prefix twice and
    # needs no memo here (the window memoises it across fits).
    while True:
        start = n - k
        kept, older = msgs[start:], msgs[:start]
        kept_cost = sum(costs[start:])
        summary, cut = "", False
        if older:
            room = max_tokens - kept_cost - message_overhead
            summary, cut = _summary_text(older, room, tok, summarizer)
            # A summary that cannot even say what it covers (or says it with no content while
            # older turns had some) is worse than one kept turn less: give it that turn's room.
            starved = not summary or (cut and "\n" not in summary)
            if starved and k > 0:
                k -= 1
                continue
        fit = HistoryFit(
            kept=list(kept),
            kept_indices=list(range(start, n)),
            summary=summary,
            summarized_indices=list(range(start)),
            tokens_used=0,
            tokens_budget=max_tokens,
            tokenizer=tok.name,
            message_overhead=message_overhead,
            summary_truncated=cut and bool(older),
        )
        total = tok.count(fit.text) + message_overhead * fit.n_items
        if total > max_tokens and k > 0:
            # Per-line estimates undercounted the joined text; give up one more turn.
            k -= 1
            continue
        if total > max_tokens:
            fit.summary = ""
            fit.summary_truncated = True
        fit.tokens_used = tok.count(fit.text)
        return fit


def _note_summary(fit: HistoryFit) -> None:
    """Add a note saying what happened to the older messages, if any were summarized."""
    if fit.summarized_indices:
        if not fit.summary:
            fit.notes.append(
                f"{len(fit.summarized_indices)} older messages could not get even a summary "
                f"header in {fit.tokens_budget} tokens; they are listed in summarized_indices"
            )
        elif fit.summary_truncated:
            fit.notes.append(f"summary of {len(fit.summarized_indices)} older messages cut to fit")
        else:
            fit.notes.append(f"{len(fit.summarized_indices)} older messages summarized")
