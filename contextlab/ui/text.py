"""The one place the lab turns user text into something Streamlit shows literally.

Captions, alerts, expander labels and metric help are Markdown in Streamlit: a document's
source, a file name, a query or a URL value put there unescaped would turn ``[x](https://…)``
into a live link, a line of ``===`` into a heading, ``**x**`` into bold and ``$x$`` into a
formula. ``md`` escapes every ASCII punctuation character (CommonMark shows an escaped one
as itself) and shows invisible bidi controls as ``⟨U+202E⟩``; the alert helpers take text
that is entirely user-influenced (error messages quote file names and values).

Escaping is not enough for bare addresses: GitHub-flavoured Markdown turns ``https://…``,
``www.…`` and ``a@b.c`` into links after the escapes are resolved. A word joiner (U+2060,
invisible, no line break) between ``:`` and ``//``, after ``@`` and between ``www`` and ``.`` breaks those
patterns without changing what the reader sees.
"""

from __future__ import annotations

import re
import string

import streamlit as st

from contextlab.safe_text import visible_controls

__all__ = ["md", "md_line", "caption", "error", "warning", "info", "success", "plain", "WORD_JOINER"]

_ESCAPE = {ord(ch): "\\" + ch for ch in string.punctuation}
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=mailto:)|(?<=xmpp:)|(?<=@)|(?<=www)(?=\.)", re.IGNORECASE)
#: Invisible; keeps GFM from recognising a bare URL or e-mail address.
WORD_JOINER = "\u2060"


def md(text: object) -> str:
    """Return ``text`` as Markdown that displays exactly these characters, line breaks kept.

    Every ASCII punctuation character is backslash-escaped (no link, emphasis, heading,
    list, HTML, ``:emoji:`` or ``$formula$`` can start), leading spaces are dropped (no code
    block), and each line break is a hard break.
    """
    lines = visible_controls(str(text)).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "  \n".join(_AUTOLINK.sub(WORD_JOINER, line.lstrip()).translate(_ESCAPE) for line in lines)


def md_line(text: object, limit: int | None = None) -> str:
    """Return ``text`` on one line (whitespace runs become one space), cut to ``limit``, as ``md``."""
    flat = " ".join(str(text).split())
    if limit is not None and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return md(flat)


def plain(text: object) -> str:
    """Return ``text`` for a plain-text place (a table cell, ``st.text``): controls made visible."""
    return visible_controls(str(text))


def caption(text: object) -> None:
    """Show user-influenced ``text`` as a caption, literally."""
    st.caption(md(text))


def error(text: object) -> None:
    """Show user-influenced ``text`` (an error message quoting input) as an error, literally."""
    st.error(md(text))


def warning(text: object) -> None:
    """Show user-influenced ``text`` as a warning, literally."""
    st.warning(md(text))


def info(text: object) -> None:
    """Show user-influenced ``text`` as an info box, literally."""
    st.info(md(text))


def success(text: object) -> None:
    """Show user-influenced ``text`` as a success box, literally."""
    st.success(md(text))
