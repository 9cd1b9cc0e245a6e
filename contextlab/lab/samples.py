"""Hand-written demo document sets shipped as package data: what the lab and CLI open on.

They live in ``contextlab/data/sample_data/`` (the checkout's top-level ``sample_data`` is a
symlink to it) and are read through ``importlib.resources``, so an installed wheel finds them
wherever it is installed.

Each set is one JSON file holding a query, a system prompt, retrieved documents (with real
near-duplicates, exact duplicates and too-short snippets) and a conversation, plus
``answer_source``: the source of the document that actually answers the query, so scenarios
can point at it ("the answer is the 2nd most relevant document, and the budget cuts it"), and
``answers``: short correct answers, so a model's answer can be marked right or wrong.
A set may state ``max_context_tokens``: the budget the lab opens it at (the engine's default,
2048, otherwise), chosen so the set's point shows.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError
from ..types import Document, Message
from ..validation import whole_number

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+; the annotation is all that needs it
    from importlib.resources.abc import Traversable

__all__ = ["SampleSet", "SAMPLE_DATA_DIR", "list_sample_sets", "load_sample_set", "sample_set_names"]


def _sample_root() -> Traversable:
    """Return the package-data folder holding the sample sets (works in a wheel and a checkout)."""
    return files("contextlab") / "data" / "sample_data"


#: Where the sample sets live on disk, for callers that want a path (the installed package data).
SAMPLE_DATA_DIR: Path = Path(str(_sample_root()))

_REQUIRED_TEXT_FIELDS = ("name", "title", "description", "query")


@dataclass
class SampleSet:
    """One demo set: a query, its retrieved documents, a conversation and where the answer is."""

    name: str
    title: str
    description: str
    query: str
    system_prompt: str
    documents: list[Document]
    conversation: list[Message]
    answer_source: str | None = None
    #: Correct answers to ``query`` (Liu et al.'s scoring: one of them in the model's answer), when the set knows them.
    answers: tuple[str, ...] = ()
    #: The budget the lab opens this set at, when the set states one (else the engine's default).
    max_context_tokens: int | None = None
    path: Path | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def answer_indices(self) -> list[int]:
        """Return the indices in ``documents`` whose source is ``answer_source`` (maybe empty)."""
        if self.answer_source is None:
            return []
        return [i for i, doc in enumerate(self.documents) if doc.source == self.answer_source]


def sample_set_names() -> list[str]:
    """Return the names of the shipped sample sets, sorted (the JSON file stems)."""
    root = _sample_root()
    if not root.is_dir():
        return []
    return sorted(p.name[: -len(".json")] for p in root.iterdir() if p.is_file() and p.name.endswith(".json"))


def list_sample_sets() -> list[SampleSet]:
    """Return every shipped sample set, loaded and sorted by name."""
    return sorted((load_sample_set(name) for name in sample_set_names()), key=lambda s: s.name)


def load_sample_set(name_or_path: str | Path) -> SampleSet:
    """Return the sample set with this name (e.g. ``"support_faq"``) or read from this JSON path.

    Raises ``InvalidInputError`` for an unknown name (listing the known ones), a missing file,
    invalid JSON, or a file whose fields do not have the documented shape.
    """
    path = _resolve(name_or_path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"sample set {str(path)!r} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}); fix the file or pick another set"
        ) from None
    except UnicodeDecodeError:
        raise InvalidInputError(f"sample set {str(path)!r} is not UTF-8 text; save it as UTF-8") from None
    return _parse(raw, Path(str(path)))


def _resolve(name_or_path: str | Path) -> Path | Traversable:
    """Return the JSON file a sample-set name or path refers to."""
    if isinstance(name_or_path, Path) or str(name_or_path).endswith(".json") or "/" in str(name_or_path):
        path = Path(name_or_path)
        if not path.is_file():
            raise InvalidInputError(f"sample set file {str(path)!r} does not exist; check the path")
        return path
    name = str(name_or_path)
    resource = _sample_root() / f"{name}.json"
    if not resource.is_file():
        known = ", ".join(sample_set_names()) or "(none found in " + str(_sample_root()) + ")"
        raise InvalidInputError(f"unknown sample set {name!r}; choose one of: {known}")
    return resource


def _parse(raw: Any, path: Path) -> SampleSet:
    """Return the ``SampleSet`` described by the decoded JSON ``raw`` read from ``path``."""
    where = f"sample set {str(path)!r}"
    if not isinstance(raw, dict):
        raise InvalidInputError(f"{where}: the top level must be a JSON object, got {type(raw).__name__}")
    for key in _REQUIRED_TEXT_FIELDS:
        if not isinstance(raw.get(key), str):
            raise InvalidInputError(f"{where}: field {key!r} must be a string; add it to the file")
    system_prompt = raw.get("system_prompt", "")
    if not isinstance(system_prompt, str):
        raise InvalidInputError(f"{where}: field 'system_prompt' must be a string")
    answer_source = raw.get("answer_source")
    if answer_source is not None and not isinstance(answer_source, str):
        raise InvalidInputError(f"{where}: field 'answer_source' must be a string or absent")
    docs_raw = raw.get("documents")
    if not isinstance(docs_raw, list):
        raise InvalidInputError(f"{where}: field 'documents' must be a list of objects")
    documents = [_parse_document(item, i, where) for i, item in enumerate(docs_raw)]
    conv_raw = raw.get("conversation", [])
    if not isinstance(conv_raw, list):
        raise InvalidInputError(f"{where}: field 'conversation' must be a list of {{role, content}} objects")
    conversation = [_parse_message(item, i, where) for i, item in enumerate(conv_raw)]
    answers = raw.get("answers", [])
    if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
        raise InvalidInputError(f"{where}: field 'answers' must be a list of non-empty strings or absent")
    budget = raw.get("max_context_tokens")
    if budget is not None:
        whole_number(f"{where}: max_context_tokens", budget, minimum=0)
    known = {
        "name",
        "title",
        "description",
        "query",
        "system_prompt",
        "answer_source",
        "answers",
        "documents",
        "conversation",
        "max_context_tokens",
    }
    return SampleSet(
        name=raw["name"],
        title=raw["title"],
        description=raw["description"],
        query=raw["query"],
        system_prompt=system_prompt,
        documents=documents,
        conversation=conversation,
        answer_source=answer_source,
        answers=tuple(answers),
        max_context_tokens=budget,
        path=path,
        metadata={k: v for k, v in raw.items() if k not in known},
    )


def _number(value: Any) -> bool:
    """Return True when ``value`` is a finite int or float (bools excluded)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _parse_document(item: Any, index: int, where: str) -> Document:
    """Return the ``Document`` for entry ``index`` of a set's ``documents`` list."""
    at = f"{where}: documents[{index}]"
    if not isinstance(item, dict):
        raise InvalidInputError(f"{at} must be an object with at least 'content', got {type(item).__name__}")
    content = item.get("content")
    if not isinstance(content, str):
        raise InvalidInputError(f"{at}.content must be a string")
    score = item.get("score", 1.0)
    if not _number(score):
        raise InvalidInputError(f"{at}.score must be a finite number, got {score!r}")
    source = item.get("source")
    if source is not None and not isinstance(source, str):
        raise InvalidInputError(f"{at}.source must be a string or absent, got {source!r}")
    timestamp = item.get("timestamp")
    if timestamp is not None and not _number(timestamp):
        raise InvalidInputError(f"{at}.timestamp must be a number (Unix seconds) or absent, got {timestamp!r}")
    importance = item.get("importance", 0.5)
    if not _number(importance):
        raise InvalidInputError(f"{at}.importance must be a finite number, got {importance!r}")
    metadata = item.get("metadata", {})
    if not isinstance(metadata, dict):
        raise InvalidInputError(f"{at}.metadata must be an object or absent")
    return Document(
        content=content,
        score=float(score),
        source=source,
        metadata=dict(metadata),
        timestamp=None if timestamp is None else float(timestamp),
        importance=float(importance),
    )


def _parse_message(item: Any, index: int, where: str) -> Message:
    """Return the ``Message`` for entry ``index`` of a set's ``conversation`` list."""
    at = f"{where}: conversation[{index}]"
    if not isinstance(item, dict) or not isinstance(item.get("role"), str) or not isinstance(item.get("content"), str):
        raise InvalidInputError(f"{at} must be an object with string fields 'role' and 'content'")
    return Message(role=item["role"], content=item["content"])
