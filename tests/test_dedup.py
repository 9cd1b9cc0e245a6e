from __future__ import annotations

import random

import pytest

from contextlab.stages.dedup import (
    SEED_MEASURE,
    DedupOutcome,
    content_hash,
    jaccard,
    pair_similarities,
    shared_word_mask,
    shingles,
    similarity_matrix,
)
from contextlab.stages.dedup import find_duplicates as _find_duplicates
from contextlab.types import DuplicatePair

# This module tests seed 000's measure (seed-compatible mode); tests/test_dedup_edit.py the default.


def find_duplicates(texts, threshold):
    """Dedup under seed 000's shingle Jaccard."""
    return _find_duplicates(texts, threshold, SEED_MEASURE)


def test_dedup_shingles_short_and_empty_texts():
    assert shingles("") == frozenset()
    assert shingles("One two") == frozenset({"one two"})
    assert shingles("a b c d e f") == frozenset({"a b c d e", "b c d e f"})


def test_dedup_jaccard_empty_sets_is_zero():
    assert jaccard(frozenset(), frozenset()) == 0.0
    assert jaccard(shingles("a b c d e f"), shingles("a b c d e g")) == 1 / 3


def test_dedup_content_hash_ignores_case_and_spacing():
    assert content_hash("Hello   World\n") == content_hash("hello world ")


def test_dedup_exact_and_near_pairs():
    base = "the refund window for annual plans is thirty days from the date of purchase"
    near = base.replace("thirty", "30")
    texts = [base, base.upper(), near, "something else entirely different from the rest of them"]
    outcome = find_duplicates(texts, 0.3)  # one word changed: 5 of 15 shingles shared
    assert outcome.kept == [0, 3]
    assert outcome.pairs[0] == DuplicatePair(0, 1, 1.0, "exact")
    assert outcome.pairs[1].kind == "near" and outcome.pairs[1].kept_index == 0
    assert outcome.pairs[1].similarity == jaccard(shingles(base), shingles(near))


def test_dedup_threshold_one_keeps_reworded_copies():
    texts = ["a b c d e f g", "a b c d e f h"]
    assert find_duplicates(texts, 1.0).kept == [0, 1]


def test_dedup_empty_texts_are_never_near_duplicates():
    # two empty shingle sets have Jaccard 0; only an identical hash makes them duplicates
    assert find_duplicates(["", ""], 0.1).kept == [0]
    assert find_duplicates(["", "   "], 0.1).kept == [0, 1]  # "" and " " hash differently


def test_dedup_near_duplicate_names_most_similar_kept():
    a = "one two three four five six seven eight nine ten"
    b = "eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
    c = a + " " + b  # shares shingles with both, more with b after edits
    outcome = find_duplicates([a, b, c], 0.3)
    assert outcome.kept == [0, 1]
    sims = {k: jaccard(shingles(c), shingles(t)) for k, t in ((0, a), (1, b))}
    assert outcome.pairs[0].kept_index == max(sims, key=lambda k: (sims[k], -k))


def test_dedup_similarity_matrix_symmetric():
    texts = ["a b c d e f", "a b c d e g", "x y z"]
    m = similarity_matrix(texts, SEED_MEASURE)
    assert m[0][0] == 1.0 and m[0][1] == m[1][0] == 1 / 3 and m[0][2] == 0.0
    assert pair_similarities(texts, SEED_MEASURE) == [(0, 1, 1 / 3), (0, 2, 0.0), (1, 2, 0.0)]


def test_dedup_shared_word_mask_marks_shared_windows():
    marks = shared_word_mask("A b c d e x", "a b c d e y")
    assert marks == [("A", True), ("b", True), ("c", True), ("d", True), ("e", True), ("x", False)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("a b", "A  B"),
        (" a b", "a b"),
        ("a b ", "a\tb\n"),
        ("a\u00a0b", "a b"),
        ("", " "),
        ("\n", " "),
        ("x\u2003y", "X y"),
        ("a b", "ab"),
        ("İstanbul", "i̇stanbul"),
    ],
)
def test_dedup_exact_duplicates_follow_seed_md5(a, b):
    same_hash = content_hash(a) == content_hash(b)
    assert (
        find_duplicates([a, b], 1.0).pairs[:1] != [] and find_duplicates([a, b], 1.0).pairs[0].kind == "exact"
    ) == same_hash


# -- find_duplicates against the naive scan, on overlapping chunks of real prose -----------------


def naive_scan(texts: list[str], threshold: float) -> tuple[list[int], list[DuplicatePair]]:
    """Seed 000's scan, literally: every text against every kept one, plus the pair it names."""
    kept: list[int] = []
    pairs: list[DuplicatePair] = []
    hashes: dict[str, int] = {}
    for i, text in enumerate(texts):
        digest = content_hash(text)
        if digest in hashes:
            pairs.append(DuplicatePair(hashes[digest], i, 1.0, "exact"))
            continue
        mine = shingles(text)
        sims = [(jaccard(mine, shingles(texts[k])), -k) for k in kept]
        best = max(sims, default=(-1.0, 0))
        if best[0] >= threshold:
            pairs.append(DuplicatePair(-best[1], i, best[0], "near"))
            continue
        kept.append(i)
        hashes[digest] = i
    return kept, pairs


def prose_words() -> list[str]:
    from contextlab.lab.samples import list_sample_sets

    return [w for s in list_sample_sets() for d in s.documents for w in d.content.split()]


def overlapping_chunks(words: list[str], size: int, stride: int, seed: int) -> list[str]:
    """Return chunks of ``size`` words every ``stride`` words, with near and case copies mixed in."""
    rng = random.Random(seed)
    chunks = [" ".join(words[i : i + size]) for i in range(0, len(words) - size, stride)]
    texts: list[str] = []
    for chunk in chunks:
        texts.append(chunk)
        if rng.random() < 0.25:  # a near copy, one to four words edited
            edited = rng.choice(texts).split()
            for _ in range(rng.randint(1, 4)):
                edited[rng.randrange(len(edited))] = rng.choice(words)
            texts.append(" ".join(edited))
        if rng.random() < 0.08:  # the same text in other case and spacing
            texts.append("  " + rng.choice(texts).upper().replace(" ", "\n", 3))
    rng.shuffle(texts)
    return texts


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [0.3, 0.6, 0.85, 0.95, 1.0])
def test_dedup_matches_naive_scan_on_overlapping_chunks_of_real_text(threshold):
    texts = overlapping_chunks(prose_words(), size=60, stride=45, seed=7)
    outcome = find_duplicates(texts, threshold)
    kept, pairs = naive_scan(texts, threshold)
    assert len(texts) > 150 and any(p.kind == "near" for p in pairs)
    assert outcome.kept == kept
    assert outcome.pairs == pairs


@pytest.mark.slow
def test_dedup_matches_naive_scan_when_many_texts_share_their_rarest_shingles():
    # A hundred one-word edits of one chunk: every prefix token is in scores of prefixes,
    # the case the greedy pass handles against kept texts instead of pairing every holder.
    words = prose_words()[:80]
    rng = random.Random(3)
    texts = []
    for _ in range(100):
        edited = list(words)
        edited[rng.randrange(len(edited))] = f"edit{rng.randrange(5)}"
        texts.append(" ".join(edited))
    texts += [" ".join(words[40:] + words[:40]), " ".join(reversed(words))]
    for threshold in (0.5, 0.9, 0.97):
        kept, pairs = naive_scan(texts, threshold)
        outcome = find_duplicates(texts, threshold)
        assert (outcome.kept, outcome.pairs) == (kept, pairs)


def test_dedup_splits_words_on_every_unicode_space_as_str_split_does():
    spaces = ["\u00a0", "\u2003", "\u3000", "\x1c", "\x85", "\u2028", "\t\r\n"]
    words = ["one", "two", "three", "four", "five", "six", "seven"]
    plain = " ".join(words)
    for space in spaces:
        spaced = space.join(words)
        outcome = find_duplicates([plain, spaced + "\u200b"], 0.5)  # zero-width space is a letter
        assert outcome.pairs and outcome.pairs[0].kind == "near"
        assert outcome.pairs[0].similarity == jaccard(shingles(plain), shingles(spaced + "\u200b"))
        assert find_duplicates([plain, spaced], 1.0).pairs[0].kind == "exact"


@pytest.mark.parametrize(
    ("a", "b", "kept"),
    [
        ("one two three", "ONE two three", [0]),  # same text but case: an exact duplicate
        ("one two three", "one two three four", [0, 1]),  # one shingle each, different ones
        ("one two three four", "x one two three four", [0, 1]),  # a short text vs a five-word one
        ("😀 b c d e f", "😀 b c d e g", [0, 1]),  # astral characters (two UTF-16 units)
    ],
)
def test_dedup_short_and_unusual_texts_follow_the_seed(a, b, kept):
    assert find_duplicates([a, b], 0.5).kept == kept == naive_scan([a, b], 0.5)[0]


def test_dedup_reads_a_lone_surrogate_as_a_character():
    # The seed's md5 cannot encode it; the shingles still count it as part of its word.
    a, b = "a\ud800 b c d e f", "a\ud800 b c d e f g"
    outcome = find_duplicates([a, b, "a b c d e f g"], 0.6)
    assert outcome.kept == [0, 2]
    assert outcome.pairs == [DuplicatePair(0, 1, jaccard(shingles(a), shingles(b)), "near")]


def test_dedup_empty_input_and_ties_name_the_earliest_kept():
    assert find_duplicates([], 0.5) == DedupOutcome()
    a = "one two three four five six seven eight"
    b = "nine ten eleven twelve thirteen fourteen fifteen sixteen"
    both = f"{a} {b}"  # 4 of its 12 shingles from each: a tie at 1/3
    outcome = find_duplicates([a, b, both], 0.3)
    assert outcome.kept == [0, 1]
    assert outcome.pairs == [DuplicatePair(0, 2, 1 / 3, "near")]
