"""One record (a JSON object, a CSV row, a bare string) to one ``Document``.

The usual field names of retrievers' dumps are accepted (LangChain, LlamaIndex, plain dicts);
every field that is not the text, score, source, timestamp or importance is kept in metadata.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from ..errors import LoadError
from ..types import Document
from .reading import normalise_newlines, quoted, reject_nul, shortened

__all__ = [
    "TEXT_FIELDS",
    "SOURCE_FIELDS",
    "documents_from_records",
    "record_to_document",
    "raise_missing_text",
    "has_text_field",
    "type_name",
    "chunk_record",
]

#: Fields that may hold a document's text, in the order they are looked for.
TEXT_FIELDS: tuple[str, ...] = ("content", "text", "page_content")
#: Fields that may hold a document's source, in the order they are looked for.
SOURCE_FIELDS: tuple[str, ...] = ("source", "url", "file_name")
# LlamaIndex node bookkeeping: templates, offsets and relations that say nothing about the
# document itself. Everything else a node carries is kept.
_LLAMA_NODE_INTERNALS = frozenset(
    {
        "text",
        "metadata",
        "embedding",
        "excluded_embed_metadata_keys",
        "excluded_llm_metadata_keys",
        "relationships",
        "start_char_idx",
        "end_char_idx",
        "text_template",
        "metadata_template",
        "metadata_seperator",
        "metadata_separator",
        "class_name",
        "mimetype",
        "text_resource",
        "id_",
    }
)


def documents_from_records(records: Iterable[Any], *, name: str = "records") -> list[Document]:
    """Return one document per record (a dict with the accepted field names, or a string)."""
    docs: list[Document] = []
    missing: list[str] = []
    for number, record in enumerate(records, start=1):
        doc = record_to_document(record, f"record {number}", name, missing)
        if doc is not None:
            docs.append(doc)
    raise_missing_text(name, missing)
    return docs


def _lower_keys(record: dict[Any, Any]) -> dict[str, str]:
    """Return each text key of ``record`` by its lower-case form (the first of a case-folded clash wins)."""
    out: dict[str, str] = {}
    for key in record:
        if isinstance(key, str):
            out.setdefault(key.lower(), key)
    return out


def has_text_field(record: dict[Any, Any]) -> bool:
    """Return True when ``record`` names a text field (any case) or carries a LlamaIndex node."""
    keys = _lower_keys(record)
    return any(f in keys for f in TEXT_FIELDS) or isinstance(record.get("node"), dict)


def record_to_document(
    record: Any, where: str, name: str, missing: list[str], *, from_csv: bool = False
) -> Document | None:
    """Return the document in one record, or None after noting in ``missing`` that it has no text."""
    record, pair_score = _unpair(record)
    if isinstance(record, str):
        return _string_document(record, pair_score, where, name, missing)
    if not isinstance(record, dict):
        raise LoadError(
            f"{name}: {where}: expected an object with a text field ({', '.join(TEXT_FIELDS)}) "
            f"or a string, got {type_name(record)}"
        )
    if isinstance(record.get("kwargs"), dict) and "lc" in record:
        record = record["kwargs"]  # LangChain's serialised form: {"lc": 1, "kwargs": {...}}
    rest = dict(record)
    content, field_name, nested_meta = _take_text(rest, from_csv)
    if content is None:
        keys = shortened(", ".join(map(str, record))) or "no fields"
        missing.append(f"{where} (fields: {keys})")
        return None
    if not isinstance(content, str):
        raise LoadError(f"{name}: {where}: field {field_name!r} must be text, got {type_name(content)}")
    if not content.strip():
        missing.append(f"{where} (empty {field_name!r})")
        return None
    reject_nul(content, name, f"{where}: field {field_name!r}")
    nested_meta = _merge_own_metadata(rest, nested_meta, where, name, from_csv)
    score = _pop_number(rest, "score", where, name)
    if score is None and pair_score is not None:
        score = _number(pair_score, "score", where, name)
    importance = _pop_number(rest, "importance", where, name)
    timestamp = _pop_timestamp(rest, where, name)
    source = _take_source(rest, nested_meta, where, name)
    metadata = dict(nested_meta)
    for key, value in rest.items():
        if key in metadata and metadata[key] != value:
            metadata[f"record.{key}"] = value  # both spellings kept; neither is lost
        else:
            metadata[key] = value
    if score is None:
        metadata["score_missing"] = True
    return Document(
        content=normalise_newlines(content),
        score=1.0 if score is None else score,
        source=source,
        metadata=metadata,
        timestamp=timestamp,
        importance=0.5 if importance is None else importance,
    )


def _unpair(record: Any) -> tuple[Any, Any]:
    """Return (record, score) for LangChain's ``[document, score]`` pairs, (record, None) otherwise."""
    if (
        isinstance(record, list)
        and len(record) == 2
        and isinstance(record[0], (dict, str))
        and isinstance(record[1], (int, float))
        and not isinstance(record[1], bool)
    ):
        return record[0], record[1]
    return record, None


def _string_document(text: str, pair_score: Any, where: str, name: str, missing: list[str]) -> Document | None:
    if not text.strip():
        missing.append(f"{where} (empty string)")
        return None
    reject_nul(text, name, where)
    meta: dict[str, object] = {}
    score = _number(pair_score, "score", where, name) if pair_score is not None else None
    if score is None:
        meta["score_missing"] = True
    return Document(content=normalise_newlines(text), score=1.0 if score is None else score, metadata=meta)


def _take_text(rest: dict[str, object], from_csv: bool) -> tuple[Any, str, dict[str, object]]:
    """Return (text, the field it came from, metadata a LlamaIndex node carried), popping them."""
    for field in TEXT_FIELDS:
        key = _lower_keys(rest).get(field)
        if key is not None and rest[key] is not None and (rest[key] != "" or not from_csv):
            return rest.pop(key), key, {}
    node = rest.get("node")
    if not isinstance(node, dict):
        return None, "", {}
    rest.pop("node")
    content = node.get("text")
    if content is None and isinstance(node.get("text_resource"), dict):
        content = node["text_resource"].get("text")
    nested_meta: dict[str, object] = {}
    node_meta = node.get("metadata")
    if isinstance(node_meta, dict):
        nested_meta.update(node_meta)
    if node.get("id_") is not None:
        nested_meta["node_id"] = node["id_"]
    for key, value in node.items():
        if key not in _LLAMA_NODE_INTERNALS:
            nested_meta.setdefault(key, value)
    return content, "node.text", nested_meta


def _merge_own_metadata(
    rest: dict[str, object], nested_meta: dict[str, object], where: str, name: str, from_csv: bool
) -> dict[str, object]:
    """Return ``nested_meta`` updated with the record's own ``metadata`` object, popped from ``rest``.

    A JSON ``metadata`` that is not an object is an error (its fields would otherwise be lost
    or misread); a CSV cell can only be text, so a ``metadata`` column is kept as it is.
    """
    meta_key = _lower_keys(rest).get("metadata")
    if meta_key is None:
        return nested_meta
    own = rest.pop(meta_key)
    if isinstance(own, dict):
        return {**nested_meta, **own}
    if own is None or own == "":
        return nested_meta
    if not from_csv:
        raise LoadError(
            f"{name}: {where}: field {shortened(meta_key)!r} must be an object of "
            f"metadata fields, got {type_name(own)} {quoted(own)}"
        )
    rest["metadata"] = own
    return nested_meta


def _take_source(rest: dict[str, object], nested_meta: dict[str, object], where: str, name: str) -> str | None:
    """Return the record's source (top-level fields first, then its metadata's), popping it."""
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
    if source is None:
        return None
    if isinstance(source, (int, float)) and not isinstance(source, bool):
        source = str(source)
    if not isinstance(source, str):
        raise LoadError(f"{name}: {where}: field 'source' must be text, got {type_name(source)}")
    reject_nul(source, name, f"{where}: field 'source'")
    return source


def _pop_number(rest: dict[str, object], field: str, where: str, name: str) -> float | None:
    key = _lower_keys(rest).get(field)
    if key is None:
        return None
    value = rest.pop(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _number(value, field, where, name)


def _number(value: Any, field: str, where: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise LoadError(f"{name}: {where}: field {field!r} must be a number, got {type_name(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond a float's range (about 1.8e308)
        number = math.inf
    except ValueError:
        raise LoadError(f"{name}: {where}: field {field!r} must be a number, got {quoted(value)}") from None
    if not math.isfinite(number):
        too_large = isinstance(value, int) or (
            isinstance(value, str) and "inf" not in value.lower() and math.isinf(number)
        )
        if too_large:
            raise LoadError(
                f"{name}: {where}: field {field!r} is a number too large to use (beyond ±1.8e308), got {quoted(value)}"
            )
        raise LoadError(f"{name}: {where}: field {field!r} must be a finite number, got {quoted(value)}")
    return number


def _pop_timestamp(rest: dict[str, object], where: str, name: str) -> float | None:
    key = _lower_keys(rest).get("timestamp")
    if key is None:
        return None
    value = rest.pop(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        return _number(value, "timestamp", where, name)
    try:
        return _number(value, "timestamp", where, name)
    except LoadError:
        pass
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise LoadError(
            f"{name}: {where}: field 'timestamp' must be epoch seconds or an ISO 8601 date "
            f"such as 2024-05-01T12:00:00Z, got {quoted(value)}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def raise_missing_text(name: str, missing: list[str]) -> None:
    """Return None when no record lacked text; raise one ``LoadError`` listing them otherwise."""
    if not missing:
        return
    shown = "; ".join(missing[:5])
    more = f"; and {len(missing) - 5} more" if len(missing) > 5 else ""
    raise LoadError(
        f"{name}: {len(missing)} record(s) have no text: {shown}{more}. Give each record a "
        f"non-empty {', '.join(TEXT_FIELDS)} or node.text field, or remove it"
    )


def type_name(value: Any) -> str:
    """Return how a JSON user would call ``value``'s type ("an object", "a number", "null")."""
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


def chunk_record(doc: Document) -> Document:
    """Return ``doc`` marked as a chunk of its source when its record carried a span (a chunk file's
    line: ``start`` and ``end`` offsets), else ``doc`` itself. The merge stage reads the mark."""
    start, end = doc.metadata.get("start"), doc.metadata.get("end")
    if "chunk_of" in doc.metadata or doc.source is None:
        return doc
    if not (isinstance(start, int) and isinstance(end, int) and _offset(start) and _offset(end) and start < end):
        return doc
    page = doc.metadata.get("page")
    label = f"{doc.source} p. {page}" if isinstance(page, int) and not isinstance(page, bool) else doc.source
    return replace(doc, source=label, metadata={**doc.metadata, "chunk_of": doc.source})


def _offset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
