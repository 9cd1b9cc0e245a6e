"""Exact and near-duplicate detection, under one of two measures.

``word_edit`` (the default, ``edit_measure.py``): texts are normalised (NFKC, format characters
removed, case and whitespace folded); exact duplicates have equal normalised words, near
duplicates a word edit similarity ``1 - lev / max(len)`` at or above the threshold with a kept
document, every such pair found by a pigeonhole filter (``segment_filter.py``, ``word_hashes.py``).

``shingle_jaccard`` (``shingle_measure.py``, for ``ContextManager.seed_compatible()``): exact
duplicates share the md5 of their lowercased, whitespace-collapsed text; near duplicates have a
Jaccard similarity of 5-word shingles at or above the threshold with a kept document, found by
prefix filtering, which provably keeps every such pair.

Under both the first kept wins, and a near duplicate names the kept document it is most similar
to (the earliest on a tie). ``explain.py`` holds what the lab shows about the pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInputError
from .edit_measure import (
    DEFAULT_MEASURE,
    MEASURES,
    SEED_MEASURE,
    DedupOutcome,
    normalized_text,
    normalized_words,
    word_similarity,
)
from .explain import (
    NEAR_MISS_MARGIN,
    NearMiss,
    WordDiff,
    near_misses,
    pair_similarities,
    shared_word_mask,
    similarity_matrix,
    word_diff,
)
from .segment_filter import find_edit_duplicates
from .shingle_measure import SHINGLE_SIZE, content_hash, find_shingle_duplicates, jaccard, shingles

__all__ = ["SHINGLE_SIZE", "MEASURES", "DEFAULT_MEASURE", "SEED_MEASURE", "content_hash", "shingles", "jaccard"]
__all__ += ["word_similarity", "normalized_text", "normalized_words", "find_duplicates", "DedupOutcome"]
__all__ += ["similarity_matrix", "pair_similarities", "shared_word_mask", "word_diff", "WordDiff", "near_misses"]
__all__ += ["NearMiss", "NEAR_MISS_MARGIN"]


def find_duplicates(texts: Sequence[str], threshold: float, measure: str = DEFAULT_MEASURE) -> DedupOutcome:
    """Return the kept positions of ``texts`` and the duplicate pairs, first kept wins.

    Pairs name positions in ``texts``; a near duplicate names the kept text it is most
    similar to (the earliest on a tie), with its similarity under ``measure``. The kept set,
    pairs and similarities are exactly those a comparison against every kept text gives.
    """
    if measure == DEFAULT_MEASURE:
        return find_edit_duplicates(texts, threshold)
    if measure != SEED_MEASURE:
        raise InvalidInputError(f"dedup_measure must be one of {', '.join(MEASURES)}; got {measure!r}")
    return find_shingle_duplicates(texts, threshold)
