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
from itertools import repeat

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

from .normalize import normalized_words

__all__ = ["WordCodes", "edit_bound", "word_similarity"]

_EPS = 1e-9
_SURROGATES = 0xD800  # where the characters a word number may not be written as start
_MAX_WORDS = 0x110000 - 0x800


def edit_bound(longer: int, threshold: float) -> int:
    """Return the most word edits a pair whose longer text has ``longer`` words can be apart
    and still reach ``threshold`` (``1 - d / longer >= t`` needs ``d <= (1 - t) * longer``)."""
    return math.floor((1.0 - threshold) * longer + _EPS)


class WordCodes:
    """Texts' normalised words, each word numbered exactly (a dict of the words themselves, in
    the order first met), each text written for rapidfuzz as a string of one character a word
    (rapidfuzz compares strings fastest), or as a list of numbers past 1,112,064 distinct words.

    The greedy pass numbers every word at once (``number``, then ``hold``); otherwise only the
    texts asked for are numbered.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self._vocab: dict[str, int] = {}
        self._size = 0  # words numbered (the vocabulary may hold words about to be)
        self._codes: dict[int, str | list[int]] = {}
        self._as_lists = False
        self._held: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None

    def number(self, words: list[str]) -> list[int]:
        """Return the number of each of ``words``, numbering the new ones."""
        vocab = self._vocab
        numbers = list(map(vocab.setdefault, words, repeat(-1)))  # one C loop; a new word gets -1
        numbers.append(-1)  # so the search below always ends
        at = numbers.index(-1)
        while at < len(words):
            if vocab[words[at]] < 0:
                vocab[words[at]] = self._size
                self._size += 1
            numbers[at] = vocab[words[at]]
            at = numbers.index(-1, at)
        numbers.pop()
        return numbers

    def hold(self, numbers: npt.NDArray[np.int64], begin: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]) -> None:
        """Keep every text's word numbers (``number``'s, texts end to end) to write codes from."""
        self._held = (numbers, begin, counts)

    def code(self, i: int) -> str | list[int]:
        """Return text ``i``'s words as rapidfuzz compares them."""
        found = self._codes.get(i)
        if found is None:
            if self._held is not None:
                numbers, begin, counts = self._held
                ids = numbers[int(begin[i]) : int(begin[i] + counts[i])]
            else:
                ids = np.array(self.number(normalized_words(self.texts[i])), dtype=np.int64)
            if not self._as_lists and self._size > _MAX_WORDS:
                self._as_lists = True  # every text from now on, so two compared are alike
                self._codes.clear()
            if self._as_lists:
                found = ids.tolist()
            else:
                shifted = ids + (ids >= _SURROGATES) * 0x800  # characters skip the surrogates
                found = shifted.astype(np.uint32).tobytes().decode("utf-32-le")
            self._codes[i] = found
        return found

    def _distance(self, i: int, j: int, threshold: float) -> tuple[int, int, int]:
        """Return the word Levenshtein distance of texts ``i`` and ``j`` (past the threshold's
        bound: bound + 1), the bound, and the longer text's length."""
        a, b = self.code(i), self.code(j)
        if type(a) is not type(b):  # the numbers outgrew characters in between
            a = self.code(i)
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

    def matches(self, kept: list[int], new: list[int], threshold: float) -> list[float | None]:
        """Return ``match`` of each pair ``kept[k]``, ``new[k]``, measured in one call of rapidfuzz."""
        if not kept:
            return []
        a, b = [self.code(i) for i in kept], [self.code(j) for j in new]
        if len({type(x) for x in a + b}) > 1:  # the numbers outgrew characters in between
            return [self.match(i, j, threshold) for i, j in zip(kept, new, strict=True)]
        longer = np.maximum([len(x) for x in a], [len(y) for y in b])
        bound = np.floor((1.0 - threshold) * longer + _EPS).astype(np.int64)  # edit_bound, pair by pair
        cutoff = int(bound.max())
        distance = cpdist(a, b, scorer=Levenshtein.distance, score_cutoff=cutoff, score_hint=min(cutoff, 8), workers=1)
        similarity = 1.0 - distance / np.maximum(longer, 1)
        good = (distance <= bound) & (similarity >= threshold)
        return [float(x) if ok else None for x, ok in zip(similarity.tolist(), good.tolist(), strict=True)]

    def match(self, kept: int, new: int, threshold: float) -> float | None:
        """Return the similarity of texts ``kept`` and ``new`` when it reaches ``threshold``, else None."""
        distance, bound, longer = self._distance(kept, new, threshold)
        similarity = 1.0 - distance / longer if longer else 1.0
        return similarity if distance <= bound and similarity >= threshold else None


def word_similarity(a: str, b: str) -> float:
    """Return the word edit similarity of ``a`` and ``b`` (see the module doc), in [0, 1]."""
    return WordCodes([a, b]).similarity(0, 1)
