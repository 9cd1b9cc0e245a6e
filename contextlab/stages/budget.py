"""Token budget: walk the documents in order, keep what fits, shorten or drop the rest.

The stage owns every budget decision the engine makes: what a document costs (its text, and
its header line and separator when the block's own tokens count), cutting or summarising the
documents that do not fit with the room the whole ones leave, and the final measure of the
finished block, which drops the least relevant document until the block really fits.
``fit_text`` is the one truncation all of contextlab uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from ..types import Document, Fate
from .block_count import block_count
from .format import SEPARATOR, format_block, source_header

if TYPE_CHECKING:
    from ..tokenizers import Tokenizer
    from .summarize import Summarizer

__all__ = [
    "BudgetDecision",
    "BudgetOutcome",
    "BudgetRules",
    "FittedBlock",
    "MIN_PARTIAL_TOKENS",
    "MIN_SUMMARY_ROOM",
    "PlacedDocument",
    "SUMMARY_PREFIX",
    "Shortened",
    "TRUNCATION_MARKER",
    "apply_budget",
    "default_walk",
    "fit_text",
    "fit_to_budget",
    "measure_and_drop",
    "seed_truncate",
    "seed_walk",
]

#: Appended to a cut document so the model (and the reader) can see it was cut.
TRUNCATION_MARKER = " [...]"
#: Seed 000 only cuts a document when more than this many tokens of budget remain.
MIN_PARTIAL_TOKENS = 50
#: Starts the text of a document replaced by its synopsis, so the model knows it is partial.
SUMMARY_PREFIX = "Summary: "
#: A synopsis is only tried while more than this many tokens remain (a header alone is ~10).
MIN_SUMMARY_ROOM = 10


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
    whole_first: bool = True,
) -> list[BudgetDecision]:
    """Return one decision per document, in the order given: ``default_walk``, or ``seed_walk`` without ``whole_first``.

    Both walks put a document in when ``used + cost <= budget`` and never stop early, so a later,
    smaller document that fits goes in; one that does not fit is offered to ``shorten`` while
    more than ``min_remaining`` tokens remain, and what ``shorten`` returns is charged in full.
    ``overhead(i)`` (headers, separators) adds to ``costs[i]``; it is only asked for when the
    document could fit on its own cost, so it may be expensive.
    """
    walk = default_walk if whole_first else seed_walk
    return walk(costs, budget, shorten=shorten, min_remaining=min_remaining, overhead=overhead)


def _cost(costs: Sequence[int], i: int, remaining: int, overhead: Callable[[int], int] | None) -> int:
    """Return document ``i``'s cost, its overhead added when it could fit on its own cost."""
    cost = costs[i]
    return cost + overhead(i) if cost <= remaining and overhead is not None else cost


def seed_walk(
    costs: Sequence[int],
    budget: int,
    *,
    shorten: Shorten | None = None,
    min_remaining: int = MIN_PARTIAL_TOKENS,
    overhead: Callable[[int], int] | None = None,
) -> list[BudgetDecision]:
    """Return seed 000's decisions: one walk, a document that does not fit is shortened at once.

    The cut may crowd out a small document behind it that would have fitted whole (so a larger
    budget can lose a document a smaller one kept); that is the seed's behaviour, kept exactly.
    """
    decisions: list[BudgetDecision] = []
    used = 0
    for i in range(len(costs)):
        remaining = budget - used
        cost = _cost(costs, i, remaining, overhead)
        if cost <= remaining:
            decisions.append(BudgetDecision(i, "included", None, cost, remaining))
        else:
            decisions.append(_offer(i, remaining, shorten, min_remaining))
        used += decisions[-1].cost
    return decisions


def default_walk(
    costs: Sequence[int],
    budget: int,
    *,
    shorten: Shorten | None = None,
    min_remaining: int = MIN_PARTIAL_TOKENS,
    overhead: Callable[[int], int] | None = None,
) -> list[BudgetDecision]:
    """Return the default decisions: whole documents first, then the cuts get the room left.

    First pass, in order: a document goes in whole when it fits, except that once one did not
    fit with more than ``min_remaining`` left (a cut is owed), only a small document — costing
    ``min_remaining`` or less, the least room a cut is worth — goes ahead, and only while the
    owed cut keeps more than ``min_remaining``. A larger one does not go ahead of the cut: on
    retrieval data a cut of the most relevant document holds the answer more often than a
    whole, less relevant one (measured on the bundled NaturalQuestions set). Second pass, in
    order, over the documents left out: whole if it now fits, else offered to ``shorten``.
    """
    decisions: dict[int, BudgetDecision] = {}
    left_out: list[int] = []
    cut_owed = False
    used = 0
    for i in range(len(costs)):
        remaining = budget - used
        cost = _cost(costs, i, remaining, overhead)
        yields = cut_owed and (cost > min_remaining or remaining - cost <= min_remaining)
        if cost <= remaining and not yields:
            decisions[i] = BudgetDecision(i, "included", None, cost, remaining)
            used += cost
            continue
        left_out.append(i)
        cut_owed = cut_owed or (cost > remaining and shorten is not None and remaining > min_remaining)
    for i in left_out:
        # In walk order: the cut first, then whatever still fits (a short synopsis leaves room).
        remaining = budget - used
        cost = _cost(costs, i, remaining, overhead)
        fits = cost <= remaining
        decisions[i] = (
            BudgetDecision(i, "included", None, cost, remaining)
            if fits
            else _offer(i, remaining, shorten, min_remaining)
        )
        used += decisions[i].cost
    return [decisions[i] for i in range(len(costs))]


def _offer(i: int, remaining: int, shorten: Shorten | None, min_remaining: int) -> BudgetDecision:
    """Return the decision for a document that does not fit whole: shortened, or excluded."""
    stand_in = shorten(i, remaining) if shorten is not None and remaining > min_remaining else None
    if stand_in is None:
        return BudgetDecision(i, "excluded", None, 0, remaining)
    return BudgetDecision(i, stand_in.fate, stand_in.content, stand_in.cost, remaining)


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


# -- the engine's budget -----------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetRules:
    """How the engine's budget charges and shortens documents.

    ``include_headers``: each document also pays for its header line and separator.
    ``seed_mode``: cut the first overflowing document as seed 000 does: at once, even when a
    small document behind it would fit whole, and by words, not tokens. Otherwise small whole
    documents go in ahead of the cut (or synopsis), which gets what they leave (``fit_to_budget``).
    ``summarizer``: when given, a document that does not fit is replaced by its synopsis
    (prefixed ``SUMMARY_PREFIX``) instead of being cut. ``header(position, doc)`` is the header
    line the format stage will write.
    """

    tokenizer: Tokenizer
    include_headers: bool = True
    seed_mode: bool = False
    summarizer: Summarizer | None = None
    query: str = ""
    header: Callable[[int, Document], str] = source_header


@dataclass
class PlacedDocument:
    """A document chosen by the budget: its input index, what goes in the block, and its cost."""

    index: int
    doc: Document
    fate: Fate
    cost: int
    remaining_before: int


@dataclass
class BudgetOutcome:
    """The documents the budget placed (walk order) and, per excluded index, the room left then.

    ``walk``: the input indices in the order the budget walked them (relevance order by default,
    block order in seed mode). ``header_costs``: per excluded or shortened index, what its header
    line and separator were priced at, when they were (the content alone fitted at some point of
    the walk, or it was shortened to fit).
    """

    walk: list[int] = field(default_factory=list)
    placed: list[PlacedDocument] = field(default_factory=list)
    excluded_at: dict[int, int] = field(default_factory=dict)
    header_costs: dict[int, int] = field(default_factory=dict)


class _Charges:
    """Prices and shortens the documents of one walk under ``BudgetRules``."""

    def __init__(self, walk: Sequence[int], docs: Sequence[Document], rules: BudgetRules) -> None:
        self.walk, self.docs, self.rules = walk, docs, rules
        self.separator = rules.tokenizer.count(SEPARATOR) if rules.include_headers else 0
        self.headers: dict[int, int] = {}

    def overhead(self, k: int) -> int:
        """Return what the k-th document's header line and separator cost (0 when not counted).

        Asked only for documents that could fit; position k + 1 is an estimate when the
        placement comes later, and the finished block is measured anyway.
        """
        if not self.rules.include_headers:
            return 0
        cost = self.headers.get(k)
        if cost is None:
            header = self.rules.header(k + 1, self.docs[self.walk[k]]) + "\n"
            cost = self.headers[k] = self.rules.tokenizer.count(header) + (self.separator if k else 0)
        return cost

    def shorten(self, k: int, remaining: int) -> Shortened | None:
        """Return the k-th document summarised or cut to the room left, or None if nothing fits."""
        rules, tok = self.rules, self.rules.tokenizer
        doc = self.docs[self.walk[k]]
        if rules.summarizer is not None:
            synopsis = rules.summarizer(doc.content, rules.query)
            if not isinstance(synopsis, str) or not synopsis.strip():
                return None
            content = fit_text(tok, SUMMARY_PREFIX + " ".join(synopsis.split()), remaining - self.overhead(k))
            fate: Literal["truncated", "summarized"] = "summarized"
        elif rules.seed_mode:
            partial = seed_truncate(doc.content, remaining)
            return Shortened(partial, tok.count(partial), "truncated")
        else:
            content = fit_text(tok, doc.content, remaining - self.overhead(k))
            fate = "truncated"
        if content is None:
            return None
        return Shortened(content, self.overhead(k) + tok.count(content), fate)


def apply_budget(
    walk: Sequence[int], docs: Sequence[Document], tokens: Sequence[int], budget: int, rules: BudgetRules
) -> BudgetOutcome:
    """Return which documents of ``walk`` (input indices, in walk order) go in, and in what form.

    Each document costs ``tokens[index]`` plus its header and separator when ``rules`` count
    them. A shortened document is a copy whose metadata says ``truncated: True`` or
    ``summarized: True``; the input documents are never changed.
    """
    charges = _Charges(walk, docs, rules)
    min_remaining = MIN_SUMMARY_ROOM if rules.summarizer is not None else MIN_PARTIAL_TOKENS
    # Seed 000 cuts the first document that does not fit at once, crowding out small ones
    # behind it that fit whole (so a larger budget could lose a document a smaller one kept).
    # Otherwise small whole documents go ahead of the cut, which gets the room they leave.
    decisions = fit_to_budget(
        [tokens[i] for i in walk],
        budget,
        shorten=charges.shorten,
        overhead=charges.overhead,
        min_remaining=min_remaining,
        whole_first=not rules.seed_mode,
    )
    outcome = BudgetOutcome(walk=list(walk))
    for d in decisions:
        index = walk[d.index]
        doc = docs[index]
        if d.fate == "excluded":
            outcome.excluded_at[index] = d.remaining_before
            if d.index in charges.headers:
                outcome.header_costs[index] = charges.headers[d.index]
            continue
        if d.content is not None:  # cut or summarized: the stand-in's text
            doc = replace(doc, content=d.content, metadata={**doc.metadata, d.fate: True})
            if d.index in charges.headers:
                outcome.header_costs[index] = charges.headers[d.index]
        outcome.placed.append(PlacedDocument(index, doc, d.fate, d.cost, d.remaining_before))
    return outcome


@dataclass
class FittedBlock:
    """The finished block: its documents in block order, text, citations and measured tokens.

    ``dropped`` maps the input index of each document the final measure removed to the
    token count of the block that was over budget.
    """

    placed: list[PlacedDocument]
    text: str
    citations: dict[int, str]
    tokens_used: int
    dropped: dict[int, int] = field(default_factory=dict)


BlockRenderer = Callable[[Sequence[Document]], "tuple[str, dict[int, str]]"]


def measure_and_drop(
    placed: Sequence[PlacedDocument],
    budget: int,
    tokenizer: Tokenizer,
    *,
    rank_of: Mapping[int, int],
    enforce: bool = True,
    render: BlockRenderer = format_block,
) -> FittedBlock:
    """Return the block of ``placed`` (in block order), measured by ``tokenizer``.

    Costs were estimated per document; the finished block is the judge. Tokens can merge
    across a boundary, so with ``enforce`` the least relevant document (highest ``rank_of``)
    is dropped until the block fits ``budget``.
    """
    kept = list(placed)
    text, citations = render([p.doc for p in kept])
    used = _measured(text, kept, tokenizer)
    dropped: dict[int, int] = {}
    while enforce and used > budget and kept:
        victim = max(kept, key=lambda p: rank_of[p.index])
        kept = [p for p in kept if p is not victim]
        dropped[victim.index] = used
        text, citations = render([p.doc for p in kept])
        used = _measured(text, kept, tokenizer)
    return FittedBlock(kept, text, citations, used, dropped)


def _measured(text: str, kept: Sequence[PlacedDocument], tokenizer: Tokenizer) -> int:
    """Return the tokens of the finished block ``text``: summed from its parts where that is
    exact (``block_count``), else counted whole."""
    summed = block_count(text, [p.doc.content for p in kept], tokenizer)
    return tokenizer.count(text) if summed is None else summed
