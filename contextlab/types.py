"""Value types shared by every stage: documents in, a traced result out."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from .errors import InvalidInputError
from .validation import finite_number, text

__all__ = [
    "Document",
    "Message",
    "PromptRequest",
    "ContextResult",
    "DocTrace",
    "DuplicatePair",
    "Fate",
    "FATES",
    "IN_BLOCK_FATES",
    "SHORTENED_FATES",
    "document_list",
    "DocumentData",
    "TraceData",
    "PairData",
    "ResultData",
]

#: The engine's default budget; ``settings.DEFAULT_MAX_CONTEXT_TOKENS`` reads it from here (types
#: sits below settings, so the number is written once, here).
DEFAULT_MAX_CONTEXT_TOKENS = 2048

Fate = Literal["filtered", "duplicate", "included", "truncated", "excluded", "summarized"]
#: Every fate a document can meet, in pipeline order (the lab draws them in this order). Each input
#: document meets exactly one, so their counts add up to the documents in. The words mean one
#: thing each: "included" is in the block whole, "truncated" in the block cut to fit, "summarized"
#: in the block as a one-sentence synopsis, "excluded" left out for the budget.
FATES: tuple[str, ...] = ("filtered", "duplicate", "excluded", "truncated", "summarized", "included")
#: The fates of a document *in the block* (``ContextResult.included_docs``); their count is what
#: files and the lab call ``in_block``.
IN_BLOCK_FATES: tuple[str, ...] = ("included", "truncated", "summarized")
#: The fates of a document in the block but not whole (the lab's count ``shortened``).
SHORTENED_FATES: tuple[str, ...] = ("truncated", "summarized")


class DocumentData(TypedDict):
    """A ``Document`` as plain JSON data (``Document.to_dict``)."""

    content: str
    score: float
    source: str | None
    metadata: dict[str, Any]
    timestamp: float | None
    importance: float


class TraceData(TypedDict):
    """A ``DocTrace`` as plain JSON data (``DocTrace.to_dict``)."""

    input_index: int
    source: str | None
    score: float
    tokens: int
    relevance_rank: int | None
    position: int | None
    fate: Fate
    duplicate_of: int | None
    similarity: float | None
    block_tokens: int | None
    reason: str


class PairData(TypedDict):
    """A ``DuplicatePair`` as plain JSON data."""

    kept_index: int
    dropped_index: int
    similarity: float
    kind: Literal["exact", "near"]


class ResultData(TypedDict):
    """A ``ContextResult`` as plain JSON data (``ContextResult.to_dict``): what files and captures hold."""

    context_block: str
    citation_map: dict[str, str]
    tokens_used: int
    tokens_budget: int
    utilization_pct: float
    duplicates_removed: int
    truncated: bool
    tokenizer: str
    included_docs: list[DocumentData]
    excluded_docs: list[DocumentData]
    trace: list[TraceData]
    duplicate_pairs: list[PairData]
    timings_ms: dict[str, float]
    budget_walk: list[int]
    notes: list[str]


@dataclass
class Document:
    """One retrieved document: its text, its retrieval score and where it came from."""

    content: str
    score: float = 1.0
    source: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    timestamp: float | None = None
    importance: float = 0.5

    def to_dict(self) -> DocumentData:
        """Return the document as plain JSON-serialisable data."""
        return DocumentData(
            content=self.content,
            score=self.score,
            source=self.source,
            metadata=copy.deepcopy(self.metadata),
            timestamp=self.timestamp,
            importance=self.importance,
        )


@dataclass
class Message:
    """One conversation turn: ``role`` is "system", "user", "assistant" or a tool name."""

    role: str
    content: str


@dataclass
class PromptRequest:
    """What ``ContextManager.build`` works on: a query, its documents and the budget.

    ``max_context_tokens`` None (not given) means the manager's own budget: its settings'
    ``max_context_tokens``, by default ``DEFAULT_MAX_CONTEXT_TOKENS``.
    """

    query: str
    documents: list[Document] = field(default_factory=list)
    memory: list[Message] = field(default_factory=list)
    max_context_tokens: int | None = None
    system_prompt: str = ""


@dataclass(frozen=True)
class DuplicatePair:
    """A document dropped as a duplicate of an earlier kept one (indices are input indices)."""

    kept_index: int
    dropped_index: int
    similarity: float
    kind: Literal["exact", "near"]


@dataclass
class DocTrace:
    """What happened to one input document, and why.

    ``input_index`` is the document's index in ``PromptRequest.documents``.
    ``relevance_rank`` is 1-based among the documents that passed the filter.
    ``position`` is the 1-based citation number in the block, or None when not in it.
    ``tokens`` is the document's own token count; ``block_tokens`` what it costs in the
    block (header and separator included when the budget counts them, the cut or
    summarised text when it was shortened).
    """

    input_index: int
    source: str | None
    score: float
    tokens: int
    relevance_rank: int | None = None
    position: int | None = None
    fate: Fate = "excluded"
    duplicate_of: int | None = None
    similarity: float | None = None
    block_tokens: int | None = None
    reason: str = ""

    def to_dict(self) -> TraceData:
        """Return the trace entry as plain JSON-serialisable data."""
        return TraceData(
            input_index=self.input_index,
            source=self.source,
            score=self.score,
            tokens=self.tokens,
            relevance_rank=self.relevance_rank,
            position=self.position,
            fate=self.fate,
            duplicate_of=self.duplicate_of,
            similarity=self.similarity,
            block_tokens=self.block_tokens,
            reason=self.reason,
        )


@dataclass
class ContextResult:
    """The finished context block with everything needed to explain it.

    Two names come from seed 000's ``ContextResult`` (seed-compatible mode reproduces it to the
    character), so each is defined here once, and files never use them in another sense:

    - ``included_docs``: the documents *in the block*, in block order, as the block holds them —
      whole (fate ``"included"``), cut to fit (fate ``"truncated"``: a copy with
      ``metadata["truncated"]``) or as a synopsis (fate ``"summarized"``); ``IN_BLOCK_FATES``.
      Files and the lab count them as ``in_block``; a file's ``included`` is always the fate.
    - ``excluded_docs``: every document the budget did not take whole — left out (fate
      ``"excluded"``), or the original of a truncated or summarized one.
    - ``truncated``: True when the budget did not take every document whole, i.e.
      ``bool(excluded_docs)`` (the seed's flag; a document's fate ``"truncated"`` is one way).

    ``budget_walk`` is the order the budget walked the documents that reached it (input
    indices): most relevant first by default, the block order in seed-compatible mode (which
    places before the budget). Each one's decision is in its ``DocTrace`` (fate, ``block_tokens``,
    reason); the final measure may still drop one (fate "excluded", reason says so).
    """

    context_block: str
    included_docs: list[Document]
    excluded_docs: list[Document]
    citation_map: dict[int, str]
    tokens_used: int
    tokens_budget: int
    duplicates_removed: int
    truncated: bool
    trace: list[DocTrace] = field(default_factory=list)
    duplicate_pairs: list[DuplicatePair] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    tokenizer: str = ""
    budget_walk: list[int] = field(default_factory=list)
    #: What a user should know about the input and how the block shows it (e.g. scores outside 0-1).
    notes: list[str] = field(default_factory=list)

    @property
    def utilization_pct(self) -> float:
        """Share of the budget the block uses, in percent, rounded to 0.1."""
        return round(self.tokens_used / max(self.tokens_budget, 1) * 100, 1)

    def fate_counts(self) -> dict[str, int]:
        """Return how many input documents met each fate (every fate present, zeros too)."""
        counts = {fate: 0 for fate in FATES}
        for entry in self.trace:
            counts[entry.fate] += 1
        return counts

    def to_dict(self) -> ResultData:
        """Return the whole result, trace included, as plain JSON-serialisable data."""
        return ResultData(
            context_block=self.context_block,
            citation_map={str(k): v for k, v in self.citation_map.items()},
            tokens_used=self.tokens_used,
            tokens_budget=self.tokens_budget,
            utilization_pct=self.utilization_pct,
            duplicates_removed=self.duplicates_removed,
            truncated=self.truncated,
            tokenizer=self.tokenizer,
            included_docs=[d.to_dict() for d in self.included_docs],
            excluded_docs=[d.to_dict() for d in self.excluded_docs],
            trace=[t.to_dict() for t in self.trace],
            duplicate_pairs=[
                PairData(kept_index=p.kept_index, dropped_index=p.dropped_index, similarity=p.similarity, kind=p.kind)
                for p in self.duplicate_pairs
            ],
            timings_ms=dict(self.timings_ms),
            budget_walk=list(self.budget_walk),
            notes=list(self.notes),
        )


def document_list(value: object, *, name: str = "documents") -> Sequence[Any]:
    """Return ``value`` when it is a list or tuple of ``Document`` with usable fields.

    Each problem names the document's index: ``documents[3].score must be a finite number``.
    """
    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(f"{name} must be a list of Document, got {type(value).__name__}", field=name)
    for i, doc in enumerate(value):
        at = f"{name}[{i}]"
        if not isinstance(doc, Document):
            raise InvalidInputError(f"{at} must be a Document, got {type(doc).__name__}", field=at)
        text(f"{at}.content", doc.content)
        finite_number(f"{at}.score", doc.score)
        finite_number(f"{at}.importance", doc.importance)
        if doc.timestamp is not None:
            finite_number(f"{at}.timestamp", doc.timestamp)
        text(f"{at}.source", doc.source, optional=True)
        if not isinstance(doc.metadata, dict):
            raise InvalidInputError(
                f"{at}.metadata must be a dict, got {type(doc.metadata).__name__}", field=f"{at}.metadata"
            )
    return value
