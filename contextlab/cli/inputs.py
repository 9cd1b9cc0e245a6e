"""The command's inputs: argument types, and documents read from a FILE or stdin within limits."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

from ..errors import LoadError
from ..loaders import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS, load_bytes, load_file, read_limited
from ..loaders.reading import a_folder
from ..retrieval.injection import MAX_TOP_K
from ..types import Document
from ..validation import message_value

__all__ = [
    "INPUT_FORMATS",
    "MAX_WHOLE",
    "int_at_least",
    "positive_int",
    "non_negative_int",
    "token_count",
    "top_k",
    "workers",
    "threshold",
    "score",
    "label",
    "read_documents",
    "add_input_options",
]

#: What ``--input-format`` accepts.
INPUT_FORMATS = ("auto", "json", "jsonl", "csv", "txt", "md")
#: The largest whole number an option takes unless it names a smaller bound: beyond any real
#: limit, yet within the 64-bit integers SQLite and the engine's arithmetic work in.
MAX_WHOLE = 10**18


def int_at_least(minimum: int, maximum: int = MAX_WHOLE) -> Callable[[str], int]:
    """Return an argument type accepting whole numbers in [``minimum``, ``maximum``].

    A bad value is a usage error (argparse names the flag, exit 2), never an overflow later.
    """

    def parse(text: str) -> int:
        try:
            value = int(text) if len(text) <= 40 else None  # int() of a huge string is slow
        except ValueError:
            value = None
        if value is None:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {minimum:,} to {maximum:,}, got {message_value(text)}"
            )
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {minimum:,} to {maximum:,}, got {message_value(text)}"
            )
        return value

    return parse


positive_int = int_at_least(1)
non_negative_int = int_at_least(0)
#: Token budgets and lengths: a billion tokens is far beyond any model's window.
token_count = int_at_least(0, 10**9)
#: Results per search (the store's own bound).
top_k = int_at_least(1, MAX_TOP_K)
#: Worker processes: each is a real process on this machine.
workers = int_at_least(1, 1024)


def threshold(text: str) -> float:
    """Return ``text`` as a dedup threshold in (0, 1], or a usage error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {message_value(text)}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {message_value(text)}")
    return value


def score(text: str) -> float:
    """Return ``text`` as a search score in [0, 1] (scores are normalised to it), or a usage error."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:  # also refuses nan and inf, which no comparison passes
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {message_value(text)}")
    return value


def label(spec: str) -> str:
    """Return how messages name FILE ``spec`` ("stdin" for ``-``)."""
    return "stdin" if spec == "-" else spec


def read_documents(spec: str, args: argparse.Namespace) -> list[Document]:
    """Return the documents of FILE ``spec`` (``-`` is stdin), read as ``--input-format``."""
    fmt, limits = args.input_format, {"max_bytes": args.max_bytes, "max_documents": args.max_documents}
    if spec == "-":
        data = read_limited(sys.stdin.buffer, "stdin", args.max_bytes)
        return load_bytes(data, "stdin", format=fmt or "auto", **limits)
    if fmt is None:
        return load_file(spec, **limits)
    path = Path(spec)
    if path.is_dir():
        raise LoadError(a_folder(spec))
    with path.open("rb") as fh:
        data = read_limited(fh, path.name, args.max_bytes, expected=path.stat().st_size)
    return load_bytes(data, path.name, format=fmt, **limits)


def add_input_options(p: argparse.ArgumentParser) -> None:
    """Add ``--input-format``, ``--max-bytes`` and ``--max-documents`` to a command's parser."""
    p.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        default=None,
        help="read FILE as this format instead of by its extension "
        "(stdin defaults to auto: JSON, JSON Lines, or text split on --- lines "
        "or blank lines)",
    )
    p.add_argument(
        "--max-bytes",
        type=positive_int,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"refuse inputs larger than N bytes (default {DEFAULT_MAX_BYTES:,})",
    )
    p.add_argument(
        "--max-documents",
        type=positive_int,
        default=DEFAULT_MAX_DOCUMENTS,
        metavar="N",
        help=f"refuse inputs of more than N documents (default {DEFAULT_MAX_DOCUMENTS:,})",
    )
