"""What the default dedup compares: a text's words once normalised.

Normalising folds the ways one text can be written differently without a reader seeing it:
Unicode compatibility forms (NFKC: NFC and NFD spellings, full-width digits and letters,
ligatures), format characters (Unicode category Cf: zero-width spaces and joiners, bidi
marks, soft hyphens), letter case (``str.casefold``) and whitespace (any run of it, and at the
ends, is one word break). Only the comparison sees the normalised words; documents are shown,
counted and cited as given.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["normalized_words", "normalized_text", "format_characters", "FORMAT_PLANES"]

#: The Unicode planes that hold format characters (the Basic and Supplementary Multilingual
#: Planes, and plane 14's tags); a test checks no other plane of this Python's Unicode has one.
FORMAT_PLANES = (0, 1, 14)


@lru_cache(maxsize=1)
def _format_table() -> dict[int, None]:
    """Return a ``str.translate`` table deleting every character of category Cf (built on first use)."""
    return {
        c: None
        for plane in FORMAT_PLANES
        for c in range(plane << 16, (plane + 1) << 16)
        if unicodedata.category(chr(c)) == "Cf"
    }


@lru_cache(maxsize=1)
def format_characters() -> frozenset[str]:
    """Return every character of Unicode category Cf (format): all removed before comparing."""
    return frozenset(map(chr, _format_table()))


def normalized_text(text: str) -> str:
    """Return ``text`` with format characters removed, NFKC-normalised and case-folded.

    Casefolding can leave text that is not NFKC again (and NFKC can expose new case), so the
    fold is wrapped in NFKC on both sides, as Unicode's NFKC_Casefold is. Pure ASCII has no
    format characters and is its own NFKC, so it only needs ``lower``.
    """
    if text.isascii():
        return text.lower()
    # Every format character is unprintable and none breaks a line, so a text whose lines are
    # all printable has none (one C scan); else a membership scan, far cheaper than translate
    # (or a regex) on text with none in it. Checking a text is NFKC already is cheaper than
    # normalising it (most text is).
    clean = all(map(str.isprintable, text.splitlines())) or format_characters().isdisjoint(text)
    stripped = text if clean else text.translate(_format_table())
    return _nfkc(_nfkc(stripped).casefold())


def _nfkc(text: str) -> str:
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


def normalized_words(text: str) -> list[str]:
    """Return the words of ``normalized_text(text)``, split on any whitespace (``str.split``)."""
    return normalized_text(text).split()
