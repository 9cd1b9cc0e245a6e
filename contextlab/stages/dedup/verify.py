"""Exact word edit similarities of candidate pairs, computed on their words' 64-bit hashes.

Every pair the filter names is measured here (rapidfuzz, C++), on strings of one character per
word. First every candidate is measured with each word written as 20 bits of its hash: two
different words can then share a character, which can only make a distance smaller, so a pair
found too far apart is too far apart. The few that come within reach are measured again with
their texts' words numbered densely (the commonest first), which tells different words apart.
The answer could differ from one on the words themselves only if two different words agreed
on all 64 bits of their hash.
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


def _as_text(numbers: np.ndarray) -> str:
    """Return ``numbers`` (uint32, below 2**20 + 2048) as characters, past the surrogate block."""
    import numpy as np

    numbers = numbers + (numbers >= 0xD800).astype(np.uint32) * 2048
    return numbers.tobytes().decode("utf-32-le")


class Verifier:
    """Measures candidate pairs of the texts whose word hashes are ``wh``."""

    def __init__(self, wh: WordHashes, threshold: float) -> None:
        self.wh, self.threshold = wh, threshold
        self._quick: str | None = None

    def _quick_codes(self) -> str:
        """Return every word (end to end) as the top 20 bits of its hash, one character each."""
        import numpy as np

        if self._quick is None:
            self._quick = _as_text((self.wh.words >> np.uint64(44)).astype(np.uint32))
        return self._quick

    def similarities(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Return the word edit similarity of texts ``a[k]`` and ``b[k]`` for every k (exact at
        or above the threshold, some value below it otherwise)."""
        import numpy as np

        sims = np.zeros(a.size)
        if a.size == 0:
            return sims
        quick, begin, counts = self._quick_codes(), self.wh.begin.tolist(), self.wh.counts.tolist()
        texts = {t: quick[begin[t] : begin[t] + counts[t]] for t in np.unique(np.concatenate((a, b))).tolist()}
        near = np.flatnonzero(self._measure(texts, a, b) >= self.threshold)
        sims[near] = self._exact(a[near], b[near])
        return sims

    def _measure(self, texts: dict[int, str], a: np.ndarray, b: np.ndarray) -> np.ndarray:
        import numpy as np
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cpdist

        longer = np.maximum(self.wh.counts[a], self.wh.counts[b])
        # Past the largest bound any pair allows, the distance need not be exact: it is rejected.
        cutoff = int(np.floor((1.0 - self.threshold) * longer.max() + _EPS))
        distances = cpdist([texts[t] for t in a.tolist()], [texts[t] for t in b.tolist()],
                           scorer=Levenshtein.distance, score_cutoff=cutoff, workers=1)
        return 1.0 - distances.astype(np.float64) / longer

    def _exact(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Return the similarities of pairs (a, b), their texts' words numbered densely."""
        import numpy as np

        if a.size == 0:
            return np.zeros(0)
        wh = self.wh
        involved = np.unique(np.concatenate((a, b)))
        lengths = wh.counts[involved]
        runs = np.cumsum(lengths) - lengths
        words = wh.words[np.repeat(wh.begin[involved] - runs, lengths) + np.arange(int(lengths.sum()))]
        number, seen = dense_numbers(words)
        if seen.size > _MAX_CODE - 2048:
            raise InvalidInputError("texts: more than a million distinct words; deduplicate fewer at a time")
        # The commonest words get the smallest numbers: rapidfuzz looks characters below 256
        # up in an array, the others in a hash map.
        rank = np.empty(seen.size, dtype=np.uint32)
        rank[np.argsort(-seen, kind="stable")] = np.arange(seen.size, dtype=np.uint32)
        text = _as_text(rank[number.ravel()])
        texts = {t: text[r : r + m] for t, r, m in zip(involved.tolist(), runs.tolist(), lengths.tolist())}
        return self._measure(texts, a, b)
