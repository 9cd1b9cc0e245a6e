"""``contextlab count FILE... --tokenizer NAME...``: tokens per file in each vocabulary, side by side.

A file is counted as text (UTF-8; bytes that are not UTF-8 count as U+FFFD, as a model's client
would send them). With two or more tokenizers each count after the first carries its difference
from the first, in percent. A model name prints the vocabulary it resolved to, and a name that
gives an estimate (Claude, Gemini) says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LoadError
from ..loaders import DEFAULT_MAX_BYTES, read_limited
from ..safe_text import json_terminal_safe, terminal_safe
from ..settings import DEFAULT_TOKENIZER
from ..tokenizers import TOKENIZER_NAMES, TokenizerChoice, get_tokenizer, resolve_tokenizer_name
from .common import tokenizer_name
from .flags import RUN_OPTIONS, SETTING_FLAGS, note
from .inputs import label, positive_int

__all__ = ["add_count", "cmd_count", "FileCount", "percent_difference"]


@dataclass(frozen=True)
class FileCount:
    """One input's tokens in each tokenizer, in the order the tokenizers were named."""

    name: str
    characters: int
    tokens: tuple[int, ...]


def shown_name(name: str) -> str:
    """Return ``name`` printable on one line: control characters and lone surrogates escaped."""
    return terminal_safe(name.encode("utf-8", "backslashreplace").decode("utf-8"))


def read_text(spec: str, max_bytes: int) -> tuple[str, bool]:
    """Return the text of FILE ``spec`` (``-``: stdin), and whether some bytes were not UTF-8."""
    name = label(spec)
    if spec == "-":
        data = read_limited(sys.stdin.buffer, name, max_bytes)
    else:
        path = Path(spec)
        if path.is_dir():
            raise LoadError(f"{shown_name(spec)}: is a folder; name the files in it to count")
        try:
            with path.open("rb") as fh:
                data = read_limited(fh, shown_name(spec), max_bytes, expected=path.stat().st_size)
        except OSError as exc:
            raise LoadError(f"{shown_name(spec)}: {exc.strerror or type(exc).__name__}") from None
    try:
        return data.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        return data.decode("utf-8-sig", "replace"), True


def percent_difference(count: int, reference: int) -> float | None:
    """Return how much ``count`` differs from ``reference``, in percent of it (None when it is 0)."""
    if reference == 0:
        return None
    return round((count - reference) / reference * 100, 1)


def _percent_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1f}%"


def _table(choices: list[TokenizerChoice], rows: list[FileCount]) -> str:
    """Return the text table: a row per file (and the total), a column per tokenizer.

    A count after the first carries its difference from the first: ``1,071 (+4.6%)``.
    """
    totals = tuple(sum(r.tokens[k] for r in rows) for k in range(len(choices)))
    total = FileCount("total", sum(r.characters for r in rows), totals)
    heads = ["file", *(shown_name(c.requested) + (" (estimate)" if c.estimate_for else "") for c in choices)]
    lines = [heads]
    for row in [*rows, total] if len(rows) > 1 else rows:
        first = row.tokens[0]
        cells = [shown_name(row.name), f"{first:,}"]
        cells += [f"{n:,} ({_percent_text(percent_difference(n, first))})" for n in row.tokens[1:]]
        lines.append(cells)
    widths = [max(len(cells[k]) for cells in lines) for k in range(len(heads))]
    return "\n".join(
        "  ".join(cell.ljust(widths[k]) if k == 0 else cell.rjust(widths[k]) for k, cell in enumerate(cells))
        for cells in lines
    )


def _resolved(choices: list[TokenizerChoice]) -> list[str]:
    """Return what the percentages compare, and what each model name counts in (exactly or not)."""
    lines = []
    if len(choices) > 1:
        lines.append(f"(+/-%: each count's difference from {shown_name(choices[0].requested)}'s)")
    for c in choices:
        if c.estimate_for is not None:
            lines.append(
                f"{shown_name(c.requested)}: an estimate in {c.vocabulary} ({c.estimate_for} publishes no tokenizer)"
            )
        elif c.requested.strip().lower() not in TOKENIZER_NAMES:
            lines.append(f"{shown_name(c.requested)}: counted in {c.vocabulary}")
    return lines


def _as_json(choices: list[TokenizerChoice], rows: list[FileCount]) -> dict[str, object]:
    names = [c.requested for c in choices]
    totals = [sum(col) for col in zip(*(r.tokens for r in rows), strict=True)]
    return {
        "tokenizers": [
            {
                "name": c.requested,
                "vocabulary": c.vocabulary,
                "exact": c.exact,
                "estimate_for": c.estimate_for,
                "counted_as": get_tokenizer(c.requested).name,
            }
            for c in choices
        ],
        "files": [
            {
                "file": r.name,
                "characters": r.characters,
                "tokens": dict(zip(names, r.tokens, strict=True)),
                "difference_pct": {
                    n: percent_difference(v, r.tokens[0]) for n, v in zip(names[1:], r.tokens[1:], strict=True)
                },
            }
            for r in rows
        ],
        "total": dict(zip(names, totals, strict=True)),
        "total_difference_pct": {
            n: percent_difference(v, totals[0]) for n, v in zip(names[1:], totals[1:], strict=True)
        },
    }


def cmd_count(args: argparse.Namespace) -> int:
    """Count each FILE in each tokenizer and print the table (or JSON)."""
    names = list(dict.fromkeys(args.tokenizer or [DEFAULT_TOKENIZER]))
    choices = [resolve_tokenizer_name(n) for n in names]
    tokenizers = [get_tokenizer(n) for n in names]
    rows = []
    for spec in args.file:
        text, replaced = read_text(spec, args.max_bytes)
        if replaced:
            note(f"{shown_name(label(spec))}: bytes that are not UTF-8 were counted as U+FFFD")
        rows.append(FileCount(label(spec), len(text), tuple(t.count(text) for t in tokenizers)))
    if args.format == "json":
        sys.stdout.write(json_terminal_safe(json.dumps(_as_json(choices, rows), indent=2)) + "\n")
    else:
        sys.stdout.write("\n".join([_table(choices, rows), *_resolved(choices)]) + "\n")
    return 0


def add_count(sub: Any) -> None:
    """Add ``contextlab count``."""
    p = sub.add_parser(
        "count",
        help="tokens per file in each tokenizer, side by side",
        description="Count each file's tokens, exactly and offline, in each tokenizer named: a vocabulary "
        f"({', '.join(TOKENIZER_NAMES)}) or a model name (gpt-4o, meta-llama/Llama-3.1-8B-Instruct, "
        "qwen2.5-7b; claude-* and gemini-* give an estimate). With two or more, each column after the "
        "first shows its difference from the first in percent.",
        epilog="example: contextlab count notes.md - --tokenizer gpt-4 --tokenizer gpt-4o --tokenizer llama3",
    )
    p.add_argument("file", metavar="FILE", nargs="+", help="a text file, or - for stdin")
    p.add_argument(
        *SETTING_FLAGS["tokenizer"],
        dest="tokenizer",
        action="append",
        type=tokenizer_name,
        metavar="NAME",
        help=f"a tokenizer or model name; repeat to compare (default {DEFAULT_TOKENIZER})",
    )
    p.add_argument(
        *RUN_OPTIONS["format"], choices=("text", "json"), default="text", help="text: a table; json: the counts"
    )
    p.add_argument(
        *RUN_OPTIONS["max_bytes"],
        dest="max_bytes",
        type=positive_int,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"refuse inputs larger than N bytes (default {DEFAULT_MAX_BYTES:,})",
    )
    p.set_defaults(handler=cmd_count)
