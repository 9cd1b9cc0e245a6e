"""Where a citation of the final block came from: its passage in the source, the part that reached the block.

The Final block view opens a citation ``[n]`` here. A chunk is shown inside the stretch of its source that the
documents of the same source cover; a whole document is shown whole. The part the block holds is marked: all of
it when it went in whole, the words kept when it was cut to fit, nothing when only a summary went in.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from contextlab.safe_text import visible_controls

from .context import LabContext
from .engine import passages
from .parts import by_index

__all__ = ["CitedPassage", "cited_passage", "passage_html"]

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class CitedPassage:
    """A citation's source text, the stretch [start, end) that reached the block, and what to say about it."""

    name: str
    text: str
    start: int
    end: int
    note: str


def _kept_end(original: str, kept: str) -> int:
    """Return where in ``original`` the words of ``kept`` (a prefix cut to fit, ending " [...]") stop."""
    words = len(kept.removesuffix(" [...]").split())
    ends = [m.end() for m in _WORD.finditer(original)]
    return ends[words - 1] if 0 < words <= len(ends) else 0


def cited_passage(ctx: LabContext, n: int) -> CitedPassage | None:
    """Return citation ``n``'s passage in its source, or None when no document sits at position ``n``."""
    trace = by_index(ctx)
    placed = next((t for t in trace.values() if t.position == n), None)
    if placed is None:
        return None
    i = placed.input_index
    doc = ctx.documents[i]
    outcome = passages(ctx.documents)
    passage, members = next(
        ((p, m) for p, m in zip(outcome.documents, outcome.members, strict=True) if i in m),
        (doc, (i,)),
    )
    offset = int(passage.metadata.get("start", 0)) if len(members) > 1 else 0
    own_start = int(doc.metadata.get("start", 0)) - offset if len(members) > 1 else 0
    text = passage.content if len(members) > 1 else doc.content
    name = str(doc.metadata.get("chunk_of") or doc.source or f"D{i + 1}")
    if placed.fate == "included":
        span = (own_start, own_start + len(doc.content)) if len(members) > 1 else (0, len(text))
        return CitedPassage(name, text, *span, "In the block whole (marked).")
    if placed.fate == "truncated":
        kept = ctx.result.included_docs[n - 1].content
        end = own_start + _kept_end(doc.content, kept)
        return CitedPassage(name, text, own_start, end, "Cut to fit: the marked words are in the block, the rest not.")
    return CitedPassage(name, text, 0, 0, "Only a one-sentence summary of this document is in the block.")


def passage_html(cited: CitedPassage, *, limit: int = 20_000) -> str:
    """Return the passage as escaped HTML with the part in the block marked; user text is escaped first."""
    text = cited.text[:limit]
    start, end = min(cited.start, len(text)), min(cited.end, len(text))
    before, inside, after = (html.escape(visible_controls(p)) for p in (text[:start], text[start:end], text[end:]))
    marked = f'<mark style="background:#fff59d">{inside}</mark>' if inside else ""
    more = "\n[…]" if len(cited.text) > limit else ""
    return f'<div style="white-space:pre-wrap;line-height:1.6">{before}{marked}{after}{more}</div>'
