"""``contextlab sweep``: build over a grid of thresholds and budgets; write CSV (and a chart)."""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

from ..atomic import check_target, write_files
from ..lab.sweep import MAX_BUILDS, SWEEP_COLUMNS, run_sweep, sweep_grid, write_csv
from ..progress import ProgressBar
from .common import add_engine_options, config_of, require, scored
from .inputs import add_input_options, positive_int, read_all_documents

__all__ = ["add_sweep"]


def cmd_sweep(args: argparse.Namespace) -> int:
    thresholds, budgets = sweep_grid(args.dedup_threshold, args.max_context_tokens, max_builds=args.max_builds)
    to_file = bool(args.out) and args.out != "-"
    # Every target is checked before the grid runs, and written all or nothing after it.
    if to_file:
        check_target(args.out, "out")
    if args.html:
        check_target(args.html, "html")
        require("plotly", "sweep --html")
    documents = scored(read_all_documents([args.file, *args.more_files], args), args)
    base = argparse.Namespace(**{**vars(args), "max_context_tokens": None, "dedup_threshold": None})
    rows = run_sweep(documents, config_of(base), thresholds, budgets, progress=ProgressBar(sys.stderr, label="builds"))
    buffer = io.StringIO()
    write_csv(rows, buffer)
    files = {args.out: buffer.getvalue()} if to_file else {}
    if args.html:
        from ..charts.sweep import sweep_figure

        files[args.html] = sweep_figure(rows).to_html(include_plotlyjs=True, full_html=True)
    write_files(files)
    if to_file:
        print(f"contextlab: wrote {len(rows)} rows to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(buffer.getvalue())
    if args.html:
        print(f"contextlab: wrote chart to {args.html}", file=sys.stderr)
    return 0


def add_sweep(sub: Any) -> None:
    p = sub.add_parser(
        "sweep",
        help="build over a grid of thresholds and budgets; write CSV (and a chart)",
        description="Build FILE's block for every (threshold, budget) pair and write one CSV row "
        "each: " + ", ".join(SWEEP_COLUMNS) + ".",
        epilog="ranges are start:stop:step (stop included), a,b,c, or one value; example: "
        "contextlab sweep docs.json -q 'refunds' --threshold 0.5:1.0:0.05 "
        "--budget 500:4000:500 --out sweep.csv --html sweep.html",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="documents: .json, .jsonl, .csv, .txt, .md, .pdf, .docx, .html, a chunk file, a folder, or - for stdin",
    )
    p.add_argument("more_files", metavar="FILE", nargs="*", help="more files or folders, read after the first")
    add_engine_options(
        p,
        ranges={
            "dedup_threshold": ("0.5:1.0:0.05", "dedup thresholds (default 0.5:1.0:0.05)"),
            "max_context_tokens": ("500:4000:500", "token budgets (default 500:4000:500)"),
        },
    )
    p.add_argument(
        "--max-builds",
        type=positive_int,
        default=MAX_BUILDS,
        metavar="N",
        help=f"refuse grids of more than N builds (default {MAX_BUILDS:,})",
    )
    p.add_argument("--out", "-o", default=None, metavar="CSV", help="write the CSV here instead of stdout")
    p.add_argument("--html", default=None, metavar="HTML", help="also write an interactive plotly chart (needs plotly)")
    add_input_options(p)
    p.set_defaults(handler=cmd_sweep)
