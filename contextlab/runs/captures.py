"""Runs in and out: capture files written by the framework components, and OpenInference traces.

A *run* is one trip through a retrieval pipeline: the query, the documents the retriever handed
over (with their scores), and, when contextlab built the context, the settings and the result.

- A **capture file** is JSON Lines, one run per line, appended by the integrations'
  ``capture_to=`` (or by ``append_run``). A line may also carry ``gold_sources`` and
  ``answers``: a capture file whose runs have them is an evaluation set too.
- An **OpenInference export** is OpenTelemetry spans as JSON: the SDK's ``span.to_json()``
  (one object per span, pretty-printed or one per line, or a JSON array of them) or OTLP JSON
  (``{"resourceSpans": [...]}``, what collectors' file exporters write), or a spans dataframe
  as JSON records (Phoenix's ``attributes.*`` columns). Each RETRIEVER span is a
  run: ``input.value`` is the query, ``retrieval.documents.N.document.{content,score,id,metadata}``
  the documents. Other spans (LLM calls, chains) are skipped.

Files whose first line is a whole JSON value are read line by line, so a capture file of any
size is streamed; a pretty-printed export is read whole (up to ``max_bytes``). Every problem is
one ``LoadError`` line naming the file and the line or record.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from ..errors import InvalidInputError, LoadError
from ..loaders import read_limited
from ..types import ContextResult, Document
from ..validation import message_value
from .openinference import (
    dataframe_span,
    is_dataframe_span,
    otlp_spans,
    retriever_run_fields,
)
from .run import CapturedRun, run_from_record, value_kind

__all__ = [
    "CapturedRun",
    "CAPTURE_VERSION",
    "DEFAULT_MAX_BYTES",
    "LAB_RUNS_ENV",
    "capture_record",
    "append_run",
    "iter_runs",
    "read_run",
    "runs_from_bytes",
]

#: The ``contextlab_capture`` value of the lines this version writes.
CAPTURE_VERSION = 1
#: The environment variable naming the runs file the lab opens on (``contextlab lab --runs FILE``).
LAB_RUNS_ENV = "CONTEXTLAB_RUNS"
#: A file that is not line-delimited is read whole; beyond this size it is refused.
DEFAULT_MAX_BYTES = 200_000_000

_write_lock = threading.Lock()


# -- writing -------------------------------------------------------------------------------


def capture_record(
    query: str,
    documents: Iterable[Document],
    settings: Mapping[str, object],
    result: ContextResult | None,
    *,
    framework: str | None = None,
    time: datetime | None = None,
    gold_sources: Iterable[str] | None = None,
    answers: Iterable[str] | None = None,
) -> dict[str, object]:
    """Return the JSON object one capture line holds for a run."""
    stamp = (time or datetime.now(timezone.utc)).astimezone(timezone.utc)
    record: dict[str, object] = {
        "contextlab_capture": CAPTURE_VERSION,
        "time": stamp.isoformat().replace("+00:00", "Z"),
        "framework": framework,
        "query": query,
        "settings": {k: v for k, v in settings.items() if k != "query"},
        "documents": [d.to_dict() for d in documents],
        "result": result.to_dict() if result is not None else None,
    }
    if gold_sources is not None:
        record["gold_sources"] = list(gold_sources)
    if answers is not None:
        record["answers"] = list(answers)
    return record


def append_run(path: str | os.PathLike[str], record: Mapping[str, object]) -> None:
    """Append ``record`` to the capture file at ``path`` as one JSON line (returns nothing)."""
    # default=str keeps a pipeline running when its metadata holds dates or objects; one write
    # call under a lock keeps lines whole when several threads capture to one file.
    line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
    with _write_lock, open(path, "a", encoding="utf-8") as fh:
        fh.write(line)


# -- reading -------------------------------------------------------------------------------


def iter_runs(
    source: str | os.PathLike[str] | IO[bytes], *, name: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> Iterator[CapturedRun]:
    """Yield the runs in a capture file or an OpenTelemetry/OpenInference export, one at a time.

    ``source`` is a path or a binary file object. Raises ``LoadError`` naming the record on the
    first malformed one, and when the file holds no run at all.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or path.name
        try:
            fh: IO[bytes] = path.open("rb")
        except OSError as exc:
            raise LoadError(f"{label}: cannot open: {exc.strerror or exc}") from exc
        with fh:
            yield from _iter_stream(fh, label, max_bytes)
    else:
        yield from _iter_stream(source, name or str(getattr(source, "name", "runs")), max_bytes)


def runs_from_bytes(data: bytes, name: str = "runs", *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[CapturedRun]:
    """Return every run in ``data`` read as the file ``name`` (the lab's upload path)."""
    return list(iter_runs(io.BytesIO(data), name=name, max_bytes=max_bytes))


def read_run(source: str | os.PathLike[str], number: int) -> CapturedRun:
    """Return run ``number`` (1-based, as the lab lists them) of a capture file or trace."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise InvalidInputError(f"run number must be a whole number >= 1, got {message_value(number)}")
    seen = 0
    for run in iter_runs(source):
        seen = run.number
        if run.number == number:
            return run
    raise InvalidInputError(f"{Path(source).name} has {seen} run(s); choose a run number from 1 to {seen}")


def _iter_stream(fh: IO[bytes], name: str, max_bytes: int) -> Iterator[CapturedRun]:
    counter = _Counter()
    first = fh.readline()
    while first and not first.strip():
        first = fh.readline()
    if not first:
        raise LoadError(f"{name}: the file is empty; expected a capture file or a span export")
    try:
        head = json.loads(first)
        by_line = True
    except (json.JSONDecodeError, UnicodeDecodeError):
        by_line = False
    if by_line:
        yield from _records(head, name, "line 1", counter)
        for number, raw in enumerate(fh, start=2):
            if raw.strip():
                value = _parse_line(raw, name, number)
                yield from _records(value, name, f"line {number}", counter)
    else:
        try:
            # Bounded chunks: a huge limit must not allocate itself up front.
            data = first + read_limited(fh, name, max(max_bytes - len(first), 0))
        except LoadError:
            raise LoadError(
                f"{name}: over {max_bytes:,} bytes and not one JSON value per line; write one run "
                "or span per line (JSON Lines) so it can be streamed"
            ) from None
        for value, where in _json_values(data, name):
            yield from _records(value, name, where, counter)
    if counter.runs == 0:
        spans = f" ({counter.spans} span(s), none a RETRIEVER span)" if counter.spans else ""
        raise LoadError(
            f"{name}: no runs found{spans}; expected contextlab capture lines or OpenInference "
            "RETRIEVER spans with retrieval.documents"
        )


class _Counter:
    """How many runs were yielded and how many spans were seen (for the no-runs message)."""

    def __init__(self) -> None:
        self.runs = 0
        self.spans = 0

    def next_run(self) -> int:
        """Return the number of the run about to be yielded (1-based), counting it."""
        self.runs += 1
        return self.runs


def _parse_line(raw: bytes, name: str, number: int) -> Any:
    try:
        return json.loads(raw)
    except UnicodeDecodeError as exc:
        raise LoadError(f"{name}: line {number}: not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"{name}: line {number}: not valid JSON ({exc.msg} at column {exc.colno}); "
            "each line of a capture file must be one JSON object"
        ) from exc


def _json_values(data: bytes, name: str) -> Iterator[tuple[Any, str]]:
    """Yield each JSON value of ``data`` (one, or several written one after another)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{name}: not UTF-8 text (byte {exc.start})") from exc
    decoder = json.JSONDecoder()
    pos, record = 0, 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return
        record += 1
        line = text.count("\n", 0, pos) + 1
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise LoadError(
                f"{name}: record {record} (line {exc.lineno}): not valid JSON ({exc.msg}); "
                "expected capture lines or OpenTelemetry spans as JSON"
            ) from exc
        yield value, f"record {record} (line {line})"


def _records(value: Any, name: str, where: str, counter: _Counter) -> Iterator[CapturedRun]:
    """Yield the runs one JSON value holds (a capture line, a span, OTLP JSON or a list of them)."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _records(item, name, f"{where}, item {i}", counter)
        return
    if not isinstance(value, dict):
        raise LoadError(f"{name}: {where}: expected a JSON object, got {value_kind(value)}")
    if "contextlab_capture" in value:
        yield run_from_record(value, name, where, counter.next_run())
    elif isinstance(value.get("resourceSpans"), list):
        for span, at in otlp_spans(value, f"{name}: {where}"):
            yield from _span_run(span, name, f"{where}, {at}", counter)
    elif isinstance(value.get("attributes"), (dict, list)) and ("context" in value or "name" in value):
        yield from _span_run(value, name, where, counter)
    elif is_dataframe_span(value):
        yield from _span_run(dataframe_span(value), name, where, counter)
    else:
        fields = ", ".join(list(map(str, value))[:8]) or "no fields"
        raise LoadError(
            f"{name}: {where}: neither a contextlab capture run nor an OpenTelemetry span "
            f"(fields: {fields}); expected a 'contextlab_capture' line or a span with 'attributes'"
        )


def _span_run(span: dict[str, object], name: str, where: str, counter: _Counter) -> Iterator[CapturedRun]:
    counter.spans += 1
    found = retriever_run_fields(span, f"{name}: {where}")
    if found is not None:
        yield CapturedRun(
            number=counter.next_run(),
            where=where,
            query=found.query,
            documents=found.documents,
            time=found.time,
            origin="openinference",
            framework=found.framework,
            ids=found.ids,
        )
