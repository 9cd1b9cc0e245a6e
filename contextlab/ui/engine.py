"""The lab's only door to the engine: builds, token counts and dedup measures, cached across reruns.

No other module of ``contextlab.ui`` imports ``contextlab.manager``, ``contextlab.stages`` or
``contextlab.tokenizers`` (``tests/ui/test_structure.py`` checks it): what the lab needs from
the engine is a function here, or one of the few names listed in ``__all__``.

A slider move reruns the whole script; these caches make that rerun cost a dict lookup when
nothing the build depends on changed. The cached functions read only their arguments.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence

import streamlit as st

from contextlab.lab.config import LabConfig
from contextlab.stages.budget import TRUNCATION_MARKER
from contextlab.stages.dedup import (
    DEFAULT_MEASURE,
    NEAR_MISS_MARGIN,
    SEED_MEASURE,
    WordDiff,
    near_misses,
    pair_similarities,
    shared_word_mask,
    similarity_matrix,
    word_diff,
)
from contextlab.stages.merge import MergeOutcome, merge_chunks
from contextlab.stages.reorder import (
    MIN_DOCS_TO_REORDER,
    ORDERINGS,
    PLACEMENTS,
    most_relevant_position,
    ordering_positions,
    place,
)
from contextlab.tokenizers import TOKENIZER_NAMES, Tokenizer, count_many, get_tokenizer
from contextlab.types import ContextResult, Document, PromptRequest

__all__ = [
    "passages",
    "ORDERINGS",
    "PLACEMENTS",
    "most_relevant_position",
    "ordering_positions",
    "TOKENIZER_NAMES",
    "EXACT_TOKENIZER",
    "build_cached",
    "budget_walk",
    "exact_block_tokens",
    "kept_words",
    "get_tokenizer_cached",
    "documents_hash",
    "similarity_matrix_cached",
    "pair_similarities_cached",
    "shared_word_mask",
    "word_diff",
    "WordDiff",
    "near_misses_cached",
    "NEAR_MISS_MARGIN",
    "dedup_measure",
    "SEED_MEASURE",
    "token_counts_cached",
    "MIN_DOCS_TO_REORDER",
    "warm_up_figures",
]


#: The tokenizer whose counts the lab calls exact (what Compare and Overview measure blocks with).
EXACT_TOKENIZER = "cl100k_base"


def documents_hash(documents: Sequence[Document]) -> str:
    """Return a content hash of ``documents`` (every field that can change a build)."""
    h = hashlib.blake2b(digest_size=16)
    for doc in documents:
        h.update(
            json.dumps(
                [doc.content, doc.score, doc.source, doc.timestamp, doc.importance, doc.metadata],
                sort_keys=True,
                default=str,
            ).encode()
        )
        h.update(b"\x00")
    return h.hexdigest()


@st.cache_data(max_entries=64, show_spinner=False)
def _build(docs_key: str, config_json: str, _documents: Sequence[Document]) -> ContextResult:
    # Keyed by (docs_key, config_json); ``_documents`` is unhashed and matches docs_key.
    config = LabConfig.from_json(config_json)
    request = PromptRequest(
        query=config.query, documents=list(_documents), max_context_tokens=config.max_context_tokens
    )
    return config.make_manager().build(request)


def build_cached(documents: Sequence[Document], config: LabConfig) -> ContextResult:
    """Return the engine's result for ``documents`` under ``config``, cached by content."""
    return _build(documents_hash(documents), config.to_json(), documents)


@st.cache_resource(show_spinner=False)
def get_tokenizer_cached(name: str) -> Tokenizer:
    """Return the shared tokenizer called ``name``, loaded once per server."""
    return get_tokenizer(name)


def dedup_measure(config: LabConfig) -> str:
    """Return the dedup measure a build under ``config`` uses (the seed's in seed-compatible mode)."""
    return config.make_manager().dedup_measure


@st.cache_data(show_spinner=False, max_entries=16)
def similarity_matrix_cached(texts: tuple[str, ...], measure: str = DEFAULT_MEASURE) -> list[list[float]]:
    """Return the pairwise similarity of ``texts`` under the dedup measure ``measure``."""
    return similarity_matrix(texts, measure)


@st.cache_data(show_spinner=False, max_entries=16)
def pair_similarities_cached(texts: tuple[str, ...], measure: str = DEFAULT_MEASURE) -> list[float]:
    """Return the similarity of every pair of ``texts`` under ``measure`` (0 when nothing is shared)."""
    return [s for _, _, s in pair_similarities(texts, measure)]


@st.cache_data(show_spinner=False, max_entries=16)
def near_misses_cached(
    texts: tuple[str, ...], threshold: float, measure: str = DEFAULT_MEASURE
) -> list[tuple[int, int, float]]:
    """Return (first, second, similarity) of the kept pairs of ``texts`` (in dedup order) just
    below ``threshold``, most similar first: what a lower threshold would remove next."""
    return [(m.first_index, m.second_index, m.similarity) for m in near_misses(texts, threshold, measure=measure)]


@st.cache_data(show_spinner=False, max_entries=16)
def token_counts_cached(tokenizer: str, texts: tuple[str, ...]) -> list[int]:
    """Return the token count of each of ``texts`` under the tokenizer called ``tokenizer``."""
    return count_many(get_tokenizer_cached(tokenizer), texts)


def exact_block_tokens(result: ContextResult) -> int:
    """Return the exact (cl100k_base) token count of ``result``'s block, whatever its engine counted with."""
    if result.tokenizer == EXACT_TOKENIZER:
        return result.tokens_used
    return _exact_count(result.context_block)


@st.cache_data(show_spinner=False, max_entries=64)
def _exact_count(text: str) -> int:
    return get_tokenizer_cached(EXACT_TOKENIZER).count(text)


def kept_words(shortened: str) -> int:
    """Return how many words of its original a cut document kept (its cut marker not counted)."""
    return len(shortened.removesuffix(TRUNCATION_MARKER).split())


def _draw_every_figure_once() -> None:
    """Build each of the lab's figures once on a tiny build (the results are thrown away)."""
    from contextlab import charts
    from contextlab.curves import published
    from contextlab.lab.compare import diff_results
    from contextlab.manager import ContextManager

    words = ["refund", "annual", "plan", "months", "billing", "page", "cancel", "policy", "support", "answer"]
    docs = [
        Document(" ".join(words[(i + k) % len(words)] for k in range(40)), score=1 - i / 10, source=f"warm/{i}.md")
        for i in range(6)
    ]
    result = ContextManager(tokenizer="heuristic").build(
        PromptRequest(query="refund", documents=docs, max_context_tokens=150)
    )
    labels = [charts.doc_label(t) for t in result.trace]
    curve = published.accuracy_curve(published.curve_models()[0], 6)
    figures = [
        charts.fate_sankey(result),
        charts.budget_chart(result),
        charts.placement_chart(result, curve, middle=(3, 4), answer=[0]),
        charts.similarity_heatmap([[0.5] * 6] * 6, labels, 0.4, full_labels=labels),
        charts.similarity_histogram([0.2, 0.9], 0.5),
        charts.tokenizer_comparison(labels, [1] * 6, [2] * 6),
        charts.compare_positions_figure(diff_results(result, result)),
        charts.compare_tokens_figure(diff_results(result, result)),
        charts.strategy_positions_figure({"a": [0, 1, 2]}),
        charts.ordering_scores_figure({"a": 0.5}, (0.1, 0.9)),
        charts.ordering_rows_figure([1, 2], [0.5, 0.2], [60.0, 50.0], ["a", "b"]),
        charts.position_curves_figure({"m": [(1, 60.0), (2, 50.0)]}, 2, {"r": 40.0}),
        charts.curves_by_count_figure({10: [(1, 60.0), (10, 50.0)], 20: [(1, 60.0), (20, 55.0)]}, "m", 45.0),
        charts.reorder_step_figure([0, 2, 1], 2, ["a", "b", "c"], [60.0, 50.0, 55.0], {1}),
        charts.window_sections_figure([("system", 10, 5), ("output_reserve", 5, 5)], 100),
    ]
    for fig in figures:
        charts.for_projector(fig).to_json()


@st.cache_resource(show_spinner=False)
def warm_up_figures() -> threading.Thread:
    """Start, once per server, a background build of every figure; return its thread.

    Plotly sets up each property's validator the first time a figure uses it, which costs
    a view's first visit hundreds of milliseconds; doing it while the reader looks at the
    first view makes every later first visit fast.
    """
    thread = threading.Thread(target=_draw_every_figure_once, name="contextlab-warm-figures", daemon=True)
    thread.start()
    return thread


def budget_walk(result: ContextResult, config: LabConfig) -> tuple[list[int], str]:
    """Return the input indices in the order the engine's budget walked them, and how to name that order.

    The default engine walks by relevance; seed-compatible mode (and budget after reorder)
    places first, so it walks the block order the placement gives. A result that records its
    walk (``budget_walk``) is read as it is.
    """
    recorded = getattr(result, "budget_walk", None)
    ranked = sorted(
        (t for t in result.trace if t.fate not in ("filtered", "duplicate")),
        key=lambda t: (t.relevance_rank or 0, t.input_index),
    )
    placed_first = config.seed_compatible or not config.budget_before_reorder
    label = "block order (placed first, as seed 000)" if placed_first else "most relevant first"
    if recorded is not None:
        return list(recorded), label
    indices = [t.input_index for t in ranked]
    if placed_first:
        indices = place(config.placement, indices, [t.score for t in ranked])
    return indices, label


def passages(documents: Sequence[Document]) -> MergeOutcome:
    """Return ``documents`` with overlapping chunks of one source merged, as the build merges them."""
    return merge_chunks(documents)
