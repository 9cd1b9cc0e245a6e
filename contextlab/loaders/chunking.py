"""Chunks of a text: a hard token maximum, cuts at paragraph, sentence, then word ends, exact offsets.

The cutting is semantic-text-splitter's (a Rust splitter that runs offline): it fills each piece
up to a token capacity, preferring the largest semantic unit that fits (paragraphs, then sentences,
then words, then characters). Overlap is added here: each chunk after the first starts back inside
the one before, at a word start, by at most ``overlap`` tokens, and the base pieces are cut at
``size - overlap`` so a chunk with its overlap still counts at most ``size`` tokens. Every chunk is
re-counted by the tokenizer itself; that count is the one a chunk carries and the one the maximum
is checked on.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..tokenizers import Tokenizer, resolve_tokenizer
from .source_text import missing_extra

__all__ = ["Chunk", "chunk_text", "check_chunking", "MIN_CHUNK_SIZE"]

#: The smallest chunk size in tokens: one character can be four tokens of a byte-level vocabulary.
MIN_CHUNK_SIZE = 8

_WORD_START = re.compile(r"(?<!\S)\S")


@dataclass(frozen=True)
class Chunk:
    """A piece of a source's text: ``text == source_text[start:end]``, ``tokens`` in the chunker's tokenizer."""

    text: str
    source: str
    start: int
    end: int
    tokens: int
    #: The 1-based page the chunk starts on, when the source has pages (a PDF).
    page: int | None = None


def check_chunking(size: object, overlap: object) -> tuple[int, int]:
    """Return (size, overlap) when both are whole numbers with ``MIN_CHUNK_SIZE <= size`` and
    ``0 <= overlap < size / 2``; raise ``InvalidInputError`` naming the field otherwise."""
    for field, value, minimum in (("chunk_size", size, MIN_CHUNK_SIZE), ("chunk_overlap", overlap, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise InvalidInputError(f"{field} must be a whole number >= {minimum}, got {value!r}", field=field)
    assert isinstance(size, int) and isinstance(overlap, int)
    if overlap * 2 >= size:
        raise InvalidInputError(
            f"chunk_overlap must be less than half of the chunk size ({size}), got {overlap}; lower the overlap",
            field="chunk_overlap",
        )
    return size, overlap


def chunk_text(
    text: str,
    *,
    size: int,
    overlap: int = 0,
    tokenizer: str | Tokenizer = "cl100k_base",
    source: str = "text",
    pages: tuple[tuple[int, int], ...] = (),
) -> list[Chunk]:
    """Return the chunks of ``text``, each at most ``size`` tokens, consecutive ones sharing up to
    ``overlap`` tokens, every non-space character in some chunk.

    ``pages``: (start offset, page number) pairs in offset order, so each chunk names the page it
    starts on.
    """
    size, overlap = check_chunking(size, overlap)
    counter = resolve_tokenizer(tokenizer)
    if not text.strip():
        return []
    try:
        from semantic_text_splitter import TextSplitter  # the [files] extra's splitter, loaded when used
    except ImportError:
        raise missing_extra(source, "chunking") from None

    splitter = TextSplitter.from_callback(counter.count, size - overlap, trim=True)
    spans: list[tuple[int, int]] = []
    for start, piece in splitter.chunk_indices(text):
        spans.extend(_within(text, start, start + len(piece), size, counter))
    if overlap:
        spans = _with_overlap(text, spans, overlap, size, counter)
    page_starts = [p[0] for p in pages]
    chunks = []
    for start, end in spans:
        piece = text[start:end]
        at = bisect.bisect_right(page_starts, start) - 1
        page = pages[at][1] if pages and at >= 0 else None
        chunks.append(Chunk(piece, source, start, end, counter.count(piece), page))
    return chunks


def _within(text: str, start: int, end: int, size: int, counter: Tokenizer) -> list[tuple[int, int]]:
    """Return ``(start, end)`` cut into spans of at most ``size`` tokens (the splitter's piece may
    count more in the tokenizer's own count of the whole, as when a grapheme is many tokens)."""
    out: list[tuple[int, int]] = []
    while start < end:
        if counter.count(text[start:end]) <= size:
            out.append((start, end))
            break
        low, high = start + 1, end  # the longest prefix that fits, by bisection on characters
        while low < high:
            middle = (low + high + 1) // 2
            if counter.count(text[start:middle]) <= size:
                low = middle
            else:
                high = middle - 1
        out.append((start, low))
        start = low
        while start < end and text[start].isspace():
            start += 1
    return out


def _with_overlap(
    text: str, spans: list[tuple[int, int]], overlap: int, size: int, counter: Tokenizer
) -> list[tuple[int, int]]:
    """Return ``spans`` with each one after the first moved to start inside the one before."""
    out = spans[:1]
    for (previous_start, previous_end), (start, end) in zip(spans, spans[1:], strict=False):
        starts = [m.start() for m in _WORD_START.finditer(text, previous_start + 1, min(previous_end, start))]
        out.append((_earliest_start(text, starts, start, end, overlap, size, counter), end))
    return out


def _earliest_start(
    text: str, starts: list[int], start: int, end: int, overlap: int, size: int, counter: Tokenizer
) -> int:
    """Return the earliest word start in ``starts`` from which the overlap and the whole chunk fit,
    or ``start`` when none does. Counts fall as the start moves right, so bisection finds it."""

    def fits(candidate: int) -> bool:
        return counter.count(text[candidate:start]) <= overlap and counter.count(text[candidate:end]) <= size

    low, high = 0, len(starts)
    while low < high:
        middle = (low + high) // 2
        if fits(starts[middle]):
            high = middle
        else:
            low = middle + 1
    for candidate in starts[low:]:  # counts are not strictly monotone: confirm, moving right if needed
        if fits(candidate):
            return candidate
    return start
