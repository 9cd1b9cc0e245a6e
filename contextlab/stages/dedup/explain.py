"""What the lab shows about duplicates: similarities of every pair, the words that differ in a
pair, and the pairs that just missed the threshold. All pairs are compared: these are for the
few hundred documents a person looks at. Each takes the measure the build really used.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from ...errors import InvalidInputError
from .edit_measure import DEFAULT_MEASURE, MEASURES, SEED_MEASURE, WordCodes, edit_bound, normalized_words
from .segment_filter import find_edit_duplicates
from .shingle_measure import SHINGLE_SIZE, find_shingle_duplicates, jaccard, shingles

__all__ = ["similarity_matrix", "pair_similarities", "shared_word_mask", "WordDiff", "word_diff", "NearMiss"]
__all__ += ["near_misses", "NEAR_MISS_MARGIN"]

#: How far below the threshold a pair may score and still be listed as a near miss.
NEAR_MISS_MARGIN = 0.15


def _check(measure: str) -> None:
    if measure not in MEASURES:
        raise InvalidInputError(f"dedup_measure must be one of {', '.join(MEASURES)}; got {measure!r}")


def similarity_matrix(texts: Sequence[str], measure: str = DEFAULT_MEASURE) -> list[list[float]]:
    """Return the symmetric matrix of similarities under ``measure`` (1.0 on the diagonal)."""
    _check(measure)
    n = len(texts)
    if measure == DEFAULT_MEASURE:
        codes = WordCodes(texts)
        strings = [codes.code(i) for i in range(n)]
        matrix: list[list[float]] = (
            cdist(strings, strings, scorer=Levenshtein.normalized_similarity, dtype="float64").tolist() if n else []
        )
        for i in range(n):
            matrix[i][i] = 1.0
        return matrix
    sets = [shingles(t) for t in texts]
    upper = {(i, j): jaccard(sets[i], sets[j]) for i in range(n) for j in range(i + 1, n)}
    return [[1.0 if i == j else upper[min(i, j), max(i, j)] for j in range(n)] for i in range(n)]


def pair_similarities(texts: Sequence[str], measure: str = DEFAULT_MEASURE) -> list[tuple[int, int, float]]:
    """Return (i, j, similarity) for every pair i < j, for the threshold histogram."""
    matrix = similarity_matrix(texts, measure)
    return [(i, j, matrix[i][j]) for i in range(len(texts)) for j in range(i + 1, len(texts))]


def shared_word_mask(text: str, other: str, k: int = SHINGLE_SIZE) -> list[tuple[str, bool]]:
    """Return the words of ``text`` (as split) each marked True when inside a shingle ``other``
    shares: what the lab highlights in the side-by-side view of a seed-measure pair."""
    words = text.split()
    lowered = [w.lower() for w in words]
    theirs = shingles(other, k)
    size = min(k, len(words))  # a text of fewer than k words is one shingle of them all
    marked = [False] * len(words)
    for start in range(len(words) - size + 1 if words else 0):
        if " ".join(lowered[start : start + size]) in theirs:
            marked[start : start + size] = [True] * size
    return list(zip(words, marked, strict=True))


@dataclass(frozen=True)
class WordDiff:
    """Two texts' words as given, each marked True where the cheapest word edit changes it."""

    first: list[tuple[str, bool]]
    second: list[tuple[str, bool]]
    edits: int  # word insertions, deletions and replacements between the two
    similarity: float  # the measure's: 1 - lev / max(len) over normalised words


def word_diff(first: str, second: str) -> WordDiff:
    """Return the words of ``first`` and ``second`` (as given) with the ones that differ marked.
    Words are aligned (rapidfuzz's opcodes) on their normalised form, so a word differing only in
    case, width or an invisible character is not marked, nor one normalising to nothing."""
    sides = [text.split() for text in (first, second)]
    keys = [[" ".join(normalized_words(w)) for w in words] for words in sides]
    vocab: dict[str, int] = {}
    seen = [[k for k, key in enumerate(side) if key] for side in keys]  # words the measure sees
    codes = [[vocab.setdefault(side[k], len(vocab)) for k in idx] for side, idx in zip(keys, seen, strict=True)]
    marks = [[False] * len(words) for words in sides]
    edits = 0
    for op in Levenshtein.opcodes(codes[0], codes[1]):
        if op.tag == "equal":
            continue
        edits += max(op.src_end - op.src_start, op.dest_end - op.dest_start)
        for k in seen[0][op.src_start : op.src_end]:
            marks[0][k] = True
        for k in seen[1][op.dest_start : op.dest_end]:
            marks[1][k] = True
    return WordDiff(
        list(zip(sides[0], marks[0], strict=True)),
        list(zip(sides[1], marks[1], strict=True)),
        edits,
        WordCodes([first, second]).similarity(0, 1),
    )


@dataclass(frozen=True)
class NearMiss:
    """Two kept texts (positions in the input, first < second) just below the threshold."""

    first_index: int
    second_index: int
    similarity: float


def near_misses(
    texts: Sequence[str], threshold: float, margin: float = NEAR_MISS_MARGIN, measure: str = DEFAULT_MEASURE
) -> list[NearMiss]:
    """Return the pairs of kept texts with ``threshold - margin <= similarity < threshold``,
    most similar first: what lowering the threshold by up to ``margin`` would consider next.
    Kept means kept by ``find_duplicates(texts, threshold, measure)``; every pair of them is compared."""
    _check(measure)
    find = find_edit_duplicates if measure == DEFAULT_MEASURE else find_shingle_duplicates
    kept = find(texts, threshold).kept
    floor = max(threshold - margin, 1e-9)
    pairs: Iterator[tuple[int, int, float]]
    if measure == SEED_MEASURE:
        sets = {i: shingles(texts[i]) for i in kept}
        pairs = ((i, j, jaccard(sets[i], sets[j])) for x, i in enumerate(kept) for j in kept[x + 1 :])
    else:
        codes = WordCodes(texts)
        sizes = {i: len(codes.code(i)) for i in kept}
        pairs = (
            (i, j, codes.similarity(i, j, floor))
            for x, i in enumerate(kept)
            for j in kept[x + 1 :]
            if max(sizes[i], sizes[j]) - min(sizes[i], sizes[j]) <= edit_bound(max(sizes[i], sizes[j]), floor)
        )
    found = [NearMiss(i, j, sim) for i, j, sim in pairs if floor <= sim < threshold]
    return sorted(found, key=lambda m: (-m.similarity, m.first_index, m.second_index))
