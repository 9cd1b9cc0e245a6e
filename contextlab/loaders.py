"""Documents in: pasted text, JSON, JSONL, CSV, TXT and Markdown turned into ``Document`` lists.

Users bring what their retriever already dumps, so the usual field names are accepted:

- text: ``content``, ``text``, ``page_content`` (LangChain), ``node.text`` (LlamaIndex
  ``NodeWithScore`` dumps); a bare JSON string is a document too;
- ``score``; source: ``source``, ``metadata.source``, ``url``, ``file_name``;
  ``timestamp`` (epoch seconds or ISO 8601); ``importance``;
- every other field is kept in ``Document.metadata``.

Bad input is never a crash and never a silent loss: each problem is a ``LoadError`` (a
``ValueError``) that names the file, the line or record, and the fix. A document whose input had
no score gets ``score=1.0`` and ``metadata["score_missing"] = True`` so a caller can score it
(``contextlab.retrieval.score_documents``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .errors import InvalidInputError, LoadError
from .types import Document

__all__ = [
    "LoadError",
    "load_file",
    "load_bytes",
    "parse_pasted",
    "documents_from_records",
    "SUPPORTED_EXTENSIONS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DOCUMENTS",
    "TEXT_FIELDS",
    "SOURCE_FIELDS",
]

DEFAULT_MAX_BYTES = 20_000_000
DEFAULT_MAX_DOCUMENTS = 50_000

#: File name endings the loaders read, mapped to the format used for them.
SUPPORTED_EXTENSIONS: dict[str, str] = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "txt",
    ".md": "md",
    ".markdown": "md",
}

#: Fields that may hold a document's text, in the order they are looked for.
TEXT_FIELDS: tuple[str, ...] = ("content", "text", "page_content")
#: Fields that may hold a document's source, in the order they are looked for.
SOURCE_FIELDS: tuple[str, ...] = ("source", "url", "file_name")
# Keys a JSON file may wrap its record array in.
_ARRAY_KEYS: tuple[str, ...] = ("documents", "results", "source_nodes", "nodes", "data")
# LlamaIndex node bookkeeping: templates, offsets and relations that say nothing about the
# document itself. Everything else a node carries is kept.
_LLAMA_NODE_INTERNALS = frozenset({
    "text", "metadata", "embedding", "excluded_embed_metadata_keys", "excluded_llm_metadata_keys",
    "relationships", "start_char_idx", "end_char_idx", "text_template", "metadata_template",
    "metadata_seperator", "metadata_separator", "class_name", "mimetype", "text_resource",
    "id_",
})

_SEPARATOR_LINE = re.compile(r"^[ \t]*-{3,}[ \t]*$", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
_MD_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*(?:\n|\Z)", re.DOTALL)
_FRONT_MATTER_LINE = re.compile(r"^([A-Za-z0-9_.-]+)[ \t]*:[ \t]*(.*?)[ \t]*$")




# -- public entry points -------------------------------------------------------------------


def load_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
) -> list[Document]:
    """Return the documents in the file at ``path`` (format chosen by its extension)."""
    path = Path(path)
    _check_limits(max_bytes, max_documents)
    _format_for(path.name)  # fail on an unsupported type before reading anything
    size = path.stat().st_size
    if size > max_bytes:
        raise LoadError(_too_big(path.name, size, max_bytes))
    with path.open("rb") as fh:
        # Read one byte past the limit: the file may have grown since stat().
        data = fh.read(max_bytes + 1)
    return load_bytes(data, path.name, max_bytes=max_bytes, max_documents=max_documents)


def load_bytes(
    data: bytes,
    filename: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    format: str | None = None,
) -> list[Document]:
    """Return the documents in ``data``, read as the file ``filename`` (the lab's upload path).

    ``format`` ("json", "jsonl", "csv", "txt", "md" or "auto" for pasted-text rules) overrides
    the choice by extension.
    """
    _check_limits(max_bytes, max_documents)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise LoadError(f"{filename}: expected bytes, got {type(data).__name__}")
    if len(data) > max_bytes:
        raise LoadError(_too_big(filename, len(data), max_bytes))
    fmt = _format_for(filename) if format is None else _check_format(format)
    text = _decode(bytes(data), filename)
    if fmt == "auto":
        docs = parse_pasted(text, max_documents=max_documents, name=filename, max_bytes=max_bytes)
    elif fmt == "json":
        docs = _parse_json_text(text, filename, max_documents)
    elif fmt == "jsonl":
        docs = _parse_jsonl(text, filename, max_documents)
    elif fmt == "csv":
        docs = _parse_csv(text, filename, max_documents, tab=filename.lower().endswith(".tsv"))
    elif fmt == "md":
        docs = _parse_markdown(text, filename, max_documents)
    else:
        docs = _plain_documents(_split_plain(text), filename, max_documents, source=filename)
    if not docs:
        raise LoadError(f"{filename}: no documents found; the file is empty or holds only blank lines")
    return docs


def parse_pasted(
    text: str,
    *,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str = "pasted text",
) -> list[Document]:
    """Return the documents in pasted ``text``.

    A JSON array (or JSON Lines) pasted whole is read as records; otherwise documents are
    separated by a line of ``---``, or failing that by blank lines. Empty text gives ``[]``.
    """
    if not isinstance(text, str):
        raise LoadError(f"{name}: expected text, got {type(text).__name__}")
    _check_limits(max_bytes, max_documents)
    if len(text) > max_bytes // 4 and len(text.encode("utf-8")) > max_bytes:
        raise LoadError(_too_big(name, len(text.encode("utf-8")), max_bytes))
    text = _normalise_newlines(text.lstrip("\ufeff"))
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] in "[{":
        records = _try_json_paste(stripped, name, max_documents)
        if records is not None:
            return records
    return _plain_documents(_split_plain(stripped), name, max_documents, source=None)


def documents_from_records(records: Iterable[Any], *, name: str = "records") -> list[Document]:
    """Return one document per record (a dict with the accepted field names, or a string)."""
    docs: list[Document] = []
    missing: list[str] = []
    for number, record in enumerate(records, start=1):
        doc = _record_to_document(record, f"record {number}", name, missing)
        if doc is not None:
            docs.append(doc)
    _raise_missing_text(name, missing)
    return docs


# -- decoding and limits -------------------------------------------------------------------


def _check_limits(max_bytes: int, max_documents: int) -> None:
    for label, value in (("max_bytes", max_bytes), ("max_documents", max_documents)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise LoadError(f"{label} must be a whole number >= 1, got {value!r}")


def _too_big(name: str, size: int, max_bytes: int) -> str:
    return (
        f"{name} is {size:,} bytes, over the {max_bytes:,}-byte limit; split it into smaller "
        f"files or raise the limit (max_bytes=...)"
    )


def _format_for(filename: str) -> str:
    suffix = Path(filename).suffix.lower()
    fmt = SUPPORTED_EXTENSIONS.get(suffix)
    if fmt is None:
        shown = f"'{suffix}'" if suffix else "no extension"
        raise LoadError(
            f"{filename}: unsupported file type ({shown}); use one of "
            f"{', '.join(SUPPORTED_EXTENSIONS)}, or paste the text instead"
        )
    return fmt


def _check_format(fmt: str) -> str:
    allowed = ("auto", "json", "jsonl", "csv", "txt", "md")
    if fmt not in allowed:
        raise LoadError(f"unknown input format {fmt!r}; choose one of: {', '.join(allowed)}")
    return fmt


def _decode(data: bytes, name: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise LoadError(f"{name}: starts with a UTF-16 mark but is not valid UTF-16 ({exc.reason})") from exc
    else:
        if b"\x00" in data[:8192]:
            raise LoadError(
                f"{name}: looks like a binary file (it contains NUL bytes); "
                "save the documents as UTF-8 text, JSON, JSONL or CSV"
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise LoadError(
                f"{name}: line {line}: byte 0x{data[exc.start]:02x} at offset {exc.start} is not "
                "UTF-8; re-save the file as UTF-8 (binary formats such as PDF or DOCX are not "
                "supported)"
            ) from None
    return _normalise_newlines(text.lstrip("\ufeff"))


def _normalise_newlines(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# -- plain text and markdown ---------------------------------------------------------------


def _split_plain(text: str) -> list[str]:
    if _SEPARATOR_LINE.search(text):
        parts = _SEPARATOR_LINE.split(text)
    else:
        parts = _BLANK_LINES.split(text)
    return [p.strip() for p in parts if p.strip()]


def _plain_documents(
    parts: list[str], name: str, max_documents: int, *, source: str | None,
    metadata: dict[str, Any] | None = None, headings: list[str | None] | None = None,
) -> list[Document]:
    if len(parts) > max_documents:
        raise LoadError(_too_many(name, max_documents))
    docs = []
    for i, part in enumerate(parts):
        meta: dict[str, Any] = dict(metadata or {})
        meta["score_missing"] = True
        if headings is not None and headings[i]:
            meta["heading"] = headings[i]
        doc_source = source
        if source is not None and len(parts) > 1:
            doc_source = f"{source}#{i + 1}"
        docs.append(Document(content=part, source=doc_source, metadata=meta))
    return docs


def _parse_markdown(text: str, name: str, max_documents: int) -> list[Document]:
    front: dict[str, Any] = {}
    match = _FRONT_MATTER.match(text)
    if match:
        lines = [ln for ln in match.group(1).splitlines() if ln.strip()]
        parsed = [_FRONT_MATTER_LINE.match(ln) for ln in lines]
        if lines and all(parsed):
            front = {m.group(1): m.group(2) for m in parsed if m}
            text = text[match.end():]
    if _SEPARATOR_LINE.search(text) or not _MD_HEADING.search(text):
        return _plain_documents(_split_plain(text), name, max_documents, source=name, metadata=front)
    # Sections: each heading starts a document that keeps its heading line.
    starts = [m.start() for m in _MD_HEADING.finditer(text)]
    if starts[0] != 0:
        starts.insert(0, 0)
    parts: list[str] = []
    headings: list[str | None] = []
    for a, b in zip(starts, starts[1:] + [len(text)]):
        section = text[a:b].strip()
        if section:
            parts.append(section)
            first = section.splitlines()[0]
            headings.append(first.lstrip("#").strip() if first.startswith("#") else None)
    return _plain_documents(parts, name, max_documents, source=name, metadata=front, headings=headings)


# -- JSON and JSON Lines -------------------------------------------------------------------


def _json_error(name: str, exc: json.JSONDecodeError, text: str, where: str = "") -> LoadError:
    ends_early = exc.pos >= len(text.rstrip())
    hint = (
        "the text ends early (truncated?)" if ends_early
        else "check for a missing comma, bracket or quote"
    )
    prefix = f"{name}: {where}" if where else f"{name}: line {exc.lineno}, column {exc.colno}: "
    return LoadError(f"{prefix}invalid JSON ({exc.msg}); {hint}")


def _parse_json_text(text: str, name: str, max_documents: int) -> list[Document]:
    if not text.strip():
        raise LoadError(f"{name}: the file is empty; expected a JSON array of documents")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _json_error(name, exc, text) from None
    except RecursionError:
        raise LoadError(f"{name}: JSON nested too deeply to read") from None
    return _documents_from_json_value(data, name, max_documents)


def _documents_from_json_value(data: Any, name: str, max_documents: int) -> list[Document]:
    records = _record_list(data, name)
    if len(records) > max_documents:
        raise LoadError(_too_many(name, max_documents))
    return documents_from_records(records, name=name)


def _record_list(data: Any, name: str) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _ARRAY_KEYS:
            if key in data:
                if not isinstance(data[key], list):
                    raise LoadError(
                        f"{name}: field {key!r} must be an array of documents, "
                        f"got {_type_name(data[key])}"
                    )
                return data[key]
        if _has_text_field(data):
            return [data]
        keys = ", ".join(list(map(str, data))[:8]) or "none"
        raise LoadError(
            f"{name}: expected an array of documents or an object with a \"documents\" array; "
            f"got an object with keys: {keys}"
        )
    if isinstance(data, str):
        return [data]
    raise LoadError(
        f"{name}: expected an array of documents or an object with a \"documents\" array; "
        f"got {_type_name(data)}"
    )


def _parse_jsonl(text: str, name: str, max_documents: int) -> list[Document]:
    docs: list[Document] = []
    missing: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _json_error(name, exc, line, f"line {number}, column {exc.colno}: ") from None
        if len(docs) + len(missing) >= max_documents:
            raise LoadError(_too_many(name, max_documents))
        doc = _record_to_document(record, f"line {number}", name, missing)
        if doc is not None:
            docs.append(doc)
    _raise_missing_text(name, missing)
    return docs


def _try_json_paste(text: str, name: str, max_documents: int) -> list[Document] | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if text[0] == "{" and exc.msg.startswith("Extra data"):
            return _parse_jsonl(text, name, max_documents)
        if _looks_like_json(text):
            raise _json_error(name, exc, text) from None
        return None  # plain text that merely starts with a bracket, e.g. "[1] Intro ..."
    except RecursionError:
        raise LoadError(f"{name}: JSON nested too deeply to read") from None
    return _documents_from_json_value(data, name, max_documents)


def _looks_like_json(text: str) -> bool:
    return bool(re.match(r'^(\[\s*[\[{"\]]|\{\s*"|\{\s*\})', text))


# -- CSV -----------------------------------------------------------------------------------


def _parse_csv(text: str, name: str, max_documents: int, *, tab: bool = False) -> list[Document]:
    if not text.strip():
        raise LoadError(f"{name}: the file is empty; expected a header row naming a text column")
    # Long documents are long cells; the csv module's default cap (128 KiB) would reject them.
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    delimiter = "\t" if tab else _guess_delimiter(text)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise LoadError(f"{name}: line 1: cannot read the header row ({exc})") from None
    header = [h.strip() or f"column_{i + 1}" for i, h in enumerate(header)]
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise LoadError(
            f"{name}: line 1: column(s) {', '.join(repeated)} appear more than once; "
            "give every column its own name"
        )
    if not any(h.lower() in TEXT_FIELDS for h in header):
        raise LoadError(
            f"{name}: no text column; name one column {', '.join(TEXT_FIELDS)} "
            f"(found columns: {', '.join(header)})"
        )
    docs: list[Document] = []
    missing: list[str] = []
    while True:
        line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise LoadError(f"{name}: line {line}: malformed CSV ({exc}); check the quotes") from None
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise LoadError(
                f"{name}: line {line}: {len(row)} cells but the header has {len(header)} "
                "columns; quote cells that contain the delimiter"
            )
        if len(docs) + len(missing) >= max_documents:
            raise LoadError(_too_many(name, max_documents))
        record: dict[str, Any] = dict(zip(header, row))
        meta = record.get("metadata")
        if isinstance(meta, str) and meta.strip().startswith("{"):
            try:
                record["metadata"] = json.loads(meta)
            except json.JSONDecodeError:
                pass  # not JSON after all: kept as the text it is
        doc = _record_to_document(record, f"line {line}", name, missing, from_csv=True)
        if doc is not None:
            docs.append(doc)
    _raise_missing_text(name, missing)
    return docs


def _guess_delimiter(text: str) -> str:
    first = text.split("\n", 1)[0]
    for delimiter in (",", ";", "\t", "|"):
        cells = next(csv.reader([first], delimiter=delimiter), [])
        if any(c.strip().lower() in TEXT_FIELDS for c in cells):
            return delimiter
    return ","


# -- one record ----------------------------------------------------------------------------


def _lower_keys(record: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in record:
        if isinstance(key, str):
            out.setdefault(key.lower(), key)
    return out


def _has_text_field(record: dict[str, Any]) -> bool:
    keys = _lower_keys(record)
    return any(f in keys for f in TEXT_FIELDS) or isinstance(record.get("node"), dict)


def _record_to_document(
    record: Any, where: str, name: str, missing: list[str], *, from_csv: bool = False
) -> Document | None:
    """Return the document in one record, or None after noting in ``missing`` that it has no text."""
    pair_score: Any = None
    if (
        isinstance(record, list) and len(record) == 2 and isinstance(record[0], (dict, str))
        and isinstance(record[1], (int, float)) and not isinstance(record[1], bool)
    ):
        # LangChain's similarity_search_with_score dumps as [document, score] pairs.
        record, pair_score = record
    if isinstance(record, str):
        if not record.strip():
            missing.append(f"{where} (empty string)")
            return None
        meta: dict[str, Any] = {}
        score = _number(pair_score, "score", where, name) if pair_score is not None else None
        if score is None:
            meta["score_missing"] = True
        return Document(content=_normalise_newlines(record), score=1.0 if score is None else score,
                        metadata=meta)
    if not isinstance(record, dict):
        raise LoadError(
            f"{name}: {where}: expected an object with a text field ({', '.join(TEXT_FIELDS)}) "
            f"or a string, got {_type_name(record)}"
        )
    if isinstance(record.get("kwargs"), dict) and "lc" in record:
        record = record["kwargs"]  # LangChain's serialised form: {"lc": 1, "kwargs": {...}}

    rest = dict(record)
    node = rest.get("node") if isinstance(rest.get("node"), dict) else None
    content: Any = None
    for field in TEXT_FIELDS:
        key = _lower_keys(rest).get(field)
        if key is not None and rest[key] is not None and (rest[key] != "" or not from_csv):
            content = rest.pop(key)
            field_name = key
            break
    nested_meta: dict[str, Any] = {}
    if content is None and node is not None:
        rest.pop("node")
        content = node.get("text")
        if content is None and isinstance(node.get("text_resource"), dict):
            content = node["text_resource"].get("text")
        field_name = "node.text"
        node_meta = node.get("metadata")
        if isinstance(node_meta, dict):
            nested_meta.update(node_meta)
        if node.get("id_") is not None:
            nested_meta["node_id"] = node["id_"]
        for key, value in node.items():
            if key not in _LLAMA_NODE_INTERNALS:
                nested_meta.setdefault(key, value)
    if content is None:
        keys = ", ".join(map(str, record)) or "no fields"
        missing.append(f"{where} (fields: {keys})")
        return None
    if not isinstance(content, str):
        raise LoadError(
            f"{name}: {where}: field {field_name!r} must be text, got {_type_name(content)}"
        )
    if not content.strip():
        missing.append(f"{where} (empty {field_name!r})")
        return None

    meta_key = _lower_keys(rest).get("metadata")
    if meta_key is not None:
        own = rest.pop(meta_key)
        if isinstance(own, dict):
            nested_meta = {**nested_meta, **own}
        elif own is not None and own != "":
            rest["metadata"] = own  # not an object: kept as it was given

    score = _pop_number(rest, "score", where, name)
    if score is None and pair_score is not None:
        score = _number(pair_score, "score", where, name)
    importance = _pop_number(rest, "importance", where, name)
    timestamp = _pop_timestamp(rest, where, name)

    source: Any = None
    for field in SOURCE_FIELDS:
        key = _lower_keys(rest).get(field)
        if key is not None and rest[key] not in (None, ""):
            source = rest.pop(key)
            break
    if source is None:
        for field in SOURCE_FIELDS:
            if nested_meta.get(field) not in (None, ""):
                source = nested_meta.pop(field)
                break
    if source is not None:
        if isinstance(source, (int, float)) and not isinstance(source, bool):
            source = str(source)
        if not isinstance(source, str):
            raise LoadError(
                f"{name}: {where}: field 'source' must be text, got {_type_name(source)}"
            )

    metadata = dict(nested_meta)
    for key, value in rest.items():
        if key in metadata and metadata[key] != value:
            metadata[f"record.{key}"] = value  # both spellings kept; neither is lost
        else:
            metadata[key] = value
    if score is None:
        metadata["score_missing"] = True
    return Document(
        content=_normalise_newlines(content),
        score=1.0 if score is None else score,
        source=source,
        metadata=metadata,
        timestamp=timestamp,
        importance=0.5 if importance is None else importance,
    )


def _pop_number(rest: dict[str, Any], field: str, where: str, name: str) -> float | None:
    key = _lower_keys(rest).get(field)
    if key is None:
        return None
    value = rest.pop(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _number(value, field, where, name)


def _number(value: Any, field: str, where: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise LoadError(f"{name}: {where}: field {field!r} must be a number, got {_type_name(value)}")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise LoadError(f"{name}: {where}: field {field!r} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise LoadError(f"{name}: {where}: field {field!r} must be a finite number, got {value!r}")
    return number


def _pop_timestamp(rest: dict[str, Any], where: str, name: str) -> float | None:
    key = _lower_keys(rest).get("timestamp")
    if key is None:
        return None
    value = rest.pop(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise LoadError(
                f"{name}: {where}: field 'timestamp' must be epoch seconds or an ISO 8601 date "
                f"such as 2024-05-01T12:00:00Z, got {value!r}"
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return moment.timestamp()
    return _number(value, "timestamp", where, name)


def _raise_missing_text(name: str, missing: list[str]) -> None:
    if not missing:
        return
    shown = "; ".join(missing[:5])
    more = f"; and {len(missing) - 5} more" if len(missing) > 5 else ""
    raise LoadError(
        f"{name}: {len(missing)} record(s) have no text: {shown}{more}. Give each record a "
        f"non-empty {', '.join(TEXT_FIELDS)} or node.text field, or remove it"
    )


def _too_many(name: str, max_documents: int) -> str:
    return (
        f"{name} holds more than {max_documents:,} documents; split it or raise the limit "
        "(max_documents=...)"
    )


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__

