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
)
from contextlab.tokenizers import (
    TOKENIZER_NAMES,
    VOCABULARIES,
    Tokenizer,
    check_tokenizer_name,
    count_many,
    get_tokenizer,
    tokenizer_label,
)
from contextlab.types import ContextResult, Document, PromptRequest

__all__ = [
    "passages",
    "ORDERINGS",
    "PLACEMENTS",
    "most_relevant_position",
    "ordering_positions",
    "TOKENIZER_NAMES",
    "VOCABULARIES",
    "LAB_TOKENIZERS",
    "check_tokenizer_name",
    "EXACT_TOKENIZER",
    "tokenizer_label",
    "tokenizer_options",
    "block_vocabulary",
    "block_tokens_in",
    "across_vocabularies",
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


#: The vocabulary a block counted by an estimate (the heuristic, a Claude or Gemini estimate) is measured in.
EXACT_TOKENIZER = "cl100k_base"
#: The tokenizers the lab's pickers offer: the exact vocabularies, the heuristic, and the estimates for
#: the models that publish no tokenizer. A link may name any other model ("gpt-4o"); it is offered too.
LAB_TOKENIZERS: tuple[str, ...] = (*TOKENIZER_NAMES, "claude", "gemini")


def tokenizer_options(*current: object) -> list[str]:
    """Return the pickers' tokenizer names: ``LAB_TOKENIZERS``, then any of ``current`` not among them."""
    extra = [name for name in current if isinstance(name, str) and name not in LAB_TOKENIZERS]
    return [*LAB_TOKENIZERS, *dict.fromkeys(extra)]


def block_vocabulary(result: ContextResult) -> str:
    """Return the vocabulary ``result``'s exact figures are in: its own when exact, else cl100k_base."""
    return result.tokenizer if result.tokenizer in VOCABULARIES else EXACT_TOKENIZER


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
    config: LabConfig = LabConfig.from_json(config_json)
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
    """Return the dedup measure a build under ``config`` uses (the original algorithm's in seed-compatible mode)."""
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
    """Return the exact token count of ``result``'s block in ``block_vocabulary(result)``."""
    if result.tokenizer in VOCABULARIES:
        return result.tokens_used
    return block_tokens_in(result, EXACT_TOKENIZER)


def across_vocabularies(a: ContextResult, b: ContextResult) -> str:
    """Return each block counted in the other's vocabulary when the two differ, as a sentence ("" otherwise)."""
    vocab_a, vocab_b = block_vocabulary(a), block_vocabulary(b)
    if vocab_a == vocab_b:
        return ""
    return (
        f" A's {exact_block_tokens(a):,}-token block ({vocab_a}) is {block_tokens_in(a, vocab_b):,} tokens in "
        f"{vocab_b}; B's {exact_block_tokens(b):,}-token block ({vocab_b}) is {block_tokens_in(b, vocab_a):,} "
        f"tokens in {vocab_a}."
    )


def block_tokens_in(result: ContextResult, vocabulary: str) -> int:
    """Return the token count of ``result``'s block in ``vocabulary`` (another model's view of it)."""
    if result.tokenizer == vocabulary:
        return result.tokens_used
    return _count_in(vocabulary, result.context_block)


@st.cache_data(show_spinner=False, max_entries=64)
def _count_in(vocabulary: str, text: str) -> int:
    return get_tokenizer_cached(vocabulary).count(text)


def kept_words(shortened: str) -> int:
    """Return how many words of its original a cut document kept (its cut marker not counted)."""
    return len(shortened.removesuffix(TRUNCATION_MARKER).split())


def _draw_every_figure_once() -> None:
    """Build each of the lab's figures once on a tiny build (the results are thrown away)."""
    from contextlab.charts.budget import budget_chart, tokenizer_comparison
    from contextlab.charts.compare import compare_positions_figure, compare_tokens_figure
    from contextlab.charts.curves import curves_by_count_figure, position_curves_figure
    from contextlab.charts.duplicates import similarity_heatmap, similarity_histogram
    from contextlab.charts.orderings import (
        ordering_rows_figure,
        ordering_scores_figure,
        reorder_step_figure,
        strategy_positions_figure,
    )
    from contextlab.charts.overview import fate_sankey
    from contextlab.charts.placement import placement_chart
    from contextlab.charts.style import doc_label, for_projector
    from contextlab.charts.window import window_sections_figure
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
    labels = [doc_label(t) for t in result.trace]
    curve = published.accuracy_curve(published.curve_models()[0], 6)
    figures = [
        fate_sankey(result),
        budget_chart(result),
        placement_chart(result, curve, middle=(3, 4), answer=[0]),
        similarity_heatmap([[0.5] * 6] * 6, labels, 0.4, full_labels=labels),
        similarity_histogram([0.2, 0.9], 0.5),
        tokenizer_comparison(labels, [1] * 6, [2] * 6),
        compare_positions_figure(diff_results(result, result)),
        compare_tokens_figure(diff_results(result, result)),
        strategy_positions_figure({"a": [0, 1, 2]}),
        ordering_scores_figure({"a": 0.5}, (0.1, 0.9)),
        ordering_rows_figure([1, 2], [0.5, 0.2], [60.0, 50.0], ["a", "b"]),
        position_curves_figure({"m": [(1, 60.0), (2, 50.0)]}, 2, {"r": 40.0}),
        curves_by_count_figure({10: [(1, 60.0), (10, 50.0)], 20: [(1, 60.0), (20, 55.0)]}, "m", 45.0),
        reorder_step_figure([0, 2, 1], 2, ["a", "b", "c"], [60.0, 50.0, 55.0], {1}),
        window_sections_figure([("system", 10, 5), ("output_reserve", 5, 5)], 100),
    ]
    for fig in figures:
        for_projector(fig).to_json()


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
    places first, so it walks the block order the placement gives. The result records the walk.
    """
    placed_first = config.seed_compatible or not config.budget_before_reorder
    label = "block order (placed first, as the original algorithm)" if placed_first else "most relevant first"
    return list(result.budget_walk), label


def passages(documents: Sequence[Document]) -> MergeOutcome:
    """Return ``documents`` with overlapping chunks of one source merged, as the build merges them."""
    return merge_chunks(documents)
