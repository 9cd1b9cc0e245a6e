"""Sharing a view: every parameter in the URL, JSON export and import, a code snippet.

The URL is read once per session (it seeds the widgets) and written back after every run, so
the address bar always reproduces what is on screen.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from contextlab.curves.published import curve_models
from contextlab.errors import ContextLabError, InvalidInputError
from contextlab.evaluation import DEFAULT_TOP_K
from contextlab.lab.config import LabConfig
from contextlab.lab.scenarios import get_scenario, scenario_keys
from contextlab.validation import TRUE_WORDS, bool_text, message_value, parse_int

from . import text as safe
from .downloads import download_newest
from .eval_link import MAX_LINK_TOP_K, apply_evaluate_params
from .loading import sample_names
from .parameters import opening_budget
from .questions import open_bundled_question
from .scenarios import SCENARIO_KEY, apply_scenario, picked_scenario
from .state import CONFIG_KEYS, seed_config

__all__ = ["apply_url_once", "url_params", "sync_url", "share_panel", "snippet", "UNSHAREABLE"]

_APPLIED = "_url_applied"
#: Document sources a link cannot carry, and how the page names them when such a link is opened.
UNSHAREABLE: dict[str, str] = {
    "paste": "pasted documents",
    "upload": "uploaded files",
    "table": "an edited table (or a question opened from Evaluate)",
    "runs": "a captured run",
}


def apply_url_once(view_names: Sequence[str]) -> list[str]:
    """Seed the widgets from the URL on a session's first run; return the URL's warnings.

    The warnings are returned on that first run only: the next interaction clears them.
    """
    if st.session_state.get(_APPLIED):
        return []
    params = st.query_params.to_dict()
    warnings = _apply_scenario_param(params.get("scenario"))
    warnings += _apply_sample_param(params.get("sample"))
    warnings += _apply_question_param(params.get("question"), params.get("top_k"))
    warnings += apply_evaluate_params(params, curve_models())
    config, config_warnings = LabConfig.from_query_params(params)
    warnings += config_warnings
    named = _named_fields(params, config_warnings)
    scenario = picked_scenario()
    if scenario is not None:
        # A scenario link names only the settings that differ from the scenario's own.
        config = scenario.config.with_changes(**{name: getattr(config, name) for name in named})
    # A link made on documents it cannot carry opens the sample with the sample's own question:
    # the link's question over other documents would score and mark the wrong things.
    own_documents = params.get("source") in UNSHAREABLE
    seed_config(config, include_query=scenario is not None or ("query" in named and not own_documents), force=True)
    if "max_context_tokens" not in named and scenario is None:
        opened = st.session_state.get("sample_name") or sample_names()[0]
        st.session_state[CONFIG_KEYS["max_context_tokens"]] = opening_budget(opened)
    view = params.get("view")
    if view is not None:
        if view in view_names:
            st.session_state["view"] = view
        else:
            warnings.append(f"ignored URL parameter view={message_value(view)}: choose one of: {', '.join(view_names)}")
    if "present" in params:
        st.session_state["present"] = params["present"].strip().lower() in TRUE_WORDS
    source = params.get("source")
    if source in UNSHAREABLE:
        warnings.append(
            f"This link was made on {UNSHAREABLE[source]}, which a link cannot carry, so it "
            "cannot reproduce what was shared: the settings are the shared ones, the documents "
            "and question are the sample set's own. Ask for the documents file (Share and "
            "export → Download documents)."
        )
    st.session_state[_APPLIED] = True
    return warnings


def _named_fields(params: dict[str, str], warnings: list[str]) -> set[str]:
    """Return the ``LabConfig`` fields a link sets with a usable value."""
    given = {k for k in params if not any(w.startswith(f"ignored URL parameter {k}=") for w in warnings)}
    return given & set(LabConfig.__dataclass_fields__)


def _all_params(config: LabConfig) -> dict[str, str]:
    """Return every setting of ``config`` as a URL value (as ``to_query_params`` writes them)."""
    return {name: bool_text(getattr(config, name)) for name in LabConfig.__dataclass_fields__}


def _apply_question_param(query_id: str | None, top_k: str | None) -> list[str]:
    """Open the bundled evaluation question a link names (its retrieved documents); return warnings."""
    if query_id is None:
        return []
    try:
        k = DEFAULT_TOP_K if top_k is None else parse_int(top_k, field="top_k", low=1, high=MAX_LINK_TOP_K)
    except InvalidInputError:
        k = DEFAULT_TOP_K  # apply_evaluate_params says so: it reads the same top_k
    problem = open_bundled_question(query_id, k)
    return [problem] if problem else []


def _apply_sample_param(sample: str | None) -> list[str]:
    """Open the sample set a link names; return a warning if there is no such set."""
    if sample is None:
        return []
    names = sample_names()
    if sample not in names:
        return [f"ignored URL parameter sample={message_value(sample)}: choose one of: {', '.join(names)}"]
    st.session_state["doc_source"] = "sample"
    st.session_state["sample_name"] = sample
    return []


def _apply_scenario_param(name: str | None) -> list[str]:
    """Open the scenario a link names (``?scenario=faq_copies``); return a warning if it is unknown."""
    if name is None:
        return []
    if name not in scenario_keys():
        return [f"ignored URL parameter scenario={message_value(name)}: choose one of: {', '.join(scenario_keys())}"]
    st.session_state[SCENARIO_KEY] = name
    apply_scenario(SCENARIO_KEY)
    return []


def url_params(
    config: LabConfig,
    *,
    view: str,
    default_view: str,
    present: bool,
    sample: str | None,
    source: str = "sample",
    scenario: str | None = None,
    question: tuple[str, int] | None = None,
) -> dict[str, str]:
    """Return the query parameters that reproduce this view (defaults left out).

    Documents of the user's own (``source`` other than a sample) cannot be put in a link: the
    link says so with ``source=...``, and opening it warns instead of showing other documents
    as if they were the shared ones.
    """
    if scenario:
        # The scenario sets its own settings: the link adds only what differs from them.
        base = _all_params(get_scenario(scenario).config)
        params = {k: v for k, v in _all_params(config).items() if base[k] != v}
        params["scenario"] = scenario
    else:
        params = config.to_query_params()
        # The budget is in the link unless it is the one the sample set opens at.
        params.pop("max_context_tokens", None)
        if source in UNSHAREABLE or config.max_context_tokens != opening_budget(sample):
            params["max_context_tokens"] = str(config.max_context_tokens)
    if question is not None:  # a bundled evaluation question: retrieved again from its id
        params["question"], params["top_k"] = question[0], str(question[1])
        params["max_context_tokens"] = str(config.max_context_tokens)
    elif source in UNSHAREABLE:
        params["source"] = source
    elif sample is not None and sample != sample_names()[0]:
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


def share_panel(config: LabConfig, *, source: str, sample: str | None) -> None:
    """Draw the share, export/import and code-snippet panel for the current configuration."""
    st.markdown(
        "**Link.** The address bar holds every parameter: copy it to share this exact view."
        + ("" if source == "sample" else " Pasted or uploaded documents are not in the link; download them below.")
    )
    download_newest(
        "Download configuration (JSON)",
        "config",
        file_name="contextlab-config.json",
        mime="application/json",
        key="export_config",
    )
    st.file_uploader(
        "Import a configuration", type=["json"], key="import_config", on_change=_import_config, args=("import_config",)
    )
    message = st.session_state.get("_import_message")
    if message is not None:
        kind, body = message
        (safe.error if kind == "error" else safe.success)(body)
    download_newest(
        "Download documents (JSON)",
        "documents",
        file_name="documents.json",
        mime="application/json",
        key="export_documents",
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
