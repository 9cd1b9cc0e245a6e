"""The default dedup measure: word edit similarity of normalised texts, measured by rapidfuzz.

Normalising folds the ways one text can be written differently without a reader seeing it:
Unicode compatibility forms (NFKC), format characters (category Cf: zero-width spaces, bidi
marks, soft hyphens), letter case (``str.casefold``) and whitespace (any run of it is one word
break). Only the comparison sees the normalised words; documents are shown and cited as given.

``word_similarity(a, b) = 1 - lev(A, B) / max(|A|, |B|)`` over the normalised words ``A`` and
``B``, where ``lev`` counts single-word insertions, deletions and replacements. Two words edited
in 30 give 0.933, at any length; equal sequences give 1.0; one empty against words gives 0.0.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from rapidfuzz.distance import Levenshtein

from ...types import DuplicatePair

__all__ = ["WordCodes", "edit_bound", "word_similarity", "normalized_words", "normalized_text"]
__all__ += ["format_characters", "FORMAT_PLANES", "DedupOutcome", "DEFAULT_MEASURE", "SEED_MEASURE", "MEASURES"]

#: The default measure: word edit similarity of normalised texts.
DEFAULT_MEASURE = "word_edit"
#: Seed 000's measure: Jaccard similarity of 5-word shingles (seed-compatible mode).
SEED_MEASURE = "shingle_jaccard"
#: The measures ``find_duplicates`` (and ``ContextManager(dedup_measure=...)``) accept.
MEASURES = (DEFAULT_MEASURE, SEED_MEASURE)


@dataclass
class DedupOutcome:
    """Which positions of the input were kept, and a pair for each one dropped."""

    kept: list[int] = field(default_factory=list)
    pairs: list[DuplicatePair] = field(default_factory=list)


#: The Unicode planes that hold format characters (the Basic and Supplementary Multilingual
#: Planes, and plane 14's tags); a test checks no other plane of this Python's Unicode has one.
FORMAT_PLANES = (0, 1, 14)


@lru_cache(maxsize=1)
def _format_table() -> dict[int, None]:
    """Return a ``str.translate`` table deleting every character of category Cf (built on first use)."""
    planes = (range(plane << 16, (plane + 1) << 16) for plane in FORMAT_PLANES)
    return {c: None for plane in planes for c in plane if unicodedata.category(chr(c)) == "Cf"}


@lru_cache(maxsize=1)
def format_characters() -> frozenset[str]:
    """Return every character of Unicode category Cf (format): all removed before comparing."""
    return frozenset(map(chr, _format_table()))


def normalized_text(text: str) -> str:
    """Return ``text`` with format characters removed, NFKC-normalised and case-folded.

    Casefolding can leave text that is not NFKC again (and NFKC can expose new case), so the
    fold is wrapped in NFKC on both sides, as Unicode's NFKC_Casefold is. Pure ASCII has no
    format characters and is its own NFKC, so it only needs ``lower``.
    """
    if text.isascii():
        return text.lower()
    # Every format character is unprintable and none breaks a line, so a text whose lines are
    # all printable has none (one C scan); else a membership scan, far cheaper than translate
    # (or a regex) on text with none in it. Checking a text is NFKC already is cheaper than
    # normalising it (most text is).
    clean = all(map(str.isprintable, text.splitlines())) or format_characters().isdisjoint(text)
    stripped = text if clean else text.translate(_format_table())
    return _nfkc(_nfkc(stripped).casefold())


def _nfkc(text: str) -> str:
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


def normalized_words(text: str) -> list[str]:
    """Return the words of ``normalized_text(text)``, split on any whitespace (``str.split``)."""
    return normalized_text(text).split()


_EPS = 1e-9
_SURROGATES = 0xD800  # where the characters a word number may not be written as start
_MAX_WORDS = 0x110000 - 0x800


def edit_bound(longer: int, threshold: float) -> int:
    """Return the most word edits a pair whose longer text has ``longer`` words can be apart
    and still reach ``threshold`` (``1 - d / longer >= t`` needs ``d <= (1 - t) * longer``)."""
    return math.floor((1.0 - threshold) * longer + _EPS)


class WordCodes:
    """Texts' normalised words, each numbered exactly (by a dict of the words), each text
    written for rapidfuzz as a string of one character a word (rapidfuzz compares strings
    fastest), or as a list of numbers past 1,112,064 distinct words."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self._vocab: dict[str, int] = {}
        self._codes: dict[int, str | list[int]] = {}
        self._as_lists = False

    def code(self, i: int) -> str | list[int]:
        """Return text ``i``'s words as rapidfuzz compares them."""
        found = self._codes.get(i)
        if found is None:
            vocab = self._vocab
            ids = np.array([vocab.setdefault(w, len(vocab)) for w in normalized_words(self.texts[i])], dtype=np.int64)
            if not self._as_lists and len(vocab) > _MAX_WORDS:
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

    def match(self, kept: int, new: int, threshold: float) -> float | None:
        """Return the similarity of texts ``kept`` and ``new`` when it reaches ``threshold``, else None."""
        distance, bound, longer = self._distance(kept, new, threshold)
        similarity = 1.0 - distance / longer if longer else 1.0
        return similarity if distance <= bound and similarity >= threshold else None


def word_similarity(a: str, b: str) -> float:
    """Return the word edit similarity of ``a`` and ``b`` (see the module doc), in [0, 1]."""
    return WordCodes([a, b]).similarity(0, 1)
