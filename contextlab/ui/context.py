"""The one value every lab view draws from: the documents, the settings and the built result."""

from __future__ import annotations

from dataclasses import dataclass

from contextlab.lab.config import LabConfig
from contextlab.types import ContextResult, Document, Message

__all__ = ["LabContext"]


@dataclass(frozen=True)
class LabContext:
    """Everything a view needs to draw one build; views read it and never rebuild."""

    documents: list[Document]  # the loaded, scored documents the build ran on
    config: LabConfig
    result: ContextResult
    history: list[Message]  # conversation of the sample set (or empty)
    system_prompt: str
    source_label: str  # e.g. "Sample: support_faq" / "Pasted text" / "Upload: x.jsonl"
    presentation: bool
    #: Input indices of the documents that hold the answer, when the sample set names it.
    answer: tuple[int, ...] = ()
    #: Correct answers to the query, when the documents' source knows them (to mark a model's answer).
    gold_answers: tuple[str, ...] = ()
