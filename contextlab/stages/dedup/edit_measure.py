"""The default dedup measure: word edit similarity of normalised texts, and its greedy pass.

``word_similarity(a, b) = 1 - lev(A, B) / max(|A|, |B|)``, where ``A`` and ``B`` are the
normalised words of ``a`` and ``b`` (``normalize.py``) and ``lev`` is the Levenshtein distance
over words: the fewest single-word insertions, deletions and replacements that turn one
sequence into the other. Two words edited in 30 give 0.933, at any length. Equal sequences
give 1.0, and one empty sequence against words gives 0.0.

A document is an exact duplicate when its normalised words equal those of a kept document,
and a near duplicate when its similarity with ANY kept document is ``>= threshold``; the
documents are walked in order, so the first kept wins, and a near duplicate names the kept
document it is most similar to (the earliest on a tie): ``segment_filter.find_edit_duplicates``,
which names the pairs that can reach the threshold (provably all of them); each is measured
here, on the words themselves, by rapidfuzz.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from ...errors import InvalidInputError
from .normalize import normalized_words
from .outcome import DEFAULT_MEASURE

__all__ = ["MEASURE", "WordCodes", "edit_bound", "word_similarity"]

#: The name of this measure (``ContextManager(dedup_measure=...)``).
MEASURE = DEFAULT_MEASURE
_EPS = 1e-9
_SURROGATES = 0xD800  # where the characters a word number may not be written as start
_MAX_WORDS = 0x110000 - 0x800


def edit_bound(longer: int, threshold: float) -> int:
    """Return the most word edits a pair whose longer text has ``longer`` words can be apart
    and still reach ``threshold`` (``1 - d / longer >= t`` needs ``d <= (1 - t) * longer``)."""
    return math.floor((1.0 - threshold) * longer + _EPS)


class WordCodes:
    """Texts' normalised words, each text written as a string of one character per word.

    Words are numbered exactly (a dict of the words themselves), in the order first met, and
    each number written as a character: rapidfuzz compares strings fastest. Only the texts
    asked for are ever numbered.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self._codes: dict[int, str] = {}
        self._vocab: dict[str, str] = {}

    def words(self, i: int) -> list[str]:
        """Return text ``i``'s normalised words."""
        return normalized_words(self.texts[i])

    def code(self, i: int) -> str:
        """Return text ``i``'s words as a string, one character a word."""
        found = self._codes.get(i)
        if found is None:
            vocab, words = self._vocab, self.words(i)
            for word in words:
                if word not in vocab:
                    if len(vocab) >= _MAX_WORDS:
                        raise InvalidInputError(
                            "texts: more than a million distinct words; deduplicate fewer at a time"
                        )
                    number = len(vocab)
                    vocab[word] = chr(number + 0x800 if number >= _SURROGATES else number)
            found = self._codes[i] = "".join(map(vocab.__getitem__, words))
        return found

    def _distance(self, i: int, j: int, threshold: float) -> tuple[int, int, int]:
        """Return the word Levenshtein distance of texts ``i`` and ``j`` (past the threshold's
        bound: bound + 1), the bound, and the longer text's length."""
        a, b = self.code(i), self.code(j)
        longer = max(len(a), len(b))
        bound = edit_bound(longer, threshold)
        if abs(len(a) - len(b)) > bound:
            return bound + 1, bound, longer
        # The hint starts rapidfuzz at a narrow band, widened only as needed: a near copy costs
        # little more than reading it, however far apart the threshold lets the two be.
        return Levenshtein.distance(a, b, score_cutoff=bound, score_hint=min(bound, 8)), bound, longer

    def similarity(self, i: int, j: int, threshold: float = 0.0) -> float:
        """Return the word edit similarity of texts ``i`` and ``j``; below ``threshold`` it may
        be any value below it (the distance stops counting past the threshold's bound)."""
        distance, _, longer = self._distance(i, j, threshold)
        return 1.0 - distance / longer if longer else 1.0

    def match(self, kept: int, new: int, threshold: float) -> float | None:
        """Return the similarity of texts ``kept`` and ``new`` when it reaches ``threshold``, else None."""
        distance, bound, longer = self._distance(kept, new, threshold)
        similarity = 1.0 - distance / longer if longer else 1.0
        return similarity if distance <= bound and similarity >= threshold else None


def word_similarity(a: str, b: str) -> float:
    """Return the word edit similarity of ``a`` and ``b`` (see the module doc), in [0, 1]."""
    return WordCodes([a, b]).similarity(0, 1)
