"""Inject retrieved context into a conversation, exactly as seed 003 describes.

``inject_context`` asks the backend for ``top_k`` results, keeps those scoring at least
``min_score``, takes them in order until the next one would push the content past
``max_context_tokens`` (it stops there, it does not skip ahead), publishes a ``memory_retrieve``
event, and returns a *new* list with one system message in front. As in the seed, the budget
counts the results' content only, not the preamble or the ``[Source: ...]`` tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .. import events
from ..errors import InvalidInputError
from ..settings import DEFAULT_MAX_CONTEXT_TOKENS, DEFAULT_TOKENIZER
from ..tokenizers import Tokenizer, check_tokenizer_name, resolve_tokenizer
from ..types import Document, Message
from ..validation import finite_number, whole_number

__all__ = [
    "CONTEXT_PREAMBLE",
    "MAX_TOP_K",
    "ContextConfig",
    "RetrievalResult",
    "MemoryBackend",
    "format_context",
    "build_context_message",
    "inject_context",
]

#: The text seed 003 puts before the formatted results in the injected system message.
CONTEXT_PREAMBLE = (
    "The following context was retrieved from the knowledge"
    " base. Use it to inform your response, citing sources"
    " where applicable:\n\n"
)


#: The most results one search returns: far beyond a prompt's use, and within SQLite's integers.
MAX_TOP_K = 1_000_000


@dataclass(frozen=True)
class ContextConfig:
    """Controls how retrieved context is injected into prompts (seed 003, plus the tokenizer)."""

    enabled: bool = True
    top_k: int = 5
    min_score: float = 0.0
    max_context_tokens: int = DEFAULT_MAX_CONTEXT_TOKENS
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise InvalidInputError(f"enabled must be true or false, got {self.enabled!r}")
        whole_number("top_k", self.top_k, minimum=1, maximum=MAX_TOP_K)
        finite_number("min_score", self.min_score)
        whole_number("max_context_tokens", self.max_context_tokens, minimum=0)
        if isinstance(self.tokenizer, str):
            check_tokenizer_name(self.tokenizer)


@dataclass(frozen=True)
class RetrievalResult:
    """One search hit: its text, a score in [0, 1] (for SQLiteBackend), source and store id."""

    content: str
    score: float
    source: str | None = None
    id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_document(self) -> Document:
        """Return the hit as a ``Document`` (store id in ``metadata["id"]``)."""
        meta = dict(self.metadata)
        if self.id is not None:
            meta.setdefault("id", self.id)
        return Document(content=self.content, score=self.score, source=self.source, metadata=meta)


@runtime_checkable
class MemoryBackend(Protocol):
    """Anything that returns the ``top_k`` best results for a query, best first."""

    def retrieve(self, query: str, top_k: int = 5) -> list[RetrievalResult]:
        """Return at most ``top_k`` results for ``query``, best first."""
        ...


def format_context(results: Sequence[RetrievalResult]) -> str:
    """Return the results as one block, each prefixed with ``[Source: ...]`` when it has one."""
    if not results:
        return ""
    lines = []
    for r in results:
        if r.source:
            lines.append(f"[Source: {r.source}] {r.content}")
        else:
            lines.append(r.content)
    return "\n\n".join(lines)


def build_context_message(results: Sequence[RetrievalResult]) -> Message:
    """Return a system message holding the seed's preamble and the formatted results."""
    return Message(role="system", content=CONTEXT_PREAMBLE + format_context(results))


def inject_context(
    query: str,
    messages: Sequence[Message],
    backend: MemoryBackend,
    *,
    config: ContextConfig | None = None,
) -> list[Message]:
    """Return a new message list with the retrieved context as a system message in front.

    The input list is never mutated. When injection is disabled, nothing passes ``min_score``,
    or not even the first result fits ``max_context_tokens``, the result is a copy of
    ``messages`` (equal to it, not the same object).
    """
    cfg = config or ContextConfig()
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be text, got {type(query).__name__}")
    if not cfg.enabled:
        return list(messages)

    results = backend.retrieve(query, top_k=cfg.top_k)
    results = [r for r in results if r.score >= cfg.min_score]
    if not results:
        return list(messages)

    tokenizer = resolve_tokenizer(cfg.tokenizer)
    kept: list[RetrievalResult] = []
    total_tokens = 0
    for r in results:
        tokens = tokenizer.count(r.content)
        if total_tokens + tokens > cfg.max_context_tokens:
            break  # the seed stops at the first overflow; later, smaller results are not tried
        kept.append(r)
        total_tokens += tokens
    if not kept:
        return list(messages)

    events.publish(
        events.memory_retrieve,
        backend,
        {
            "context_injection": True,
            "query": query,
            "num_results": len(kept),
            "total_tokens": total_tokens,
        },
    )
    return [build_context_message(kept)] + list(messages)
