"""The token count of a finished block from its documents' counts, when that is provably exact.

A BPE tokenizer like cl100k_base first cuts text into pieces with a regular expression and
encodes each piece alone, so a text's count is the sum of its pieces' counts. cl100k_base's
pattern never makes a piece that holds a newline followed by a non-space character, nor one that
holds a non-space character followed by a space. So a block ``header\\ncontent\\n\\nheader\\n...``
splits into pieces at each header's and each content's start (when that starts with a
non-space character), and a content splits before its last space that follows a non-space
character. Its count is then the headers' (with their newline) plus the contents' (which the
build already counted), with only each content's last word counted again beside the blank line
that follows it. Where a condition does not hold, the caller measures the whole block.
Tokenizers declare the property with ``splits_at_line_and_word_starts = True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .format import SEPARATOR

if TYPE_CHECKING:
    from ..tokenizers import Tokenizer

__all__ = ["block_count"]


def _tail_start(content: str) -> int:
    """Return the index of ``content``'s last space that follows a non-space character, or -1."""
    j = content.rfind(" ")
    while j > 0 and content[j - 1].isspace():
        j = content.rfind(" ", 0, j - 1)
    return j if j > 0 else -1


def block_count(text: str, contents: Sequence[str], tokenizer: Tokenizer) -> int | None:
    """Return the tokens of block ``text`` (``contents`` in block order) summed from its parts,
    or None when the tokenizer or the text does not allow it (then count ``text`` itself)."""
    if not getattr(tokenizer, "splits_at_line_and_word_starts", False) or not contents:
        return None
    total, pos = 0, 0
    for k, content in enumerate(contents):
        last = k == len(contents) - 1
        newline = text.find("\n", pos)
        start, end = newline + 1, newline + 1 + len(content)
        if (
            newline < 0
            or text[start:end] != content
            or not content
            or content[0].isspace()
            or text[pos : pos + 1].isspace()
            or pos == newline
        ):
            return None
        total += tokenizer.count(text[pos:start])  # the header and its newline
        if last:
            if end != len(text):
                return None
            return total + tokenizer.count(content)
        if text[end : end + len(SEPARATOR)] != SEPARATOR:
            return None
        j = _tail_start(content)
        if j < 0:
            return None
        tail = content[j:]
        total += tokenizer.count(content) - tokenizer.count(tail) + tokenizer.count(tail + SEPARATOR)
        pos = end + len(SEPARATOR)
    return None
