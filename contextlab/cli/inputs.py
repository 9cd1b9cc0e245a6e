"""The command's inputs: argument types, and documents read from a FILE or stdin within limits."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import LoadError
from ..loaders import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DOCUMENTS,
    Chunking,
    chunking_for,
    load_bytes,
    load_file,
    read_files,
    read_limited,
)
from ..loaders.chunking import MIN_CHUNK_SIZE
from ..loaders.reading import a_folder
from ..retrieval.injection import MAX_TOP_K
from ..settings import DEDUP_THRESHOLD_RANGE
from ..types import Document
from ..validation import message_value, parse_int

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
    "read_all_documents",
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
            value: int | None = parse_int(text, field="value", max_digits=40)
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
    """Return ``text`` as a dedup threshold in the settings' range, or a usage error."""
    low, high = DEDUP_THRESHOLD_RANGE
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not low <= value <= high:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number from {low:g} to {high:g}, got {message_value(text)}")
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
    """Return the documents of FILE ``spec`` (``-`` is stdin; a folder: every readable file in it),
    read as ``--input-format`` and cut into chunks when ``--chunk-size`` is given."""
    fmt, limits = args.input_format, {"max_bytes": args.max_bytes, "max_documents": args.max_documents}
    chunking = chunking_for(args.chunk_size, args.chunk_overlap, getattr(args, "tokenizer", None) or "cl100k_base")
    if spec == "-":
        data = read_limited(sys.stdin.buffer, "stdin", args.max_bytes)
        return load_bytes(data, "stdin", format=fmt or "auto", chunking=chunking, **limits)
    path = Path(spec)
    if path.is_dir():
        if fmt is not None:
            raise LoadError(a_folder(spec))
        return read_files([path], chunk_size=chunking.size if chunking else None, **_overlap(chunking), **limits)
    if fmt is None:
        return load_file(spec, chunking=chunking, **limits)
    with path.open("rb") as fh:
        data = read_limited(fh, path.name, args.max_bytes, expected=path.stat().st_size)
    return load_bytes(data, path.name, format=fmt, chunking=chunking, **limits)


def read_all_documents(specs: list[str], args: argparse.Namespace) -> list[Document]:
    """Return the documents of every FILE in ``specs``, in order (see ``read_documents``)."""
    return [doc for spec in specs for doc in read_documents(spec, args)]


def _overlap(chunking: Chunking | None) -> dict[str, Any]:
    if chunking is None:
        return {}
    return {"chunk_overlap": chunking.overlap, "tokenizer": chunking.tokenizer}


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
    add_chunk_options(p)


def add_chunk_options(p: argparse.ArgumentParser) -> None:
    """Add ``--chunk-size`` and ``--chunk-overlap`` to a command's parser."""
    p.add_argument(
        "--chunk-size",
        type=int_at_least(MIN_CHUNK_SIZE, 10**9),
        default=None,
        metavar="N",
        help="cut every file into chunks of at most N tokens (of --tokenizer) at paragraph, sentence and word "
        "ends, one document each (default: not cut; PDF pages, DOCX and HTML whole, text at blank lines)",
    )
    p.add_argument(
        "--chunk-overlap",
        type=non_negative_int,
        default=None,
        metavar="M",
        help="tokens consecutive chunks share (default: an eighth of --chunk-size)",
    )
