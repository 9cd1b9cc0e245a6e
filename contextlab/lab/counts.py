"""The lab's one way of counting a build: every input document in exactly one bucket.

Overview's numbers, the Sankey, Budget and Compare all read ``block_counts``, so their counts
agree and add up to the input the same way: filtered + duplicate + in the block + excluded (left
out for the budget) = documents in. The names are the library's (``types.FATES``,
``IN_BLOCK_FATES``, ``SHORTENED_FATES``), as in the sweep CSV: a shortened (truncated or
summarized) document is *in the block*; ``shortened`` says how many of those were shortened and
is never added on top; ``included`` is the fate of a document in the block whole.

Token measures have two names, used the same way everywhere in the lab:
**text tokens** (``DocTrace.tokens``) — the document's own text, counted by the build's tokenizer;
**block cost** (``DocTrace.block_tokens``) — what it takes up in the block: its kept text plus its
header line and separator when the budget counts headers.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import IN_BLOCK_FATES, SHORTENED_FATES, ContextResult, DocTrace

__all__ = ["BlockCounts", "block_counts", "relevance_position", "TEXT_TOKENS", "BLOCK_COST"]

#: The name of a document's own token count, wherever the lab shows it.
TEXT_TOKENS = "text tokens"
#: The name of what a document takes up in the block (header included when counted).
BLOCK_COST = "block cost"


@dataclass(frozen=True)
class BlockCounts:
    """How many input documents ended where: the four buckets add up to ``total``."""

    total: int
    filtered: int
    duplicate: int
    in_block: int
    excluded: int  # left out for the budget
    shortened: int  # of ``in_block``: truncated or summarized

    @property
    def included(self) -> int:
        """Return how many documents are in the block whole (fate "included": in the block minus shortened)."""
        return self.in_block - self.shortened

    @property
    def unique(self) -> int:
        """Return how many documents passed the filter and were no duplicate (in the block + left out)."""
        return self.in_block + self.excluded

    def sentence(self) -> str:
        """Return the counts as one sentence that adds up: "20 in: 5 in the block (1 shortened), …"."""
        parts = [
            f"{self.in_block} in the block" + (f" ({self.shortened} shortened)" if self.shortened else ""),
            f"{self.excluded} left out for the budget",
            f"{self.duplicate} duplicates",
            f"{self.filtered} too short",
        ]
        return f"{self.total} documents in: " + ", ".join(parts)


def block_counts(result: ContextResult) -> BlockCounts:
    """Return the build's counts, one bucket per input document (see the module docstring)."""
    fates = [t.fate for t in result.trace]
    # The six fates fall into the four buckets exactly once each, so they add up to ``total``.
    return BlockCounts(
        total=len(fates),
        filtered=fates.count("filtered"),
        duplicate=fates.count("duplicate"),
        in_block=sum(1 for f in fates if f in IN_BLOCK_FATES),
        excluded=fates.count("excluded"),
        shortened=sum(1 for f in fates if f in SHORTENED_FATES),
    )


def relevance_position(result: ContextResult, entry: DocTrace) -> int | None:
    """Return the position ``entry`` would have if the block kept relevance order, or None if not in it.

    Relevance ranks count every document that passed the filter, duplicates and left-out ones
    too, so rank 13 can be the 11th document of the block: this is that 11.
    """
    if entry.position is None or entry.relevance_rank is None:
        return None
    return sum(
        1
        for t in result.trace
        if t.position is not None and t.relevance_rank is not None and t.relevance_rank <= entry.relevance_rank
    )
