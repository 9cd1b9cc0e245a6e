"""Sharing a view: every parameter in the URL, JSON export and import, a code snippet.

The URL is read once per session (it seeds the widgets) and written back after every run, so
the address bar always reproduces what is on screen.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import streamlit as st

from contextlab.lab.config import LabConfig
from contextlab.errors import ContextLabError
from contextlab.types import Document

from . import text as safe
from .sidebar import sample_names, seed_config

__all__ = ["apply_url_once", "url_params", "sync_url", "share_panel", "snippet", "TRUE_VALUES"]

TRUE_VALUES = {"1", "true", "yes", "on"}
_APPLIED = "_url_applied"


def apply_url_once(view_names: Sequence[str]) -> list[str]:
    """Seed the widgets from the URL on a session's first run; return the URL's warnings.

    The warnings are returned on that first run only: the next interaction clears them.
    """
    if st.session_state.get(_APPLIED):
        return []
    params = st.query_params.to_dict()
    config, warnings = LabConfig.from_query_params(params)
    seed_config(config, include_query="query" in params, force=True)
    view = params.get("view")
    if view is not None:
        if view in view_names:
            st.session_state["view"] = view
        else:
            warnings.append(f"ignored URL parameter view={view!r}: choose one of: {', '.join(view_names)}")
    if "present" in params:
        st.session_state["present"] = params["present"].strip().lower() in TRUE_VALUES
    sample = params.get("sample")
    if sample is not None:
        names = sample_names()
        if sample in names:
            st.session_state["doc_source"] = "sample"
            st.session_state["sample_name"] = sample
        else:
            warnings.append(f"ignored URL parameter sample={sample!r}: choose one of: {', '.join(names)}")
    st.session_state[_APPLIED] = True
    return warnings


def url_params(config: LabConfig, *, view: str, default_view: str, present: bool,
               sample: str | None) -> dict[str, str]:
    """Return the query parameters that reproduce this view (defaults left out)."""
    params = config.to_query_params()
    if sample is not None and sample != sample_names()[0]:
        params["sample"] = sample
    if view != default_view:
        params["view"] = view
    if present:
        params["present"] = "1"
    return params


def sync_url(params: dict[str, str]) -> None:
    """Make the address bar hold ``params`` (only touched when something changed)."""
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


def _import_config(key: str) -> None:
    upload = st.session_state.get(key)
    st.session_state.pop("_import_message", None)
    if upload is None:
        return
    try:
        config = LabConfig.from_json(upload.getvalue())
    except ContextLabError as exc:
        st.session_state["_import_message"] = ("error", str(exc))
        return
    seed_config(config, force=True)
    st.session_state["_import_message"] = ("success", f"Loaded {upload.name}.")


def share_panel(config: LabConfig, documents: Sequence[Document], *, source: str, sample: str | None) -> None:
    """Draw the share, export/import and code-snippet panel for the current configuration."""
    st.markdown(
        "**Link.** The address bar holds every parameter: copy it to share this exact view."
        + ("" if source == "sample" else
           " Pasted or uploaded documents are not in the link; download them below.")
    )
    st.download_button(
        "Download configuration (JSON)", config.to_json(), file_name="contextlab-config.json",
        mime="application/json", key="export_config", width="stretch",
    )
    st.file_uploader("Import a configuration", type=["json"], key="import_config",
                     on_change=_import_config, args=("import_config",))
    message = st.session_state.get("_import_message")
    if message is not None:
        kind, body = message
        (safe.error if kind == "error" else safe.success)(body)
    st.download_button(
        "Download documents (JSON)",
        json.dumps([d.to_dict() for d in documents], indent=1, ensure_ascii=False),
        file_name="documents.json", mime="application/json", key="export_documents", width="stretch",
        help="The documents this build ran on (scored), ready for the snippet below.",
    )
    st.markdown("**Use this in code**")
    st.code(snippet(config, sample), language="python")


_LOAD_FILE = "from contextlab.loaders import load_file\n"
_LOAD_SAMPLE = "from contextlab.lab.samples import load_sample_set\n"


def snippet(config: LabConfig, sample: str | None) -> str:
    """Return Python that rebuilds this view's result: a bundled sample by name, else documents.json.

    A sample set is loaded through ``load_sample_set``, which reads the package's own data, so
    the code runs in any installed contextlab, not only next to a checkout's sample_data/.
    """
    if not sample:
        return config.code_snippet('load_file("documents.json")')
    code = config.code_snippet(f"load_sample_set({sample!r}).documents")
    return code.replace(_LOAD_FILE, _LOAD_SAMPLE)

