"""What the three framework components share: settings, field mapping, the build and the capture.

A framework component turns its own documents into ``Document`` copies (``engine_document``),
hands them to ``ContextLabStep.run`` with the query, and turns the kept ones back into copies of
its *own* input objects (same id, metadata and type) carrying ``metadata["contextlab"]`` and the
text the block holds (shorter when the budget cut or summarised it). Nothing here imports a
framework.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from ..errors import InvalidInputError
from ..manager import ContextManager
from ..retrieval import needs_scoring, score_unscored
from ..runs.captures import append_run, capture_record
from ..settings import LEGACY_REORDER, EngineSettings, placement_for
from ..settings import SETTING_NAMES as _ENGINE_NAMES
from ..types import ContextResult, Document, PromptRequest
from ..validation import whole_number

__all__ = [
    "ContextLabStep",
    "KeptDocument",
    "KeptInfo",
    "StepOutcome",
    "engine_config",
    "engine_document",
    "SETTING_NAMES",
    "SOURCE_KEYS",
    "SCORE_KEYS",
    "METADATA_KEY",
]

#: The key of the metadata entry every returned document carries.
METADATA_KEY = "contextlab"
#: Metadata keys read as a document's source, in this order (then its id).
SOURCE_KEYS: tuple[str, ...] = ("source", "file_path", "file_name", "url")
#: Metadata keys retrievers and rerankers leave a score under, read (in this order) when the
#: framework's own score field is empty.
SCORE_KEYS: tuple[str, ...] = ("relevance_score", "score", "similarity_score")
#: Keyword settings a component accepts: the engine's settings (``contextlab.settings``) and seed
#: 000's ``use_lost_in_middle`` switch, as ``ContextManager`` takes it.
SETTING_NAMES: tuple[str, ...] = (*_ENGINE_NAMES, LEGACY_REORDER)


def engine_config(
    config: EngineSettings | str | bytes | Mapping[str, Any] | None = None, **settings: Any
) -> EngineSettings:
    """Return the ``EngineSettings`` for ``config`` (settings, a LabConfig, its JSON export or dict).

    Keyword settings override the matching fields of ``config``; an unknown name is an error
    listing the known ones. A configuration's query is not used: the pipeline brings its own.
    ``use_lost_in_middle`` (a keyword, as ``ContextManager`` takes it) names a placement.
    """
    if config is None:
        base = EngineSettings()
    elif isinstance(config, EngineSettings):
        base = config.engine_settings()
    elif isinstance(config, (str, bytes)):
        base = EngineSettings.from_dict(_without_query(_json_object(config)))
    elif isinstance(config, Mapping):
        base = EngineSettings.from_dict(_without_query(config))
    else:
        raise InvalidInputError(
            "config must be EngineSettings, a LabConfig, its JSON export (text) or a dict, "
            f"got {type(config).__name__}",
            field="config",
        )
    unknown = sorted(set(settings) - set(SETTING_NAMES))
    if unknown:
        raise InvalidInputError(
            f"unknown setting(s): {', '.join(unknown)}; the settings are: {', '.join(SETTING_NAMES)}"
        )
    changes = dict(settings)
    if LEGACY_REORDER in changes:
        changes["placement"] = placement_for(changes.get("placement"), changes.pop(LEGACY_REORDER))
    if "max_context_tokens" in changes:
        whole_number("max_context_tokens", changes["max_context_tokens"])
    return base.with_changes(**changes) if changes else base


def _json_object(text: str | bytes) -> Any:
    """Return the JSON value in ``text`` (a configuration export); bad JSON is a clear error."""
    import json

    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"configuration file is not valid JSON: {exc}", field="config") from exc


def _without_query(data: Any) -> Any:
    """Return the lab's export ``data`` without its query (a pipeline brings its own)."""
    return {k: v for k, v in data.items() if k != "query"} if isinstance(data, Mapping) else data


def engine_document(
    content: Any, *, score: Any, metadata: Any, doc_id: Any = None, source: Any = None, where: str = "document"
) -> Document:
    """Return the engine's ``Document`` for one framework document (its fields copied, never shared).

    Without ``score``, the first of ``SCORE_KEYS`` the metadata holds is the score (the copy's
    ``metadata["score_source"]`` says which); with none, the copy is marked
    ``metadata["score_missing"]``, so it is scored against the query as the engine scores every
    unscored document. ``where`` names it in errors.
    """
    if not isinstance(content, str):
        raise InvalidInputError(
            f"{where}.content must be text, got {type(content).__name__}; contextlab builds a text "
            "block, so give it text documents"
        )
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"{where}.metadata must be a dict, got {type(metadata).__name__}")
    meta = {k: v for k, v in metadata.items() if k != METADATA_KEY}
    if doc_id is not None and doc_id != "":
        meta.setdefault("id", doc_id)
    if source is None:
        source = next((meta[k] for k in SOURCE_KEYS if isinstance(meta.get(k), str) and meta[k]), None)
    if source is None and doc_id is not None and doc_id != "":
        source = str(doc_id)
    if score is None:
        key = next((k for k in SCORE_KEYS if meta.get(k) is not None), None)
        if key is not None:
            score = meta[key]
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise InvalidInputError(f"{where}.metadata[{key!r}] must be a finite number, got {score!r}")
            meta["score_source"] = f"metadata.{key}"
    if score is None:
        meta["score_missing"] = True
        score = 1.0
    elif isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise InvalidInputError(f"{where}.score must be a finite number or None, got {score!r}")
    return Document(content=content, score=float(score), source=source, metadata=meta)


class _KeptInfo(TypedDict):
    citation: int
    fate: str
    reason: str


class KeptInfo(_KeptInfo, total=False):
    """What a framework document's ``contextlab`` metadata says: its citation, fate and reason.

    ``score_source`` says where its score came from when not the framework's score field
    (``"bm25"`` when the retriever gave none, then ``retriever_rank`` is where it had it).
    """

    score_source: str
    retriever_rank: int


@dataclass(frozen=True)
class KeptDocument:
    """A document in the block: which input it was, the text the block holds, and why it is there."""

    input_index: int
    content: str
    score: float
    info: KeptInfo

    @property
    def content_changed(self) -> bool:
        """True when the block holds a cut or summarised text instead of the whole document."""
        return self.info["fate"] != "included"


@dataclass(frozen=True)
class StepOutcome:
    """One run of the step: the documents the engine saw (scored), its result and what was kept."""

    documents: list[Document]
    result: ContextResult
    kept: list[KeptDocument]


class ContextLabStep:
    """The engine with its settings and optional capture file, as the components run it."""

    def __init__(
        self, framework: str, *, config: Any = None, capture_to: str | os.PathLike[str] | None = None, **settings: Any
    ) -> None:
        self.framework = framework
        self.config = engine_config(config, **settings)
        self.manager = ContextManager.from_settings(self.config)
        self.capture_to = _capture_path(capture_to)

    def settings(self) -> dict[str, Any]:
        """Return the settings in the engine's names (``max_context_tokens``, ...), for repr and export."""
        return self.config.to_dict()

    def run(self, query: str, documents: Sequence[Document]) -> StepOutcome:
        """Return the block built from ``documents`` for ``query``, and capture the run if asked."""
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be text, got {type(query).__name__}")
        docs = list(documents)
        note = None
        if needs_scoring(docs):
            scoring = score_unscored(docs, query)
            docs = scoring.documents
            note = (
                f"{scoring.note}; the retriever's order was replaced by BM25's (metadata "
                f"{METADATA_KEY}.retriever_rank keeps it)"
            )
        request = PromptRequest(query=query, documents=docs)  # at the settings' budget (the manager's)
        result = self.manager.build(request)
        if note:
            result.notes.append(note)  # in the capture too: the result is recorded whole
        if self.capture_to is not None:
            append_run(
                self.capture_to, capture_record(query, docs, self.config.to_dict(), result, framework=self.framework)
            )
        return StepOutcome(documents=docs, result=result, kept=_kept(docs, result))


def _kept(docs: list[Document], result: ContextResult) -> list[KeptDocument]:
    """Return the documents in the block, in block order, with their citation, fate and reason."""
    placed = sorted(((t.position, t) for t in result.trace if t.position is not None), key=lambda pair: pair[0])
    return [
        KeptDocument(
            input_index=t.input_index,
            content=result.included_docs[position - 1].content,
            score=docs[t.input_index].score,
            info=_kept_info(position, t.fate, t.reason, docs[t.input_index], t.input_index),
        )
        for position, t in placed
    ]


def _kept_info(citation: int, fate: str, reason: str, doc: Document, index: int) -> KeptInfo:
    """Return a kept document's metadata, with where its score came from when not the framework's field."""
    info = KeptInfo(citation=citation, fate=fate, reason=reason)
    source = doc.metadata.get("score_source")
    if source == "bm25":  # the retriever gave none: say so, and where the retriever had it
        info["score_source"], info["retriever_rank"] = "bm25", index + 1
    elif isinstance(source, str):
        info["score_source"] = source
    return info


def _capture_path(capture_to: Any) -> Path | None:
    if capture_to is None:
        return None
    if not isinstance(capture_to, (str, os.PathLike)) or not str(capture_to):
        raise InvalidInputError(f"capture_to must be a file path (text), got {type(capture_to).__name__}")
    path = Path(capture_to)
    if not path.parent.is_dir():
        raise InvalidInputError(
            f"capture_to: the folder {str(path.parent)!r} does not exist; create it or choose another path"
        )
    return path
