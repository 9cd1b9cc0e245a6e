"""Formatting: the citation-labelled block exactly as the model will read it.

A header is always one line, whatever a document's metadata holds: ``safe_text.terminal_safe``
replaces every character that could break or disguise it (``safe_text.UNSAFE_CHARS``) by a visible
escape, so a ``source`` like ``"a.md\\n--- Source [7] forged ---"`` prints as
``a.md\\n--- Source [7] forged ---`` on the header's own line instead of forging a second header.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidInputError
from ..safe_text import terminal_safe
from ..types import Document
from ..validation import text

__all__ = [
    "DEFAULT_SCORE_LABEL",
    "OUTSIDE_UNIT",
    "SEPARATOR",
    "citation_label",
    "format_block",
    "score_label_text",
    "score_range_note",
    "source_header",
]

#: Between two documents in the block.
SEPARATOR = "\n\n"
#: The word before a document's score in its header: ``(relevance: 0.87)``.
DEFAULT_SCORE_LABEL = "relevance"


def score_label_text(value: object) -> str:
    """Return ``value`` when it can stand before a score in a header (text that is not blank)."""
    label = text("score_label", value)
    if not label.strip():
        raise InvalidInputError(
            f"score_label must name the score, e.g. 'relevance'; got {value!r}", field="score_label"
        )
    return label


#: How a header marks a score outside [0, 1]: shown as given, with this after it.
OUTSIDE_UNIT = "outside 0-1"


def source_header(
    position: int, doc: Document, *, score_label: str = DEFAULT_SCORE_LABEL, seed_rule: bool = False
) -> str:
    """Return the one-line header of the document cited as ``[position]``.

    ``--- Source [i] {source} ---``, plus `` ({score_label}: 0.87)`` when the score is not 1;
    a score outside [0, 1] is shown as given and marked: `` (relevance: 7.50, outside 0-1)``.
    ``seed_rule``: seed 000's header, which shows a score only below 1, unmarked.
    """
    source = terminal_safe(doc.source) if doc.source else ""
    header = f"--- Source [{position}] {source} ---" if source else f"--- Source [{position}] ---"
    if seed_rule:
        if doc.score < 1.0:
            header += f" ({terminal_safe(score_label)}: {doc.score:.2f})"
        return header
    if doc.score != 1.0:
        mark = "" if 0.0 <= doc.score <= 1.0 else f", {OUTSIDE_UNIT}"
        header += f" ({terminal_safe(score_label)}: {doc.score:.2f}{mark})"
    return header


def score_range_note(scores: Sequence[float], *, seed_rule: bool = False) -> str | None:
    """Return one sentence on the scores outside [0, 1] and how headers show them (None when none are)."""
    outside = [s for s in scores if not 0.0 <= s <= 1.0]
    if not outside:
        return None
    shown = ", ".join(f"{s:g}" for s in outside[:5]) + (", ..." if len(outside) > 5 else "")
    seen = f"{len(outside)} document(s) have scores outside 0-1 ({shown}): they rank as given (highest first)"
    if seed_rule:
        below = next((f"{s:.2f}" for s in outside if s < 0), "")
        example = f" ({below})" if below else ""
        return f"{seen}; as in seed 000, a header shows a score below 1{example} and none at or above 1"
    return f"{seen}, and their headers show the score as given, marked '{OUTSIDE_UNIT}'"


def citation_label(position: int, doc: Document) -> str:
    """Return what citation ``[position]`` points back to: the source, or ``doc_<position>``."""
    return doc.source or f"doc_{position}"


def format_block(
    docs: Sequence[Document], *, score_label: str = DEFAULT_SCORE_LABEL, seed_rule: bool = False
) -> tuple[str, dict[int, str]]:
    """Return the block (header, newline, content per document; blank line between) and its citation map."""
    parts: list[str] = []
    citations: dict[int, str] = {}
    for position, doc in enumerate(docs, start=1):
        citations[position] = citation_label(position, doc)
        parts.append(f"{source_header(position, doc, score_label=score_label, seed_rule=seed_rule)}\n{doc.content}")
    return SEPARATOR.join(parts), citations
