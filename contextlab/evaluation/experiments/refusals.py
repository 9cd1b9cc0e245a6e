"""Whether an answer is a refusal: the phrases a model uses to say the documents do not hold the answer.

An answer abstains when, SQuAD-normalised (``models.scoring.normalize_answer``), it is empty or
contains one of ``REFUSAL_PHRASES`` (normalised the same way). The list is short and printed in
``contextlab curve --help`` and in every abstention file's header, so a reader knows what counted.
"""

from __future__ import annotations

from ...models.scoring import normalize_answer

__all__ = ["REFUSAL_PHRASES", "is_refusal", "refusal_phrases_text"]

#: What counts as "I do not know": each phrase anywhere in the normalised answer.
REFUSAL_PHRASES = (
    "i don't know",
    "i do not know",
    "cannot be determined",
    "can't be determined",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "none of the search results",
    "none of the documents",
    "not mentioned",
    "not stated",
    "not provided",
    "not in the documents",
    "not in the search results",
    "does not say",
    "doesn't say",
    "do not contain",
    "does not contain",
    "insufficient information",
    "not enough information",
)

_NORMALISED = tuple(normalize_answer(p) for p in REFUSAL_PHRASES)


def is_refusal(answer: str) -> bool:
    """Return True when ``answer`` says it does not know (empty, or holds a refusal phrase)."""
    said = normalize_answer(answer)
    if not said:
        return True
    padded = f" {said} "
    return any(f" {phrase} " in padded for phrase in _NORMALISED)


def refusal_phrases_text() -> str:
    """Return the refusal phrases as one line: ``"i don't know", "i do not know", ...``."""
    return ", ".join(f'"{p}"' for p in REFUSAL_PHRASES)
