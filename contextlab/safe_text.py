"""Text that cannot forge or inject: control characters shown as visible escapes.

The one rule, for headers in the block and for everything the command line prints: C0 and C1
control characters (NUL, tab, newline, carriage return, ESC, DEL, CSI, next line, ...), the
Unicode line and paragraph separators, and the bidirectional controls that can make text
display in another order than it reads (U+061C, U+200E, U+200F, U+202A-U+202E,
U+2066-U+2069) become escapes: ``\\n``, ``\\r``, ``\\t``, else ``\\xNN`` below U+0100 and
``\\uNNNN`` above. So a ``source`` holding a newline and an OSC sequence prints as one line of
visible text, never as a forged second line or a terminal command. Everything else, non-Latin
text and emoji included, is kept as it is.

The lab shows text in a browser, where a control character is invisible rather than obeyed but
a bidi override or a zero-width character still reorders or hides text: ``visible_controls``
shows those (Unicode format characters) as ``⟨U+202E⟩``. The two renderings are the only ones;
the lab's Markdown (``ui.text.md``) and plotly labels (``charts.style.label``) escape their own
syntax on top of ``visible_controls``.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["UNSAFE_CHARS", "terminal_safe", "terminal_safe_lines", "json_terminal_safe", "visible_controls"]

#: What shown text may not contain raw (see the module docstring).
UNSAFE_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# The same set less newline and tab, for multi-line output (a block, a table).
_UNSAFE_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# In JSON text a raw newline is only ever layout (json.dumps escapes those inside strings).
_UNSAFE_IN_JSON = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """Return ``text`` as one line, every unsafe character shown as an escape (``\\n``, ``\\x1b``)."""
    return UNSAFE_CHARS.sub(_escape, text)


def terminal_safe_lines(text: str) -> str:
    """Return multi-line ``text`` with newlines and tabs kept and every other unsafe character escaped."""
    return _UNSAFE_IN_LINES.sub(_escape, text)


def json_terminal_safe(text: str) -> str:
    """Return JSON ``text`` with unsafe characters inside its strings as ``\\uNNNN`` escapes.

    The JSON decodes to the same values; ``json.dumps(..., ensure_ascii=False)`` leaves C1 and
    bidirectional controls raw, which a terminal would act on.
    """
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# Characters that reorder or hide text: shown as a visible code instead of obeyed.
_INVISIBLE_CATEGORIES = {"Cf"}
_KEEP = {"\u00ad"}  # a soft hyphen is harmless


def visible_controls(text: str) -> str:
    """Return ``text`` with bidi and other invisible format characters shown as ⟨U+XXXX⟩.

    U+202E (right-to-left override) and friends would reverse the text around them; a
    zero-width character would hide a difference. Both are made visible, never obeyed.
    """
    if text.isascii():
        return text
    return "".join(
        f"⟨U+{ord(ch):04X}⟩" if unicodedata.category(ch) in _INVISIBLE_CATEGORIES and ch not in _KEEP else ch
        for ch in text
    )
