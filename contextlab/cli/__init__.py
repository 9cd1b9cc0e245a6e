"""The ``contextlab`` command: build a context block, sweep, evaluate, index and search a store.

One module per command group (``build``, ``sweep``, ``evaluate``, ``compare``, ``curve``, ``count``, ``store``,
``lab``, ``model``), each an ``add_<command>(sub)`` that declares its parser and a
``cmd_<command>(args)`` that parses -> makes one library call -> prints. ``common`` holds what
they share, ``inputs`` reads documents and argument types, and ``flags`` is the one table from
library field names to flags and grid keys. Files are checked and written all or nothing by
``contextlab.atomic``. Errors are one line on stderr
(``contextlab: error: ...``) and a non-zero exit, never a traceback: usage errors exit 2,
runtime errors 1. To add a command, write its module and list its adder in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ContextLabError
from .build import add_build
from .chunk import add_chunk
from .common import OneLineParser
from .compare import add_compare
from .count import add_count
from .curve import add_curve
from .evaluate import add_eval
from .flags import describe, error_line
from .lab import add_lab, cmd_lab, lab_app_path, streamlit_problem
from .model import add_model
from .store import add_index, add_remove, add_search
from .sweep import add_sweep

__all__ = ["main", "build_parser", "lab_app_path", "COMMANDS"]

#: Each command's parser, in the order ``--help`` lists them.
COMMANDS: list[Callable[[Any], None]] = [
    add_build,
    add_sweep,
    add_eval,
    add_compare,
    add_curve,
    add_count,
    add_chunk,
    add_index,
    add_remove,
    add_search,
    add_lab,
    add_model,
]


def build_parser() -> argparse.ArgumentParser:
    """Return the ``contextlab`` argument parser (every command has ``--help``)."""
    from .. import __version__

    parser = OneLineParser(
        prog="contextlab",
        description="Turn retrieved documents into an LLM prompt's context block, and explain it.",
    )
    parser.add_argument("--version", action="version", version=f"contextlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``contextlab`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if extra and not getattr(args, "passes_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "lab":
            problem = streamlit_problem(extra)
            if problem:
                error_line(f"{problem} (see `contextlab lab --help`)", prog="contextlab lab")
                return 2
            return cmd_lab(args, extra)
        code: int = args.handler(args)
        return code
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away; that is not an error worth a message.
        # Point stdout at devnull so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    except (ContextLabError, ValueError, OSError) as exc:
        error_line(describe(exc))
        return 1
    except (OverflowError, MemoryError, RecursionError) as exc:
        # Input too large or too deep for some step (a number, a nesting): one line naming the
        # error, not a traceback. Any other exception is a bug and keeps its traceback.
        detail = str(exc)[:200]
        error_line(f"{type(exc).__name__}{': ' + detail if detail else ''} (an input or option is too large)")
        return 1
