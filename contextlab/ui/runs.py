"""Captured runs as a document source: a capture file or an OpenInference export, one run at a time.

``contextlab lab --runs FILE`` starts the lab with ``CONTEXTLAB_RUNS=FILE``: the sidebar then
opens on this source with that file's runs listed (time, query, counts). A file can also be
uploaded here. Picking a run brings its documents, its query and its recorded settings into the
sidebar, so every view shows that run; moving a slider afterwards explores it from there.
A file named by the environment is read twice at most (once for the list, once up to the picked
run), never held whole in memory.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

import streamlit as st

from contextlab.errors import ContextLabError
from contextlab.lab.config import LabConfig
from contextlab.runs.captures import (
    LAB_RUNS_ENV,
    CapturedRun,
    iter_runs,
    read_run,
    runs_from_bytes,
)

from .inputs import DocumentsInput
from .state import chosen, seed_config
from .text import caption, plain

__all__ = ["RUNS_ENV", "SOURCE", "SOURCE_LABEL", "start_source", "runs_documents"]

#: The environment variable ``contextlab lab --runs FILE`` sets to the file's absolute path.
RUNS_ENV = LAB_RUNS_ENV
#: This source's key among the sidebar's document sources, and its label there.
SOURCE = "runs"
SOURCE_LABEL = "Captured runs"
_OPENED = "_runs_opened"


def start_source(default: str = "sample") -> str:
    """Return the document source the sidebar opens on: runs when the lab was started with a file."""
    return SOURCE if os.environ.get(RUNS_ENV) else default


@st.cache_data(show_spinner=False, max_entries=4)
def _file_labels(path: str, mtime_ns: int, size: int) -> list[str]:
    # mtime and size are part of the key: a capture file that grew is read again.
    return [run.label for run in iter_runs(path)]


@st.cache_data(show_spinner=False, max_entries=16)
def _file_run(path: str, mtime_ns: int, size: int, number: int) -> CapturedRun:
    return read_run(path, number)


def _run_at(runs: list[CapturedRun], number: int) -> CapturedRun:
    return runs[number - 1]


@st.cache_data(show_spinner=False, max_entries=4)
def _upload_runs(data: bytes, name: str) -> list[CapturedRun]:
    return runs_from_bytes(data, name)


def runs_documents(*, key: str = "runs_upload") -> DocumentsInput:
    """Draw the runs picker (and its upload); return the picked run as the sidebar's ``DocumentsInput``."""
    upload = st.file_uploader(
        "Capture file or span export",
        type=["jsonl", "ndjson", "json"],
        key=key,
        help="A JSONL file written by a component's capture_to=, or OpenTelemetry spans with "
        "OpenInference attributes (span.to_json() files, JSON Lines, OTLP JSON).",
    )
    path = os.environ.get(RUNS_ENV)
    try:
        if upload is not None:
            data = upload.getvalue()
            runs = _upload_runs(data, upload.name)
            origin, ident = upload.name, hashlib.sha1(data).hexdigest()[:12]
            labels = [r.label for r in runs]
            open_run: Callable[[int], CapturedRun] = partial(_run_at, runs)
        elif path:
            stat = Path(path).stat()
            origin, ident = Path(path).name, f"{path}:{stat.st_mtime_ns}:{stat.st_size}"
            labels = _file_labels(path, stat.st_mtime_ns, stat.st_size)
            open_run = partial(_file_run, path, stat.st_mtime_ns, stat.st_size)
        else:
            st.caption("Upload a capture file, or start the lab with `contextlab lab --runs FILE`.")
            return DocumentsInput([], "Runs: (no file yet)")
    except (ContextLabError, OSError) as exc:
        return DocumentsInput([], "Runs: (unreadable file)", errors=(_message(exc, path),))

    pick_key = f"runs_pick_{hashlib.sha1(ident.encode()).hexdigest()[:12]}"
    numbers = range(1, len(labels) + 1)
    number = chosen(numbers, st.selectbox("Run", numbers, key=pick_key, format_func=lambda n: plain(labels[n - 1])))
    try:
        run = open_run(number)
    except (ContextLabError, OSError) as exc:
        return DocumentsInput([], f"Runs: {origin}", errors=(_message(exc, path),))
    errors = _open_once(f"{ident}#{number}", run)
    caption(f"{len(labels)} run(s) in {origin}; this one: {_describe(run)}")
    return DocumentsInput(
        documents=list(run.documents),
        label=f"Run #{run.number} of {origin}",
        default_query=run.query,
        errors=errors,
        answer_source=run.gold_sources[0] if len(run.gold_sources) == 1 else None,
        gold_answers=tuple(run.answers),
    )


def _open_once(marker: str, run: CapturedRun) -> tuple[str, ...]:
    """Put the run's query and settings into the parameter widgets when a new run is picked."""
    if st.session_state.get(_OPENED) == marker:
        return ()
    st.session_state[_OPENED] = marker
    try:
        config = LabConfig.from_run(run)
    except ContextLabError as exc:
        seed_config(LabConfig(query=run.query), force=True)
        return (f"run {run.number}: its recorded settings were not used: {exc}",)
    seed_config(config, force=True)
    return ()


def _describe(run: CapturedRun) -> str:
    kind = "OpenInference span" if run.origin == "openinference" else "captured run"
    parts = [f"{kind} {run.where}"]
    if run.framework:
        parts.append(run.framework)
    if run.time:
        parts.append(run.time)
    if run.result is not None:
        parts.append(f"recorded block: {run.kept_count} document(s), {run.recorded_tokens} tokens")
    if run.gold_sources or run.answers:
        parts.append(f"gold: {len(run.gold_sources)} source(s), {len(run.answers)} answer(s)")
    return " · ".join(parts)


def _message(exc: BaseException, path: str | None) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename or path}: {exc.strerror}"
    return str(exc)
