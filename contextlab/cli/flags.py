"""The one table from library field names to command-line flags and grid keys, and how messages are printed.

Every engine setting's flag is derived from its ``EngineSettings`` field (``--max-context-tokens``);
the short spellings users type (``--budget``) are documented spellings of the same flag. Every
other option is a run option, listed here too, so every flag of every command is in one table
(``tests/test_vocabulary.py`` holds the parsers to it).

The library's errors name its fields (``max_context_tokens must be ...``) and carry the field in
``exc.field``; on the command line the user typed a flag, so the message names the flag instead.
Every line the command prints to stderr goes through :func:`note` or :func:`error_line`.
"""

from __future__ import annotations

import re
import sys

from ..safe_text import terminal_safe
from ..settings import BLOCK_SETTINGS

__all__ = [
    "SHORT_SPELLINGS",
    "SETTING_FLAGS",
    "RUN_OPTIONS",
    "FLAGS",
    "GRID_KEYS",
    "flag_for",
    "library_grid",
    "library_settings",
    "describe",
    "note",
    "error_line",
]

#: The short spellings users type, kept as documented spellings of the same flag (and, without
#: the dashes, of the same grid key): ``--budget`` is ``--max-context-tokens``.
SHORT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "max_context_tokens": ("--budget", "-b"),
    "dedup_threshold": ("--threshold", "-t"),
    "min_doc_tokens": ("--min-tokens",),
    "summarize_overflow": ("--summarize",),
}

#: Every engine setting the command line sets (``settings.BLOCK_SETTINGS``) -> its spellings, the
#: flag (the field's name) first. Derived from ``EngineSettings``' fields: a new field is a new flag.
SETTING_FLAGS: dict[str, tuple[str, ...]] = {
    name: (f"--{name.replace('_', '-')}", *SHORT_SPELLINGS.get(name, ())) for name in BLOCK_SETTINGS
}

#: The options that are not engine settings (what a run reads, writes, asks and where) -> spellings.
RUN_OPTIONS: dict[str, tuple[str, ...]] = {
    "query": ("--query", "-q"),
    "out": ("--out", "-o"),
    "summary": ("--summary",),
    "html": ("--html",),
    "format": ("--format", "-f"),
    "run": ("--run",),
    "runs": ("--runs",),
    "grid": ("--grid", "-g"),
    "baseline": ("--baseline",),
    "blocks": ("--blocks",),
    "top_k": ("--top-k", "-k"),
    "limit": ("--limit", "-n"),
    "min_score": ("--min-score",),
    "store": ("--store",),
    "corpus": ("--corpus",),
    "input_format": ("--input-format",),
    "max_bytes": ("--max-bytes",),
    "max_documents": ("--max-documents",),
    "chunk_size": ("--chunk-size",),
    "chunk_overlap": ("--chunk-overlap",),
    "size": ("--size",),
    "overlap": ("--overlap",),
    "max_builds": ("--max-builds",),
    "workers": ("--workers",),
    "scheduler": ("--scheduler",),
    "curve": ("--curve",),
    "curve_model": ("--curve-model",),
    "endpoint": ("--endpoint",),
    "model": ("--model", "-m"),
    "api": ("--api",),
    "shots": ("--shots",),
    "concurrency": ("--concurrency",),
    "cache": ("--cache",),
    "no_cache": ("--no-cache",),
    "yes": ("--yes", "-y"),
    "orders": ("--orders",),
    "answer_source": ("--answer-source",),
    "gold": ("--gold",),
    "documents": ("--documents", "-K"),
    "positions": ("--positions",),
    "no_closed_book": ("--no-closed-book",),
    "detect": ("--detect",),
    "discordance": ("--discordance",),
    "until_resolved": ("--until-resolved",),
    "max_questions": ("--max-questions",),
    "name": ("--name",),
    "port": ("--port",),
    "parallel": ("--parallel",),
    "context": ("--context",),
    "vary": ("--vary",),
    "lengths": ("--lengths",),
    "position": ("--position",),
    "filler": ("--filler",),
    "distractors": ("--distractors",),
    "distractor_kind": ("--distractor-kind",),
    "seed": ("--seed",),
    "window": ("--window",),
}

#: Library field (or run option) name -> the flag that sets it. One table for every command.
FLAGS: dict[str, str] = {name: spellings[0] for name, spellings in {**SETTING_FLAGS, **RUN_OPTIONS}.items()}

#: Grid keys as the command line takes them (``--grid budget=256,1024``, ``--baseline budget=256``)
#: -> the library's field: every grid key (``evaluation.grid.GRID_KEYS``, the settings that shape a
#: block) by its name, and the short spellings without dashes.
GRID_KEYS: dict[str, str] = {
    **{key: key for key in BLOCK_SETTINGS},
    **{
        short[2:].replace("-", "_"): name
        for name, shorts in SHORT_SPELLINGS.items()
        for short in shorts
        if short.startswith("--")
    },
}


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
    assigned = re.compile(rf"(?<![\w-]){re.escape(field)}=")
    if assigned.search(message):  # ``documents=10`` is what ``--documents 10`` set
        return assigned.sub(f"{FLAGS[field]} ", message)
    return re.sub(rf"(?<![\w-]){re.escape(field)}\b", FLAGS[field], message, count=1)


def describe(exc: BaseException) -> str:
    """Return the one line that tells the user what went wrong (flags, not field names)."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    return _flagged(str(exc), getattr(exc, "field", None)) or type(exc).__name__


def note(message: str) -> None:
    """Print ``contextlab: note: ...`` on stderr, one line."""
    print(f"contextlab: note: {terminal_safe(message)}", file=sys.stderr)


def error_line(message: str, prog: str = "contextlab") -> None:
    """Print ``<prog>: error: ...`` on stderr, one line."""
    print(f"{prog}: error: {terminal_safe(message)}", file=sys.stderr)
