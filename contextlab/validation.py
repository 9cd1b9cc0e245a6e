"""The shared value checks: each returns the checked value or raises ``InvalidInputError``.

Every message names the field and quotes the bad value, so the caller can say what to fix.
``error=`` lets a caller raise a more specific subclass (``LoadError``, ``StoreError``, ...).
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Iterable
from typing import Literal, TypeVar, overload

from .errors import InvalidInputError

__all__ = [
    "whole_number",
    "finite_number",
    "fraction",
    "one_of",
    "text",
    "is_finite_number",
    "message_value",
    "TRUE_WORDS",
    "FALSE_WORDS",
    "boolean_word",
    "bool_text",
    "parse_int",
    "MAX_INT_DIGITS",
]

#: The words read as true and as false wherever text names a yes/no setting (a link, a grid, an option).
TRUE_WORDS: frozenset[str] = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS: frozenset[str] = frozenset({"0", "false", "no", "off"})

T = TypeVar("T")

# How much of a bad value a message quotes: enough to recognise it, never a wall of text.
_QUOTE = reprlib.Repr()
_QUOTE.maxstring = 40
_QUOTE.maxother = 40
_QUOTE.maxlong = 30
_QUOTE.maxlist = _QUOTE.maxtuple = _QUOTE.maxdict = _QUOTE.maxset = 4
# Beyond this many bits, even repr() of an int is refused (Python's int/str digit limit).
_HUGE_INT_BITS = 10_000
#: The most digits ``parse_int`` reads unless told: more than any count, port or index needs,
#: far below where ``int()`` grows slow or refuses (4,300 digits).
MAX_INT_DIGITS = 20


def message_value(value: object) -> str:
    """Return ``value`` as an error message quotes it: its repr, shortened when long (``reprlib``).

    A shortened text or number also says how long it was: ``'aaaa...aaaa' (400 characters)``.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > _HUGE_INT_BITS:
            return f"a number of about {int(value.bit_length() * math.log10(2)):,} digits"
        digits = len(str(abs(value)))
        shown = _QUOTE.repr(value)
        return shown if digits <= _QUOTE.maxlong else f"{shown} ({digits:,} digits)"
    shown = _QUOTE.repr(value)
    if isinstance(value, str) and len(value) > _QUOTE.maxstring:
        return f"{shown} ({len(value):,} characters)"
    return shown


def is_finite_number(value: object) -> bool:
    """Return True for an int or float (not a bool) that is neither NaN nor infinite."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def whole_number(
    name: str,
    value: object,
    *,
    minimum: int | None = 0,
    maximum: int | None = None,
    error: type[InvalidInputError] = InvalidInputError,
) -> int:
    """Return ``value`` when it is an int (not a bool) of at least ``minimum`` (at most ``maximum``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"{name} must be a whole number, got {message_value(value)}", field=name)
    if minimum is not None and value < minimum:
        raise error(f"{name} must be a whole number >= {minimum}, got {message_value(value)}", field=name)
    if maximum is not None and value > maximum:
        raise error(f"{name} must be a whole number <= {maximum:,}, got {message_value(value)}", field=name)
    return value


def finite_number(
    name: str,
    value: object,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    error: type[InvalidInputError] = InvalidInputError,
) -> float:
    """Return ``value`` as a float when it is a finite number within the given bounds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f"{name} must be a number, got {type(value).__name__} {message_value(value)}", field=name)
    if not math.isfinite(value):
        raise error(f"{name} must be a finite number, got {value!r}", field=name)
    if minimum is not None and value < minimum:
        raise error(f"{name} must be >= {minimum:g}, got {value!r}", field=name)
    if maximum is not None and value > maximum:
        raise error(f"{name} must be <= {maximum:g}, got {value!r}", field=name)
    return float(value)


def fraction(
    name: str,
    value: object,
    *,
    allow_zero: bool = False,
    hint: str = "",
    error: type[InvalidInputError] = InvalidInputError,
) -> float:
    """Return ``value`` as a float when it lies in (0, 1] (or [0, 1] with ``allow_zero``)."""
    low = "[0" if allow_zero else "(0"
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    if not (0 <= number <= 1 if allow_zero else 0 < number <= 1):  # nan is in no range
        extra = f" ({hint})" if hint else ""
        raise error(f"{name} must be in {low}, 1]{extra}, got {message_value(value)}", field=name)
    return float(number)


def one_of(name: str, value: T, choices: Iterable[T], *, error: type[InvalidInputError] = InvalidInputError) -> T:
    """Return ``value`` when it is one of ``choices``; the message lists them."""
    options = list(choices)
    if value not in options:
        listed = ", ".join(str(c) for c in options)
        raise error(f"unknown {name} {message_value(value)}; choose one of: {listed}", field=name)
    return value


@overload
def text(
    name: str, value: object, *, optional: Literal[False] = False, error: type[InvalidInputError] = ...
) -> str: ...
@overload
def text(name: str, value: object, *, optional: bool, error: type[InvalidInputError] = ...) -> str | None: ...
def text(
    name: str, value: object, *, optional: bool = False, error: type[InvalidInputError] = InvalidInputError
) -> str | None:
    """Return ``value`` when it is a string (or None with ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        kind = "a string or None" if optional else "a string"
        raise error(f"{name} must be {kind}, got {type(value).__name__}", field=name)
    return value


def boolean_word(name: str, value: object) -> bool:
    """Return the yes/no ``value`` (``TRUE_WORDS``/``FALSE_WORDS``, any case, spaces ignored) names.

    The one reading of true and false in text; anything else raises ``InvalidInputError``
    naming ``name``.
    """
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InvalidInputError(
        f"{name}: {message_value(value)} is not true or false (true/false, yes/no, on/off, 1/0)", field=name
    )


def bool_text(value: object) -> str:
    """Return ``value`` as files, links and labels write it: ``true``/``false`` for a bool, else ``str``."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def parse_int(
    text: str,
    *,
    field: str,
    low: int | None = None,
    high: int | None = None,
    max_digits: int = MAX_INT_DIGITS,
    error: type[InvalidInputError] = InvalidInputError,
) -> int:
    """Return the whole number ``text`` writes in ASCII digits, within [``low``, ``high``].

    The one reader of an integer from text (a file's cell, a link, an option, a file name):
    ``"²".isdigit()`` is True yet ``int("²")`` fails, and ``int("٣")`` is 3, so only ASCII
    ``0-9`` count, at most ``max_digits`` of them, after an optional ``-`` (spaces around are
    ignored). Anything else raises ``error`` naming ``field``.
    """
    written = text.strip() if isinstance(text, str) else ""
    digits = written.removeprefix("-")
    ok = 0 < len(digits) <= max_digits and digits.isascii() and digits.isdigit()
    value = (-int(digits) if written.startswith("-") else int(digits)) if ok else None
    if value is None or (low is not None and value < low) or (high is not None and value > high):
        if high is not None:
            wanted = f"a whole number from {low or 0:,} to {high:,}"
        elif low is not None:
            wanted = f"a whole number >= {low:,}"
        else:
            wanted = f"a whole number of at most {max_digits} digits"
        raise error(f"{field} must be {wanted}, got {message_value(text)}", field=field)
    return value
