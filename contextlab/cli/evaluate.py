"""``contextlab eval``: measure configurations on labelled questions.

Parse -> one ``EvalRequest`` -> ``evaluation.eval_request.evaluate_request`` (which plans, prices,
asks through ``confirm_calls``, runs and writes) -> print the summary table.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..loaders.reading import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS
from ..safe_text import terminal_safe_lines
from .flags import GRID_KEYS, error_line, library_grid, library_settings, note
from .inputs import add_chunk_options, positive_int, top_k, workers
from .model import add_model_options, confirm_calls, interrupted, measure_settings

if TYPE_CHECKING:
    from ..evaluation.eval_request import EvalRequest
    from ..evaluation.options import RunOptions

__all__ = ["add_eval"]


def run_options(args: argparse.Namespace) -> RunOptions:
    """Return the library's ``RunOptions`` for the parsed flags (the measured curve of ``--curve`` loaded,
    with the per-question outcomes beside it, so its tests are paired)."""
    from ..curves.outcomes import load_measured_curve
    from ..evaluation.options import RunOptions

    return RunOptions(
        top_k=args.top_k,
        limit=args.limit,
        curve_model=args.curve_model,
        baseline=library_settings(args.baseline),
        blocks=args.blocks,
        workers=args.workers,
        scheduler=args.scheduler,
        store=args.store,
        max_bytes=args.max_bytes,
        curves=load_measured_curve(args.curve) if args.curve else None,
        curve_name=Path(args.curve).name if args.curve else "",
    )


def eval_request(args: argparse.Namespace) -> EvalRequest:
    """Return the one ``EvalRequest`` the parsed flags stand for (``--grid budget=...`` as the library's fields)."""
    from ..evaluation.eval_request import EvalRequest

    return EvalRequest(
        out=args.out,
        evalset=args.evalset,
        grid=library_grid(args.grid),
        options=run_options(args),
        measure=measure_settings(args, args.model) if args.endpoint else None,
        summary=args.summary,
    )


def cmd_eval(args: argparse.Namespace) -> int:
    from ..evaluation.eval_request import evaluate_request
    from ..evaluation.output import summary_table
    from ..progress import ProgressBar

    if args.model is not None and not args.endpoint:
        error_line(
            "--model names the model at --endpoint that answers; give --endpoint too, or --curve-model "
            "for whose published curve estimates expected_accuracy",
            prog="contextlab eval",
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="contextlab-eval-") as scratch:
        if args.corpus:
            args.store = _index_documents(args, Path(scratch) / "documents.db")
        request = eval_request(args)
        bar = ProgressBar(sys.stderr, width=24, label="prompts") if request.measure else ProgressBar(sys.stderr)
        try:
            result = evaluate_request(
                request, say=note, confirm=lambda cost, endpoint: confirm_calls(cost, endpoint, args.yes), progress=bar
            )
        except KeyboardInterrupt as stop:
            return interrupted(stop)
    if result is None:
        return 1
    print(terminal_safe_lines(summary_table(result)))
    written = f" and {args.summary}" if args.summary else ""
    note(f"wrote {result.n_rows} rows to {args.out}{written}")
    return 0


def _index_documents(args: argparse.Namespace, db: Path) -> str:
    """Return the path of a scratch store holding every ``--corpus`` file, read and chunked as ``build`` reads."""
    from ..retrieval import SQLiteBackend
    from .inputs import read_documents

    args.input_format, args.max_documents = None, DEFAULT_MAX_DOCUMENTS
    loaded = [(spec, read_documents(spec, args)) for spec in args.corpus]
    with SQLiteBackend(str(db), read_only=False) as store:
        for spec, documents in loaded:
            store.index(documents, origin=None if spec == "-" else str(Path(spec).resolve()))
    return str(db)


def _grid_keys_help() -> str:
    """Return the grid keys as ``--help`` lists them: each field, with its short spelling after it."""
    shorts: dict[str, list[str]] = {}
    for key, field in GRID_KEYS.items():
        if key != field:
            shorts.setdefault(field, []).append(key)
    return ", ".join(
        f"{field} ({', '.join(shorts[field])})" if field in shorts else field
        for field in dict.fromkeys(GRID_KEYS.values())
    )


def _add_what_is_run(p: argparse.ArgumentParser) -> None:
    """Add the questions and the configurations: the set, the grid, the baseline, retrieval, the curve."""
    from ..evaluation import DEFAULT_TOP_K
    from ..settings import DEFAULT_CURVE_MODEL

    p.add_argument(
        "evalset",
        metavar="EVALSET",
        nargs="?",
        default=None,
        help="a JSONL of questions ({query, documents?, gold_sources?, answers?} or the "
        "paper's {question, answers, ctxs}); default: the bundled NaturalQuestions-Open set",
    )
    p.add_argument(
        "--baseline",
        metavar="CONFIG",
        help="the configuration paired differences and p-values are taken against: its label or "
        "KEY=V settings naming one (default: the first configuration)",
    )
    p.add_argument(
        "--grid",
        "-g",
        action="extend",
        nargs="+",
        metavar="KEY=V1,V2",
        help=f"vary a setting (repeatable); keys: {_grid_keys_help()}; numbers may be start:stop:step",
    )
    p.add_argument(
        "--top-k",
        "-k",
        type=top_k,
        default=DEFAULT_TOP_K,
        metavar="K",
        help=f"documents retrieved per question (default {DEFAULT_TOP_K})",
    )
    p.add_argument("--limit", "-n", type=positive_int, default=None, metavar="N", help="only the first N questions")
    p.add_argument(
        "--curve-model",
        default=DEFAULT_CURVE_MODEL,
        metavar="M",
        help=f"whose published position curve gives expected_accuracy (default {DEFAULT_CURVE_MODEL})",
    )
    p.add_argument(
        "--curve",
        metavar="FILE",
        help="a curve file from `contextlab curve`: expected_accuracy (and placement=curve) "
        "read your model's measured curve instead of the published ones",
    )
    retrieve = p.add_mutually_exclusive_group()
    retrieve.add_argument("--store", metavar="DB", help="retrieve questions without documents from this store")
    retrieve.add_argument(
        "--corpus",
        nargs="+",
        metavar="FILE",
        help="retrieve questions without documents from these files or folders (any kind build reads; "
        "chunked with --chunk-size), indexed for this run only",
    )
    add_chunk_options(p)
    p.add_argument(
        "--max-bytes",
        type=positive_int,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"read at most N bytes of EVALSET, counted after decompression (default {DEFAULT_MAX_BYTES:,})",
    )


def _add_what_is_written(p: argparse.ArgumentParser) -> None:
    """Add the files a run writes: the results CSV (with blocks or not) and the summary JSON."""
    p.add_argument(
        "--out", "-o", metavar="CSV", required=True, help="write one row per question and configuration (required)"
    )
    p.add_argument(
        "--blocks",
        action="store_true",
        help="write each row's context block to the CSV (column block), so a row reads without the library",
    )
    p.add_argument("--summary", metavar="JSON", help="also write per-configuration means with 95%% intervals")


def _add_where_it_runs(p: argparse.ArgumentParser) -> None:
    """Add where the work runs: here, on a local or an existing Dask cluster (a model answering: here)."""
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=workers,
        default=None,
        metavar="N",
        help="run on a local Dask cluster of N worker processes (needs contextlab[dask])",
    )
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster, e.g. tcp://host:8786")


def add_eval(sub: Any) -> None:
    """Add ``contextlab eval``."""
    p = sub.add_parser(
        "eval",
        help="measure configurations on labelled questions (bundled NaturalQuestions set)",
        description="For every question of EVALSET and every configuration of the grid, build the "
        "block and record where the gold document went: one CSV row each (gold_retrieved, "
        "gold_rank, gold_in_block, gold_position, in_block, answer_in_block, tokens_used, "
        "duplicates_removed, expected_accuracy). expected_accuracy is an estimate from the "
        "curves of Liu et al., 'Lost in the Middle' (TACL 2024), not a measurement.",
        epilog="example: contextlab eval --limit 300 --grid budget=256,1024 "
        "--grid placement=lost_in_the_middle,relevance --out r.csv --summary s.json; "
        "compare two runs' summaries: contextlab compare A.json B.json",
    )
    _add_what_is_run(p)
    _add_what_is_written(p)
    _add_where_it_runs(p)
    add_model_options(p)
    p.set_defaults(handler=cmd_eval)
