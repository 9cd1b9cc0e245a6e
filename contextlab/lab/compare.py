"""What changes between two builds of the same documents: gained, lost, moved, resized.

Both results must come from the same input documents (their traces are matched by
``input_index``). The lab's Compare view draws this; tests and the CLI can use it directly.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal, TypedDict

from ..errors import InvalidInputError
from ..types import SHORTENED_FATES, ContextResult, DocTrace
from ..validation import one_of

__all__ = ["Change", "ChangeRow", "DocChange", "ResultDiff", "diff_results", "config_differences", "CHANGES"]

Change = Literal["gained", "lost", "moved", "resized", "unchanged"]
#: Every kind of change, most consequential first (the order the lab lists them in).
CHANGES: tuple[str, ...] = ("gained", "lost", "moved", "resized", "unchanged")


#: One document's row in the table of what changed between two builds (``ResultDiff.to_rows``).
ChangeRow = TypedDict(
    "ChangeRow",
    {
        "doc": int,
        "source": str,
        "change": str,
        "fate A": str,
        "fate B": str,
        "position A": "int | None",
        "position B": "int | None",
        "tokens A": int,
        "tokens B": int,
        "relevance rank": "int | None",
    },
)


@dataclass(frozen=True)
class DocChange:
    """How one input document fared under build A and under build B.

    ``change`` is "gained" (in B's block, not A's), "lost" (in A's, not B's), "moved"
    (in both, at another position), "resized" (same place, but another fate or token
    cost — e.g. cut short in one build) or "unchanged".
    """

    input_index: int
    source: str | None
    relevance_rank_a: int | None
    relevance_rank_b: int | None
    fate_a: str
    fate_b: str
    position_a: int | None
    position_b: int | None
    tokens_a: int
    tokens_b: int
    change: Change

    @property
    def position_shift(self) -> int | None:
        """Return B's position minus A's (positive: further down the block), or None."""
        if self.position_a is None or self.position_b is None:
            return None
        return self.position_b - self.position_a

    @property
    def tokens_delta(self) -> int:
        """Return what the document costs in B's block minus what it costs in A's."""
        return self.tokens_b - self.tokens_a


@dataclass(frozen=True)
class ResultDiff:
    """The document-by-document difference between two results, plus the token totals."""

    changes: tuple[DocChange, ...]
    tokens_used_a: int
    tokens_used_b: int
    block_identical: bool

    def of_kind(self, change: str) -> list[DocChange]:
        """Return the documents whose change is ``change``, in input order."""
        one_of("change", change, CHANGES)
        return [c for c in self.changes if c.change == change]

    @property
    def gained(self) -> list[DocChange]:
        """Return the documents in B's block but not in A's."""
        return self.of_kind("gained")

    @property
    def lost(self) -> list[DocChange]:
        """Return the documents in A's block but not in B's."""
        return self.of_kind("lost")

    @property
    def moved(self) -> list[DocChange]:
        """Return the documents in both blocks at different positions."""
        return self.of_kind("moved")

    @property
    def resized(self) -> list[DocChange]:
        """Return the documents at the same place whose fate or token cost differs."""
        return self.of_kind("resized")

    @property
    def tokens_delta(self) -> int:
        """Return B's block tokens minus A's."""
        return self.tokens_used_b - self.tokens_used_a

    @property
    def has_changes(self) -> bool:
        """Return True when any document fared differently or the blocks differ."""
        return not self.block_identical or any(c.change != "unchanged" for c in self.changes)

    def counts(self) -> dict[str, int]:
        """Return how many documents met each kind of change (every kind present)."""
        counts = {kind: 0 for kind in CHANGES}
        for c in self.changes:
            counts[c.change] += 1
        return counts

    def summary(self) -> list[str]:
        """Return the difference as short plain-English sentences, most important first.

        Documents B loses come first, then those it gains (each by relevance rank), then
        moves and resizes; the last line is the change in block size.
        """
        if not self.has_changes:
            return ["Both configurations build exactly the same block."]
        lines: list[str] = []
        for c in _by_rank(self.lost):
            lines.append(
                f"B leaves out {_name(c)} (doc {c.input_index}, "
                f"{_rank_text(c.relevance_rank_a)}): {c.fate_b} in B, "
                f"position {c.position_a} in A."
            )
        for c in _by_rank(self.gained):
            lines.append(
                f"B adds {_name(c)} (doc {c.input_index}, "
                f"{_rank_text(c.relevance_rank_b)}) at position {c.position_b}; "
                f"{c.fate_a} in A."
            )
        for c in _by_rank(self.moved):
            lines.append(f"{_name(c)} (doc {c.input_index}) moves from position {c.position_a} to {c.position_b}.")
        for c in _by_rank(self.resized):
            lines.append(
                f"{_name(c)} (doc {c.input_index}) is {c.fate_a} in A "
                f"({c.tokens_a} tokens) and {c.fate_b} in B ({c.tokens_b} tokens)."
            )
        sign = "+" if self.tokens_delta >= 0 else ""
        lines.append(f"Block size: {self.tokens_used_a} → {self.tokens_used_b} tokens ({sign}{self.tokens_delta}).")
        return lines

    def to_rows(self) -> list[ChangeRow]:
        """Return one plain dict per document (a table for the lab or a CSV)."""
        return [
            {
                "doc": c.input_index,
                "source": c.source or "",
                "change": c.change,
                "fate A": c.fate_a,
                "fate B": c.fate_b,
                "position A": c.position_a,
                "position B": c.position_b,
                "tokens A": c.tokens_a,
                "tokens B": c.tokens_b,
                "relevance rank": c.relevance_rank_a if c.relevance_rank_a is not None else c.relevance_rank_b,
            }
            for c in self.changes
        ]


def _name(change: DocChange) -> str:
    return change.source or f"doc {change.input_index}"


def _by_rank(changes: list[DocChange]) -> list[DocChange]:
    def rank(c: DocChange) -> int:
        r = c.relevance_rank_a if c.relevance_rank_a is not None else c.relevance_rank_b
        return r if r is not None else 10**9

    return sorted(changes, key=lambda c: (rank(c), c.input_index))


def _rank_text(rank: int | None) -> str:
    return f"relevance rank {rank}" if rank is not None else "no relevance rank"


def _cost(entry: DocTrace) -> int:
    if entry.position is None:
        return 0
    return entry.block_tokens if entry.block_tokens is not None else entry.tokens


def _classify(a: DocTrace, b: DocTrace) -> Change:
    in_a, in_b = a.position is not None, b.position is not None
    if in_b and not in_a:
        return "gained"
    if in_a and not in_b:
        return "lost"
    if in_a and a.position != b.position:
        return "moved"
    if a.fate != b.fate:
        return "resized"
    # A shortened document cut to another length is a real change; a whole document that
    # merely counts differently (another tokenizer, headers counted or not) is not.
    if a.fate in SHORTENED_FATES and _cost(a) != _cost(b):
        return "resized"
    return "unchanged"


def diff_results(a: ContextResult, b: ContextResult) -> ResultDiff:
    """Return how result ``b`` differs from result ``a``, document by document.

    Both results must have been built from the same documents: their traces must cover
    the same input indices, or an ``InvalidInputError`` says which are missing.
    """
    trace_a = {t.input_index: t for t in a.trace}
    trace_b = {t.input_index: t for t in b.trace}
    if trace_a.keys() != trace_b.keys():
        only_a = sorted(trace_a.keys() - trace_b.keys())
        only_b = sorted(trace_b.keys() - trace_a.keys())
        raise InvalidInputError(
            f"results were built from different documents: input indices only in A: {only_a}, only in B: {only_b}"
        )
    changes = []
    for index in sorted(trace_a):
        ta, tb = trace_a[index], trace_b[index]
        changes.append(
            DocChange(
                input_index=index,
                source=ta.source,
                relevance_rank_a=ta.relevance_rank,
                relevance_rank_b=tb.relevance_rank,
                fate_a=ta.fate,
                fate_b=tb.fate,
                position_a=ta.position,
                position_b=tb.position,
                tokens_a=_cost(ta),
                tokens_b=_cost(tb),
                change=_classify(ta, tb),
            )
        )
    return ResultDiff(
        changes=tuple(changes),
        tokens_used_a=a.tokens_used,
        tokens_used_b=b.tokens_used,
        block_identical=a.context_block == b.context_block,
    )


def config_differences(a: Any, b: Any) -> list[tuple[str, Any, Any]]:
    """Return ``(field, value in a, value in b)`` for every field two configurations differ in.

    Works for any two dataclass instances of the same type (``LabConfig`` in the lab).
    """
    if type(a) is not type(b):
        raise InvalidInputError(f"cannot compare a {type(a).__name__} with a {type(b).__name__}")
    return [
        (f.name, getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)
    ]
