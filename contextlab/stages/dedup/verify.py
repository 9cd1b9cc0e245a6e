"""Exact word edit similarities of candidate pairs, computed on their words' 64-bit hashes.

Every pair the filter names is measured here (rapidfuzz, C++), on strings of one character per
word: the words of all the texts are numbered densely by hash, the commonest first (rapidfuzz
looks characters below 256 up in an array, others in a hash map), once, when the first pair
comes. The answer could differ from one on the words themselves only if two different words
agreed on all 64 bits of their hash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import InvalidInputError
from .word_hashing import dense_numbers
from .word_runs import WordHashes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Verifier"]

_MAX_CODE = 0x10FFFF
_EPS = 1e-9
# Pairs allowed more edits than this are measured first with a quarter of their bound (a
# banded distance costs about its band): near copies are usually far inside it.
_FIRST_TRY = 64


class Verifier:
    """Measures pairs of the texts whose word hashes are ``wh``, at one threshold."""

    def __init__(self, wh: WordHashes, threshold: float) -> None:
        import numpy as np

        self.wh, self.threshold = wh, threshold
        self._begin, self._counts = wh.begin.tolist(), wh.counts.tolist()
        self._tau = np.floor((1.0 - threshold) * np.arange(int(wh.counts.max(initial=0)) + 1) + _EPS
                             ).astype(np.int64)
        self._code: str | None = None

    def _text(self, t: int) -> str:
        if self._code is None:
            self._code = self._number_words()
        return self._code[self._begin[t] : self._begin[t] + self._counts[t]]

    def _number_words(self) -> str:
        """Return every word (end to end) as one character, numbered densely, commonest first."""
        import numpy as np

        number, seen = dense_numbers(self.wh.words)
        if seen.size > _MAX_CODE - 2048:
            raise InvalidInputError("texts: more than a million distinct words; deduplicate fewer at a time")
        rank = np.empty(seen.size, dtype=np.uint32)
        rank[np.argsort(-seen, kind="stable")] = np.arange(seen.size, dtype=np.uint32)
        code = rank[number.ravel()]
        code += (code >= 0xD800).astype(np.uint32) * 2048  # past the surrogate block
        return code.tobytes().decode("utf-32-le")

    def similarities(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Return the word edit similarity of texts ``a[k]`` and ``b[k]`` for every k (exact at
        or above the threshold, some value below it otherwise)."""
        import numpy as np
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cpdist

        if a.size == 0:
            return np.zeros(0)
        longer = np.maximum(self.wh.counts[a], self.wh.counts[b])
        bound = self._tau[longer]
        first, second = [self._text(t) for t in a.tolist()], [self._text(t) for t in b.tolist()]
        # Past the largest bound a pair allows, its distance need not be exact: it is rejected.
        cutoff = int(bound.max())
        if cutoff > _FIRST_TRY:
            cutoff //= 4
        distance = cpdist(first, second, scorer=Levenshtein.distance, score_cutoff=cutoff, workers=1)
        again = np.flatnonzero((distance > cutoff) & (bound > cutoff))
        if again.size:
            distance[again] = cpdist([first[k] for k in again.tolist()], [second[k] for k in again.tolist()],
                                     scorer=Levenshtein.distance, score_cutoff=int(bound.max()), workers=1)
        return 1.0 - distance.astype(np.float64) / longer

    def similarity(self, a: int, b: int) -> float:
        """Return the word edit similarity of texts ``a`` and ``b`` (exact at or above the
        threshold, some value below it otherwise)."""
        from rapidfuzz.distance import Levenshtein

        longer = max(self._counts[a], self._counts[b])
        bound = int(self._tau[longer])
        first, second = self._text(a), self._text(b)
        cutoff = bound // 4 if bound > _FIRST_TRY else bound
        distance = Levenshtein.distance(first, second, score_cutoff=cutoff)
        if distance > cutoff and bound > cutoff:
            distance = Levenshtein.distance(first, second, score_cutoff=bound)
        return 1.0 - distance / longer
