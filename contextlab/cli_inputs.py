"""The command's inputs: argument types, and documents read from a FILE or stdin within limits."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .loaders import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS, load_bytes, load_file, read_limited
from .types import Document

__all__ = ["INPUT_FORMATS", "int_at_least", "positive_int", "non_negative_int", "threshold",
           "label", "read_documents", "add_input_options"]

#: What ``--input-format`` accepts.
INPUT_FORMATS = ("auto", "json", "jsonl", "csv", "txt", "md")


def int_at_least(minimum: int) -> Callable[[str], int]:
    """Return an argument type accepting whole numbers >= ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {value}")
        return value

    return parse


positive_int = int_at_least(1)
non_negative_int = int_at_least(0)


def threshold(text: str) -> float:
    """Return ``text`` as a dedup threshold in (0, 1], or a usage error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text}")
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
    with path.open("rb") as fh:
        data = read_limited(fh, path.name, args.max_bytes, expected=path.stat().st_size)
    return load_bytes(data, path.name, format=fmt, **limits)


def add_input_options(p: argparse.ArgumentParser) -> None:
    """Add ``--input-format``, ``--max-bytes`` and ``--max-documents`` to a command's parser."""
    p.add_argument("--input-format", choices=INPUT_FORMATS, default=None,
                   help="read FILE as this format instead of by its extension "
                        "(stdin defaults to auto: JSON, JSON Lines, or text split on --- lines "
                        "or blank lines)")
    p.add_argument("--max-bytes", type=positive_int, default=DEFAULT_MAX_BYTES, metavar="N",
                   help=f"refuse inputs larger than N bytes (default {DEFAULT_MAX_BYTES:,})")
    p.add_argument("--max-documents", type=positive_int, default=DEFAULT_MAX_DOCUMENTS, metavar="N",
                   help=f"refuse inputs of more than N documents (default {DEFAULT_MAX_DOCUMENTS:,})")
