"""The adversarial corpora of ``bench_dedup.py --adversarial``: each a list of texts, made the
same way every time (seeded), from a vocabulary of 65,536 made-up words ("kalomi", "tuvesa").

- ``templated-8`` / ``templated-20``: records that differ in one word (the record number),
  every one a near copy of the first (0.875 / 0.95): one text kept, n - 1 dropped;
- ``identical``: one 150-word text n times (exact duplicates);
- ``distinct``: texts of 150 words drawn at random, no 3-word run shared by two places in the
  corpus (checked, and redrawn until true): nothing to find, the baseline the others are held to;
- ``long-1pct``: 1,000 texts of 10,000 words, each a copy of one base text with 1 % of its
  words replaced at random (all near copies of the first);
- ``mixed``: texts of 5 to 5,000 words (log-uniform: as many of 5-50 as of 500-5,000), a fifth
  of them near copies of an earlier one (1 to 5 % of their words inserted, deleted or replaced);
- ``distinct-mixed``: texts of the lengths of ``mixed``'s, in order, that share no 3-word run:
  the all-distinct corpus of the same size (46 million words, where ``distinct`` has 9.6
  million), the control ``mixed`` is held to word for word;
- ``mixed-150``: ``mixed`` with lengths of 5 to 5,000 words drawn heavy-tailed (a power law
  whose mean is 150 words: most texts short, a few long, as retrieved chunks of mixed sources
  are), so it holds ``distinct``'s 9.6 million words and is held to ``distinct`` like with like.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"][:64]  # 64 syllables
VOCABULARY = [a + b + c for a in SYLLABLES[:64] for b in SYLLABLES[:32] for c in SYLLABLES[:32]]  # 65,536


def templated_8(n: int) -> list[str]:
    """Return n records of 8 words that differ in one."""
    return [f"short doc {i} about refunds and billing item" for i in range(n)]


def templated_20(n: int) -> list[str]:
    """Return n records of 20 words that differ in one."""
    return [
        f"order {i} for the customer account was billed on the first day of the month and paid in full today"
        for i in range(n)
    ]


def _words(ids: np.ndarray) -> str:
    return " ".join(VOCABULARY[i] for i in ids.tolist())


def identical(n: int) -> list[str]:
    """Return one 150-word text n times."""
    text = _words(np.random.default_rng(1).integers(0, len(VOCABULARY), 150))
    return [text] * n


def _no_shared_runs(ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return ``ids`` (texts x words) with words redrawn until no 3-word run occurs twice."""
    v = len(VOCABULARY)
    while True:
        runs = (ids[:, :-2] * v + ids[:, 1:-1]) * v + ids[:, 2:]
        flat = runs.ravel()
        order = np.argsort(flat, kind="stable")
        again = np.zeros(flat.size, dtype=bool)
        again[order[1:]] = flat[order[1:]] == flat[order[:-1]]  # every occurrence after the first
        if not again.any():
            return ids
        text, at = np.divmod(np.flatnonzero(again), runs.shape[1])
        ids[text, at + 1] = rng.integers(0, v, text.size)


def distinct(n: int) -> list[str]:
    """Return n texts of 150 random words sharing no 3-word run."""
    rng = np.random.default_rng(2)
    ids = _no_shared_runs(rng.integers(0, len(VOCABULARY), (n, 150)), rng)
    return [_words(row) for row in ids]


def long_1pct(n: int) -> list[str]:
    """Return n texts of 10,000 words, each the base text with 1 % of its words replaced."""
    rng = np.random.default_rng(3)
    base = rng.integers(0, len(VOCABULARY), 10_000)
    out = []
    for _ in range(n):
        copy = base.copy()
        at = rng.choice(base.size, base.size // 100, replace=False)
        copy[at] = rng.integers(0, len(VOCABULARY), at.size)
        out.append(_words(copy))
    return out


def _edited(words: list[str], share: float, rng: random.Random) -> list[str]:
    """Return ``words`` with about ``share`` of them inserted, deleted or replaced at random."""
    edited = list(words)
    for _ in range(max(1, round(share * len(words)))):
        at, op = rng.randrange(len(edited) + 1), rng.random()
        if op < 0.4 and at < len(edited):
            edited[at] = rng.choice(VOCABULARY)
        elif op < 0.7 or at == len(edited):
            edited.insert(at, rng.choice(VOCABULARY))
        elif len(edited) > 1:
            del edited[at]
    return edited


def mixed(n: int) -> list[str]:
    """Return n texts of 5 to 5,000 words (log-uniform), a fifth of them near copies of an
    earlier one."""
    np_rng = np.random.default_rng(4)
    return _mixed(np.exp(np_rng.uniform(math.log(5), math.log(5000), n)).astype(int), random.Random(4), np_rng)


def _power_law(n: int, low: float, high: float, mean: float, rng: np.random.Generator) -> np.ndarray:
    """Return n lengths from ``low`` to ``high`` with density proportional to length**-a, the
    exponent a (between 1 and 2) found so that the mean is ``mean``."""

    def mean_of(a: float) -> float:
        return (1 - a) / (2 - a) * (high ** (2 - a) - low ** (2 - a)) / (high ** (1 - a) - low ** (1 - a))

    lo_a, hi_a = 1.01, 1.99  # the mean falls as the exponent grows
    for _ in range(60):
        a = (lo_a + hi_a) / 2
        lo_a, hi_a = (a, hi_a) if mean_of(a) > mean else (lo_a, a)
    u = rng.uniform(0, 1, n)  # the inverse of the distribution function
    return (low ** (1 - a) + u * (high ** (1 - a) - low ** (1 - a))) ** (1 / (1 - a))


def mixed_150(n: int) -> list[str]:
    """Return n texts of 5 to 5,000 words, 150 on average (a power law), a fifth of them near
    copies of an earlier one."""
    np_rng = np.random.default_rng(6)
    return _mixed(np.rint(_power_law(n, 5, 5000, 150, np_rng)).astype(int), random.Random(6), np_rng)


def _mixed(lengths: np.ndarray, rng: random.Random, np_rng: np.random.Generator) -> list[str]:
    """Return texts of ``lengths`` words, a fifth of them near copies of an earlier one (1 to
    5 % of their words inserted, deleted or replaced: their lengths move a little)."""
    out: list[str] = []
    for i, length in enumerate(lengths.tolist()):
        if out and rng.random() < 0.2:
            out.append(" ".join(_edited(out[rng.randrange(i)].split(), rng.uniform(0.01, 0.05), rng)))
        else:
            out.append(_words(np_rng.integers(0, len(VOCABULARY), length)))
    return out


def distinct_mixed(n: int) -> list[str]:
    """Return n texts of the lengths of ``mixed(n)``'s, sharing no 3-word run."""
    lengths = np.array([len(t.split()) for t in mixed(n)])
    rng = np.random.default_rng(5)
    # One stream of words with no 3-word run twice, cut at the lengths: a text's runs are the
    # stream's.
    stream = _no_shared_runs(rng.integers(0, len(VOCABULARY), (1, int(lengths.sum()))), rng)[0]
    ends = np.cumsum(lengths)
    return [_words(stream[end - length : end]) for end, length in zip(ends.tolist(), lengths.tolist(), strict=False)]


#: name -> (maker, documents at full size)
CORPORA: dict[str, tuple[Callable[[int], list[str]], int]] = {
    "templated-8": (templated_8, 64000),
    "templated-20": (templated_20, 64000),
    "identical": (identical, 64000),
    "distinct": (distinct, 64000),
    "long-1pct": (long_1pct, 1000),
    "mixed": (mixed, 64000),
    "distinct-mixed": (distinct_mixed, 64000),
    "mixed-150": (mixed_150, 64000),
}
