"""ContextManager: runs the stages over a request and records why each document ended where it did."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from time import perf_counter

from .errors import InvalidInputError
from .stages.budget import (
    MIN_PARTIAL_TOKENS,
    TRUNCATION_MARKER,
    Shortened,
    fit_to_budget,
    seed_truncate,
)
from .stages.dedup import DedupOutcome, find_duplicates
from .stages.filtering import filter_short_documents
from .stages.format import SEPARATOR, format_block, source_header
from .stages.rank import rank_by_score
from .stages.reorder import PLACEMENTS, place
from .stages.summarize import Summarizer, extractive_synopsis
from .tokenizers import Tokenizer, count_many, resolve_tokenizer
from .validation import one_of, whole_number
from .types import ContextResult, DocTrace, Document, DuplicatePair, Message, PromptRequest

__all__ = ["ContextManager", "BuildCache", "validate_request", "SUMMARY_PREFIX", "PLACEMENTS"]

#: Starts the text of a document replaced by its synopsis, so the model knows it is partial.
SUMMARY_PREFIX = "Summary: "
#: A synopsis is only tried while more than this many tokens remain (a header alone is ~10).
MIN_SUMMARY_ROOM = 10


@dataclass
class _Placed:
    """A document chosen by the budget: where it came from and what goes in the block."""

    index: int
    doc: Document
    fate: str
    cost: int
    remaining_before: int


class BuildCache:
    """Remembers what a build computes that neither the budget nor the placement changes.

    An evaluation builds the same question's documents under many configurations; with one
    cache passed to every ``build(request, cache=...)`` each text is tokenized once per
    tokenizer and each ranked list is deduplicated once per threshold. It holds:

    - token counts per (tokenizer name, text): at most ``max_texts`` entries, emptied at once
      when full (tokenizers are told apart by name: give a custom one a name of its own);
    - dedup outcomes per (threshold, ranked texts): the ``max_outcomes`` most recently used.

    Results are identical with and without it. Thread-safe; outcomes it returns are shared,
    so callers must not change them.
    """

    def __init__(self, max_texts: int = 100_000, max_outcomes: int = 256) -> None:
        self.max_texts = whole_number("max_texts", max_texts, minimum=1)
        self.max_outcomes = whole_number("max_outcomes", max_outcomes, minimum=1)
        self._counts: dict[tuple[str, str], int] = {}
        self._outcomes: OrderedDict[tuple[float, tuple[str, ...]], DedupOutcome] = OrderedDict()
        self._lock = threading.Lock()
        self._stats = dict.fromkeys(("count_hits", "count_misses", "dedup_hits", "dedup_misses"), 0)

    def stats(self) -> dict[str, int]:
        """Return how many texts and dedup outcomes were found (hits) or computed (misses)."""
        with self._lock:
            return dict(self._stats)

    def token_counts(self, tokenizer: Tokenizer, texts: Sequence[str]) -> list[int]:
        """Return the token count of each text, counting only the texts not seen before."""
        name = tokenizer.name
        counts = self._counts
        with self._lock:
            known = {t: counts[(name, t)] for t in texts if (name, t) in counts}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = count_many(tokenizer, missing)
            known.update(zip(missing, fresh))
            with self._lock:
                if len(counts) + len(missing) > self.max_texts:
                    counts.clear()
                counts.update(zip(((name, t) for t in missing), fresh))
        with self._lock:
            self._stats["count_hits"] += len(texts) - len(missing)
            self._stats["count_misses"] += len(missing)
        return [known[t] for t in texts]

    def duplicates(self, ranked_texts: Sequence[str], threshold: float) -> DedupOutcome:
        """Return ``find_duplicates(ranked_texts, threshold)``, computed once per distinct input."""
        key = (float(threshold), tuple(ranked_texts))
        with self._lock:
            outcome = self._outcomes.get(key)
            if outcome is not None:
                self._outcomes.move_to_end(key)
                self._stats["dedup_hits"] += 1
                return outcome
        outcome = find_duplicates(list(ranked_texts), threshold)
        with self._lock:
            self._stats["dedup_misses"] += 1
            self._outcomes[key] = outcome
            while len(self._outcomes) > self.max_outcomes:
                self._outcomes.popitem(last=False)
        return outcome

    def clear(self) -> None:
        """Forget every count and outcome, and zero the tallies."""
        with self._lock:
            self._counts.clear()
            self._outcomes.clear()
            self._stats = dict.fromkeys(self._stats, 0)

    def __len__(self) -> int:
        return len(self._counts) + len(self._outcomes)

    def __repr__(self) -> str:
        return f"BuildCache({len(self._counts)} counts, {len(self._outcomes)} dedup outcomes)"


class ContextManager:
    """Builds the context block of a prompt from retrieved documents, and explains it.

    The defaults go beyond seed 000 (exact cl100k_base tokens, budget before reorder,
    headers counted so ``tokens_used <= max_context_tokens``); ``seed_compatible()``
    reproduces the seed to the character.
    """

    def __init__(
        self,
        dedup_threshold: float = 0.85,
        min_doc_tokens: int = 5,
        use_lost_in_middle: bool = True,
        summarize_overflow: bool = False,
        max_memory_messages: int = 10,
        *,
        tokenizer: str | Tokenizer = "cl100k_base",
        budget_before_reorder: bool = True,
        budget_includes_headers: bool = True,
        summarizer: Summarizer | None = None,
        placement: str | None = None,
    ) -> None:
        if isinstance(dedup_threshold, bool) or not isinstance(dedup_threshold, (int, float)) \
                or not math.isfinite(dedup_threshold) or not 0 < dedup_threshold <= 1:
            raise InvalidInputError(
                f"dedup_threshold must be in (0, 1] (1.0 removes only identical shingle sets), "
                f"got {dedup_threshold!r}"
            )
        _check_count("min_doc_tokens", min_doc_tokens)
        _check_count("max_memory_messages", max_memory_messages)
        if summarizer is not None and not callable(summarizer):
            raise InvalidInputError(
                f"summarizer must be a callable (text, query) -> str, got {type(summarizer).__name__}"
            )
        self.dedup_threshold = float(dedup_threshold)
        self.min_doc_tokens = min_doc_tokens
        self.use_lost_in_middle = bool(use_lost_in_middle)
        self.summarize_overflow = bool(summarize_overflow)
        self.max_memory_messages = max_memory_messages
        self.tokenizer: Tokenizer = resolve_tokenizer(tokenizer)
        self.budget_before_reorder = bool(budget_before_reorder)
        self.budget_includes_headers = bool(budget_includes_headers)
        self.summarizer: Summarizer = summarizer or extractive_synopsis
        if placement is None:
            placement = "lost_in_the_middle" if self.use_lost_in_middle else "relevance"
        #: The placement strategy (one of ``PLACEMENTS``); it overrides ``use_lost_in_middle``.
        self.placement: str = one_of("placement", placement, PLACEMENTS)
        self._seed_memory_labels = False

    @classmethod
    def seed_compatible(cls, **overrides) -> ContextManager:
        """Return a manager that reproduces seed 000 exactly (heuristic tokens, reorder then budget)."""
        kwargs = {"tokenizer": "heuristic", "budget_before_reorder": False, "budget_includes_headers": False}
        kwargs.update(overrides)
        manager = cls(**kwargs)
        manager._seed_memory_labels = True
        return manager

    @property
    def is_seed_mode(self) -> bool:
        """True when the budget follows seed 000 literally (heuristic, reorder first, headers free)."""
        return (self.tokenizer.name == "heuristic" and not self.budget_before_reorder
                and not self.budget_includes_headers)

    def __repr__(self) -> str:
        return (
            f"ContextManager(dedup_threshold={self.dedup_threshold}, min_doc_tokens={self.min_doc_tokens}, "
            f"use_lost_in_middle={self.use_lost_in_middle}, summarize_overflow={self.summarize_overflow}, "
            f"max_memory_messages={self.max_memory_messages}, tokenizer={self.tokenizer.name!r}, "
            f"budget_before_reorder={self.budget_before_reorder}, "
            f"budget_includes_headers={self.budget_includes_headers}, placement={self.placement!r})"
        )

    # ------------------------------------------------------------------------------
    def build(self, request: PromptRequest, *, cache: BuildCache | None = None) -> ContextResult:
        """Return the context block for ``request`` with a trace entry for every input document.

        ``cache`` (a ``BuildCache``) lets many builds over the same documents share their token
        counts and dedup outcomes; the result is the same with or without it.
        """
        validate_request(request)
        docs = request.documents
        budget = request.max_context_tokens
        timings: dict[str, float] = {}
        clock = perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            now = perf_counter()
            timings[stage] = timings.get(stage, 0.0) + (now - clock) * 1000.0
            clock = now

        texts = [d.content for d in docs]
        tokens = cache.token_counts(self.tokenizer, texts) if cache is not None else count_many(self.tokenizer, texts)
        lap("tokenize")

        passed, filtered = filter_short_documents(tokens, self.min_doc_tokens)
        lap("filter")

        ranked = rank_by_score([d.score for d in docs], passed)
        rank_of = {index: rank for rank, index in enumerate(ranked, start=1)}
        lap("rank")

        ranked_texts = [texts[i] for i in ranked]
        outcome = (cache.duplicates(ranked_texts, self.dedup_threshold) if cache is not None
                   else find_duplicates(ranked_texts, self.dedup_threshold))
        unique = [ranked[k] for k in outcome.kept]
        pairs = [
            DuplicatePair(ranked[p.kept_index], ranked[p.dropped_index], p.similarity, p.kind)
            for p in outcome.pairs
        ]
        lap("dedup")

        walk = unique
        if not self.budget_before_reorder:
            walk = place(self.placement, walk, [docs[i].score for i in walk])
            lap("reorder")

        placed, excluded_at = self._apply_budget(walk, docs, tokens, budget, request.query)
        lap("budget")

        if self.budget_before_reorder:
            placed = place(self.placement, placed, [p.doc.score for p in placed])
            lap("reorder")

        block, citations = format_block([p.doc for p in placed])
        tokens_used = self.tokenizer.count(block)
        overflow_dropped: dict[int, int] = {}
        if self.budget_includes_headers:
            # Costs were estimated per document; the finished block is the judge. Tokens can
            # merge across a boundary, so drop the least relevant document until it fits.
            while tokens_used > budget and placed:
                victim = max(placed, key=lambda p: rank_of[p.index])
                placed = [p for p in placed if p is not victim]
                overflow_dropped[victim.index] = tokens_used
                block, citations = format_block([p.doc for p in placed])
                tokens_used = self.tokenizer.count(block)
        lap("format")

        trace = self._trace(docs, tokens, filtered, rank_of, pairs, placed, excluded_at, overflow_dropped, budget)
        placed_indices = {p.index for p in placed}
        shortened = {p.index for p in placed if p.fate != "included"}
        excluded_docs = [docs[i] for i in walk if i not in placed_indices or i in shortened]
        lap("trace")

        return ContextResult(
            context_block=block,
            included_docs=[p.doc for p in placed],
            excluded_docs=excluded_docs,
            citation_map=citations,
            tokens_used=tokens_used,
            tokens_budget=budget,
            duplicates_removed=len(pairs),
            truncated=bool(excluded_docs),
            trace=trace,
            duplicate_pairs=pairs,
            timings_ms=timings,
            tokenizer=self.tokenizer.name,
        )

    def format_memory(self, memory: list[Message], max_turns: int | None = None) -> str:
        """Return the last ``max_turns`` turns (2 messages each) as ``User: …`` lines."""
        from .memory import format_memory

        turns = self.max_memory_messages if max_turns is None else max_turns
        return format_memory(memory, turns, seed_compatible=self._seed_memory_labels)

    # ------------------------------------------------------------------------------
    def _apply_budget(
        self, walk: list[int], docs: list[Document], tokens: list[int], budget: int, query: str
    ) -> tuple[list[_Placed], dict[int, int]]:
        tok = self.tokenizer
        costs = [tokens[i] for i in walk]
        separator = tok.count(SEPARATOR)
        header_costs: dict[int, int] = {}

        def overhead(k: int) -> int:
            # Header line and separator of the k-th document of the walk. Counted only for
            # documents that could fit (most cannot once the budget is spent); position k + 1
            # is an estimate when the reorder comes later, and the finished block is measured.
            if not self.budget_includes_headers:
                return 0
            cost = header_costs.get(k)
            if cost is None:
                header = source_header(k + 1, docs[walk[k]]) + "\n"
                cost = header_costs[k] = tok.count(header) + (separator if k else 0)
            return cost

        def shorten(k: int, remaining: int) -> Shortened | None:
            doc = docs[walk[k]]
            room = remaining - overhead(k)
            if self.summarize_overflow:
                synopsis = self.summarizer(doc.content, query)
                if not isinstance(synopsis, str) or not synopsis.strip():
                    return None
                content = SUMMARY_PREFIX + " ".join(synopsis.split())
                content = self._fit_text(content, room)
                if content is None:
                    return None
                return Shortened(content, overhead(k) + tok.count(content), "summarized")
            if self.is_seed_mode:
                partial = seed_truncate(doc.content, remaining)
                return Shortened(partial, tok.count(partial), "truncated")
            marker = tok.count(TRUNCATION_MARKER)
            cut = self._fit_text(doc.content, room - marker, marker=False)
            if cut is None:
                return None
            content = cut + TRUNCATION_MARKER
            return Shortened(content, overhead(k) + tok.count(content), "truncated")

        decisions = fit_to_budget(
            costs, budget, shorten=shorten, overhead=overhead,
            min_remaining=MIN_SUMMARY_ROOM if self.summarize_overflow else MIN_PARTIAL_TOKENS,
        )
        placed: list[_Placed] = []
        excluded_at: dict[int, int] = {}
        for d in decisions:
            index = walk[d.index]
            doc = docs[index]
            if d.fate == "excluded":
                excluded_at[index] = d.remaining_before
                continue
            if d.fate != "included":
                doc = replace(doc, content=d.content, metadata={**doc.metadata, d.fate: True})
            placed.append(_Placed(index, doc, d.fate, d.cost, d.remaining_before))
        return placed, excluded_at

    def _fit_text(self, text: str, room: int, marker: bool = True) -> str | None:
        """Return ``text`` cut to at most ``room`` tokens (with a marker when cut), or None."""
        tok = self.tokenizer
        if room <= 0:
            return None
        if tok.count(text) <= room:
            return text
        marker_cost = tok.count(TRUNCATION_MARKER) if marker else 0
        cut = tok.truncate(text, room - marker_cost).rstrip()
        if not cut:
            return None
        return cut + TRUNCATION_MARKER if marker else cut

    def _trace(self, docs, tokens, filtered, rank_of, pairs, placed, excluded_at, overflow_dropped, budget):
        trace = [DocTrace(i, d.source, d.score, tokens[i]) for i, d in enumerate(docs)]
        for i in filtered:
            t = trace[i]
            t.fate = "filtered"
            t.reason = f"{tokens[i]} tokens, below min_doc_tokens={self.min_doc_tokens}"
        for i, rank in rank_of.items():
            trace[i].relevance_rank = rank
        for p in pairs:
            t = trace[p.dropped_index]
            t.fate = "duplicate"
            t.duplicate_of = p.kept_index
            t.similarity = p.similarity
            if p.kind == "exact":
                t.reason = f"exact duplicate of #{p.kept_index} (same text ignoring case and spacing)"
            else:
                t.reason = (f"near-duplicate of #{p.kept_index}: shingle similarity {p.similarity:.2f} "
                            f">= threshold {self.dedup_threshold:.2f}")
        n_placed = len(placed)
        for position, p in enumerate(placed, start=1):
            t = trace[p.index]
            t.fate = p.fate
            t.position = position
            t.block_tokens = p.cost
            where = "an end of the block" if position in (1, n_placed) and n_placed > 1 else (
                "the middle" if 1 < position < n_placed else "the block")
            if p.fate == "included":
                t.reason = f"rank {t.relevance_rank}, fits ({p.cost} tokens); placed {position} of {n_placed}, {where}"
            elif p.fate == "truncated":
                t.reason = (f"did not fit ({tokens[p.index]} tokens, {p.remaining_before} left): "
                            f"cut to {p.cost} tokens; placed {position} of {n_placed}")
            else:
                t.reason = (f"did not fit ({tokens[p.index]} tokens, {p.remaining_before} left): "
                            f"one-sentence synopsis of {p.cost} tokens; placed {position} of {n_placed}")
        for i, remaining in excluded_at.items():
            t = trace[i]
            t.fate = "excluded"
            t.reason = f"over budget: needs {tokens[i]} tokens, {max(remaining, 0)} of {budget} left"
        for i, measured in overflow_dropped.items():
            t = trace[i]
            t.fate = "excluded"
            t.position = None
            t.block_tokens = None
            t.reason = (f"over budget: the finished block measured {measured} tokens > {budget}, "
                        f"so the least relevant document was dropped")
        return trace


def _check_count(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"{name} must be a whole number >= 0, got {value!r}")


def validate_request(request: PromptRequest) -> None:
    """Raise ``InvalidInputError`` naming the field (and document index) that cannot be used."""
    if not isinstance(request, PromptRequest):
        raise InvalidInputError(f"build() takes a PromptRequest, got {type(request).__name__}")
    if not isinstance(request.query, str):
        raise InvalidInputError(f"query must be a string, got {type(request.query).__name__}")
    budget = request.max_context_tokens
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise InvalidInputError(f"max_context_tokens must be a whole number, got {budget!r}")
    if budget < 0:
        raise InvalidInputError(f"max_context_tokens must be >= 0, got {budget}")
    if not isinstance(request.documents, (list, tuple)):
        raise InvalidInputError(f"documents must be a list of Document, got {type(request.documents).__name__}")
    for i, doc in enumerate(request.documents):
        if not isinstance(doc, Document):
            raise InvalidInputError(f"documents[{i}] must be a Document, got {type(doc).__name__}")
        if not isinstance(doc.content, str):
            raise InvalidInputError(
                f"documents[{i}].content must be a string, got {type(doc.content).__name__}"
            )
        _check_number(f"documents[{i}].score", doc.score)
        _check_number(f"documents[{i}].importance", doc.importance)
        if doc.timestamp is not None:
            _check_number(f"documents[{i}].timestamp", doc.timestamp)
        if doc.source is not None and not isinstance(doc.source, str):
            raise InvalidInputError(
                f"documents[{i}].source must be a string or None, got {type(doc.source).__name__}"
            )
        if not isinstance(doc.metadata, dict):
            raise InvalidInputError(
                f"documents[{i}].metadata must be a dict, got {type(doc.metadata).__name__}"
            )


def _check_number(field: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError(f"{field} must be a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise InvalidInputError(f"{field} must be a finite number, got {value!r}")
