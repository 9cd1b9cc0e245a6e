"""OpenTelemetry spans with OpenInference attributes, read as retrieval runs (no framework import).

What Arize Phoenix and other OpenInference tools record for a retriever: a span whose
``openinference.span.kind`` is ``RETRIEVER``, ``input.value`` the query, and
``retrieval.documents.N.document.{content,score,id,metadata}`` the documents (metadata as a JSON
string). Attributes come flat (the SDK's ``span.to_json()``), as OTLP JSON key/value lists,
nested (``{"retrieval": {"documents": [...]}}``), or as the columns of a spans dataframe
(Phoenix's ``get_spans_dataframe()`` written as JSON records: ``attributes.input.value``,
``span_kind``, ``context.span_id``); all read the same.
``contextlab.runs.captures.iter_runs`` is the entry point; this module knows the span shapes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..errors import InvalidInputError, LoadError
from ..types import Document
from ..validation import message_value, parse_int

__all__ = [
    "otlp_spans",
    "RetrieverSpan",
    "retriever_run_fields",
    "is_dataframe_span",
    "dataframe_span",
    "DOCUMENTS_PREFIX",
]

#: Where OpenInference puts a retriever's documents among a span's attributes.
DOCUMENTS_PREFIX = "retrieval.documents."
# Metadata keys taken as a document's source, in this order (then the document id).
_SOURCE_KEYS = ("source", "url", "file_path", "file_name")


def otlp_spans(value: dict[str, object], where: str) -> Iterator[tuple[dict[str, object], str]]:
    """Yield each span of an OTLP JSON export and its label ("span <spanId>").

    ``where`` names the record (file and line) in error messages.
    """
    resources = value["resourceSpans"]
    if not isinstance(resources, list):
        raise LoadError(f"{where}: resourceSpans must be a list of resources")
    for r, resource in enumerate(resources):
        scopes = None
        if isinstance(resource, dict):
            # instrumentationLibrarySpans: the name before OTLP 0.15, still in old exports
            scopes = resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []
        if not isinstance(scopes, list):
            raise LoadError(f"{where}: resourceSpans[{r}] must hold a 'scopeSpans' list")
        for s, scope in enumerate(scopes):
            spans = scope.get("spans") if isinstance(scope, dict) else None
            if not isinstance(spans, list):
                raise LoadError(f"{where}: resourceSpans[{r}].scopeSpans[{s}] has no 'spans' list")
            for i, span in enumerate(spans):
                at = f"span {span.get('spanId', i) if isinstance(span, dict) else i}"
                if not isinstance(span, dict):
                    raise LoadError(f"{where}, {at}: expected a span object, got {_kind(span)}")
                yield span, at


def is_dataframe_span(record: dict[str, object]) -> bool:
    """Return True for a span written as one flat record (Phoenix's spans dataframe as JSON)."""
    return any(isinstance(k, str) and k.startswith("attributes.") for k in record)


def dataframe_span(record: dict[str, object]) -> dict[str, object]:
    """Return a flat dataframe record (``attributes.input.value``, ``context.span_id``) as a span."""
    attributes = {
        k[len("attributes.") :]: v for k, v in record.items() if isinstance(k, str) and k.startswith("attributes.")
    }
    if record.get("span_kind") is not None:
        attributes.setdefault("openinference.span.kind", record["span_kind"])
    return {
        "name": record.get("name"),
        "start_time": record.get("start_time"),
        "context": {"trace_id": record.get("context.trace_id"), "span_id": record.get("context.span_id")},
        "attributes": attributes,
    }


@dataclass(frozen=True)
class RetrieverSpan:
    """What a RETRIEVER span records of a run: the query, the documents, when, by what, and its ids."""

    query: str
    documents: list[Document]
    time: str | None
    framework: str | None
    ids: dict[str, str]


def retriever_run_fields(span: dict[str, object], at: str) -> RetrieverSpan | None:
    """Return the run a RETRIEVER span records (query, documents, time, ids), or None for other spans.

    ``at`` names the span in error messages (file and record).
    """
    attrs = _flat_attributes(span.get("attributes"), at)
    kind = attrs.get("openinference.span.kind")
    has_docs = any(k.startswith(DOCUMENTS_PREFIX) for k in attrs)
    if str(kind).upper() != "RETRIEVER" and not has_docs:
        return None
    found = span.get("context")
    context: dict[str, object] = found if isinstance(found, dict) else {}
    ids = {
        k: str(v)
        for k, v in (
            ("trace_id", context.get("trace_id") or span.get("traceId")),
            ("span_id", context.get("span_id") or span.get("spanId")),
        )
        if v
    }
    return RetrieverSpan(
        _span_query(attrs),
        _span_documents(attrs, at),
        _span_time(span),
        str(span.get("name")) if span.get("name") else None,
        ids,
    )


def _flat_attributes(raw: Any, at: str) -> dict[str, object]:
    """Return span attributes as one flat ``{"a.b.0.c": value}`` dict, whatever the JSON shape."""
    if isinstance(raw, list):  # OTLP JSON: [{"key": ..., "value": {"stringValue": ...}}]
        flat: dict[str, object] = {}
        for item in raw:
            if not isinstance(item, dict) or "key" not in item:
                raise LoadError(f"{at}: an attribute must be {{'key': ..., 'value': ...}}, got {_kind(item)}")
            flat[str(item["key"])] = _otlp_value(item.get("value"))
        raw = flat
    out: dict[str, object] = {}

    def walk(prefix: str, value: Any) -> None:
        # Phoenix and some exporters nest the dotted names: {"retrieval": {"documents": [...]}}.
        if isinstance(value, dict) and prefix.rsplit(".", 1)[-1] != "metadata":
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), inner)
        elif isinstance(value, list) and prefix.endswith("documents"):
            for i, inner in enumerate(value):
                walk(f"{prefix}.{i}", inner)
        else:
            out[prefix] = value

    walk("", raw if isinstance(raw, dict) else {})
    return out


def _otlp_value(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_otlp_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return {kv.get("key"): _otlp_value(kv.get("value")) for kv in (value["kvlistValue"] or {}).get("values", [])}
    return None


def _span_documents(attrs: dict[str, object], at: str) -> list[Document]:
    fields: dict[int, dict[str, object]] = {}
    for key, value in attrs.items():
        if not key.startswith(DOCUMENTS_PREFIX):
            continue
        index_text, _, rest = key[len(DOCUMENTS_PREFIX) :].partition(".")
        try:
            index = parse_int(index_text, field=key, low=0)
        except InvalidInputError:
            continue  # not a document's attribute: retrieval.documents.N.document.*
        fields.setdefault(index, {})[rest.removeprefix("document.")] = value
    docs = []
    for index in sorted(fields):
        docs.append(_span_document(fields[index], f"{at}: retrieval.documents.{index}"))
    return docs


def _span_document(values: dict[str, object], at: str) -> Document:
    content = values.get("content")
    if not isinstance(content, str):
        raise LoadError(f"{at}.document.content must be text, got {_kind(content)}")
    metadata = values.get("metadata")
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            metadata = {"metadata": metadata}
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    doc_id = values.get("id")
    if doc_id is not None and doc_id != "":
        metadata.setdefault("id", str(doc_id))
    source = next(
        (
            str(metadata.pop(k))
            for k in _SOURCE_KEYS
            if isinstance(metadata.get(k), (str, int)) and metadata.get(k) != ""
        ),
        None,
    )
    if source is None and doc_id not in (None, ""):
        source = str(doc_id)
    score = values.get("score")
    if score is None:
        # Scored later against the query, as the engine scores every unscored document.
        metadata["score_missing"] = True
        score = 1.0
    elif isinstance(score, str):
        try:
            score = float(score)
        except ValueError:
            raise LoadError(f"{at}.document.score must be a number, got {message_value(score)}") from None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise LoadError(f"{at}.document.score must be a finite number, got {message_value(score)}")
    return Document(content=content, score=float(score), source=source, metadata=metadata)


def _span_query(attrs: dict[str, object]) -> str:
    value = attrs.get("input.value")
    if not isinstance(value, str):
        return "" if value is None else str(value)
    if str(attrs.get("input.mime_type", "")).endswith("json"):
        try:
            data = json.loads(value)
        except json.JSONDecodeError:
            return value
        if isinstance(data, dict):
            for key in ("query", "input", "question", "query_str"):
                said = data.get(key)
                if isinstance(said, str):
                    return said
        if isinstance(data, str):
            return data
    return value


def _span_time(span: dict[str, object]) -> str | None:
    start = span.get("start_time")
    if isinstance(start, str):
        return start
    try:
        nanos = span.get("startTimeUnixNano")
        if isinstance(nanos, (str, int)):  # OTLP JSON writes it as a string of digits
            seconds = int(nanos) / 1e9
        elif isinstance(start, (int, float)) and not isinstance(start, bool):
            seconds = start / 1000  # pandas writes datetimes to JSON as epoch milliseconds
        else:
            return None
        stamp = datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError):
        return None
    return stamp.isoformat().replace("+00:00", "Z")


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
