"""Overflow summaries: a one-sentence extractive synopsis of a document that does not fit."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["extractive_synopsis", "split_sentences", "Summarizer"]

#: ``summarizer(text, query) -> synopsis``; plug in an LLM call here if you have one.
Summarizer = Callable[[str, str], str]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def split_sentences(text: str) -> list[str]:
    """Return the sentences of ``text`` (a simple punctuation rule; whitespace collapsed)."""
    flat = " ".join(text.split())
    if not flat:
        return []
    return [s for s in _SENTENCE_END.split(flat) if s]


def _terms(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


def extractive_synopsis(text: str, query: str = "") -> str:
    """Return the sentence of ``text`` that shares the most terms with ``query`` (else the first).

    Ties go to the earlier sentence, since documents tend to lead with their point.
    """
    sentences = split_sentences(text)
    if not sentences:
        return ""
    wanted = _terms(query)
    if not wanted:
        return sentences[0]
    best, best_hits = sentences[0], 0
    for sentence in sentences:
        hits = len(wanted & _terms(sentence))
        if hits > best_hits:
            best, best_hits = sentence, hits
    return best
