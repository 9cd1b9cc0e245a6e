"""The sidebar: where documents come from, the query, and every engine parameter.

Widget helpers take an explicit ``key``, seed ``st.session_state`` once and return their
value. Parsing and scoring are cached by content, so a slider move never re-reads a file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace

import pandas as pd
import streamlit as st

from contextlab.charts import STRATEGY_LABELS
from contextlab.lab.config import LabConfig
from contextlab.manager import PLACEMENTS
from contextlab.errors import ContextLabError
from contextlab.loaders import SUPPORTED_EXTENSIONS, load_bytes, parse_pasted
from contextlab.retrieval import needs_scoring, score_documents
from contextlab.tokenizers import TOKENIZER_NAMES
from contextlab.types import Document, Message

from .engine import documents_hash
from .parts import seed_fixed_key
from .runs import SOURCE as RUNS_SOURCE
from .runs import SOURCE_LABEL as RUNS_LABEL
from .runs import runs_documents, start_source

__all__ = [
    "DocumentsInput",
    "SOURCES",
    "CONFIG_KEYS",
    "seed_config",
    "documents_panel",
    "documents_editor",
    "parameters_panel",
    "load_uploads",
    "score_if_needed",
    "sample_names",
    "apply_scenario",
    "BUDGET_STEPS",
    "TABLE_ANSWER",
    "remember_for_table",
]

#: Token budgets the budget slider stops at (common context sizes); the box beside it takes any.
BUDGET_STEPS: tuple[int, ...] = (0, 64, 128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144,
                                 8192, 12288, 16384, 24576, 32768, 65536, 131072)

SOURCES: dict[str, str] = {
    "sample": "Sample set",
    "paste": "Paste text",
    "upload": "Upload files",
    "table": "Edit a table",
    RUNS_SOURCE: RUNS_LABEL,  # contextlab.ui.runs: a captured pipeline run or a trace
}
#: Session-state key of each ``LabConfig`` field's widget.
# The budget's widget keeps the key it had before the field became ``max_context_tokens``.
_KEY_NAMES = {"max_context_tokens": "budget"}
CONFIG_KEYS: dict[str, str] = {f.name: f"cfg_{_KEY_NAMES.get(f.name, f.name)}" for f in fields(LabConfig)}
_TOKENIZER_LABELS = {"cl100k_base": "exact (cl100k_base)", "heuristic": "heuristic (words × 1.3)"}
_PASTE_PLACEHOLDER = (
    "Paste documents: separate them with a line of ---, or blank lines.\n"
    "A JSON array or JSON Lines of {\"content\": ..., \"score\": ..., \"source\": ...} works too."
)


@dataclass(frozen=True)
class DocumentsInput:
    """The documents a user brought, before the table edits and scoring."""

    documents: list[Document]
    label: str
    history: list[Message] = field(default_factory=list)
    system_prompt: str = ""
    default_query: str = ""
    sample: str | None = None
    errors: tuple[str, ...] = ()
    #: The source of the document that answers the query, when a sample set names it.
    answer_source: str | None = None
    #: Further answer documents, each named by its ``metadata["id"]`` or its source (an evaluation
    #: question's gold documents, which may share a title with other passages).
    answer_keys: tuple[str, ...] = ()

    def answer_indices(self, documents: Sequence[Document]) -> tuple[int, ...]:
        """Return the indices in ``documents`` of the documents that hold the answer (maybe none)."""
        keys = set(self.answer_keys)
        found = []
        for i, doc in enumerate(documents):
            doc_id = doc.metadata.get("id")
            # A document with an id is named by it: passages of one article share a source.
            named = str(doc_id) in keys if doc_id is not None else doc.source in keys
            if named or (self.answer_source is not None and doc.source == self.answer_source):
                found.append(i)
        return tuple(found)


# -- state -----------------------------------------------------------------------------------


def _seed(key: str, value: object) -> None:
    if key not in st.session_state:
        st.session_state[key] = value


def seed_config(config: LabConfig, *, include_query: bool = True, force: bool = False) -> None:
    """Put ``config`` into the parameter widgets' state (all of it with ``force``)."""
    for name, key in CONFIG_KEYS.items():
        if name == "query" and not include_query:
            continue
        if force or key not in st.session_state:
            st.session_state[key] = getattr(config, name)


def _reset_parameters() -> None:
    seed_config(LabConfig(), include_query=False, force=True)


# -- cached loading --------------------------------------------------------------------------


@st.cache_data(show_spinner=False)
def sample_names() -> list[str]:
    """Return the names of the bundled sample sets, the default first."""
    from contextlab.lab.samples import list_sample_sets

    names = [s if isinstance(s, str) else s.name for s in list_sample_sets()]
    return sorted(names, key=lambda n: (n != "support_faq", n))


@st.cache_data(show_spinner=False)
def _sample(name: str):
    from contextlab.lab.samples import load_sample_set

    return load_sample_set(name)


@st.cache_data(show_spinner=False, max_entries=32)
def _parse_pasted(text: str) -> list[Document]:
    return parse_pasted(text)


@st.cache_data(show_spinner=False, max_entries=32)
def _load_bytes(data: bytes, filename: str) -> list[Document]:
    return load_bytes(data, filename)


def load_uploads(files: Sequence[tuple[str, bytes]]) -> tuple[list[Document], list[str]]:
    """Return the documents of every readable file and one message per file that is not.

    A bad file never hides the good ones; its message is the loader's, naming the record.
    """
    docs: list[Document] = []
    errors: list[str] = []
    for name, data in files:
        try:
            docs.extend(_load_bytes(bytes(data), name))
        except ContextLabError as exc:
            errors.append(str(exc))
    return docs, errors


@st.cache_data(show_spinner=False, max_entries=32)
def _score(docs_key: str, query: str, _documents: Sequence[Document]) -> list[Document]:
    return score_documents(_documents, query)


def score_if_needed(documents: Sequence[Document], query: str) -> tuple[list[Document], str | None]:
    """Return the documents scored against ``query`` when some have no score, and a note."""
    documents = list(documents)
    if not documents or not needs_scoring(documents):
        return documents, None
    missing = sum(1 for d in documents if d.metadata.get("score_missing"))
    if not query.strip():
        return documents, (f"{missing} document(s) have no score. Type a query to score them "
                           "against it (BM25); until then they all count as equally relevant.")
    try:
        scored = _score(documents_hash(documents), query, documents)
    except ValueError as exc:
        return documents, str(exc)
    return scored, f"{missing} unscored document(s) were scored against the query (BM25, 0–1)."


# -- scenarios -------------------------------------------------------------------------------


def apply_scenario(key: str = "scenario") -> None:
    """Open the scenario picked under ``key``: its sample set, settings, view and B config."""
    from contextlab.lab.scenarios import get_scenario

    name = st.session_state.get(key)
    if not name:
        return
    scenario = get_scenario(name)
    st.session_state["doc_source"] = "sample"
    st.session_state["sample_name"] = scenario.sample_set
    seed_config(scenario.config, force=True)
    st.session_state["view"] = scenario.view
    if scenario.compare_with is not None:
        from .views.compare import apply_config_b

        apply_config_b(scenario.compare_with)


# -- documents -------------------------------------------------------------------------------


def documents_panel(*, key: str = "doc_source") -> DocumentsInput:
    """Draw the document source picker and its input; return what was brought."""
    _seed(key, start_source("sample"))
    # Streamlit forgets a widget's value when it is not drawn; re-storing the pasted text
    # keeps it while the user looks at a sample and comes back.
    if "paste_text" in st.session_state:
        st.session_state["paste_text"] = st.session_state["paste_text"]
    source = st.radio(
        "Documents", list(SOURCES), format_func=SOURCES.get, key=key, horizontal=True,
        help="Start from a bundled sample, paste text, upload files, or edit documents in a table.",
    )
    if source == "paste":
        return _pasted_documents()
    if source == "upload":
        return _uploaded_documents()
    if source == "table":
        return _table_seed()
    if source == RUNS_SOURCE:
        return runs_documents()
    return _sample_documents()


def _on_sample_change() -> None:
    # A new sample brings its own question; the old query would score nothing.
    name = st.session_state.get("sample_name")
    if name:
        st.session_state[CONFIG_KEYS["query"]] = _sample(name).query
        if _sample(name).max_context_tokens is not None:  # the set opens at its own budget
            st.session_state[CONFIG_KEYS["max_context_tokens"]] = _sample(name).max_context_tokens


def _sample_documents(key: str = "sample_name") -> DocumentsInput:
    names = sample_names()
    _seed(key, names[0])
    if st.session_state[key] not in names:
        st.session_state[key] = names[0]
    name = st.selectbox(
        "Sample set", names, key=key, on_change=_on_sample_change,
        format_func=lambda n: _sample(n).title,
    )
    sample = _sample(name)
    st.caption(sample.description)
    return DocumentsInput(
        documents=list(sample.documents),
        label=f"Sample: {name}",
        history=list(sample.conversation),
        system_prompt=sample.system_prompt,
        default_query=sample.query,
        sample=name,
        answer_source=sample.answer_source,
    )


def _pasted_documents(key: str = "paste_text") -> DocumentsInput:
    _seed(key, "")
    text = st.text_area("Documents as text", key=key, height=220, placeholder=_PASTE_PLACEHOLDER)
    try:
        docs = _parse_pasted(text)
    except ContextLabError as exc:
        return DocumentsInput([], "Pasted text", errors=(str(exc),))
    return DocumentsInput(docs, "Pasted text")


def _uploaded_documents(key: str = "upload_files") -> DocumentsInput:
    files = st.file_uploader(
        "Document files", key=key, accept_multiple_files=True,
        type=[ext.lstrip(".") for ext in SUPPORTED_EXTENSIONS],
        help="JSON, JSON Lines, CSV/TSV, plain text or Markdown. Scores are read when present.",
    )
    files = files or []
    docs, errors = load_uploads([(f.name, f.getvalue()) for f in files])
    names = ", ".join(f.name for f in files)
    return DocumentsInput(docs, f"Upload: {names}" if names else "Upload: (no file yet)", errors=tuple(errors))


#: Session-state key of the table source's answer: ``(answer_source, answer_keys)`` of whatever
#: seeded the table (the snapshotted source, or an evaluation question opened in the lab).
TABLE_ANSWER = "table_answer"


def _table_seed() -> DocumentsInput:
    # The table starts from whatever was loaded before switching to it (a snapshot).
    docs = st.session_state.get("table_documents")
    answer_source, answer_keys = st.session_state.get(TABLE_ANSWER, (None, ()))
    if docs is None:
        sample = _sample(sample_names()[0])
        docs, answer_source, answer_keys = list(sample.documents), sample.answer_source, ()
    st.caption("Edit content, score and source in the table above the view; add or delete rows. "
               "A blank score is scored against the query.")
    return DocumentsInput(list(docs), "Edited table", answer_source=answer_source,
                          answer_keys=tuple(answer_keys))


def remember_for_table(brought: DocumentsInput) -> None:
    """Keep the brought documents, and which hold the answer, as the "Edit a table" source's start."""
    if brought.documents and st.session_state.get("doc_source") != "table":
        st.session_state["table_documents"] = list(brought.documents)
        st.session_state[TABLE_ANSWER] = (brought.answer_source, tuple(brought.answer_keys))


def _documents_frame(documents: Sequence[Document]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "content": [d.content for d in documents],
            "score": [None if d.metadata.get("score_missing") else float(d.score) for d in documents],
            "source": [d.source or "" for d in documents],
            "_row": list(range(len(documents))),
        }
    )


def documents_from_table(frame: pd.DataFrame, originals: Sequence[Document]) -> list[Document]:
    """Return the documents an edited table stands for; untouched fields keep their values.

    A blank score means "score me against the query"; a blank content row is dropped.
    """
    docs: list[Document] = []
    for row in frame.to_dict("records"):
        content = row.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        score = row.get("score")
        missing = _blank(score)
        source = row.get("source")
        source = source if isinstance(source, str) and source.strip() else None
        base_row = row.get("_row")
        base = originals[int(base_row)] if not _blank(base_row) else Document(content="")
        metadata = {k: v for k, v in base.metadata.items() if k != "score_missing"}
        if missing:
            metadata["score_missing"] = True
        docs.append(replace(base, content=content, score=1.0 if missing else float(score),
                            source=source, metadata=metadata))
    return docs


def _blank(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def documents_editor(documents: Sequence[Document]) -> list[Document]:
    """Draw the editable document table and return the edited documents."""
    key = f"doc_editor_{documents_hash(documents)[:12]}"
    edited = st.data_editor(
        _documents_frame(documents),
        key=key,
        num_rows="dynamic",
        width="stretch",
        height=320,
        column_config={
            "content": st.column_config.TextColumn("content", width="large", required=True),
            "score": st.column_config.NumberColumn(
                "score", min_value=0.0, format="%.3f",
                help="Retrieval score; leave blank to score the document against the query.",
            ),
            "source": st.column_config.TextColumn("source", width="medium"),
            "_row": None,
        },
    )
    return documents_from_table(edited, documents)


# -- parameters ------------------------------------------------------------------------------


def _copy_budget(source: str, target: str) -> None:
    value = st.session_state.get(source)
    if value is not None:
        st.session_state[target] = int(value)


def _budget_widgets(key: str) -> None:
    """Draw the budget as a slider over common budgets plus a box for any exact number.

    The value lives in ``st.session_state[key]`` (what the URL, import and reset write); both
    widgets show it and write their changes back to it.
    """
    value = int(st.session_state[key])
    st.session_state["budget_step"] = value
    st.session_state["budget_exact"] = value
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.select_slider("Token budget", sorted({*BUDGET_STEPS, value}), key="budget_step",
                       on_change=_copy_budget, args=("budget_step", key), format_func=lambda v: f"{v:,}",
                       help="The most tokens the context block may use. The slider stops at common "
                            "budgets; type any number in the box.")
    right.number_input("Exact budget", min_value=0, max_value=1_000_000, step=64, key="budget_exact",
                       on_change=_copy_budget, args=("budget_exact", key), label_visibility="hidden")


def parameters_panel(default_query: str = "") -> LabConfig:
    """Draw the query and every engine parameter; return them as one ``LabConfig``."""
    keys = CONFIG_KEYS
    default = LabConfig()
    names = sample_names()
    name = st.session_state.get("sample_name", names[0] if names else None)
    stated = _sample(name).max_context_tokens if name in names else None
    if stated is not None:  # a sample set may open the lab at its own budget
        default = default.with_changes(max_context_tokens=stated)
    seed_config(default, include_query=False)
    _seed(keys["query"], default_query)

    st.text_area("Query", key=keys["query"], height=80,
                 help="The question the documents were retrieved for. Unscored documents are scored against it.")

    st.toggle(
        "Seed-compatible (the original design)", key=keys["seed_compatible"],
        help="Run seed 000 exactly: word-count tokens, reorder before the budget, headers not counted.",
    )
    seed_mode = st.session_state[keys["seed_compatible"]]

    _budget_widgets(keys["max_context_tokens"])
    st.slider("Duplicate threshold", 0.01, 1.0, key=keys["dedup_threshold"], step=0.01,
              help="Two documents sharing at least this share of their 5-word phrases are duplicates; "
                   "the more relevant one is kept. 1.0 removes only identical phrase sets.")
    min_tokens = st.session_state[keys["min_doc_tokens"]]
    st.slider("Minimum document tokens", 0, max(200, min_tokens), key=keys["min_doc_tokens"],
              help="Shorter documents are filtered out before anything else.")
    st.selectbox("Placement", PLACEMENTS, key=keys["placement"], format_func=STRATEGY_LABELS.get,
                 help="Where each document goes in the block. Lost in the middle puts the most "
                      "relevant at the start and the end, where models read best.")
    st.toggle("Summarize overflow", key=keys["summarize_overflow"],
              help="Documents that do not fit get a one-sentence synopsis while budget remains.")

    with st.expander("Tokenizer and budget order", expanded=False):
        if seed_mode:
            st.caption("Seed-compatible mode fixes these: heuristic tokens, reorder first, headers free.")
        # In seed mode the disabled widgets show what the engine uses; the user's choices are kept.
        st.radio("Tokenizer", list(TOKENIZER_NAMES), disabled=seed_mode,
                 key=seed_fixed_key("tokenizer", keys["tokenizer"], seed_mode),
                 format_func=_TOKENIZER_LABELS.get, horizontal=True,
                 help="Exact counts with OpenAI's cl100k_base, or the seed's words × 1.3 estimate.")
        st.toggle("Budget before reorder", disabled=seed_mode,
                  key=seed_fixed_key("budget_before_reorder", keys["budget_before_reorder"], seed_mode),
                  help="Pick documents by relevance until the budget is spent, then reorder. "
                       "Off: reorder first, so the budget cuts the end of the block.")
        st.toggle("Headers count toward the budget", disabled=seed_mode,
                  key=seed_fixed_key("budget_includes_headers", keys["budget_includes_headers"], seed_mode),
                  help="Count the '--- Source [n] ---' headers, so the block never exceeds the budget.")
    st.button("Reset parameters", key="reset_parameters", on_click=_reset_parameters)

    return LabConfig(**{name: st.session_state[key] for name, key in keys.items()})
