"""The one table from library field names to command-line flags, and how messages are printed.

The library's errors name its fields (``max_context_tokens must be ...``) and carry the field in
``exc.field``; on the command line the user typed a flag, so the message names the flag instead.
Every line the command prints to stderr goes through :func:`note` or :func:`error_line`.
"""

from __future__ import annotations

import re
import sys

from ..safe_text import terminal_safe

__all__ = ["FLAGS", "GRID_KEYS", "flag_for", "library_grid", "library_settings", "describe", "note", "error_line"]

#: Library field name -> the flag that sets it. One table for every command.
FLAGS: dict[str, str] = {
    "max_context_tokens": "--budget",
    "budget": "--budget",
    "dedup_threshold": "--threshold",
    "min_doc_tokens": "--min-tokens",
    "summarize_overflow": "--summarize",
    "placement": "--placement",
    "tokenizer": "--tokenizer",
    "seed_compatible": "--seed-compatible",
    "query": "--query",
    "max_bytes": "--max-bytes",
    "max_documents": "--max-documents",
    "max_builds": "--max-builds",
    "top_k": "--top-k",
    "limit": "--limit",
    "grid": "--grid",
    "threshold": "--threshold",
    "thresholds": "--threshold",
    "budgets": "--budget",
    "out": "--out",
    "summary": "--summary",
    "workers": "--workers",
    "scheduler": "--scheduler",
    "store": "--store",
    "curve": "--curve",
    "model": "--model",
    "endpoint": "--endpoint",
    "concurrency": "--concurrency",
    "shots": "--shots",
    "cache": "--cache",
    "baseline": "--baseline",
    "min_score": "--min-score",
}


#: The command line's grid keys that are spelled as its flags -> the library's field names
#: (``--grid budget=256,1024`` is ``max_context_tokens``; the library's names work too).
GRID_KEYS: dict[str, str] = {"budget": "max_context_tokens", "threshold": "dedup_threshold",
                             "min_tokens": "min_doc_tokens", "summarize": "summarize_overflow"}


def library_grid(specs: list[str] | None) -> list[str] | None:
    """Return ``--grid`` specs ``KEY=V1,V2`` with the command line's keys as the library's fields."""
    if specs is None:
        return None
    out = []
    for spec in specs:
        key, eq, values = spec.partition("=")
        out.append(f"{GRID_KEYS.get(key.strip(), key.strip())}{eq}{values}" if eq else spec)
    return out


def library_settings(spec: str | None) -> str | None:
    """Return ``--baseline`` spec ``KEY=V KEY=V`` (or a label) with the command line's keys as fields."""
    if spec is None:
        return None
    parts = []
    for part in spec.split():
        key, eq, value = part.partition("=")
        parts.append(f"{GRID_KEYS.get(key, key)}{eq}{value}" if eq else part)
    return " ".join(parts)


def flag_for(field: str) -> str:
    """Return the flag that sets library field ``field`` (the field itself when none does)."""
    return FLAGS.get(field, field)


#: A library hint of how to raise a limit, ``(max_bytes=N)``: the command shows ``(--max-bytes N)``.
_HINT = re.compile(r"\(([a-z_]+)=N\)")


def _flagged(message: str, field: str | None) -> str:
    """Return ``message`` with the library's field names as the flags that set them."""
    message = _HINT.sub(lambda m: f"({flag_for(m.group(1))} N)", message)
    if not field or field not in FLAGS:
        return message
    return re.sub(rf"(?<![\w-]){re.escape(field)}\b", FLAGS[field], message, count=1)


def describe(exc: BaseException) -> str:
    """Return the one line that tells the user what went wrong (flags, not field names)."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    return _flagged(str(exc), getattr(exc, "field", None)) or type(exc).__name__


def _safe(text: str) -> str:
    """Return ``text`` with control characters shown as escapes (terminal output cannot forge)."""
    return terminal_safe(text)


def note(message: str) -> None:
    """Print ``contextlab: note: ...`` on stderr, one line."""
    print(f"contextlab: note: {_safe(message)}", file=sys.stderr)


def error_line(message: str, prog: str = "contextlab") -> None:
    """Print ``<prog>: error: ...`` on stderr, one line."""
    print(f"{prog}: error: {_safe(message)}", file=sys.stderr)
