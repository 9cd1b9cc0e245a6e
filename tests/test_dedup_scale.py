"""Dedup on inputs shaped to be slow: templates, copies, long texts, repeated words, odd Unicode."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import time

import pytest

from contextlab import ContextManager, Document, PromptRequest
from contextlab.stages.dedup import SEED_MEASURE, find_duplicates
from contextlab.types import DuplicatePair
from tests.test_dedup import prose_words

RECORD = "short doc {} about refunds and billing item"  # 8 words: one differs, 0.875 apart
FILLER = [" ".join(f"w{i}x{j}" for j in range(6)) for i in range(42)]  # no word in common


def test_dedup_scale_templated_records_keep_the_first_and_drop_the_rest():
    outcome = find_duplicates([RECORD.format(i) for i in range(3000)], 0.85)
    assert outcome.kept == [0]
    assert outcome.pairs[:2] == [DuplicatePair(0, 1, 0.875, "near"), DuplicatePair(0, 2, 0.875, "near")]
    assert len(outcome.pairs) == 2999


def test_dedup_scale_identical_texts_are_exact_copies_of_the_first():
    text = " ".join(prose_words()[:150])
    outcome = find_duplicates([text] * 5000, 0.85)
    assert outcome.kept == [0] and {p.kind for p in outcome.pairs} == {"exact"} and len(outcome.pairs) == 4999


def test_dedup_scale_templated_short_texts_keep_every_document():
    texts = [f"document {i} says little" for i in range(3000)]  # 0.75 apart: below the threshold
    docs = [Document(t, score=0.5) for t in texts]
    result = ContextManager(tokenizer="heuristic").build(PromptRequest("", docs, max_context_tokens=20))
    assert result.duplicates_removed == 0 and len(result.trace) == 3000


def test_dedup_scale_long_near_copies_are_measured_exactly():
    base = [f"w{i % 997}" for i in range(2000)]
    copy = list(base)
    for k in range(0, 2000, 50):  # 40 words replaced
        copy[k] = "other"
    outcome = find_duplicates([" ".join(base), " ".join(base[::-1]), " ".join(copy)], 0.85)
    assert outcome.kept == [0, 1]
    assert outcome.pairs == [DuplicatePair(0, 2, 0.98, "near")]


@pytest.mark.parametrize("measure", ["word_edit", SEED_MEASURE])
def test_dedup_scale_surrogate_halves_are_not_the_emoji_they_encode(measure):
    # "\ud83d\ude00" is how UTF-16 writes 😀: as Python text it is two other characters.
    emoji = "😀 one two three four five six seven eight nine"
    halves = emoji.replace("😀", "\ud83d\ude00")
    outcome = find_duplicates([*FILLER, emoji, halves], 0.5, measure)
    assert all(p.kind != "exact" for p in outcome.pairs)
    if measure == "word_edit":
        assert outcome.pairs == [DuplicatePair(42, 43, 0.9, "near")]
    else:  # 5-word shingles: the first holds the odd word, 5 of 7 shared
        assert outcome.pairs == [DuplicatePair(42, 43, 5 / 7, "near")]


@pytest.mark.slow
def test_dedup_scale_sixty_thousand_templated_records_take_seconds_not_minutes():
    """A generous bound for a loaded machine: quadratic work took 59 s for 8,000 records."""
    twenty = "order {} for the customer account was billed on the first day of the month and paid in full today"
    for template in (RECORD, twenty):
        texts = [template.format(i) for i in range(60_000)]
        started = time.perf_counter()
        outcome = find_duplicates(texts, 0.85)
        assert time.perf_counter() - started < 30
        assert outcome.kept == [0] and len(outcome.pairs) == 59_999


_LONG_PAIR = textwrap.dedent(
    """
    import json, random, resource, sys, time
    from contextlab.stages.dedup import find_duplicates
    size, kind = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(5)
    words = ["a"] * size if kind == "repeated" else [rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size)]
    copy = list(words)
    copy[size // 2] = "b" if kind == "repeated" else "Z"
    short = [" ".join(f"s{i}w{j}" for j in range(7)) for i in range(45)]
    texts = short[:20] + [" ".join(words)] + short[20:] + [" ".join(copy)]
    started = time.perf_counter()
    outcome = find_duplicates(texts, 0.85)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    pairs = [(p.kept_index, p.dropped_index, p.similarity, p.kind) for p in outcome.pairs]
    print(json.dumps({"seconds": seconds, "peak": peak, "pairs": pairs}))
    """
)


def _long_pair(size: int, kind: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", _LONG_PAIR, str(size), kind], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["letters", "repeated"])
def test_dedup_scale_two_long_texts_one_edit_apart_among_short_ones(kind):
    found = _long_pair(200_000, kind)
    assert found["pairs"] == [[20, 46, 1 - 1 / 200_000, "near"]]
    assert found["seconds"] < 60
    assert found["peak"] < 3 * 2**30


def test_dedup_scale_one_word_repeated_and_its_one_edit_copy():
    rng = random.Random(1)
    texts = [" ".join(rng.choice("xyz") for _ in range(30)) for _ in range(45)]
    texts.insert(10, " ".join(["w"] * 5000))
    texts.append(" ".join(["w"] * 2500 + ["v"] + ["w"] * 2499))
    outcome = find_duplicates(texts, 0.85)
    assert DuplicatePair(10, 46, 1 - 1 / 5000, "near") in outcome.pairs
