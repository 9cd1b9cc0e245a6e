from __future__ import annotations

import pytest

from contextlab.stages.dedup import (
    content_hash,
    find_duplicates,
    jaccard,
    pair_similarities,
    shared_word_mask,
    shingles,
    similarity_matrix,
)
from contextlab.types import DuplicatePair


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
    m = similarity_matrix(texts)
    assert m[0][0] == 1.0 and m[0][1] == m[1][0] == 1 / 3 and m[0][2] == 0.0
    assert pair_similarities(texts) == [(0, 1, 1 / 3), (0, 2, 0.0), (1, 2, 0.0)]


def test_dedup_shared_word_mask_marks_shared_windows():
    marks = shared_word_mask("A b c d e x", "a b c d e y")
    assert marks == [("A", True), ("b", True), ("c", True), ("d", True), ("e", True), ("x", False)]


@pytest.mark.parametrize(
    ("a", "b"),
    [("a b", "A  B"), (" a b", "a b"), ("a b ", "a\tb\n"), ("a\u00a0b", "a b"), ("", " "), ("\n", " "),
     ("x\u2003y", "X y"), ("a b", "ab"), ("İstanbul", "i̇stanbul")],
)
def test_dedup_exact_duplicates_follow_seed_md5(a, b):
    same_hash = content_hash(a) == content_hash(b)
    assert (find_duplicates([a, b], 1.0).pairs[:1] != [] and find_duplicates([a, b], 1.0).pairs[0].kind == "exact") == same_hash
