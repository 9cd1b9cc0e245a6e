"""Chunks: each source's text with its chunk boundaries coloured and overlaps shaded, under size sliders.

The sliders cut the current documents' sources again (``chunk_text``) without changing the build;
chunks whose text reached the block are marked. Chunked documents of one source (a PDF, a chunk
file) are shown as the stretches of the source they cover. User text is escaped before any markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, replace

import streamlit as st

from contextlab.charts.chunks import chunk_token_histogram
from contextlab.loaders.chunking import MIN_CHUNK_SIZE, Chunk
from contextlab.safe_text import visible_controls
from contextlab.types import IN_BLOCK_FATES

from ..context import LabContext
from ..engine import passages
from ..loading import chunks_cached
from ..parts import by_index, explain, show_chart
from ..state import seed_once
from ..text import md_line

__all__ = ["render", "chunk_html", "SHOWN_SOURCES", "SHOWN_CHARACTERS"]

#: The view draws at most this many sources, and this many characters of each: enough to see the cuts.
SHOWN_SOURCES = 12
SHOWN_CHARACTERS = 12_000
_COLOURS = ("#e3f2fd", "#e8f5e9")  # consecutive chunks alternate, so every boundary shows
_OVERLAP = "#ffd54f"
_IN_BLOCK = "#2e7d32"


@dataclass(frozen=True)
class _Source:
    name: str
    text: str
    #: Spans (in this text's offsets) of the documents that reached the block.
    in_block: tuple[tuple[int, int], ...]


def _sources(ctx: LabContext) -> list[_Source]:
    """Return the sources of the current documents: a chunked source's covered stretches, or each document."""
    trace = by_index(ctx)
    outcome = passages(ctx.documents)
    sources = []
    for passage, members in zip(outcome.documents, outcome.members, strict=True):
        offset = passage.metadata.get("start", 0) if "chunk_of" in passage.metadata else 0
        spans = []
        for i in members:
            t = trace.get(i)
            if t is None or t.fate not in IN_BLOCK_FATES:
                continue
            meta = ctx.documents[i].metadata
            if "chunk_of" in meta and "start" in passage.metadata:
                spans.append((int(meta["start"]) - int(offset), int(meta["end"]) - int(offset)))
            else:
                spans.append((0, len(passage.content)))
        name = str(passage.metadata.get("chunk_of") or passage.source or f"D{members[0] + 1}")
        sources.append(_Source(name, passage.content, tuple(spans)))
    return sources


def chunk_html(text: str, chunks: Sequence[Chunk], in_block: Sequence[bool]) -> str:
    """Return ``text`` as escaped HTML: each chunk's stretch coloured, overlaps shaded, chunk numbers
    at each start (with a check mark for a chunk that reached the block). User text is escaped first."""
    cuts = sorted({0, len(text), *(c.start for c in chunks), *(c.end for c in chunks)})
    starts: dict[int, list[int]] = {}
    for k, c in enumerate(chunks):
        starts.setdefault(c.start, []).append(k)
    parts: list[str] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        for k in starts.get(a, []):
            tick = " ✓" if in_block[k] else ""
            colour = _IN_BLOCK if in_block[k] else "#546e7a"
            parts.append(f'<sup style="color:{colour};font-weight:600">[{k + 1}{tick}]</sup>')
        covering = [k for k, c in enumerate(chunks) if c.start <= a and b <= c.end]
        piece = html.escape(visible_controls(text[a:b]))
        if not covering:
            parts.append(piece)
            continue
        background = _OVERLAP if len(covering) > 1 else _COLOURS[covering[0] % 2]
        underline = ";border-bottom:2px solid " + _IN_BLOCK if any(in_block[k] for k in covering) else ""
        parts.append(f'<span style="background:{background}{underline}">{piece}</span>')
    body = "".join(parts)
    return f'<div style="white-space:pre-wrap;line-height:1.7;font-size:0.95rem">{body}</div>'


def _reached(chunk: Chunk, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < chunk.end and chunk.start < end for start, end in spans)


def render(ctx: LabContext) -> None:
    explain(
        "How your documents would be cut into chunks before retrieval. Each chunk holds at most the chunk size "
        "in tokens, cut at paragraph, then sentence, then word ends; consecutive chunks share the overlap "
        "(shaded yellow). A ✓ marks a chunk whose text reached the block. The sliders do not change the build."
    )
    seed_once("chunks_size", 128)
    seed_once("chunks_overlap", 16)
    left, right = st.columns(2)
    size = int(left.slider("Chunk size (tokens)", MIN_CHUNK_SIZE, 1024, key="chunks_size", step=8))
    most = (size - 1) // 2  # the overlap stays under half the size
    if int(st.session_state.get("chunks_overlap", 0)) > most:
        st.session_state["chunks_overlap"] = most
    overlap = int(right.slider("Overlap (tokens)", 0, most, key="chunks_overlap"))
    sources = _sources(ctx)
    tokenizer = ctx.result.tokenizer or "cl100k_base"
    cut = [(s, chunks_cached(s.text, size, overlap, tokenizer)) for s in sources]
    cut.sort(key=lambda pair: -len(pair[1]))  # sources cut most first: that is where overlaps show
    tokens = [c.tokens for _, chunks in cut for c in chunks]
    a, b, c = st.columns(3)
    a.metric("Chunks", f"{len(tokens):,}")
    b.metric("Sources", f"{len(sources):,}")
    reached = sum(1 for s, chunks in cut for ch in chunks if _reached(ch, s.in_block))
    c.metric("Chunks in the block", f"{reached:,}")
    if tokens:
        show_chart(ctx, "chunks_histogram", chunk_token_histogram, tuple(tokens), size)
    for source, chunks in cut[:SHOWN_SOURCES]:
        shown = [ch for ch in chunks if ch.start < SHOWN_CHARACTERS]
        # the source's name is user text: escaped, so it shows as typed (never a link, bold or a formula)
        title = md_line(f"{source.name}: {len(chunks)} chunk{'s' if len(chunks) != 1 else ''}")
        with st.expander(title, expanded=True):
            marks = [_reached(ch, source.in_block) for ch in shown]
            st.html(chunk_html(source.text[:SHOWN_CHARACTERS], _clipped(shown), marks))
            if len(source.text) > SHOWN_CHARACTERS:
                st.caption(f"The first {SHOWN_CHARACTERS:,} of {len(source.text):,} characters.")
    if len(cut) > SHOWN_SOURCES:
        st.caption(f"The first {SHOWN_SOURCES} of {len(cut):,} sources.")


def _clipped(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Return ``chunks`` with the last one's end held to the characters shown."""
    return [ch if ch.end <= SHOWN_CHARACTERS else replace(ch, end=SHOWN_CHARACTERS) for ch in chunks]
