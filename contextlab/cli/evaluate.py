"""``contextlab eval``: measure configurations on labelled questions."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..loaders.reading import DEFAULT_MAX_BYTES
from ..safe_text import terminal_safe_lines
from .flags import GRID_KEYS, error_line, library_grid, library_settings, note
from .inputs import positive_int, top_k, workers
from .measure import add_measure_options

__all__ = ["add_eval"]


def cmd_compare(paths: list[str], args: argparse.Namespace) -> int:
    """``contextlab eval compare A.json B.json``: the same configurations of two runs, B - A."""
    from ..evaluation.compare import compare_runs, compare_table

    if len(paths) != 2:
        error_line(f"eval compare takes two summary files, A.json B.json; got {len(paths)}", prog="contextlab eval")
        return 2
    print(terminal_safe_lines(compare_table(compare_runs(paths[0], paths[1]))))
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from ..evaluation import ProgressBar, evaluate_to_files, summary_table

    sets = list(args.evalset or [])
    if sets and sets[0] == "compare":
        return cmd_compare(sets[1:], args)
    if len(sets) > 1:
        error_line(f"give one evaluation set, not {len(sets)} (to compare two runs: "
                   "contextlab eval compare A.json B.json)", prog="contextlab eval")
        return 2
    if args.out is None:
        error_line("the following arguments are required: --out/-o", prog="contextlab eval")
        return 2
    if args.model is not None and not args.endpoint:
        error_line("--model names the model at --endpoint that answers; give --endpoint too, or --curve-model "
                   "for whose published curve estimates expected_accuracy", prog="contextlab eval")
        return 2
    # --grid budget=... and --baseline budget=... are the command line's spellings of the fields
    args.grid, args.baseline = library_grid(args.grid), library_settings(args.baseline)
    if args.endpoint or args.curve:  # a model answers, or your own curve estimates (cli/measure.py)
        from .measure import cmd_eval_measured

        return cmd_eval_measured(args, sets[0] if sets else None)
    result = evaluate_to_files(
        sets[0] if sets else None, args.out, args.summary, grid=args.grid, top_k=args.top_k, limit=args.limit,
        model=args.curve_model, store=args.store, workers=args.workers, scheduler=args.scheduler,
        progress=ProgressBar(sys.stderr), baseline=args.baseline, blocks=args.blocks,
        max_bytes=args.max_bytes, on_note=note,
    )
    print(terminal_safe_lines(summary_table(result)))
    written = f" and {args.summary}" if args.summary else ""
    print(f"contextlab: wrote {result.n_rows} rows to {args.out}{written}", file=sys.stderr)
    return 0


def _grid_keys_help() -> str:
    """Return the grid keys as ``--help`` lists them: each field, with its short spelling after it."""
    shorts: dict[str, list[str]] = {}
    for key, field in GRID_KEYS.items():
        if key != field:
            shorts.setdefault(field, []).append(key)
    return ", ".join(f"{field} ({', '.join(shorts[field])})" if field in shorts else field
                     for field in dict.fromkeys(GRID_KEYS.values()))


def add_eval(sub: Any) -> None:
    from ..evaluation import DEFAULT_TOP_K
    from ..settings import DEFAULT_CURVE_MODEL

    p = sub.add_parser(
        "eval", help="measure configurations on labelled questions (bundled NaturalQuestions set)",
        description="For every question of EVALSET and every configuration of the grid, build the "
                    "block and record where the gold document went: one CSV row each (gold_retrieved, "
                    "gold_rank, gold_in_block, gold_position, in_block, answer_in_block, tokens_used, "
                    "duplicates_removed, expected_accuracy). expected_accuracy is an estimate from the "
                    "curves of Liu et al., 'Lost in the Middle' (TACL 2024), not a measurement.",
        epilog="example: contextlab eval --limit 300 --grid budget=256,1024 "
               "--grid placement=lost_in_the_middle,relevance --out r.csv --summary s.json; "
               "compare two runs' summaries: contextlab eval compare A.json B.json "
               "(paired by question when both results CSVs are next to their summaries)",
    )
    p.add_argument("evalset", metavar="EVALSET", nargs="*", default=None,
                   help="a JSONL of questions ({query, documents?, gold_sources?, answers?} or the "
                        "paper's {question, answers, ctxs}); default: the bundled NaturalQuestions-Open set. "
                        "Or: compare A.json B.json")
    p.add_argument("--out", "-o", metavar="CSV", help="write one row per question and configuration (required)")
    p.add_argument("--baseline", metavar="CONFIG",
                   help="the configuration paired differences and p-values are taken against: its label or "
                        "KEY=V settings naming one (default: the first configuration)")
    p.add_argument("--blocks", action="store_true",
                   help="write each row's context block to the CSV (column block), so a row reads without the library")
    p.add_argument("--summary", metavar="JSON", help="also write per-configuration means with 95%% intervals")
    p.add_argument("--grid", "-g", action="extend", nargs="+", metavar="KEY=V1,V2",
                   help=f"vary a setting (repeatable); keys: {_grid_keys_help()}; numbers may be start:stop:step")
    p.add_argument("--top-k", "-k", type=top_k, default=DEFAULT_TOP_K, metavar="K",
                   help=f"documents retrieved per question (default {DEFAULT_TOP_K})")
    p.add_argument("--limit", "-n", type=positive_int, default=None, metavar="N", help="only the first N questions")
    p.add_argument("--curve-model", default=DEFAULT_CURVE_MODEL, metavar="M",
                   help=f"whose published position curve gives expected_accuracy (default {DEFAULT_CURVE_MODEL})")
    p.add_argument("--store", metavar="DB", help="retrieve questions without documents from this store")
    p.add_argument("--max-bytes", type=positive_int, default=DEFAULT_MAX_BYTES, metavar="N",
                   help=f"read at most N bytes of EVALSET, counted after decompression (default {DEFAULT_MAX_BYTES:,})")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=workers, default=None, metavar="N",
                       help="run on a local Dask cluster of N worker processes (needs contextlab[dask])")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster, e.g. tcp://host:8786")
    add_measure_options(p)
    p.set_defaults(handler=cmd_eval)
