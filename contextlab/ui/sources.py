"""Where the documents come from: the source picker and the sample, paste and upload inputs.

Each input returns a ``DocumentsInput``; the table and captured-runs sources live in their own
modules (``table.py``, ``runs.py``), which import nothing from here.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from contextlab.loaders import SUPPORTED_EXTENSIONS

from .inputs import DocumentsInput
from .loading import load_pasted, load_uploads, sample, sample_names, upload_set_fields
from .parameters import set_budget
from .runs import SOURCE as RUNS_SOURCE
from .runs import SOURCE_LABEL as RUNS_LABEL
from .runs import runs_documents, start_source
from .state import CONFIG_KEYS, chosen, keep_values, seed_once
from .table import table_documents
from .text import md_line, plain

__all__ = ["SOURCES", "documents_panel", "sample_picker", "bidi_warning"]

SOURCES: dict[str, str] = {
    "sample": "Sample set",
    "paste": "Paste text",
    "upload": "Upload files",
    "table": "Edit a table",
    RUNS_SOURCE: RUNS_LABEL,  # contextlab.ui.runs: a captured pipeline run or a trace
}
_PASTE_PLACEHOLDER = (
    "Paste documents: separate them with a line of ---, or blank lines.\n"
    'A JSON array or JSON Lines of {"content": ..., "score": ..., "source": ...} works too.'
)


def _on_source_change(key: str) -> None:
    # The sample's question belongs to the sample: pasted or uploaded documents are not scored
    # against it. A query the user typed stays.
    query_key = CONFIG_KEYS["query"]
    if st.session_state.get(key) in ("paste", "upload"):
        samples = {sample(n).query for n in sample_names()}
        if st.session_state.get(query_key) in samples:
            st.session_state[query_key] = ""
    elif st.session_state.get(key) == "sample" and not st.session_state.get(query_key, "").strip():
        name = st.session_state.get("sample_name") or sample_names()[0]
        st.session_state[query_key] = sample(name).query  # back to the sample: its question too


def documents_panel(*, key: str = "doc_source", sample_here: bool = True) -> DocumentsInput:
    """Draw the document source picker and its input; return what was brought.

    ``sample_here=False`` leaves the sample-set picker to another place (the presenter's bar).
    """
    seed_once(key, start_source("sample"))
    # Streamlit forgets a widget's value when it is not drawn; re-storing the pasted text
    # keeps it while the user looks at a sample and comes back.
    keep_values("paste_text")
    source = st.radio(
        "Documents",
        list(SOURCES),
        format_func=SOURCES.get,
        key=key,
        horizontal=True,
        on_change=_on_source_change,
        args=(key,),
        help="Start from a bundled sample, paste text, upload files, or edit documents in a table.",
    )
    if source == "paste":
        return _pasted_documents()
    if source == "upload":
        return _uploaded_documents()
    if source == "table":
        return table_documents()
    if source == RUNS_SOURCE:
        return runs_documents()
    if sample_here:
        return sample_documents(sample_picker())
    names = sample_names()
    seed_once("sample_name", names[0])
    name = st.session_state["sample_name"]
    return sample_documents(name if name in names else names[0])


def _on_sample_change(key: str) -> None:
    # A new sample brings its own question; the old query would score nothing.
    name = st.session_state.get(key)
    if name:
        st.session_state[CONFIG_KEYS["query"]] = sample(name).query
        stated = sample(name).max_context_tokens
        if stated is not None:  # the set opens at its own budget, and the page says so
            set_budget(stated, f"the budget the sample set “{sample(name).title}” opens at")


def sample_picker(key: str = "sample_name", *, label: str = "Sample set", short: bool = False) -> str:
    """Draw the sample-set picker; return the picked set's name (the presenter's bar draws it too).

    ``short`` names each set by its title's first part ("SaaS help center"), for the presenter's
    bar, where the whole title would not fit; the whole title is the picker's help.
    """
    names = sample_names()
    seed_once(key, names[0])
    if st.session_state[key] not in names:
        st.session_state[key] = names[0]
    return chosen(
        names,
        st.selectbox(
            label,
            names,
            key=key,
            on_change=_on_sample_change,
            args=(key,),
            format_func=(lambda n: sample(n).title.split(":")[0]) if short else (lambda n: sample(n).title),
            help=md_line(sample(st.session_state[key]).title) if short else None,
        ),
    )


def sample_documents(name: str) -> DocumentsInput:
    """Return the sample set ``name`` as the lab's input (its conversation and answer too)."""
    picked = sample(name)
    return DocumentsInput(
        documents=list(picked.documents),
        label=f"Sample: {name}",
        history=list(picked.conversation),
        system_prompt=picked.system_prompt,
        default_query=picked.query,
        sample=name,
        answer_source=picked.answer_source,
        gold_answers=picked.answers,
    )


def _pasted_documents(key: str = "paste_text") -> DocumentsInput:
    seed_once(key, "")
    text = st.text_area("Documents as text", key=key, height=220, placeholder=_PASTE_PLACEHOLDER)
    docs, error = load_pasted(text)
    return DocumentsInput(docs, "Pasted text", errors=(error,) if error else ())


def bidi_warning(names: Sequence[str]) -> str | None:
    """Return a warning naming the file names that hold bidi or invisible controls, or None.

    The uploader's own file chip shows such a name reordered (U+202E reverses what follows);
    the warning shows each one with its controls made visible.
    """
    odd = [plain(n) for n in names if plain(n) != n]
    if not odd:
        return None
    return (
        "A file name holds invisible or right-to-left control characters, so the uploader "
        "above may show it reordered. Its real name: " + "; ".join(odd)
    )


def _uploaded_documents(key: str = "upload_files") -> DocumentsInput:
    files = (
        st.file_uploader(
            "Document files",
            key=key,
            accept_multiple_files=True,
            type=[ext.lstrip(".") for ext in SUPPORTED_EXTENSIONS],
            help="PDF, Word (DOCX), web pages (HTML), JSON, JSON Lines, CSV/TSV, plain text or Markdown. "
            "Scores are read when present; a JSON file's query and answer source too.",
        )
        or []
    )
    brought = [(f.name, f.getvalue()) for f in files]
    docs, errors = load_uploads(brought)
    fields = upload_set_fields(brought)
    query_key = CONFIG_KEYS["query"]
    if fields.query and not st.session_state.get(query_key, "").strip():
        st.session_state[query_key] = fields.query  # the set's own question, as a sample brings its own
    names = [f.name for f in files]
    warning = bidi_warning(names)
    label = f"Upload: {', '.join(names)}" if names else "Upload: (no file yet)"
    return DocumentsInput(
        docs,
        label,
        errors=tuple(errors),
        warnings=(warning,) if warning else (),
        default_query=fields.query or "",
        answer_source=fields.answer_source,
        gold_answers=fields.answers,
    )
