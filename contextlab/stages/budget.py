"""Token budget: walk the documents in order, keep what fits, shorten or drop the rest."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..tokenizers import Tokenizer

__all__ = ["BudgetDecision", "Shortened", "fit_to_budget", "fit_text", "seed_truncate",
           "TRUNCATION_MARKER", "MIN_PARTIAL_TOKENS"]

#: Appended to a cut document so the model (and the reader) can see it was cut.
TRUNCATION_MARKER = " [...]"
#: Seed 000 only cuts a document when more than this many tokens of budget remain.
MIN_PARTIAL_TOKENS = 50


@dataclass(frozen=True)
class Shortened:
    """A shorter stand-in for a document that did not fit: its text, cost and fate."""

    content: str
    cost: int
    fate: Literal["truncated", "summarized"]


@dataclass(frozen=True)
class BudgetDecision:
    """What the budget did with one document; ``cost`` is what it charged (0 when excluded)."""

    index: int
    fate: Literal["included", "truncated", "summarized", "excluded"]
    content: str | None
    cost: int
    remaining_before: int


# shorten(position_in_walk, remaining_tokens) -> a stand-in, or None to exclude the document
Shorten = Callable[[int, int], "Shortened | None"]


def fit_to_budget(
    costs: Sequence[int],
    budget: int,
    *,
    shorten: Shorten | None = None,
    min_remaining: int = MIN_PARTIAL_TOKENS,
    overhead: Callable[[int], int] | None = None,
) -> list[BudgetDecision]:
    """Return one decision per document, in the order given.

    A document goes in when ``used + cost <= budget``. One that does not fit is offered to
    ``shorten`` when more than ``min_remaining`` tokens remain; what ``shorten`` returns is
    charged in full. The walk never stops early: a later, smaller document that fits goes in.
    ``overhead(i)`` (headers, separators) adds to ``costs[i]``; it is only asked for when the
    document could fit on its own cost, so it may be expensive.
    """
    decisions: list[BudgetDecision] = []
    used = 0
    for i, cost in enumerate(costs):
        remaining = budget - used
        if cost <= remaining and overhead is not None:
            cost += overhead(i)
        if cost <= remaining:
            decisions.append(BudgetDecision(i, "included", None, cost, remaining))
            used += cost
            continue
        stand_in = shorten(i, remaining) if shorten is not None and remaining > min_remaining else None
        if stand_in is None:
            decisions.append(BudgetDecision(i, "excluded", None, 0, remaining))
        else:
            decisions.append(BudgetDecision(i, stand_in.fate, stand_in.content, stand_in.cost, remaining))
            used += stand_in.cost
    return decisions


def seed_truncate(text: str, remaining: int) -> str:
    """Return seed 000's partial text: the first ``int(remaining / 1.3)`` words plus `` [...]``."""
    return " ".join(text.split()[: int(remaining / 1.3)]) + TRUNCATION_MARKER


def fit_text(tokenizer: Tokenizer, text: str, room: int, *, marker: bool = True) -> str | None:
    """Return ``text`` cut to at most ``room`` tokens, or None when no word of it fits.

    The one truncation every part of contextlab uses (documents, history lines, the system
    prompt). A cut text ends with ``TRUNCATION_MARKER`` unless ``marker=False``; the result is
    measured, not estimated, so it never exceeds ``room`` even when tokens merge at the cut.
    """
    if room <= 0:
        return None
    if tokenizer.count(text) <= room:
        return text
    suffix = TRUNCATION_MARKER if marker else ""
    target = room - (tokenizer.count(TRUNCATION_MARKER) if marker else 0)
    while target > 0:
        cut = tokenizer.truncate(text, target).rstrip()
        if not cut:
            return None
        candidate = cut + suffix
        over = tokenizer.count(candidate) - room
        if over <= 0:
            return candidate
        target -= over
    return None
