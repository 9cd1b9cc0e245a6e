"""Dedup against its definition: every text compared with every kept one, on random small corpora."""

from __future__ import annotations

import hashlib
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextlab.stages.dedup import SEED_MEASURE, find_duplicates, near_misses, similarity_matrix, word_diff
from contextlab.types import DuplicatePair

# Words chosen to collide under careless handling: NFKC and case variants, format characters,
# combining marks, astral characters and lone surrogates (what broken UTF-16 decodes to).
ODD = ["café", "cafe\u0301", "ＣＡＦＥ", "ﬁ", "fi", "😀", "\ud83d\ude00", "\ud83d", "\ude00", "a\u200bb", "ab"]
ODD += ["ß", "SS", "ss", "Å", "\u212b", "x\u0300", "ǅ", "dž", "\u00ad", "\U000e0041"]
WORDS = st.sampled_from(["a", "b", "c", "d", "e", "f", *ODD])
SPACES = st.sampled_from([" ", "  ", "\n", "\t", "\x0b", "\x1c", "\x85", "\u00a0", "\u1680", "\u3000", "\u2028"])


FORMAT = frozenset(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf")


def brute_words(text: str) -> list[str]:
    """The default measure's words, written from the definition (not the engine's code)."""
    stripped = "".join(ch for ch in text if ch not in FORMAT)
    nfkc = unicodedata.normalize("NFKC", stripped)
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", nfkc).casefold()).split()


def levenshtein(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def brute_edit(texts: list[str], threshold: float) -> tuple[list[int], list[DuplicatePair]]:
    words = [brute_words(t) for t in texts]
    kept: list[int] = []
    pairs: list[DuplicatePair] = []
    for i, mine in enumerate(words):
        twin = next((k for k in kept if words[k] == mine), None)
        if twin is not None:
            pairs.append(DuplicatePair(twin, i, 1.0, "exact"))
            continue
        best, best_sim = -1, -1.0
        for k in kept:
            longer = max(len(words[k]), len(mine))
            sim = 1.0 - levenshtein(words[k], mine) / longer
            if sim > best_sim:
                best, best_sim = k, sim
        if best >= 0 and best_sim >= threshold:
            pairs.append(DuplicatePair(best, i, best_sim, "near"))
        else:
            kept.append(i)
    return kept, pairs


def brute_seed(texts: list[str], threshold: float) -> tuple[list[int], list[DuplicatePair]]:
    def key(text: str) -> str:
        return hashlib.md5(re.sub(r"\s+", " ", text.lower()).encode("utf-8", "surrogatepass")).hexdigest()

    def sh(text: str) -> set[str]:
        w = text.lower().split()
        return {" ".join(w[i : i + 5]) for i in range(len(w) - 4)} if len(w) >= 5 else ({" ".join(w)} if w else set())

    kept: list[int] = []
    pairs: list[DuplicatePair] = []
    for i, text in enumerate(texts):
        twin = next((k for k in kept if key(texts[k]) == key(text)), None)
        if twin is not None:
            pairs.append(DuplicatePair(twin, i, 1.0, "exact"))
            continue
        best, best_sim = -1, -1.0
        for k in kept:
            a, b = sh(texts[k]), sh(text)
            sim = len(a & b) / len(a | b) if a | b else 0.0
            if sim > best_sim:
                best, best_sim = k, sim
        if best >= 0 and best_sim >= threshold:
            pairs.append(DuplicatePair(best, i, best_sim, "near"))
        else:
            kept.append(i)
    return kept, pairs


@st.composite
def corpora(draw: st.DrawFn) -> list[str]:
    """Random, repetitive and templated small corpora, with edited copies of earlier texts."""
    shape = draw(st.sampled_from(["random", "repetitive", "templated"]))
    texts: list[str] = []
    for _ in range(draw(st.integers(0, 14))):
        if texts and draw(st.booleans()):
            words = draw(st.sampled_from(texts)).split()
            for _ in range(draw(st.integers(0, 3))):
                at = draw(st.integers(0, len(words)))
                op = draw(st.sampled_from(["insert", "delete", "replace"]))
                if op == "insert" or at == len(words):
                    words.insert(at, draw(WORDS))
                elif op == "delete":
                    del words[at]
                else:
                    words[at] = draw(WORDS)
        elif shape == "repetitive":
            words = [draw(st.sampled_from(["a", "b"]))] * draw(st.integers(0, 40))
        elif shape == "templated":
            words = ["the", "order", draw(WORDS), "was", "paid", "in", "full", "today"][: draw(st.integers(1, 8))]
        else:
            words = draw(st.lists(WORDS, max_size=25))
        texts.append("".join(w + draw(SPACES) for w in words))
    return texts


THRESHOLDS = st.sampled_from([0.3, 0.5, 0.6, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0])
common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@common
@given(corpora(), THRESHOLDS)
def test_dedup_property_word_edit_equals_the_definition(texts, threshold):
    outcome = find_duplicates(texts, threshold)
    assert (outcome.kept, outcome.pairs) == brute_edit(texts, threshold)


@common
@given(corpora(), THRESHOLDS)
def test_dedup_property_shingles_equal_the_definition(texts, threshold):
    outcome = find_duplicates(texts, threshold, SEED_MEASURE)
    assert (outcome.kept, outcome.pairs) == brute_seed(texts, threshold)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.text(st.characters(categories=["L", "M", "N", "P", "S", "Z", "C"]), max_size=30), max_size=6),
    THRESHOLDS,
)
def test_dedup_property_any_text_is_answered(texts, threshold):
    for measure in ("word_edit", SEED_MEASURE):
        outcome = find_duplicates(texts, threshold, measure)
        assert sorted(outcome.kept + [p.dropped_index for p in outcome.pairs]) == list(range(len(texts)))
        matrix = similarity_matrix(texts, measure)
        assert all(0.0 <= v <= 1.0 for row in matrix for v in row)
        near_misses(texts, threshold, measure=measure)
    for a, b in zip(texts, texts[1:], strict=False):
        assert 0.0 <= word_diff(a, b).similarity <= 1.0
