"""``contextlab eval``: measure configurations on labelled questions."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .inputs import positive_int, top_k, workers

__all__ = ["add_eval"]


def cmd_eval(args: argparse.Namespace) -> int:
    from ..evaluate import ProgressBar, evaluate_to_files, summary_table

    result = evaluate_to_files(
        args.evalset, args.out, args.summary, grid=args.grid, top_k=args.top_k, limit=args.limit,
        model=args.model, store=args.store, workers=args.workers, scheduler=args.scheduler,
        progress=ProgressBar(sys.stderr),
    )
    print(summary_table(result))
    written = f" and {args.summary}" if args.summary else ""
    print(f"contextlab: wrote {result.n_rows} rows to {args.out}{written}", file=sys.stderr)
    return 0


def add_eval(sub: Any) -> None:
    from ..evaluate import DEFAULT_MODEL, DEFAULT_TOP_K, GRID_KEYS

    p = sub.add_parser(
        "eval", help="measure configurations on labelled questions (bundled NaturalQuestions set)",
        description="For every question of EVALSET and every configuration of the grid, build the "
                    "block and record where the gold document went: one CSV row each (gold_retrieved, "
                    "gold_rank, gold_in_block, gold_position, block_docs, answer_in_block, tokens_used, "
                    "duplicates_removed, expected_accuracy). expected_accuracy is an estimate from the "
                    "curves of Liu et al., 'Lost in the Middle' (TACL 2024), not a measurement.",
        epilog="example: contextlab eval --limit 300 --grid budget=256,1024 "
               "--grid placement=lost_in_the_middle,relevance --out r.csv --summary s.json",
    )
    p.add_argument("evalset", metavar="EVALSET", nargs="?", default=None,
                   help="a JSONL of questions ({query, documents?, gold_sources?, answers?} or the "
                        "paper's {question, answers, ctxs}); default: the bundled NaturalQuestions-Open set")
    p.add_argument("--out", "-o", required=True, metavar="CSV", help="write one row per question and configuration")
    p.add_argument("--summary", metavar="JSON", help="also write per-configuration means with 95%% intervals")
    p.add_argument("--grid", "-g", action="extend", nargs="+", metavar="KEY=V1,V2",
                   help=f"vary a setting (repeatable); keys: {', '.join(GRID_KEYS)}; numbers may be start:stop:step")
    p.add_argument("--top-k", "-k", type=top_k, default=DEFAULT_TOP_K, metavar="K",
                   help=f"documents retrieved per question (default {DEFAULT_TOP_K})")
    p.add_argument("--limit", "-n", type=positive_int, default=None, metavar="N", help="only the first N questions")
    p.add_argument("--model", "-m", default=DEFAULT_MODEL, metavar="M",
                   help=f"whose published position curve gives expected_accuracy (default {DEFAULT_MODEL})")
    p.add_argument("--store", metavar="DB", help="retrieve questions without documents from this store")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=workers, default=None, metavar="N",
                       help="run on a local Dask cluster of N worker processes (needs contextlab[dask])")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster, e.g. tcp://host:8786")
    p.set_defaults(handler=cmd_eval)
