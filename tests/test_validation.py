"""The shared value checks: each returns the value or raises an error naming the field."""

from __future__ import annotations

import math
import re

import pytest

from contextlab.errors import InvalidInputError, LoadError
from contextlab.types import Document, document_list
from contextlab.validation import (
    finite_number,
    fraction,
    is_finite_number,
    message_value,
    one_of,
    text,
    whole_number,
)


def test_validation_whole_number_returns_value():
    assert whole_number("n", 0) == 0
    assert whole_number("n", -3, minimum=None) == -3
    assert whole_number("n", 7, minimum=7) == 7


@pytest.mark.parametrize(
    ("value", "kwargs", "match"),
    [
        (1.5, {}, r"n must be a whole number, got 1\.5"),
        (True, {}, r"n must be a whole number, got True"),
        ("3", {}, r"n must be a whole number, got '3'"),
        (-1, {}, r"n must be a whole number >= 0, got -1"),
        (0, {"minimum": 1}, r"n must be a whole number >= 1, got 0"),
    ],
)
def test_validation_whole_number_rejects(value, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        whole_number("n", value, **kwargs)


def test_validation_finite_number_returns_float():
    assert finite_number("x", 3) == 3.0 and isinstance(finite_number("x", 3), float)
    assert finite_number("x", 0.5, minimum=0, maximum=1) == 0.5


@pytest.mark.parametrize(
    ("value", "kwargs", "match"),
    [
        (math.nan, {}, r"x must be a finite number, got nan"),
        (math.inf, {}, r"x must be a finite number, got inf"),
        (False, {}, r"x must be a number, got bool False"),
        ("1", {}, r"x must be a number, got str '1'"),
        (-0.5, {"minimum": 0}, r"x must be >= 0, got -0\.5"),
        (2, {"maximum": 1}, r"x must be <= 1, got 2"),
    ],
)
def test_validation_finite_number_rejects(value, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        finite_number("x", value, **kwargs)


def test_validation_fraction_bounds():
    assert fraction("t", 1) == 1.0
    assert fraction("t", 0, allow_zero=True) == 0.0
    with pytest.raises(InvalidInputError, match=r"t must be in \(0, 1\] \(why\), got 0"):
        fraction("t", 0, hint="why")
    for bad in (1.01, -0.1, math.nan, None, True):
        with pytest.raises(InvalidInputError, match=r"t must be in \(0, 1\]"):
            fraction("t", bad)
    with pytest.raises(InvalidInputError, match=r"t must be in \[0, 1\]"):
        fraction("t", 2, allow_zero=True)


def test_validation_one_of_lists_choices():
    assert one_of("colour", "red", ("red", "blue")) == "red"
    with pytest.raises(InvalidInputError, match=r"unknown colour 'green'; choose one of: red, blue"):
        one_of("colour", "green", ("red", "blue"))
    with pytest.raises(InvalidInputError, match="unknown colour"):
        one_of("colour", ["unhashable"], ("red",))


def test_validation_text():
    assert text("q", "") == ""
    assert text("q", None, optional=True) is None
    with pytest.raises(InvalidInputError, match="q must be a string, got int"):
        text("q", 3)
    with pytest.raises(InvalidInputError, match="q must be a string or None, got bytes"):
        text("q", b"x", optional=True)


def test_validation_error_subclass_is_raised():
    with pytest.raises(LoadError):
        whole_number("max_bytes", 0, minimum=1, error=LoadError)
    with pytest.raises(LoadError):
        one_of("format", "xml", ("json",), error=LoadError)


def test_validation_is_finite_number():
    assert is_finite_number(1) and is_finite_number(-2.5)
    assert not any(is_finite_number(v) for v in (True, math.nan, -math.inf, "1", None))


def test_validation_document_list_accepts_good_documents():
    docs = [Document("a"), Document("b", 0.2, "s", {"k": 1}, timestamp=1.0)]
    assert document_list(docs) is docs
    assert document_list(()) == ()


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("not a list", r"documents must be a list of Document, got str"),
        ([Document("a"), "b"], r"documents\[1\] must be a Document, got str"),
        ([Document(3)], r"documents\[0\]\.content must be a string, got int"),
        ([Document("a", score=math.nan)], r"documents\[0\]\.score must be a finite number"),
        ([Document("a", importance=math.inf)], r"documents\[0\]\.importance must be a finite number"),
        ([Document("a", timestamp=math.nan)], r"documents\[0\]\.timestamp must be a finite number"),
        ([Document("a", source=5)], r"documents\[0\]\.source must be a string or None, got int"),
        ([Document("a", metadata=[])], r"documents\[0\]\.metadata must be a dict, got list"),
    ],
)
def test_validation_document_list_names_the_document(value, match):
    with pytest.raises(InvalidInputError, match=match):
        document_list(value)


def test_validation_document_list_uses_the_given_name():
    with pytest.raises(InvalidInputError, match=r"docs\[0\] must be a Document"):
        document_list([1], name="docs")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("abc", "'abc'"),
        ("9" * 400, "'99999999999999999...999999999999999999' (400 characters)"),
        (10**40, "1000000000000...00000000000000 (41 digits)"),
        (10**5000, "a number of about 5,000 digits"),  # repr() itself refuses such an int
        ([1] * 10, "[1, 1, 1, 1, ...]"),
        (0.5, "0.5"),
    ],
    ids=["short-text", "long-text", "long-int", "huge-int", "list", "float"],
)
def test_validation_message_value_shortens_long_values_with_reprlib(value, shown):
    assert message_value(value) == shown


def test_validation_errors_carry_the_field_and_start_with_it():
    with pytest.raises(InvalidInputError) as caught:
        whole_number("max_context_tokens", -1)
    assert caught.value.field == "max_context_tokens"
    assert str(caught.value).startswith("max_context_tokens must be a whole number >= 0")


@pytest.mark.parametrize(
    ("word", "value"),
    [
        ("true", True),
        (" Yes ", True),
        ("ON", True),
        ("1", True),
        ("false", False),
        ("no", False),
        ("Off", False),
        ("0", False),
    ],
)
def test_validation_boolean_word_is_the_one_reading_of_true_and_false(word, value):
    from contextlab.validation import boolean_word

    assert boolean_word("seed_compatible", word) is value


def test_validation_boolean_word_names_the_field_and_the_words_it_takes():
    from contextlab.lab.config import LabConfig
    from contextlab.validation import boolean_word

    with pytest.raises(
        InvalidInputError,
        match=r"^grid seed_compatible: 'maybe' is not true or false "
        r"\(true/false, yes/no, on/off, 1/0\)$",
    ):
        boolean_word("grid seed_compatible", "maybe")
    # the lab's links and the grids read the same words
    assert LabConfig.from_query_params({"seed_compatible": "on"}) == (LabConfig(seed_compatible=True), [])
    config, warnings = LabConfig.from_query_params({"seed_compatible": "maybe"})
    assert config == LabConfig() and warnings == [
        "ignored URL parameter seed_compatible='maybe': seed_compatible: 'maybe' is not true or false "
        "(true/false, yes/no, on/off, 1/0)"
    ]


# -- integers read from text ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "kwargs", "expected"),
    [
        ("42", {}, 42),
        (" 7 ", {}, 7),
        ("-3", {}, -3),
        ("0", {"low": 0}, 0),
        ("65535", {"low": 1, "high": 65535}, 65535),
        ("9" * 20, {}, 99999999999999999999),
    ],
)
def test_validation_parse_int_reads_ascii_digits(written, kwargs, expected):
    from contextlab.validation import parse_int

    assert parse_int(written, field="n", **kwargs) == expected


@pytest.mark.parametrize(
    ("written", "kwargs", "message"),
    [
        ("\u00b2", {}, "n must be a whole number of at most 20 digits, got '\u00b2'"),
        ("\u0663", {"low": 0}, "n must be a whole number >= 0, got '\u0663'"),
        ("", {"low": 1, "high": 9}, "n must be a whole number from 1 to 9, got ''"),
        ("1.5", {"high": 9}, "n must be a whole number from 0 to 9, got '1.5'"),
        ("10", {"low": 1, "high": 9}, "n must be a whole number from 1 to 9, got '10'"),
        ("-1", {"low": 0}, "n must be a whole number >= 0, got '-1'"),
        ("--1", {}, "n must be a whole number of at most 20 digits, got '--1'"),
        ("1" * 21, {}, "n must be a whole number of at most 20 digits, got '111111111111111111111'"),
        (
            "1" * 5000,
            {"low": 1, "high": 9},
            "n must be a whole number from 1 to 9, got '11111111111111111...111111111111111111' (5,000 characters)",
        ),
    ],
)
def test_validation_parse_int_refuses_what_is_not_ascii_digits_naming_the_field(written, kwargs, message):
    from contextlab.validation import parse_int

    with pytest.raises(InvalidInputError, match="^" + re.escape(message) + "$") as caught:
        parse_int(written, field="n", **kwargs)
    assert caught.value.field == "n"
    with pytest.raises(LoadError):
        parse_int(written, field="n", error=LoadError, **kwargs)
