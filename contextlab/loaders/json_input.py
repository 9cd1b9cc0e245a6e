"""JSON and JSON Lines: an array of records (maybe wrapped in an object), or one record a line."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import LoadError
from ..types import Document
from .reading import shortened, too_many
from .records import documents_from_records, has_text_field, raise_missing_text, record_to_document, type_name

__all__ = [
    "MAX_JSON_DEPTH",
    "nesting_depth",
    "parse_json_text",
    "parse_jsonl",
    "try_json_paste",
    "SetFields",
    "set_fields",
]

# Keys a JSON file may wrap its record array in.
_ARRAY_KEYS: tuple[str, ...] = ("documents", "results", "source_nodes", "nodes", "data")
_LOOKS_LIKE_JSON = re.compile(r'^(\[\s*[\[{"\]]|\{\s*"|\{\s*\})')


def _json_error(name: str, exc: json.JSONDecodeError, text: str, where: str = "") -> LoadError:
    ends_early = exc.pos >= len(text.rstrip())
    hint = "the text ends early (truncated?)" if ends_early else "check for a missing comma, bracket or quote"
    prefix = f"{name}: {where}" if where else f"{name}: line {exc.lineno}, column {exc.colno}: "
    return LoadError(f"{prefix}invalid JSON ({exc.msg}); {hint}")


#: The deepest nesting of arrays and objects a record may have. Real retriever dumps nest a few
#: levels; far deeper values cannot be copied or cached safely (pickle recurses once per level).
MAX_JSON_DEPTH = 100


def nesting_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Return how deeply arrays and objects nest in ``value`` (0 for a scalar), counting no further
    than ``limit + 1``. Iterative, so any depth json accepted is measured without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _loads(text: str, name: str, where: str = "") -> Any:
    try:
        value = json.loads(text)
    except RecursionError:
        value = None
    else:
        if nesting_depth(value) <= MAX_JSON_DEPTH:
            return value
    raise LoadError(
        f"{name}: {where}JSON nested more than {MAX_JSON_DEPTH} levels deep; flatten the records "
        "(a document needs its text, score and source, and a few levels of metadata at most)"
    )


def parse_json_text(text: str, name: str, max_documents: int) -> list[Document]:
    """Return the documents in a JSON file's ``text``."""
    if not text.strip():
        raise LoadError(f"{name}: the file is empty; expected a JSON array of documents")
    try:
        data = _loads(text, name)
    except json.JSONDecodeError as exc:
        raise _json_error(name, exc, text) from None
    return _documents_from_json_value(data, name, max_documents)


def _documents_from_json_value(data: Any, name: str, max_documents: int) -> list[Document]:
    records = _record_list(data, name)
    if len(records) > max_documents:
        raise LoadError(too_many(name, max_documents))
    return documents_from_records(records, name=name)


def _record_list(data: Any, name: str) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _ARRAY_KEYS:
            if key in data:
                if not isinstance(data[key], list):
                    raise LoadError(f"{name}: field {key!r} must be an array of documents, got {type_name(data[key])}")
                records: list[Any] = data[key]
                return records
        if has_text_field(data):
            return [data]
        keys = shortened(", ".join(list(map(str, data))[:8])) or "none"
        raise LoadError(
            f'{name}: expected an array of documents or an object with a "documents" array; '
            f"got an object with keys: {keys}"
        )
    if isinstance(data, str):
        return [data]
    raise LoadError(
        f'{name}: expected an array of documents or an object with a "documents" array; got {type_name(data)}'
    )


def parse_jsonl(lines: Iterable[str], name: str, max_documents: int) -> list[Document]:
    """Return one document per non-blank line of ``lines`` (read lazily, one line at a time)."""
    docs: list[Document] = []
    missing: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = _loads(line, name, f"line {number}: ")
        except json.JSONDecodeError as exc:
            raise _json_error(name, exc, line, f"line {number}, column {exc.colno}: ") from None
        if len(docs) + len(missing) >= max_documents:
            raise LoadError(too_many(name, max_documents))
        doc = record_to_document(record, f"line {number}", name, missing)
        if doc is not None:
            docs.append(doc)
    raise_missing_text(name, missing)
    return docs


def try_json_paste(text: str, name: str, max_documents: int) -> list[Document] | None:
    """Return the documents in pasted JSON or JSON Lines, or None when ``text`` is not JSON."""
    try:
        data = _loads(text, name)
    except json.JSONDecodeError as exc:
        if text[0] == "{" and exc.msg.startswith("Extra data"):
            return parse_jsonl(io.StringIO(text), name, max_documents)
        if _LOOKS_LIKE_JSON.match(text):
            raise _json_error(name, exc, text) from None
        return None  # plain text that merely starts with a bracket, e.g. "[1] Intro ..."
    return _documents_from_json_value(data, name, max_documents)


@dataclass(frozen=True)
class SetFields:
    """What a JSON file says about its documents as a whole (as the sample sets do): the query,
    the source of the document that answers it, and short correct answers."""

    query: str | None = None
    answer_source: str | None = None
    answers: tuple[str, ...] = ()


def set_fields(text: str, name: str) -> SetFields:
    """Return the set-level fields of a JSON file's ``text`` (empty when it is not an object holding them)."""
    if not text.lstrip().startswith("{"):
        return SetFields()
    try:
        data = _loads(text, name)
    except (json.JSONDecodeError, LoadError):
        return SetFields()
    if not isinstance(data, dict):
        return SetFields()
    query, answer = data.get("query"), data.get("answer_source")
    answers = data.get("answers")
    return SetFields(
        query=query.strip() or None if isinstance(query, str) else None,
        answer_source=answer if isinstance(answer, str) and answer else None,
        answers=tuple(a for a in answers if isinstance(a, str) and a.strip()) if isinstance(answers, list) else (),
    )
