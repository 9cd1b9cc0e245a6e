"""The shared value checks: each returns the checked value or raises ``InvalidInputError``.

Every message names the field and quotes the bad value, so the caller can say what to fix.
``error=`` lets a caller raise a more specific subclass (``LoadError``, ``StoreError``, ...).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from .errors import InvalidInputError

__all__ = [
    "whole_number",
    "finite_number",
    "fraction",
    "one_of",
    "document_list",
    "text",
    "is_finite_number",
]

T = TypeVar("T")


def is_finite_number(value: object) -> bool:
    """Return True for an int or float (not a bool) that is neither NaN nor infinite."""
    return (not isinstance(value, bool) and isinstance(value, (int, float))
            and math.isfinite(value))


def whole_number(name: str, value: object, *, minimum: int | None = 0,
                 maximum: int | None = None,
                 error: type[InvalidInputError] = InvalidInputError) -> int:
    """Return ``value`` when it is an int (not a bool) of at least ``minimum`` (at most ``maximum``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"{name} must be a whole number, got {value!r}")
    if minimum is not None and value < minimum:
        raise error(f"{name} must be a whole number >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        shown = str(value) if len(str(value)) <= 30 else f"a {len(str(value))}-digit number"
        raise error(f"{name} must be a whole number <= {maximum:,}, got {shown}")
    return value


def finite_number(name: str, value: object, *, minimum: float | None = None,
                  maximum: float | None = None,
                  error: type[InvalidInputError] = InvalidInputError) -> float:
    """Return ``value`` as a float when it is a finite number within the given bounds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise error(f"{name} must be a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise error(f"{name} must be >= {minimum:g}, got {value!r}")
    if maximum is not None and value > maximum:
        raise error(f"{name} must be <= {maximum:g}, got {value!r}")
    return float(value)


def fraction(name: str, value: object, *, allow_zero: bool = False, hint: str = "",
             error: type[InvalidInputError] = InvalidInputError) -> float:
    """Return ``value`` as a float when it lies in (0, 1] (or [0, 1] with ``allow_zero``)."""
    low = "[0" if allow_zero else "(0"
    ok = is_finite_number(value) and (0 <= value <= 1 if allow_zero else 0 < value <= 1)  # type: ignore[operator]
    if not ok:
        extra = f" ({hint})" if hint else ""
        raise error(f"{name} must be in {low}, 1]{extra}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


def one_of(name: str, value: T, choices: Iterable[T], *,
           error: type[InvalidInputError] = InvalidInputError) -> T:
    """Return ``value`` when it is one of ``choices``; the message lists them."""
    options = list(choices)
    if value not in options:
        listed = ", ".join(str(c) for c in options)
        raise error(f"unknown {name} {value!r}; choose one of: {listed}")
    return value


def text(name: str, value: object, *, optional: bool = False,
         error: type[InvalidInputError] = InvalidInputError) -> str | None:
    """Return ``value`` when it is a string (or None with ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        kind = "a string or None" if optional else "a string"
        raise error(f"{name} must be {kind}, got {type(value).__name__}")
    return value


def document_list(value: object, *, name: str = "documents") -> Sequence[Any]:
    """Return ``value`` when it is a list or tuple of ``Document`` with usable fields.

    Each problem names the document's index: ``documents[3].score must be a finite number``.
    """
    from .types import Document

    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(f"{name} must be a list of Document, got {type(value).__name__}")
    for i, doc in enumerate(value):
        at = f"{name}[{i}]"
        if not isinstance(doc, Document):
            raise InvalidInputError(f"{at} must be a Document, got {type(doc).__name__}")
        text(f"{at}.content", doc.content)
        finite_number(f"{at}.score", doc.score)
        finite_number(f"{at}.importance", doc.importance)
        if doc.timestamp is not None:
            finite_number(f"{at}.timestamp", doc.timestamp)
        text(f"{at}.source", doc.source, optional=True)
        if not isinstance(doc.metadata, dict):
            raise InvalidInputError(f"{at}.metadata must be a dict, got {type(doc.metadata).__name__}")
    return value
