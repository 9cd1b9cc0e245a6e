"""Plain text and Markdown: documents separated by ``---`` lines, blank lines or headings."""

from __future__ import annotations

import re

from ..errors import LoadError
from ..types import Document
from .reading import too_many

__all__ = ["split_plain", "plain_documents", "parse_markdown"]

_SEPARATOR_LINE = re.compile(r"^[ \t]*-{3,}[ \t]*$", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
_MD_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*(?:\n|\Z)", re.DOTALL)
_FRONT_MATTER_LINE = re.compile(r"^([A-Za-z0-9_.-]+)[ \t]*:[ \t]*(.*?)[ \t]*$")


def split_plain(text: str) -> list[str]:
    """Return the non-blank parts of ``text``: split on ``---`` lines, or else on blank lines."""
    parts = _SEPARATOR_LINE.split(text) if _SEPARATOR_LINE.search(text) else _BLANK_LINES.split(text)
    return [p.strip() for p in parts if p.strip()]


def plain_documents(
    parts: list[str],
    name: str,
    max_documents: int,
    *,
    source: str | None,
    metadata: dict[str, object] | None = None,
    headings: list[str | None] | None = None,
) -> list[Document]:
    """Return one unscored document per part; with a ``source``, parts are ``source#1``, ``#2``..."""
    if len(parts) > max_documents:
        raise LoadError(too_many(name, max_documents))
    docs = []
    for i, part in enumerate(parts):
        meta: dict[str, object] = dict(metadata or {})
        meta["score_missing"] = True
        if headings is not None and headings[i]:
            meta["heading"] = headings[i]
        doc_source = source
        if source is not None and len(parts) > 1:
            doc_source = f"{source}#{i + 1}"
        docs.append(Document(content=part, source=doc_source, metadata=meta))
    return docs


def parse_markdown(text: str, name: str, max_documents: int) -> list[Document]:
    """Return the documents of a Markdown file: one per heading section (front matter kept)."""
    front: dict[str, object] = {}
    match = _FRONT_MATTER.match(text)
    if match:
        lines = [ln for ln in match.group(1).splitlines() if ln.strip()]
        parsed = [_FRONT_MATTER_LINE.match(ln) for ln in lines]
        if lines and all(parsed):
            front = {m.group(1): m.group(2) for m in parsed if m}
            text = text[match.end() :]
    if _SEPARATOR_LINE.search(text) or not _MD_HEADING.search(text):
        return plain_documents(split_plain(text), name, max_documents, source=name, metadata=front)
    # Sections: each heading starts a document that keeps its heading line.
    starts = [m.start() for m in _MD_HEADING.finditer(text)]
    if starts[0] != 0:
        starts.insert(0, 0)
    parts: list[str] = []
    headings: list[str | None] = []
    for a, b in zip(starts, starts[1:] + [len(text)], strict=False):
        section = text[a:b].strip()
        if section:
            parts.append(section)
            first = section.splitlines()[0]
            headings.append(first.lstrip("#").strip() if first.startswith("#") else None)
    return plain_documents(parts, name, max_documents, source=name, metadata=front, headings=headings)
