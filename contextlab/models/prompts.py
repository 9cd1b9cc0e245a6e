"""The question-answering prompt of Liu et al. (2024), with solved examples in front.

The paper's prompt is an instruction, the search results as ``Document [n](Title: ...) text``
lines, then ``Question: ...`` and ``Answer:``. contextlab puts the block it built where the paper
put its list (``QATemplate.render(question, block)``); the position-curve experiment renders
the paper's list itself (``paper_documents``). Solved examples ("shots") go first, so every prompt
of a run starts with the same text and a server's prompt cache reuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..types import Document
from ..validation import text

__all__ = ["QA_INSTRUCTION", "CLOSED_BOOK_INSTRUCTION", "QATemplate", "Shot", "paper_documents", "DEFAULT_TEMPLATE"]

#: The instruction of the paper's multi-document QA prompt (Liu et al. 2024, Figure 2).
QA_INSTRUCTION = (
    "Write a high-quality answer for the given question using only the provided search results "
    "(some of which might be irrelevant)."
)
#: The instruction of the paper's closed-book prompt (no documents).
CLOSED_BOOK_INSTRUCTION = "Write a high-quality answer for the given question."


@dataclass(frozen=True)
class Shot:
    """One solved example: the documents text it shows (may be empty), its question and answer."""

    question: str
    answer: str
    documents: str = ""


@dataclass(frozen=True)
class QATemplate:
    """The prompt, as a setting: its instruction and how a question and its answer are written.

    ``render`` gives ``instruction``, then each shot as ``documents``, ``question_format`` and
    its answer, then the documents and question asked, ending in ``answer_prefix``.
    """

    instruction: str = QA_INSTRUCTION
    closed_book_instruction: str = CLOSED_BOOK_INSTRUCTION
    question_format: str = "Question: {question}"
    answer_prefix: str = "Answer:"

    def __post_init__(self) -> None:
        for name in ("instruction", "closed_book_instruction", "question_format", "answer_prefix"):
            text(name, getattr(self, name))
        if "{question}" not in self.question_format:
            raise InvalidInputError(
                "question_format must contain {question}, e.g. 'Question: {question}'", field="question_format"
            )

    def _part(self, documents: str, question: str) -> str:
        head = f"{documents.strip()}\n\n" if documents.strip() else ""
        return f"{head}{self.question_format.format(question=question.strip())}\n{self.answer_prefix}"

    def render(self, question: str, documents: str, shots: Sequence[Shot] = ()) -> str:
        """Return the whole prompt: instruction, solved ``shots``, then ``documents`` and ``question``.

        With empty ``documents`` (and shots without documents) the closed-book instruction is used.
        """
        closed = not documents.strip() and not any(s.documents.strip() for s in shots)
        parts = [self.closed_book_instruction if closed else self.instruction]
        parts += [f"{self._part(s.documents, s.question)} {s.answer.strip()}" for s in shots]
        parts.append(self._part(documents, question))
        return "\n\n".join(parts)


#: The paper's prompt.
DEFAULT_TEMPLATE = QATemplate()


def paper_documents(documents: Sequence[Document]) -> str:
    """Return ``documents`` as the paper lists them: ``Document [n](Title: source) content`` lines."""
    lines = []
    for n, doc in enumerate(documents, start=1):
        title = f"(Title: {doc.source})" if doc.source else ""
        lines.append(f"Document [{n}]{title} {' '.join(doc.content.split())}")
    return "\n".join(lines)
