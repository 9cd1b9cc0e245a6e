"""The default dedup measure: word edit similarity of normalised text, and its exact filter."""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest

from contextlab import ContextManager, Document, PromptRequest
from contextlab.errors import InvalidInputError
from contextlab.stages.dedup import (
    DEFAULT_MEASURE,
    SEED_MEASURE,
    find_duplicates,
    near_misses,
    normalized_words,
    similarity_matrix,
    word_diff,
    word_similarity,
)
from contextlab.stages.dedup.edit_measure import FORMAT_PLANES, format_characters
from contextlab.types import DuplicatePair
from tests.test_dedup import overlapping_chunks, prose_words

THIRTY = [
    "the",
    "refund",
    "window",
    "for",
    "annual",
    "plans",
    "is",
    "thirty",
    "days",
    "from",
    "the",
    "date",
    "of",
    "purchase",
    "and",
    "any",
    "request",
    "after",
    "that",
    "date",
    "goes",
    "to",
    "the",
    "billing",
    "team",
    "for",
    "a",
    "manual",
    "review",
    "today",
]


def levenshtein(a: list[str], b: list[str]) -> int:
    """Word Levenshtein distance, the textbook dynamic programme (independent of rapidfuzz)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def similarity(a: str, b: str) -> float:
    """The measure's definition, on rapidfuzz's list-of-words distance (not the engine's path)."""
    from rapidfuzz.distance import Levenshtein

    wa, wb = normalized_words(a), normalized_words(b)
    longer = max(len(wa), len(wb))
    return 1.0 if longer == 0 else 1.0 - Levenshtein.distance(wa, wb) / longer


def test_dedup_edit_reference_distance_is_the_textbook_one():
    rng = random.Random(2)
    words = prose_words()[:50]
    for _ in range(200):
        a = [rng.choice(words) for _ in range(rng.randint(0, 25))]
        b = [rng.choice(words) for _ in range(rng.randint(0, 25))]
        assert similarity(" ".join(a), " ".join(b)) == (
            1.0
            if not (a or b)
            else 1.0 - levenshtein(normalized_words(" ".join(a)), normalized_words(" ".join(b))) / max(len(a), len(b))
        )


def brute_force(texts: list[str], threshold: float) -> tuple[list[int], list[DuplicatePair]]:
    """The definition: each text against every kept one, first kept wins."""
    kept: list[int] = []
    pairs: list[DuplicatePair] = []
    for i, text in enumerate(texts):
        twin = next((k for k in kept if normalized_words(texts[k]) == normalized_words(text)), None)
        if twin is not None:
            pairs.append(DuplicatePair(twin, i, 1.0, "exact"))
            continue
        best = max(((similarity(texts[k], text), -k) for k in kept), default=(-1.0, 0))
        if best[0] >= threshold:
            pairs.append(DuplicatePair(-best[1], i, best[0], "near"))
            continue
        kept.append(i)
    return kept, pairs


def test_dedup_edit_two_words_edited_in_thirty_is_0_933_at_any_length():
    assert len(THIRTY) == 30
    edited = list(THIRTY)
    edited[3], edited[20] = "monthly", "support"
    assert word_similarity(" ".join(THIRTY), " ".join(edited)) == 1 - 2 / 30 == 0.9333333333333333
    assert word_similarity(" ".join(THIRTY * 5), " ".join(edited * 5)) == 0.9333333333333333
    inserted = THIRTY[:10] + ["really", "truly"] + THIRTY[10:]
    assert word_similarity(" ".join(THIRTY), " ".join(inserted)) == 1 - 2 / 32


def test_dedup_edit_similarity_edges():
    assert word_similarity("", "") == 1.0
    assert word_similarity("", "one") == 0.0
    assert word_similarity("a b c d", "d c b a") == 0.0  # nothing matches in order
    assert word_similarity("Hello   WORLD", "hello world") == 1.0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("caf\u00e9 na\u00efve r\u00e9sum\u00e9", "cafe\u0301 nai\u0308ve re\u0301sume\u0301"),  # NFC vs NFD
        ("refund policy applies", "re\u200bfund po\u200blicy applies"),  # zero-width spaces
        ("order 2024 shipped in 12 days", "order \uff12\uff10\uff12\uff14 shipped in \uff11\uff12 days"),  # full width
        ("pay within 30 days", "\u200epay within \u200f30 days\u2069"),  # bidi marks
        ("Stra\u00dfe closed today", "STRASSE closed today"),  # case folding
        ("the soft\u00adhyphen word", "the softhyphen word"),  # soft hyphen (Cf)
    ],
)
def test_dedup_edit_unicode_copies_are_exact_duplicates(a, b):
    outcome = find_duplicates([a, b], 0.85)
    assert outcome.kept == [0]
    assert outcome.pairs == [DuplicatePair(0, 1, 1.0, "exact")]


def test_dedup_edit_unicode_copies_stay_different_in_seed_mode():
    nfc, nfd = "caf\u00e9 na\u00efve r\u00e9sum\u00e9 here", "cafe\u0301 nai\u0308ve re\u0301sume\u0301 here"
    assert find_duplicates([nfc, nfd], 0.85, SEED_MEASURE).kept == [0, 1]


def test_dedup_edit_text_is_shown_and_cited_as_given():
    nfd = "Cafe\u0301 opening hours are nine to five on weekdays, closed on public holidays."
    zwsp = nfd.replace(" ", " \u200b")
    docs = [Document(nfd, 0.9, "nfd.md"), Document(zwsp, 0.8, "zwsp.md")]
    result = ContextManager().build(PromptRequest("hours", docs))
    assert [d.content for d in result.included_docs] == [nfd]
    assert nfd in result.context_block and "\u0301" in result.context_block
    assert result.citation_map == {1: "nfd.md"}
    assert result.trace[1].fate == "duplicate" and result.trace[1].similarity == 1.0
    assert "Unicode forms" in result.trace[1].reason


def test_dedup_edit_threshold_is_inclusive_and_first_kept_wins():
    base = "one two three four five six seven eight nine ten"
    one_edit = base.replace("five", "FIVE!")  # 1 edit in 10 words: 0.9 exactly
    assert find_duplicates([base, one_edit], 0.9).pairs == [DuplicatePair(0, 1, 0.9, "near")]
    assert find_duplicates([base, one_edit], 0.91).kept == [0, 1]
    two_edits = one_edit.replace("six", "6")
    # the copy with two edits is 0.9 from the one-edit copy, which was dropped: only kept ones count
    outcome = find_duplicates([base, one_edit, two_edits], 0.9)
    assert outcome.kept == [0, 2]
    assert outcome.pairs == [DuplicatePair(0, 1, 0.9, "near")]


def test_dedup_edit_names_the_most_similar_kept_document_earliest_on_a_tie():
    x = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    y = "one two three four epsilon zeta eta theta iota kappa"  # 0.6 from x: both kept at 0.8
    closer = "one two three delta epsilon zeta eta theta iota lambda"  # 0.6 from x, 0.8 from y
    between = "one two gamma delta epsilon zeta eta theta iota kappa"  # 0.8 from x and from y
    outcome = find_duplicates([x, y, closer, between], 0.8)
    assert outcome.kept == [0, 1]
    assert outcome.pairs == [DuplicatePair(1, 2, 0.8, "near"), DuplicatePair(0, 3, 0.8, "near")]


def test_dedup_edit_bad_measure_names_the_field():
    with pytest.raises(InvalidInputError, match="dedup_measure must be one of word_edit, shingle_jaccard"):
        find_duplicates(["a"], 0.5, "minhash")
    with pytest.raises(InvalidInputError, match="dedup_measure"):
        ContextManager(dedup_measure="cosine")


def test_dedup_edit_manager_default_and_seed_mode_measures():
    note = (
        "Parental leave: employees may take up to sixteen weeks of paid leave after the birth or "
        "adoption of a child, to be taken within the first year."
    )
    copy = note.replace("sixteen", "16").replace("paid leave", "fully paid leave").replace("first", "1st")
    docs = [Document(note, 0.9, "leave.md"), Document(copy, 0.8, "leave-copy.md")]
    request = PromptRequest("leave", docs)
    default, seed = ContextManager(), ContextManager.seed_compatible()
    assert (default.dedup_measure, seed.dedup_measure) == (DEFAULT_MEASURE, SEED_MEASURE)
    assert [t.fate for t in default.build(request).trace] == ["included", "duplicate"]
    assert default.build(request).trace[1].similarity == 1 - 3 / 28  # two replaced, one inserted
    assert [t.fate for t in seed.build(request).trace] == ["included", "included"]
    assert ContextManager.seed_compatible(dedup_measure=DEFAULT_MEASURE).build(request).duplicates_removed == 1


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.85, 0.95, 1.0])
def test_dedup_edit_filter_matches_brute_force_on_real_text(threshold):
    texts = overlapping_chunks(prose_words(), size=40, stride=30, seed=5)[:120]
    assert len(texts) >= 100  # the filtered path (the scan is for fewer than 40 texts)
    outcome = find_duplicates(texts, threshold)
    kept, pairs = brute_force(texts, threshold)
    assert threshold == 1.0 or any(p.kind == "near" for p in pairs)
    assert (outcome.kept, outcome.pairs) == (kept, pairs)


@pytest.mark.slow
def test_dedup_edit_finds_every_near_copy_at_the_threshold():
    rng = random.Random(9)
    vocab = prose_words()[:300]
    texts = []
    for _ in range(150):
        words = [rng.choice(vocab) for _ in range(rng.randint(1, 60))]
        texts.append(" ".join(words))
        for _ in range(rng.randint(0, 2)):  # copies with insertions, deletions and replacements
            edited = list(words)
            for _ in range(rng.randint(1, 6)):
                op, at = rng.random(), rng.randrange(len(edited) + 1)
                if op < 0.4 and at < len(edited):
                    edited[at] = rng.choice(vocab)
                elif op < 0.7:
                    edited.insert(at, rng.choice(vocab))
                elif at < len(edited):
                    del edited[at]
            texts.append(" ".join(edited))
    for threshold in (0.75, 0.85, 0.95):
        outcome = find_duplicates(texts, threshold)
        kept, pairs = brute_force(texts, threshold)
        assert sum(p.kind == "near" for p in pairs) > 20
        assert (outcome.kept, outcome.pairs) == (kept, pairs)


@pytest.mark.slow
def test_dedup_edit_format_characters_all_lie_in_the_planes_scanned():
    every = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}
    assert every == format_characters()
    assert {ord(c) >> 16 for c in every} <= set(FORMAT_PLANES)
    assert {"\u200b", "\u200d", "\u200e", "\u202e", "\u2069", "\ufeff", "\u00ad"} <= every


def test_dedup_edit_a_text_of_printable_lines_has_no_format_character():
    # normalized_text skips the membership scan on such a text: every format character is
    # unprintable, and none is a line break splitlines() would take out.
    from contextlab.stages.dedup.edit_measure import normalized_text

    every = format_characters()
    assert not any(c.isprintable() for c in every)
    assert not any(len(f"a{c}b".splitlines()) > 1 for c in every)
    assert normalized_text("caf\u00e9\nsoft\u00adhyphen\r\nzero\u200bwidth") == "café\nsofthyphen\r\nzerowidth"
    assert normalized_text("caf\u00e9\nplain line\u2028next") == "café\nplain line\u2028next"


def test_dedup_edit_word_diff_marks_the_words_that_differ_as_given():
    diff = word_diff("Refunds take THIRTY days to arrive", "Refunds take\u200b thirty business days to arrive")
    assert diff.first == [
        ("Refunds", False),
        ("take", False),
        ("THIRTY", False),
        ("days", False),
        ("to", False),
        ("arrive", False),
    ]
    assert diff.second == [
        ("Refunds", False),
        ("take\u200b", False),
        ("thirty", False),
        ("business", True),
        ("days", False),
        ("to", False),
        ("arrive", False),
    ]
    assert (diff.edits, diff.similarity) == (1, 1 - 1 / 7)
    replaced = word_diff("a b c", "a x c")
    assert replaced.first == [("a", False), ("b", True), ("c", False)] and replaced.edits == 1


def test_dedup_edit_near_misses_are_the_kept_pairs_just_below_the_threshold():
    base = "one two three four five six seven eight nine ten"
    texts = [
        base,
        base.replace("two", "2"),
        base.replace("two", "2").replace("six", "6"),
        base.replace("one", "1").replace("two", "2").replace("three", "3").replace("four", "4"),
        "something else entirely",
    ]
    # at 0.95 nothing is dropped; 0.9, 0.8 and 0.6 from the first are below it
    misses = near_misses(texts, 0.95)
    assert [(m.first_index, m.second_index, m.similarity) for m in misses][:3] == [
        (0, 1, 0.9),
        (1, 2, 0.9),
        (0, 2, 0.8),
    ]
    assert all(0.8 <= m.similarity < 0.95 for m in misses)
    assert near_misses(texts, 0.85) == [m for m in near_misses(texts, 0.85) if m.similarity < 0.85]
    # at 0.85 text 1 (0.9 from text 0) is dropped; of the kept, only (0, 2) at 0.8 is within 0.1
    assert [(m.first_index, m.second_index) for m in near_misses(texts, 0.85, margin=0.1)] == [(0, 2)]


def test_dedup_edit_similarity_matrix_is_the_measure():
    m = similarity_matrix(["a b c d", "a b x d", "q"])
    assert m == [[1.0, 0.75, 0.0], [0.75, 1.0, 0.0], [0.0, 0.0, 1.0]]


def test_dedup_edit_low_thresholds_give_the_definitions_answer():
    texts = overlapping_chunks(prose_words(), size=30, stride=20, seed=4)[:90]
    for threshold in (0.3, 0.6):
        outcome = find_duplicates(texts, threshold)
        assert (outcome.kept, outcome.pairs) == brute_force(texts, threshold)
