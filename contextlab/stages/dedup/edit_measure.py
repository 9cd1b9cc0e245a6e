"""The default dedup measure: word edit similarity of normalised texts, and its greedy pass.

``word_similarity(a, b) = 1 - lev(A, B) / max(|A|, |B|)``, where ``A`` and ``B`` are the
normalised words of ``a`` and ``b`` (``normalize.py``) and ``lev`` is the Levenshtein distance
over words: the fewest single-word insertions, deletions and replacements that turn one
sequence into the other. It is the share of the longer text's word positions that the
cheapest edit leaves alone: two words edited in 30 give 0.933, at any length. Equal
sequences give 1.0, and one empty sequence against words gives 0.0.

A document is an exact duplicate when its normalised words equal those of a kept document,
and a near duplicate when its similarity with ANY kept document is ``>= threshold``; the
documents are walked in order, so the first kept wins, and a near duplicate names the kept
document it is most similar to (the earliest on a tie). For a few texts every kept one is
compared (and below a threshold of 0.75, where segments are three words or fewer); for more,
``segment_filter.candidate_pairs`` names the pairs that can reach the threshold (provably all
of them) and only those are compared. Both give the same answer.

The scans' distances come from ``rapidfuzz`` (C++), and are exact: a few texts are compared
as word lists (by each word's hash, which can only make a distance too small) and every pair
that comes within reach is measured again on the words; many texts are numbered word by word,
one character per distinct word. The filtered pass measures its pairs on the words' 64-bit
hashes (``verify``: in C where the install built the loops, else by rapidfuzz), so its answer
could differ only if two different words agreed on all 64 bits.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING

from ...errors import InvalidInputError
from ...types import DuplicatePair
from .normalize import normalized_text, normalized_words
from .outcome import DEFAULT_MEASURE, DedupOutcome

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MEASURE", "word_similarity", "find_edit_duplicates", "edit_bound", "WordCodes"]

#: The name of this measure (``ContextManager(dedup_measure=...)``).
MEASURE = DEFAULT_MEASURE
# Below this many texts, comparing each with every kept one is faster than filtering.
_SCAN_BELOW = 40
# Below this threshold the filter's segments are two or three words, shared by most pairs: a
# scan in C++ (every text against every earlier one, a block at a time) costs less.
_FILTER_FROM = 0.75
_SCAN_ROWS = 512
# The word filter needs a threshold above this (see _filtered).
_FILTER_ABOVE = 0.5
_EPS = 1e-9
_MAX_CODE = 0x10FFFF


@lru_cache(maxsize=1)
def _levenshtein():
    """Return rapidfuzz's Levenshtein distance (imported on first use, not with contextlab)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance


def edit_bound(longer: int, threshold: float) -> int:
    """Return the most word edits a pair whose longer text has ``longer`` words can be apart
    and still reach ``threshold`` (``1 - d / longer >= t`` needs ``d <= (1 - t) * longer``)."""
    return math.floor((1.0 - threshold) * longer + _EPS)


class WordCodes:
    """Texts' normalised words, each as a string of one character per distinct word.

    ``rapidfuzz`` compares strings by code point and other sequences by hash, so words are
    numbered (exactly, by a dict) and the numbers written as characters. Past 1,114,111
    distinct words the numbering starts again for each pair compared.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self._words: dict[int, list[str]] = {}
        self._codes: dict[int, str] = {}
        self._vocab: dict[str, str] = {}

    def words(self, i: int) -> list[str]:
        """Return text ``i``'s normalised words."""
        found = self._words.get(i)
        if found is None:
            found = self._words[i] = normalized_words(self.texts[i])
        return found

    def text_code(self, i: int) -> str | None:
        """Return text ``i``'s words as characters, or None once the numbering is full."""
        found = self._codes.get(i)
        if found is None:
            words, vocab = self.words(i), self._vocab
            for w in dict.fromkeys(words):
                if w not in vocab:
                    if len(vocab) > _MAX_CODE:
                        return None
                    vocab[w] = chr(len(vocab))
            found = self._codes[i] = "".join(map(vocab.__getitem__, words))
        return found

    def similarity(self, i: int, j: int, threshold: float = 0.0) -> float:
        """Return the word edit similarity of texts ``i`` and ``j``; below ``threshold`` it may
        be any value below it (the distance stops counting past the threshold's bound)."""
        a, b = self.text_code(i), self.text_code(j)
        if a is None or b is None:
            local: dict[str, str] = {}
            a, b = ("".join(local.setdefault(w, chr(len(local))) for w in self.words(k)) for k in (i, j))
        longer = max(len(a), len(b))
        if longer == 0:
            return 1.0
        distance = _levenshtein()(a, b, score_cutoff=edit_bound(longer, threshold))
        return 1.0 - distance / longer


def word_similarity(a: str, b: str) -> float:
    """Return the word edit similarity of ``a`` and ``b`` (see the module doc), in [0, 1]."""
    return WordCodes([a, b]).similarity(0, 1)


def find_edit_duplicates(texts: Sequence[str], threshold: float) -> DedupOutcome:
    """Return the ``DedupOutcome`` of the greedy pass under word edit similarity."""
    outcome = DedupOutcome()
    if len(texts) < _SCAN_BELOW or threshold < _FILTER_FROM:
        _scan(texts, threshold, outcome)
    else:
        _filtered(texts, threshold, outcome)
    return outcome


def _scan(texts: Sequence[str], threshold: float, outcome: DedupOutcome) -> None:
    """Compare each text with every kept one (the definition, and fastest for a few texts)."""
    from rapidfuzz.process import cdist

    words = [normalized_words(t) for t in texts]
    sizes = list(map(len, words))
    cutoff = edit_bound(max(sizes, default=0), threshold)
    if len(texts) >= _SCAN_BELOW:
        _blocked_scan(_exact_codes(words), sizes, threshold, cutoff, outcome)
        return
    # A few texts: rapidfuzz compares the word lists by each word's hash, so a distance can
    # only come out too small; the pairs it puts within reach are measured again exactly.
    rows = cdist(words, words, scorer=_levenshtein(), score_cutoff=cutoff, workers=1).tolist()
    exact: dict[tuple[str, ...], int] = {}
    for i, mine in enumerate(words):
        key = tuple(mine)
        twin = exact.get(key)
        if twin is not None:
            outcome.pairs.append(DuplicatePair(twin, i, 1.0, "exact"))
            continue
        best_sim, best = threshold, -1
        for k in outcome.kept:  # in order: a tie keeps the earliest
            longer = max(sizes[k], sizes[i])
            bound = edit_bound(longer, threshold)
            if rows[k][i] <= bound:
                distance = _exact_distance(words[k], mine, bound)
                sim = 1.0 - distance / longer
                if distance <= bound and sim >= best_sim and (best < 0 or sim > best_sim):
                    best_sim, best = sim, k
        if best >= 0:
            outcome.pairs.append(DuplicatePair(best, i, best_sim, "near"))
            continue
        outcome.kept.append(i)
        exact[key] = i


def _exact_distance(a: list[str], b: list[str], cutoff: int) -> int:
    """Return the word Levenshtein distance of ``a`` and ``b`` (past ``cutoff``: cutoff + 1),
    words compared as themselves (numbered for this pair, one character each)."""
    local: dict[str, str] = {}
    first, second = ("".join(local.setdefault(w, chr(len(local))) for w in side) for side in (a, b))
    return _levenshtein()(first, second, score_cutoff=cutoff)


def _exact_codes(words: list[list[str]]) -> list[str]:
    """Return each text's words as a string, one character per distinct word (the commonest
    first: rapidfuzz reads characters below 256 from an array, others from a hash map)."""
    vocab = dict.fromkeys(w for w, _ in Counter(chain.from_iterable(words)).most_common())
    if len(vocab) > _MAX_CODE - 2048:
        raise InvalidInputError("texts: more than a million distinct words; deduplicate fewer at a time")
    numbers = (c + 2048 if c >= 0xD800 else c for c in range(len(vocab)))  # no surrogates
    vocab = dict(zip(vocab, map(chr, numbers), strict=False))
    return ["".join(map(vocab.__getitem__, w)) for w in words]


def _blocked_scan(codes: list[str], sizes: list[int], threshold: float, cutoff: int, outcome: DedupOutcome) -> None:
    """The scan for many texts: ``_SCAN_ROWS`` texts at a time against the texts kept before
    them and against each other (a ``cdist`` each), each text against the kept ones in numpy:
    the work is bounded by the kept texts, the memory by a block."""
    import numpy as np
    from rapidfuzz.process import cdist

    size = np.asarray(sizes, dtype=np.int64)
    exact: dict[str, int] = {}
    kept = np.zeros(len(codes), dtype=np.int64)  # kept[:count], in order
    count = 0
    for lo in range(0, len(codes), _SCAN_ROWS):
        hi, before = min(lo + _SCAN_ROWS, len(codes)), count
        earlier = (
            cdist(
                codes[lo:hi],
                [codes[k] for k in kept[:before].tolist()],
                scorer=_levenshtein(),
                score_cutoff=cutoff,
                workers=1,
            )
            if before
            else np.zeros((hi - lo, 0), dtype=np.int64)
        )
        within = cdist(codes[lo:hi], codes[lo:hi], scorer=_levenshtein(), score_cutoff=cutoff, workers=1)
        for i in range(lo, hi):
            twin = exact.get(codes[i])
            if twin is not None:
                outcome.pairs.append(DuplicatePair(twin, i, 1.0, "exact"))
                continue
            ks = kept[:count]
            longer = np.maximum(size[ks], sizes[i])
            distance = np.concatenate((earlier[i - lo], within[i - lo, ks[before:] - lo])).astype(np.int64)
            sims = np.where(
                distance <= np.floor((1.0 - threshold) * longer + _EPS), 1.0 - distance / np.maximum(longer, 1), -1.0
            )
            best = int(np.argmax(sims)) if count else -1  # argmax: the earliest of the best
            if best >= 0 and sims[best] >= threshold:
                outcome.pairs.append(DuplicatePair(int(ks[best]), i, float(sims[best]), "near"))
                continue
            kept[count] = i
            count += 1
            exact[codes[i]] = i
    outcome.kept = kept[:count].tolist()


def _exact_groups(texts: Sequence[str], wh, codes: WordCodes) -> np.ndarray:
    """Return, for each text, the first text with the same normalised words: texts whose
    sequence hashes agree are the same text, or are compared on their word hashes."""
    import numpy as np

    _, first, inverse = np.unique(wh.sequences, return_index=True, return_inverse=True)
    group = first[inverse.ravel()]
    firsts = group.tolist()
    copies = np.array(
        [i for i in np.flatnonzero(group != np.arange(group.size)).tolist() if texts[i] != texts[firsts[i]]],
        dtype=np.int64,
    )
    same = wh.counts[copies] == wh.counts[group[copies]]
    full = np.flatnonzero(same & (wh.counts[copies] > 0))  # empty texts are all alike
    lengths = wh.counts[copies[full]]
    runs = np.cumsum(lengths) - lengths
    at = np.repeat(-runs, lengths) + np.arange(int(lengths.sum()))
    differ = (
        wh.words[np.repeat(wh.begin[copies[full]], lengths) + at]
        != wh.words[np.repeat(wh.begin[group[copies[full]]], lengths) + at]
    )
    if full.size:
        same[full] = np.add.reduceat(differ, runs) == 0
    for i in copies[~same].tolist():  # a sequence hash collision: find the true group
        group[i] = next((k for k in range(i) if group[k] == k and codes.words(k) == codes.words(i)), i)
    return group


def _filtered(texts: Sequence[str], threshold: float, outcome: DedupOutcome) -> None:
    """The greedy pass with candidates from ``segment_filter``, looked up among kept texts.

    At a threshold of 0.5 or below no filter of the earlier text's words can work (all the
    words of a text may be edited away from one twice as long), so those texts are scanned.
    """
    from .kept_pass import kept_pass
    from .pages import small_pages
    from .word_runs import hash_words

    if threshold <= _FILTER_ABOVE:
        _scan(texts, threshold, outcome)
        return

    with small_pages():  # many short-lived large arrays: see pages.py
        # Pure ASCII is hashed as given (hash_words lowercases it); other text once normalised.
        wh = hash_words([t if t.isascii() else normalized_text(t) for t in texts])
        kept_pass(wh, _exact_groups(texts, wh, WordCodes(texts)), threshold, outcome)
