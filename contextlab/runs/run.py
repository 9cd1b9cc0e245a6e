"""One captured run: the query, its documents and what was built, read from a capture line.

``CapturedRun`` is what ``contextlab.runs.captures`` yields for each line of a capture file and each
RETRIEVER span of a trace; ``run_from_record`` checks one capture line's fields into one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidInputError, LoadError
from ..manager import ContextManager
from ..settings import EngineSettings
from ..types import ContextResult, Document, PromptRequest, document_list

__all__ = ["CapturedRun", "run_from_record", "value_kind"]

_DOCUMENT_FIELDS = ("content", "score", "source", "metadata", "timestamp", "importance")


@dataclass(frozen=True)
class CapturedRun:
    """One run read from a capture file or a trace: the query, its documents and what was built."""

    number: int
    where: str
    query: str
    documents: list[Document]
    time: str | None = None
    origin: str = "capture"
    framework: str | None = None
    #: The settings the run was built with, and what the build made (``ContextResult.to_dict()``), as recorded.
    settings: dict[str, object] | None = None
    result: dict[str, object] | None = None
    gold_sources: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    ids: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """One line for a picker: number, counts, query and time (the narrow sidebar shows the start)."""
        when = (self.time or "")[:19].replace("T", " ")
        query = self.query if len(self.query) <= 60 else self.query[:57] + "..."
        counts = f"{len(self.documents)} docs"
        if self.kept_count is not None:
            counts += f", {self.kept_count} kept"
        parts = [f"#{self.number}", counts, repr(query) if query else "(no query)", when]
        return " · ".join(p for p in parts if p)

    @property
    def kept_count(self) -> int | None:
        """Return how many documents the recorded build kept (None when no build was recorded)."""
        if self.result is None:
            return None
        kept = self.result.get("included_docs")
        return len(kept) if isinstance(kept, list) else 0

    @property
    def recorded_tokens(self) -> int | None:
        """Return the recorded build's token count (None when none was recorded)."""
        tokens = None if self.result is None else self.result.get("tokens_used")
        return tokens if isinstance(tokens, int) else None

    @property
    def note(self) -> str | None:
        """Return what a user should know before building this run (None when nothing).

        A retriever that returned nothing leaves a run with no documents, whose block is empty.
        """
        if self.documents:
            return None
        what = "RETRIEVER span" if self.origin == "openinference" else "run"
        return f"{self.where}: the {what} holds no documents (the retriever returned none), so its block is empty"

    def config(self) -> EngineSettings:
        """Return the engine settings of this run: its recorded ones (or the defaults).

        The run's query is ``query``; ``LabConfig.from_run(run)`` gives both as the lab's config.
        """
        data = {k: v for k, v in (self.settings or {}).items() if k != "query"}
        settings: EngineSettings = EngineSettings.from_dict(data, where="capture settings")
        return settings

    def scored_documents(self) -> list[Document]:
        """Return the documents, those without a score scored against the query as the engine does."""
        from ..retrieval import needs_scoring, score_documents

        if not needs_scoring(self.documents):
            return list(self.documents)
        return score_documents(self.documents, self.query)

    def build(self, config: EngineSettings | None = None) -> ContextResult:
        """Return the context block built from this run, with its own settings or ``config``.

        ``config`` is ``EngineSettings`` or a ``LabConfig``; the run's query is used either way
        (unscored documents are scored against it).
        """
        cfg = config if config is not None else self.config()
        request = PromptRequest(
            query=self.query, documents=self.scored_documents(), max_context_tokens=cfg.max_context_tokens
        )
        return ContextManager.from_settings(cfg).build(request)


def run_from_record(rec: dict[str, object], name: str, where: str, number: int) -> CapturedRun:
    """Return the run one capture line holds (line ``where`` of ``name``); a bad field is a ``LoadError``."""
    at = f"{name}: {where}"
    query = rec.get("query", "")
    if not isinstance(query, str):
        raise LoadError(f"{at}: 'query' must be text, got {value_kind(query)}")
    raw_docs = rec.get("documents")
    if not isinstance(raw_docs, list):
        raise LoadError(f"{at}: 'documents' must be a list of documents, got {value_kind(raw_docs)}")
    documents = [_capture_document(d, f"{at}: documents[{i}]") for i, d in enumerate(raw_docs)]
    try:
        document_list(documents)
    except InvalidInputError as exc:
        raise LoadError(f"{at}: {exc}") from exc
    settings = rec.get("settings")
    if settings is not None and not isinstance(settings, dict):
        raise LoadError(f"{at}: 'settings' must be an object, got {value_kind(settings)}")
    result = rec.get("result")
    if result is not None and not isinstance(result, dict):
        raise LoadError(f"{at}: 'result' must be an object, got {value_kind(result)}")
    run = CapturedRun(
        number=number,
        where=where,
        query=query,
        documents=documents,
        time=_text_or_none(rec.get("time"), f"{at}: 'time'"),
        origin="capture",
        framework=_text_or_none(rec.get("framework"), f"{at}: 'framework'"),
        settings=settings,
        result=result,
        gold_sources=_strings(rec.get("gold_sources"), f"{at}: 'gold_sources'"),
        answers=_strings(rec.get("answers", rec.get("answer")), f"{at}: 'answers'"),
    )
    if settings is not None:
        try:
            run.config()
        except InvalidInputError as exc:
            raise LoadError(f"{at}: settings: {exc}") from exc
    return run


def _capture_document(raw: Any, at: str) -> Document:
    if not isinstance(raw, dict):
        raise LoadError(f"{at}: expected a document object, got {value_kind(raw)}")
    unknown = sorted(set(raw) - set(_DOCUMENT_FIELDS))
    if unknown:
        raise LoadError(f"{at}: unknown field(s) {', '.join(unknown)}; a document has {', '.join(_DOCUMENT_FIELDS)}")
    if not isinstance(raw.get("content"), str):
        raise LoadError(f"{at}: 'content' must be text, got {value_kind(raw.get('content'))}")
    values = dict(raw)
    if values.get("metadata") is None:
        values["metadata"] = {}
    for key in ("score", "importance"):
        if values.get(key) is None:
            values.pop(key, None)
    return Document(**values)


# -- small checks --------------------------------------------------------------------------


def _text_or_none(value: Any, at: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise LoadError(f"{at} must be text, got {value_kind(value)}")


def _strings(value: Any, at: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise LoadError(f"{at} must be a list of text, got {value_kind(value)}")


def value_kind(value: Any) -> str:
    """Return how a message names a JSON value's kind: ``null``, ``str``, ``list``, ..."""
    return "null" if value is None else type(value).__name__
