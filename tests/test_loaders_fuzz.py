"""Fuzzing every loader entry point: random bytes, random JSON values and random CSV.

The contract: each call returns a list of non-blank ``Document`` objects or raises the
project's own error (a ``ContextLabError``), never anything else (no ``TypeError``,
``RecursionError``, ``UnicodeError``, ``csv.Error``, bare ``ValueError``...).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextlab.errors import ContextLabError
from contextlab.loaders import SUPPORTED_EXTENSIONS, documents_from_records, load_bytes, load_file, parse_pasted
from contextlab.types import Document

FILENAMES = [f"input{ext}" for ext in SUPPORTED_EXTENSIONS]
FORMATS = [None, "auto", "json", "jsonl", "csv", "txt", "md"]
FIELDS = [
    "content",
    "text",
    "page_content",
    "Content",
    "score",
    "source",
    "url",
    "file_name",
    "metadata",
    "node",
    "timestamp",
    "importance",
    "lc",
    "kwargs",
    "documents",
    "results",
    "id_",
    "x",
]
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_documents_or_own_error(call: Callable[[], Any]) -> None:
    """Run ``call``: it must return non-blank Documents or raise a ContextLabError."""
    try:
        docs = call()
    except ContextLabError as exc:
        assert str(exc).strip(), "an error must say something"
        return
    except Exception as exc:  # noqa: BLE001 - the point: nothing else may escape
        pytest.fail(f"{type(exc).__name__} escaped a loader: {exc!r}")
    assert isinstance(docs, list)
    for doc in docs:
        assert isinstance(doc, Document)
        assert isinstance(doc.content, str) and doc.content.strip()
        assert "\x00" not in doc.content
        assert doc.source is None or isinstance(doc.source, str)


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.integers(min_value=10**300, max_value=10**310)
)
JSON_VALUES = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=25,
)
# Records that look like what retrievers dump, so fuzzing reaches past the first checks.
RECORDS = st.one_of(
    JSON_VALUES,
    st.fixed_dictionaries(
        {"content": st.text(max_size=30) | _scalars},
        optional={k: JSON_VALUES for k in ("score", "source", "metadata", "timestamp", "importance", "node")},
    ),
    st.tuples(st.text(max_size=20) | JSON_VALUES, st.floats() | st.integers()).map(list),
)


# -- random bytes --------------------------------------------------------------------------


@FUZZ
@given(data=st.binary(max_size=400), filename=st.sampled_from(FILENAMES), fmt=st.sampled_from(FORMATS))
def test_load_bytes_random_bytes_give_documents_or_load_error(data: bytes, filename: str, fmt: str | None):
    assert_documents_or_own_error(lambda: load_bytes(data, filename, format=fmt))


@FUZZ
@given(
    text=st.text(max_size=300),
    filename=st.sampled_from(FILENAMES),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1"]),
)
def test_load_bytes_random_text_in_any_encoding(text: str, filename: str, encoding: str):
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("utf-8", "replace")
    assert_documents_or_own_error(lambda: load_bytes(data, filename))


@FUZZ
@given(data=st.binary(max_size=400), filename=st.sampled_from(FILENAMES))
def test_load_file_random_bytes_give_documents_or_load_error(tmp_path_factory, data: bytes, filename: str):
    path = tmp_path_factory.mktemp("fuzz") / filename
    path.write_bytes(data)
    assert_documents_or_own_error(lambda: load_file(path))


@FUZZ
@given(
    data=st.binary(min_size=1, max_size=200),
    max_bytes=st.integers(1, 250),
    max_documents=st.integers(1, 5),
    filename=st.sampled_from(FILENAMES),
)
def test_load_bytes_random_bytes_under_tight_limits(data: bytes, max_bytes: int, max_documents: int, filename: str):
    assert_documents_or_own_error(lambda: load_bytes(data, filename, max_bytes=max_bytes, max_documents=max_documents))


@FUZZ
@given(data=st.binary(max_size=60), max_bytes=st.integers(2**31 - 2, 2**80), filename=st.sampled_from(FILENAMES))
def test_load_bytes_huge_limits_are_accepted(data: bytes, max_bytes: int, filename: str):
    assert_documents_or_own_error(lambda: load_bytes(data, filename, max_bytes=max_bytes, max_documents=max_bytes))
    assert_documents_or_own_error(lambda: load_bytes(b"text\na\n", "x.csv", max_bytes=max_bytes))


@pytest.mark.parametrize("filename", FILENAMES)
def test_load_file_huge_limit_reads_only_the_file(tmp_path: Path, filename: str):
    # A buffered read(max_bytes + 1) would allocate the whole limit (or overflow) up front.
    path = tmp_path / filename
    path.write_bytes('[{"content": "a b c"}]'.encode("utf-16") if filename.endswith(".txt") else b'"x y"\n')
    assert_documents_or_own_error(lambda: load_file(path, max_bytes=2**62, max_documents=2**62))
    assert_documents_or_own_error(lambda: load_file(path, max_bytes=2**80))


@FUZZ
@given(text=st.text(max_size=300) | st.text(st.sampled_from('[]{}",:\n\r\t -#\x00\ufeffab1'), max_size=200))
def test_parse_pasted_random_text_gives_documents_or_load_error(text: str):
    assert_documents_or_own_error(lambda: parse_pasted(text))


@FUZZ
@given(
    value=st.one_of(
        st.integers(), st.binary(max_size=10), st.lists(st.text(max_size=3), max_size=3), st.none(), st.floats()
    ),
    entry=st.sampled_from(["bytes", "pasted", "records", "limits", "name", "file"]),
)
def test_every_entry_point_wrong_argument_types_are_own_errors(value: Any, entry: str):
    calls: dict[str, Callable[[], Any]] = {
        "bytes": lambda: load_bytes(value, "x.json"),
        "pasted": lambda: parse_pasted(value),
        "records": lambda: documents_from_records([value]),
        "limits": lambda: load_bytes(b"[]", "x.json", max_bytes=value),
        "name": lambda: load_bytes(b"text", value),
        "file": lambda: load_file(value),
    }
    assert_documents_or_own_error(calls[entry])


# -- random JSON values --------------------------------------------------------------------


@pytest.mark.slow
@FUZZ
@given(
    value=JSON_VALUES | st.lists(RECORDS, max_size=6),
    allow_nan=st.booleans(),
    filename=st.sampled_from(["x.json", "x.txt", "x.md"]),
    fmt=st.sampled_from([None, "auto", "json"]),
)
def test_load_bytes_random_json_values(value: Any, allow_nan: bool, filename: str, fmt: str | None):
    try:
        data = json.dumps(value, allow_nan=allow_nan).encode()
    except ValueError:
        data = json.dumps(value, allow_nan=True).encode()
    assert_documents_or_own_error(lambda: load_bytes(data, filename, format=fmt))


@pytest.mark.slow
@FUZZ
@given(records=st.lists(RECORDS, max_size=6), blank_lines=st.booleans())
def test_load_bytes_random_json_lines(records: list[Any], blank_lines: bool):
    sep = "\n\n" if blank_lines else "\n"
    data = sep.join(json.dumps(r) for r in records).encode()
    assert_documents_or_own_error(lambda: load_bytes(data, "x.jsonl"))
    assert_documents_or_own_error(lambda: parse_pasted(data.decode()))


@pytest.mark.slow
@FUZZ
@given(records=st.lists(RECORDS, max_size=6) | JSON_VALUES)
def test_documents_from_records_random_json_values(records: Any):
    if not isinstance(records, list):
        records = [records]
    assert_documents_or_own_error(lambda: documents_from_records(records))


@pytest.mark.parametrize("depth", [50, 5_000, 200_000])
@pytest.mark.parametrize("opener", ["[", '{"content": '])
def test_loaders_deeply_nested_json_is_own_error(depth: int, opener: str):
    data = (opener * depth).encode()
    assert_documents_or_own_error(lambda: load_bytes(data, "x.json"))
    assert_documents_or_own_error(lambda: load_bytes(data, "x.jsonl"))
    assert_documents_or_own_error(lambda: parse_pasted(data.decode()))


# -- random CSV ----------------------------------------------------------------------------


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    """Return CSV written by the csv module: random header, random cells, random dialect."""
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    header = draw(st.lists(st.sampled_from(FIELDS) | st.text(max_size=6), min_size=1, max_size=5))
    cell = st.text(max_size=15) | st.sampled_from(
        ["", " ", "0.5", "nan", "inf", "1e999", "2024-05-01T00:00:00Z", '{"source": "m"}', '{"a": [', '"', delimiter]
    )
    rows = draw(st.lists(st.lists(cell, max_size=len(header) + 2), max_size=6))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])))
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


@FUZZ
@given(data=csv_files(), filename=st.sampled_from(["x.csv", "x.tsv"]))
def test_load_bytes_random_csv(data: bytes, filename: str):
    assert_documents_or_own_error(lambda: load_bytes(data, filename))


@pytest.mark.slow
@FUZZ
@given(data=csv_files(), cut=st.integers(0, 400), junk=st.binary(max_size=4))
def test_load_bytes_random_csv_cut_and_spliced(data: bytes, cut: int, junk: bytes):
    spliced = data[:cut] + junk + data[cut:]
    assert_documents_or_own_error(lambda: load_bytes(spliced, "x.csv"))
    assert_documents_or_own_error(lambda: load_bytes(data[:cut], "x.csv"))


@FUZZ
@given(text=st.text(st.sampled_from("content,text\n\r\"';|\t ab\x00\u2028"), max_size=120))
def test_load_bytes_random_csv_like_text(text: str):
    assert_documents_or_own_error(lambda: load_bytes(text.encode("utf-8", "surrogatepass"), "x.csv"))


def test_load_file_random_csv_matches_load_bytes(tmp_path: Path):
    # The file path streams lines and the bytes path reads a buffer: same documents either way.
    data = b'content,source,score\n"multi\nline",a,0.5\r\nplain,b,\n\n"quoted ""x""",c,1\n'
    path = tmp_path / "x.csv"
    path.write_bytes(data)
    from_file = [(d.content, d.source, d.score) for d in load_file(path)]
    assert from_file == [(d.content, d.source, d.score) for d in load_bytes(data, "x.csv")]
    assert from_file == [("multi\nline", "a", 0.5), ("plain", "b", 1.0), ('quoted "x"', "c", 1.0)]
