"""CSV and TSV: a header row naming a text column, then one document per row (read lazily)."""

from __future__ import annotations

import csv
import itertools
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import LoadError
from ..types import Document
from .json_input import MAX_JSON_DEPTH, nesting_depth
from .reading import shortened, too_many
from .records import TEXT_FIELDS, raise_missing_text, record_to_document

__all__ = ["parse_csv"]


def parse_csv(
    lines: Iterable[str], name: str, max_documents: int, *, max_bytes: int, tab: bool = False
) -> list[Document]:
    """Return one document per data row of the CSV ``lines`` (each line ending in ``"\\n"``)."""
    lines = iter(lines)
    skipped = 0
    first = next(lines, None)
    while first is not None and not first.strip():
        skipped += 1  # leading blank lines: counted, so error lines match the file
        first = next(lines, None)
    if first is None:
        raise LoadError(f"{name}: the file is empty; expected a header row naming a text column")
    # Long documents are long cells; the csv module's default cap (128 KiB) would reject them.
    csv.field_size_limit(max(csv.field_size_limit(), min(max_bytes + 1, sys.maxsize)))
    delimiter = "\t" if tab else _guess_delimiter(first)
    reader = csv.reader(itertools.chain([first], lines), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise LoadError(f"{name}: line {skipped + 1}: cannot read the header row ({exc})") from None
    header = _check_header(header, name, skipped + 1)
    docs: list[Document] = []
    missing: list[str] = []
    for line, row in _rows(reader, name, skipped):
        if len(row) > len(header):
            raise LoadError(
                f"{name}: line {line}: {len(row)} cells but the header has {len(header)} "
                "columns; quote cells that contain the delimiter"
            )
        if len(docs) + len(missing) >= max_documents:
            raise LoadError(too_many(name, max_documents))
        doc = record_to_document(_record(header, row), f"line {line}", name, missing, from_csv=True)
        if doc is not None:
            docs.append(doc)
    raise_missing_text(name, missing)
    return docs


def _check_header(header: list[str], name: str, line: int) -> list[str]:
    """Return the header with blank names filled in; raise for repeated names or no text column."""
    header = [h.strip() or f"column_{i + 1}" for i, h in enumerate(header)]
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise LoadError(
            f"{name}: line {line}: column(s) {shortened(', '.join(repeated))} appear more than once; "
            "give every column its own name"
        )
    if not any(h.lower() in TEXT_FIELDS for h in header):
        raise LoadError(
            f"{name}: no text column; name one column {', '.join(TEXT_FIELDS)} "
            f"(found columns: {shortened(', '.join(header))})"
        )
    return header


def _rows(reader: Any, name: str, skipped: int) -> Iterator[tuple[int, list[str]]]:
    """Yield (line number where the row starts, cells) for each non-blank data row."""
    while True:
        line = skipped + reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise LoadError(f"{name}: line {line}: malformed CSV ({exc}); check the quotes") from None
        if row and any(cell.strip() for cell in row):
            yield line, row


def _record(header: list[str], row: list[str]) -> dict[str, object]:
    record: dict[str, object] = dict(zip(header, row, strict=False))
    meta = record.get("metadata")
    if isinstance(meta, str) and meta.strip().startswith("{"):
        try:
            parsed = json.loads(meta)
        except (json.JSONDecodeError, RecursionError):
            return record  # not JSON after all: kept as the text it is
        if nesting_depth(parsed) <= MAX_JSON_DEPTH:
            record["metadata"] = parsed  # far deeper JSON stays the text it is, as above
    return record


def _guess_delimiter(first_line: str) -> str:
    for delimiter in (",", ";", "\t", "|"):
        try:
            cells = next(csv.reader([first_line], delimiter=delimiter), [])
        except csv.Error:
            continue  # e.g. a quoted field running past the line: not this delimiter's fault
        if any(c.strip().lower() in TEXT_FIELDS for c in cells):
            return delimiter
    return ","
