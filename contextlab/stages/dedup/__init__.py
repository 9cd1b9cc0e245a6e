"""Exact and near-duplicate detection, under one of two measures.

``word_edit`` (the default, ``edit_measure.py``): texts are normalised first (NFKC, format
characters removed, case and whitespace folded: ``normalize.py``); exact duplicates have equal
normalised words, near duplicates a word edit similarity ``1 - lev / max(len)`` over those
words at or above the threshold with a document already kept. Candidates come from a
partition filter that provably keeps every pair at the threshold (``segment_filter.py``).
The filter's inner loops run in C where the install built them (``_kernels.c``: hashing,
the join with the kept texts' segments, the index's upkeep, sorting, measuring the candidates),
in numpy's code and rapidfuzz otherwise; the two give the same answer
(``tests/test_dedup_kernels.py``).

``shingle_jaccard`` (seed 000's, for ``ContextManager.seed_compatible()``): exact duplicates
share the md5 of their lowercased, whitespace-collapsed text; near duplicates have a Jaccard
similarity of 5-word shingles at or above the threshold with a document already kept.

Under both a document is a duplicate when it matches ANY kept document, and the first kept
wins. Seed 000 compares every document with every kept one (O(n²) pairs); the shingle path
gives the same answer (up to a hash collision: see ``find_duplicates``) without that scan, by
prefix filtering (Chaudhuri et al. 2006; Bayardo et al., "All-pairs similarity search",
2007): order the shingles of every text by one global order and look at a prefix of each.
Two sets with Jaccard >= t share at least ``ceil(t * |x|)`` shingles, so their prefixes of
length ``|x| - ceil(t * |x|) + 1`` meet; only texts whose prefixes meet are compared, on
their whole shingle sets. The order is by document frequency, rarest first (Xiao et al.,
"Efficient similarity joins for near duplicate detection", 2008): shingles of one text only
lead (they can match nothing), so most prefixes hold nothing shared and those texts are
never compared, and phrases many texts share come last, where they rarely reach a prefix.
Shingles are compared as 64-bit hashes, tokenized, ordered and paired in numpy
(``prefix_filter.py``); the greedy pass here walks the texts in order over those pairs.

``benchmarks/bench_dedup.py`` measures both against MinHash-LSH (rensa, datasketch) and the
seed's scan; ``benchmarks/bench_near_copies.py`` measures what each finds on labelled pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInputError
from .edit_measure import word_similarity
from .explain import (
    NEAR_MISS_MARGIN,
    WordDiff,
    near_misses,
    pair_similarities,
    shared_word_mask,
    similarity_matrix,
    word_diff,
)
from .normalize import normalized_text, normalized_words
from .outcome import DEFAULT_MEASURE, MEASURES, SEED_MEASURE, DedupOutcome
from .prefix_filter import SHINGLE_SIZE
from .shingle_measure import content_hash, find_shingle_duplicates, jaccard, shingles

__all__ = [
    "SHINGLE_SIZE",
    "MEASURES",
    "DEFAULT_MEASURE",
    "SEED_MEASURE",
    "content_hash",
    "shingles",
    "jaccard",
    "word_similarity",
    "normalized_text",
    "normalized_words",
    "find_duplicates",
    "DedupOutcome",
    "similarity_matrix",
    "pair_similarities",
    "shared_word_mask",
    "word_diff",
    "WordDiff",
    "near_misses",
    "NEAR_MISS_MARGIN",
]


def find_duplicates(texts: Sequence[str], threshold: float, measure: str = DEFAULT_MEASURE) -> DedupOutcome:
    """Return the kept positions of ``texts`` and the duplicate pairs, first kept wins.

    Pairs name positions in ``texts``; a near duplicate names the kept text it is most
    similar to (the earliest on a tie), with its similarity under ``measure``. The kept set,
    pairs and similarities are those a comparison against every kept text gives.

    ``word_edit`` (default): the filter loses no pair (hashes can only add candidates); under
    40 texts, or below a threshold of 0.75, every text is compared with every kept one on its
    words (exact), otherwise candidates are compared on 64-bit word hashes (a different answer
    would need two different words to agree on all 64 bits). ``shingle_jaccard`` compares
    shingles by hash: its answer could differ only if two different 5-word windows, in one
    text or in two texts compared, agreed on the top 64 - log2(len(texts)) bits of their
    64-bit hash (about one chance in 300,000 for 64,000 texts of 150 words), and that moved a
    similarity across the threshold. Its exact duplicates are compared as text.
    """
    if measure == DEFAULT_MEASURE:
        from .edit_measure import find_edit_duplicates

        return find_edit_duplicates(texts, threshold)
    if measure != SEED_MEASURE:
        raise InvalidInputError(f"dedup_measure must be one of {', '.join(MEASURES)}; got {measure!r}")
    return find_shingle_duplicates(texts, threshold)
