"""ContextManager: runs the stages over a request and records why each document ended where it did.

The stages do the work, each in its own module under ``contextlab.stages``: filtering, rank,
dedup, reorder (the placement strategies), budget (costs, cuts, summaries and the final
measure) and format. This module calls them in order, times them, and writes the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from time import perf_counter
from typing import Any

from .build_cache import BuildCache
from .curves.published import position_curve as published_position_curve
from .errors import InvalidInputError
from .settings import (
    DEFAULT_CURVE_MODEL,
    DEFAULT_DEDUP_THRESHOLD,
    DEFAULT_MAX_CONTEXT_TOKENS,
    DEFAULT_MAX_MEMORY_MESSAGES,
    DEFAULT_MIN_DOC_TOKENS,
    DEFAULT_TOKENIZER,
    SEED_MODE,
    EngineSettings,
    placement_for,
)
from .stages.budget import (
    BudgetOutcome,
    BudgetRules,
    FittedBlock,
    apply_budget,
    measure_and_drop,
)
from .stages.dedup import DEFAULT_MEASURE, MEASURES, SEED_MEASURE, find_duplicates
from .stages.filtering import filter_short_documents
from .stages.format import (
    DEFAULT_SCORE_LABEL,
    format_block,
    score_label_text,
    score_range_note,
    source_header,
)
from .stages.merge import expand_result, merge_picked
from .stages.messages import format_memory
from .stages.rank import rank_by_score
from .stages.reorder import PositionCurve, place
from .stages.summarize import Summarizer, extractive_synopsis
from .tokenizers import Tokenizer, count_many, resolve_tokenizer
from .types import (
    ContextResult,
    DocTrace,
    Document,
    DuplicatePair,
    Fate,
    Message,
    PromptRequest,
    document_list,
)
from .validation import fraction, one_of, text, whole_number

__all__ = ["ContextManager", "validate_request"]


@dataclass
class _Selection:
    """What the stages before the budget decided, by input index."""

    tokens: list[int]
    filtered: list[int]
    rank_of: dict[int, int]
    pairs: list[DuplicatePair]
    unique: list[int]


class _Clock:
    """Adds the time since the previous lap to a stage's total, in milliseconds."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._last = perf_counter()

    def lap(self, stage: str) -> None:
        now = perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + (now - self._last) * 1000.0
        self._last = now


class ContextManager:
    """Builds the context block of a prompt from retrieved documents, and explains it.

    The defaults go beyond seed 000 (exact cl100k_base tokens, budget before reorder,
    headers counted so ``tokens_used <= max_context_tokens``); ``seed_compatible()``
    reproduces the seed to the character. ``placement`` names the strategy that orders the
    block (one of ``PLACEMENTS``; by default lost in the middle). ``use_lost_in_middle`` is
    the older switch, read by ``settings.placement_for``: True means lost in the middle, False
    relevance order, left out (None) lets ``placement`` decide; contradicting ``placement``
    raises. ``placement="curve"`` puts the most relevant document where ``position_curve`` (a
    ``PositionCurve``, or accuracies at positions 1..K) reads best, the next at the next best, and
    so on. ``score_label`` is the word before a score in a header. The defaults are
    ``contextlab.settings``'s. ``max_context_tokens`` is the budget of a request that states none.
    """

    def __init__(
        self,
        dedup_threshold: float = DEFAULT_DEDUP_THRESHOLD,
        min_doc_tokens: int = DEFAULT_MIN_DOC_TOKENS,
        use_lost_in_middle: bool | None = None,
        summarize_overflow: bool = False,
        max_memory_messages: int = DEFAULT_MAX_MEMORY_MESSAGES,
        *,
        tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
        budget_before_reorder: bool = True,
        budget_includes_headers: bool = True,
        summarizer: Summarizer | None = None,
        placement: str | None = None,
        score_label: str = DEFAULT_SCORE_LABEL,
        position_curve: PositionCurve | Sequence[float] | None = None,
        dedup_measure: str = DEFAULT_MEASURE,
        max_context_tokens: int = DEFAULT_MAX_CONTEXT_TOKENS,
    ) -> None:
        self.dedup_threshold = fraction(
            "dedup_threshold", dedup_threshold, hint="1.0 removes only texts equal once normalised"
        )
        #: How near duplicates are measured (``contextlab.stages.dedup.MEASURES``): word edit
        #: similarity of normalised text by default, seed 000's shingle Jaccard in seed mode.
        self.dedup_measure: str = one_of("dedup_measure", dedup_measure, MEASURES)
        self.min_doc_tokens = whole_number("min_doc_tokens", min_doc_tokens, minimum=0)
        self.max_memory_messages = whole_number("max_memory_messages", max_memory_messages, minimum=0)
        if summarizer is not None and not callable(summarizer):
            raise InvalidInputError(
                f"summarizer must be a callable (text, query) -> str, got {type(summarizer).__name__}"
            )
        self.summarize_overflow = bool(summarize_overflow)
        self.tokenizer: Tokenizer = resolve_tokenizer(tokenizer)
        self.budget_before_reorder = bool(budget_before_reorder)
        self.budget_includes_headers = bool(budget_includes_headers)
        self.summarizer: Summarizer = summarizer or extractive_synopsis
        #: The placement strategy (one of ``PLACEMENTS``).
        self.placement: str = placement_for(placement, use_lost_in_middle)
        if position_curve is not None and not isinstance(position_curve, PositionCurve):
            position_curve = PositionCurve.from_accuracies(position_curve)
        if self.placement == "curve" and position_curve is None:
            raise InvalidInputError(
                "placement 'curve' needs position_curve: the accuracy the model reads each "
                "position with (contextlab.curves.published.position_curve makes one)",
                field="position_curve",
            )
        #: What placement "curve" follows: how well the model reads each depth (None otherwise needed).
        self.position_curve: PositionCurve | None = position_curve
        #: The word before a score in a header: ``(relevance: 0.87)``.
        self.score_label: str = score_label_text(score_label)
        #: The budget of a request that states none (``PromptRequest.max_context_tokens`` None).
        self.max_context_tokens: int = whole_number("max_context_tokens", max_context_tokens, minimum=0)
        self._seed_memory_labels = False

    @classmethod
    def seed_compatible(cls, **overrides: Any) -> ContextManager:
        """Return a manager that reproduces seed 000 exactly (heuristic tokens, reorder then budget)."""
        manager = cls(**{**SEED_MODE, **overrides})
        manager._seed_memory_labels = True
        return manager

    @classmethod
    def from_settings(
        cls, settings: EngineSettings, *, position_curve: PositionCurve | Sequence[float] | None = None
    ) -> ContextManager:
        """Return the manager ``settings`` describe (seed-compatible when they say so).

        ``position_curve`` is what placement "curve" follows: one you measured, or by default the
        published curve of ``settings.DEFAULT_CURVE_MODEL``; other placements need none. This is the
        one place a manager is made from settings (the lab, grids, captured runs, integrations).
        """
        if not isinstance(settings, EngineSettings):
            raise InvalidInputError(
                f"from_settings() takes EngineSettings (or a LabConfig), got {type(settings).__name__}"
            )
        if settings.placement == "curve" and position_curve is None:
            position_curve = published_position_curve(DEFAULT_CURVE_MODEL)
        kwargs = {**settings.manager_kwargs(), "position_curve": position_curve}
        return cls.seed_compatible(**kwargs) if settings.seed_compatible else cls(**kwargs)

    @property
    def use_lost_in_middle(self) -> bool:
        """True when the placement is lost in the middle (the older switch, read from ``placement``)."""
        return self.placement == "lost_in_the_middle"

    @property
    def is_seed_mode(self) -> bool:
        """True when the budget follows seed 000 literally (heuristic, reorder first, headers free)."""
        return bool(
            self.tokenizer.name == SEED_MODE["tokenizer"]
            and self.budget_before_reorder == SEED_MODE["budget_before_reorder"]
            and self.budget_includes_headers == SEED_MODE["budget_includes_headers"]
        )

    def __repr__(self) -> str:
        return (
            f"ContextManager(dedup_threshold={self.dedup_threshold}, min_doc_tokens={self.min_doc_tokens}, "
            f"use_lost_in_middle={self.use_lost_in_middle}, summarize_overflow={self.summarize_overflow}, "
            f"max_memory_messages={self.max_memory_messages}, tokenizer={self.tokenizer.name!r}, "
            f"budget_before_reorder={self.budget_before_reorder}, "
            f"budget_includes_headers={self.budget_includes_headers}, placement={self.placement!r}, "
            f"score_label={self.score_label!r}, dedup_measure={self.dedup_measure!r}, "
            f"max_context_tokens={self.max_context_tokens})"
        )

    # ------------------------------------------------------------------------------
    def build(self, request: PromptRequest, *, cache: BuildCache | None = None) -> ContextResult:
        """Return the context block for ``request`` with a trace entry for every input document.

        ``cache`` (a ``BuildCache``) lets many builds over the same documents share their token
        counts and dedup outcomes; the result is the same with or without it.
        """
        validate_request(request)
        if self.is_seed_mode or not any("chunk_of" in d.metadata for d in request.documents):
            return self._build(request, cache)
        # Picked chunks of one source that overlap or touch become one passage (the seed has no chunks).
        started = perf_counter()
        result, merged = merge_picked(
            request.documents,
            lambda docs: self._build(
                replace(request, documents=list(docs)), cache if docs is request.documents else None
            ),
        )
        if not merged.merged_any:
            return result
        result = expand_result(result, merged, request.documents)
        result.timings_ms["merge"] = (perf_counter() - started) * 1000.0 - sum(result.timings_ms.values())
        return result

    def _build(self, request: PromptRequest, cache: BuildCache | None) -> ContextResult:
        docs = request.documents
        budget = self.max_context_tokens if request.max_context_tokens is None else request.max_context_tokens
        clock = _Clock()
        selection = self._select(docs, cache, clock)
        walk = selection.unique
        if not self.budget_before_reorder:
            # Seed 000 places first, so the budget walks the block order.
            walk = place(self.placement, walk, [docs[i].score for i in walk], self.position_curve)
            clock.lap("reorder")
        outcome = apply_budget(walk, docs, selection.tokens, budget, self._budget_rules(request.query))
        clock.lap("budget")
        placed = outcome.placed
        if self.budget_before_reorder:
            placed = place(self.placement, placed, [p.doc.score for p in placed], self.position_curve)
            clock.lap("reorder")
        block = measure_and_drop(
            placed,
            budget,
            self.tokenizer,
            rank_of=selection.rank_of,
            enforce=self.budget_includes_headers,
            render=partial(format_block, score_label=self.score_label, seed_rule=self.is_seed_mode),
        )
        clock.lap("format")
        trace = self._trace(docs, selection, block, outcome, budget)
        in_block = {p.index for p in block.placed if p.fate == "included"}
        excluded_docs = [docs[i] for i in walk if i not in in_block]
        clock.lap("trace")
        return ContextResult(
            context_block=block.text,
            included_docs=[p.doc for p in block.placed],
            excluded_docs=excluded_docs,
            citation_map=block.citations,
            tokens_used=block.tokens_used,
            tokens_budget=budget,
            duplicates_removed=len(selection.pairs),
            truncated=bool(excluded_docs),
            trace=trace,
            duplicate_pairs=selection.pairs,
            timings_ms=clock.timings,
            tokenizer=self.tokenizer.name,
            budget_walk=outcome.walk,
            notes=[n for n in [score_range_note([d.score for d in docs], seed_rule=self.is_seed_mode)] if n],
        )

    def format_memory(self, memory: list[Message], max_turns: int | None = None) -> str:
        """Return the last ``max_turns`` turns (2 messages each) as ``User: …`` lines."""
        turns = self.max_memory_messages if max_turns is None else max_turns
        return format_memory(memory, turns, seed_compatible=self._seed_memory_labels)

    # ------------------------------------------------------------------------------
    def _select(self, docs: Sequence[Document], cache: BuildCache | None, clock: _Clock) -> _Selection:
        """Return the outcome of tokenize, filter, rank and dedup for ``docs``."""
        texts = [d.content for d in docs]
        tokens = cache.token_counts(self.tokenizer, texts) if cache is not None else count_many(self.tokenizer, texts)
        clock.lap("tokenize")
        passed, filtered = filter_short_documents(tokens, self.min_doc_tokens)
        clock.lap("filter")
        ranked = rank_by_score([d.score for d in docs], passed)
        rank_of = {index: rank for rank, index in enumerate(ranked, start=1)}
        clock.lap("rank")
        ranked_texts = [texts[i] for i in ranked]
        outcome = (
            cache.duplicates(ranked_texts, self.dedup_threshold, self.dedup_measure)
            if cache is not None
            else find_duplicates(ranked_texts, self.dedup_threshold, self.dedup_measure)
        )
        pairs = [
            DuplicatePair(ranked[p.kept_index], ranked[p.dropped_index], p.similarity, p.kind) for p in outcome.pairs
        ]
        clock.lap("dedup")
        return _Selection(list(tokens), filtered, rank_of, pairs, [ranked[k] for k in outcome.kept])

    def _budget_rules(self, query: str) -> BudgetRules:
        """Return how this manager's budget charges and shortens documents."""
        return BudgetRules(
            tokenizer=self.tokenizer,
            include_headers=self.budget_includes_headers,
            seed_mode=self.is_seed_mode,
            summarizer=self.summarizer if self.summarize_overflow else None,
            query=query,
            header=partial(source_header, score_label=self.score_label, seed_rule=self.is_seed_mode),
        )

    def _trace(
        self, docs: Sequence[Document], selection: _Selection, block: FittedBlock, outcome: BudgetOutcome, budget: int
    ) -> list[DocTrace]:
        """Return one trace entry per input document, saying what happened to it and why."""
        tokens = selection.tokens
        trace = [DocTrace(i, d.source, d.score, tokens[i]) for i, d in enumerate(docs)]
        for i in selection.filtered:
            trace[i].fate = "filtered"
            trace[i].reason = f"{tokens[i]} tokens, below min_doc_tokens={self.min_doc_tokens}"
        for i, rank in selection.rank_of.items():
            trace[i].relevance_rank = rank
        for p in selection.pairs:
            _trace_duplicate(trace[p.dropped_index], p, self.dedup_threshold, self.dedup_measure)
        n_placed = len(block.placed)
        for position, placed in enumerate(block.placed, start=1):
            _trace_placed(
                trace[placed.index],
                placed.fate,
                placed.cost,
                placed.remaining_before,
                position,
                n_placed,
                outcome.header_costs.get(placed.index),
            )
        for i, remaining in outcome.excluded_at.items():
            trace[i].fate = "excluded"
            trace[i].reason = _excluded_reason(
                tokens[i], outcome.header_costs.get(i), remaining, budget, docs[i].source
            )
        for i, measured in block.dropped.items():
            t = trace[i]
            t.fate, t.position, t.block_tokens = "excluded", None, None
            t.reason = (
                f"over budget: the finished block measured {measured} tokens > {budget}, "
                f"so the least relevant document was dropped"
            )
        return trace


def _excluded_reason(tokens: int, header: int | None, remaining: int, budget: int, source: str | None) -> str:
    """Return why the budget left a document out, in the two measures ``DocTrace`` names.

    Its *block cost* (text tokens plus header line) when the header was priced; otherwise the
    text alone was already more than the room left, and the reason says so.
    """
    left = f"{max(remaining, 0)} of {budget} left"
    if header is None:
        return f"over budget: its {tokens} text tokens alone are more than the {left}"
    long_source = f"; its source is {len(source):,} characters" if source and len(source) > 200 else ""
    return (
        f"over budget: block cost {tokens + header} tokens ({tokens} text + {header} for its header "
        f"line{long_source}), {left}"
    )


def _trace_duplicate(t: DocTrace, pair: DuplicatePair, threshold: float, measure: str) -> None:
    """Mark ``t`` as the duplicate in ``pair``, in the words of the measure that found it."""
    t.fate = "duplicate"
    t.duplicate_of = pair.kept_index
    t.similarity = pair.similarity
    seed = measure == SEED_MEASURE
    if pair.kind == "exact":
        t.reason = f"exact duplicate of #{pair.kept_index} " + (
            "(same text ignoring case and spacing)"
            if seed
            else "(same words ignoring case, spacing, Unicode forms and invisible characters)"
        )
    else:
        t.reason = (
            f"near-duplicate of #{pair.kept_index}: "
            f"{'shingle' if seed else 'word edit'} similarity {pair.similarity:.2f} "
            f">= threshold {threshold:.2f}"
        )


def _trace_placed(
    t: DocTrace, fate: Fate, cost: int, remaining: int, position: int, n_placed: int, header: int | None = None
) -> None:
    """Mark ``t`` as placed at ``position`` of ``n_placed``, with what it cost.

    Reasons name the two token measures as ``DocTrace`` does: a document's *text tokens*
    (``tokens``) and its *block cost* (``block_tokens``: kept text plus header line and separator
    when the budget counts them).
    """
    t.fate = fate
    t.position = position
    t.block_tokens = cost
    if fate == "included":
        where = (
            "an end of the block"
            if position in (1, n_placed) and n_placed > 1
            else ("the middle" if 1 < position < n_placed else "the block")
        )
        head = cost - t.tokens
        parts = f" ({t.tokens} text + {head} header)" if head > 0 else ""
        t.reason = (
            f"rank {t.relevance_rank}, fits: block cost {cost} tokens{parts}; placed {position} of {n_placed}, {where}"
        )
        return
    # Whole, it would have cost its text plus its header line (when the budget counts headers).
    whole = (
        f"block cost {t.tokens + header} tokens ({t.tokens} text + {header} header), {remaining} left"
        if header
        else f"{t.tokens} text tokens, {remaining} left"
    )
    if fate == "truncated":
        t.reason = f"did not fit ({whole}): cut to a block cost of {cost} tokens; placed {position} of {n_placed}"
    else:
        t.reason = (
            f"did not fit ({whole}): one-sentence synopsis, block cost {cost} tokens; placed {position} of {n_placed}"
        )


def validate_request(request: PromptRequest) -> None:
    """Raise ``InvalidInputError`` naming the field (and document index) that cannot be used."""
    if not isinstance(request, PromptRequest):
        raise InvalidInputError(f"build() takes a PromptRequest, got {type(request).__name__}")
    text("query", request.query)
    if request.max_context_tokens is not None:
        whole_number("max_context_tokens", request.max_context_tokens, minimum=0)
    document_list(request.documents)
