"""``contextlab compare A.json B.json``: the same configurations of two runs side by side, B - A."""

from __future__ import annotations

import argparse
from typing import Any

from ..safe_text import terminal_safe_lines

__all__ = ["add_compare"]


def cmd_compare(args: argparse.Namespace) -> int:
    from ..evaluation.compare import compare_runs, compare_table

    print(terminal_safe_lines(compare_table(compare_runs(args.a, args.b))))
    return 0


def add_compare(sub: Any) -> None:
    """Add ``contextlab compare``."""
    p = sub.add_parser(
        "compare",
        help="two eval runs side by side: the same configurations, B - A",
        description="Set two runs' summaries (contextlab eval --summary) side by side: every configuration "
        "both ran, B - A, paired by question when both results CSVs are next to their summaries.",
        epilog="example: contextlab compare before.json after.json",
    )
    p.add_argument("a", metavar="A.json", help="the first run's summary (the baseline)")
    p.add_argument("b", metavar="B.json", help="the second run's summary")
    p.set_defaults(handler=cmd_compare)
