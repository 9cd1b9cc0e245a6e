"""The ``contextlab`` command: build a context block, sweep parameters, index and search a store.

Each command parses its arguments, makes one library call and prints the result. Settings go
through ``LabConfig``, the object the lab uses. Errors are one line on stderr
(``contextlab: error: ...``) and a non-zero exit, never a traceback. To add a command, write an
``_add_<name>(sub)`` that declares its parser and a ``_cmd_<name>(args)`` it points to, and list
the adder in ``_COMMANDS``. Reading inputs lives in ``cli_inputs``, writing output files (checked
first, then all or nothing) in ``cli_outputs``; the store commands (index, remove, search) in
``cli_store``.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from .cli_inputs import add_input_options as _add_input_options
from .cli_inputs import label as _label
from .cli_inputs import positive_int as _positive_int
from .cli_inputs import read_documents as _read_documents
from .cli_inputs import threshold as _threshold
from .cli_inputs import token_count as _token_count
from .cli_inputs import top_k as _top_k
from .cli_inputs import workers as _workers
from .cli_outputs import check_target, write_all
from .cli_store import add_index as _add_index
from .cli_store import add_remove as _add_remove
from .cli_store import add_search as _add_search
from .errors import ContextLabError
from .lab.config import PLACEMENTS, LabConfig
from .lab.sweep import MAX_BUILDS, SWEEP_COLUMNS, run_sweep, sweep_grid, write_csv
from .retrieval import fts_query, needs_scoring
from .retrieval.scoring import score_unscored
from .tokenizers import TOKENIZER_NAMES
from .types import ContextResult, Document

__all__ = ["main", "build_parser", "lab_app_path"]

# -- shared steps --------------------------------------------------------------------------


def _scored(documents: list[Document], args: argparse.Namespace) -> list[Document]:
    """Return the documents with a BM25 score for each one without; say once what was scored."""
    if needs_scoring(documents) and not fts_query(args.query)[1]:
        raise ContextLabError(
            f"{_label(args.file)} has documents without a score; pass --query to score them "
            "against (BM25), or give each document a score field"
        )
    outcome = score_unscored(documents, args.query)
    if outcome.note:
        print(f"contextlab: note: {outcome.note}", file=sys.stderr)
    return outcome.documents


def _config(args: argparse.Namespace, **changes: Any) -> LabConfig:
    """Return the ``LabConfig`` the engine options stand for (the lab's settings object)."""
    placement = "relevance" if args.no_reorder else args.placement
    values: dict[str, Any] = {
        "query": args.query,
        "min_doc_tokens": args.min_tokens,
        "placement": placement,
        "summarize_overflow": args.summarize,
        "seed_compatible": args.seed_compatible,
    }
    if args.tokenizer is not None:
        values["tokenizer"] = args.tokenizer
    values.update(changes)
    return LabConfig(**values)


def _summary(result: ContextResult) -> str:
    counts = result.fate_counts()
    return (
        f"contextlab: {len(result.included_docs)} of {len(result.trace)} documents in the block, "
        f"{result.tokens_used} of {result.tokens_budget} tokens ({result.utilization_pct}%), "
        f"{result.duplicates_removed} duplicate(s) removed, {counts.get('truncated', 0)} truncated"
    )


class _Progress:
    """A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.enabled = total > 0 and stream.isatty()

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / self.total)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total}")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def _require(module: str, feature: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ContextLabError(
            f"{feature} needs the {module} package; install it with "
            f"`pip install 'contextlab[lab]'`"
        )


# -- build ---------------------------------------------------------------------------------


def _cmd_build(args: argparse.Namespace) -> int:
    if args.run is not None:
        documents, config = _run_input(args)
    else:
        documents = _scored(_read_documents(args.file, args), args)
        config = _config(args, budget=args.budget, dedup_threshold=args.threshold)
    result = config.build(documents)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        sys.stdout.write(result.context_block + "\n")
    if documents and not result.included_docs:
        counts = result.fate_counts()
        print(f"contextlab: note: no document made it into the block ({counts['filtered']} too "
              f"short for --min-tokens, {counts['duplicate']} duplicate(s), {counts['excluded']} "
              f"over the budget of {config.budget})", file=sys.stderr)
    elif sys.stderr.isatty():
        print(_summary(result), file=sys.stderr)
    return 0


def _run_input(args: argparse.Namespace) -> tuple[list[Document], LabConfig]:
    """Return run ``--run`` of FILE (a capture file or span export): its documents and settings.

    The run's recorded settings are used; an engine option that differs from its default
    overrides them. Documents without a score are scored against the (run's) query.
    """
    from .captures import read_run

    if args.file == "-":
        raise ContextLabError("--run reads a capture file or span export by name, not stdin")
    run = read_run(args.file, args.run)
    defaults = build_parser().parse_args(["build", args.file])
    given = _config(args, budget=args.budget, dedup_threshold=args.threshold).to_dict()
    base = _config(defaults, budget=defaults.budget, dedup_threshold=defaults.threshold).to_dict()
    config = run.config().with_changes(**{k: v for k, v in given.items() if v != base[k]})
    scoring = argparse.Namespace(**{**vars(args), "query": config.query,
                                    "file": f"{args.file} run {args.run}"})
    return _scored(run.documents, scoring), config


def _add_build(sub: Any) -> None:
    p = sub.add_parser(
        "build", help="print the context block for FILE's documents",
        description="Filter, rank, deduplicate, reorder and budget FILE's documents into a "
                    "citation-labelled context block, printed on stdout.",
        epilog="example: contextlab build docs.jsonl --query 'how do refunds work' --budget 800",
    )
    p.add_argument("file", metavar="FILE",
                   help="documents: .json, .jsonl, .csv, .txt or .md, or - for stdin")
    _add_engine_options(p)
    p.add_argument("--budget", "-b", type=_token_count, default=2048, metavar="N",
                   help="token budget of the block (default 2048)")
    p.add_argument("--threshold", "-t", type=_threshold, default=0.85, metavar="T",
                   help="near-duplicate Jaccard threshold in (0, 1] (default 0.85)")
    p.add_argument("--format", "-f", choices=("text", "json"), default="text",
                   help="text: the block; json: the whole result with its per-document trace")
    p.add_argument("--run", type=_positive_int, default=None, metavar="N",
                   help="FILE is a capture file (a component's capture_to=) or an OpenInference "
                        "span export: build its run N (numbered as the lab lists them) with the "
                        "run's own query and settings; options that differ from their defaults "
                        "override them")
    _add_input_options(p)
    p.set_defaults(handler=_cmd_build)


# -- sweep ---------------------------------------------------------------------------------


def _cmd_sweep(args: argparse.Namespace) -> int:
    thresholds, budgets = sweep_grid(args.threshold, args.budget, max_builds=args.max_builds,
                                     names=("--threshold", "--budget", "--max-builds"))
    to_file = bool(args.output) and args.output != "-"
    # Every target is checked before the grid runs, and written all or nothing after it.
    if to_file:
        check_target(args.output, "--output")
    if args.html:
        check_target(args.html, "--html")
        _require("plotly", "sweep --html")
    documents = _scored(_read_documents(args.file, args), args)
    rows = run_sweep(documents, _config(args), thresholds, budgets,
                     progress=_Progress(len(thresholds) * len(budgets), sys.stderr))
    buffer = io.StringIO()
    write_csv(rows, buffer)
    files = {args.output: buffer.getvalue()} if to_file else {}
    if args.html:
        from .charts.sweep import sweep_figure

        files[args.html] = sweep_figure(rows).to_html(include_plotlyjs=True, full_html=True)
    write_all(files)
    if to_file:
        print(f"contextlab: wrote {len(rows)} rows to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(buffer.getvalue())
    if args.html:
        print(f"contextlab: wrote chart to {args.html}", file=sys.stderr)
    return 0


def _add_sweep(sub: Any) -> None:
    p = sub.add_parser(
        "sweep", help="build over a grid of thresholds and budgets; write CSV (and a chart)",
        description="Build FILE's block for every (threshold, budget) pair and write one CSV row "
                    "each: " + ", ".join(SWEEP_COLUMNS) + ".",
        epilog="ranges are start:stop:step (stop included), a,b,c, or one value; example: "
               "contextlab sweep docs.json -q 'refunds' --threshold 0.5:1.0:0.05 "
               "--budget 500:4000:500 -o sweep.csv --html sweep.html",
    )
    p.add_argument("file", metavar="FILE",
                   help="documents: .json, .jsonl, .csv, .txt or .md, or - for stdin")
    _add_engine_options(p)
    p.add_argument("--threshold", "-t", default="0.5:1.0:0.05", metavar="RANGE",
                   help="dedup thresholds (default 0.5:1.0:0.05)")
    p.add_argument("--budget", "-b", default="500:4000:500", metavar="RANGE",
                   help="token budgets (default 500:4000:500)")
    p.add_argument("--max-builds", type=_positive_int, default=MAX_BUILDS, metavar="N",
                   help=f"refuse grids of more than N builds (default {MAX_BUILDS:,})")
    p.add_argument("--output", "-o", default=None, metavar="CSV",
                   help="write the CSV here instead of stdout")
    p.add_argument("--html", default=None, metavar="HTML",
                   help="also write an interactive plotly chart (needs plotly)")
    _add_input_options(p)
    p.set_defaults(handler=_cmd_sweep)


# -- eval ----------------------------------------------------------------------------------


def _cmd_eval(args: argparse.Namespace) -> int:
    from .evaluate import ProgressBar, evaluate_to_files, summary_table

    result = evaluate_to_files(
        args.evalset, args.out, args.summary, grid=args.grid, top_k=args.top_k, limit=args.limit,
        model=args.model, store=args.store, workers=args.workers, scheduler=args.scheduler,
        progress=ProgressBar(sys.stderr),
    )
    print(summary_table(result))
    written = f" and {args.summary}" if args.summary else ""
    print(f"contextlab: wrote {result.n_rows} rows to {args.out}{written}", file=sys.stderr)
    return 0


def _add_eval(sub: Any) -> None:
    from .evaluate import DEFAULT_MODEL, DEFAULT_TOP_K, GRID_KEYS

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
    p.add_argument("--top-k", "-k", type=_top_k, default=DEFAULT_TOP_K, metavar="K",
                   help=f"documents retrieved per question (default {DEFAULT_TOP_K})")
    p.add_argument("--limit", "-n", type=_positive_int, default=None, metavar="N", help="only the first N questions")
    p.add_argument("--model", "-m", default=DEFAULT_MODEL, metavar="M",
                   help=f"whose published position curve gives expected_accuracy (default {DEFAULT_MODEL})")
    p.add_argument("--store", metavar="DB", help="retrieve questions without documents from this store")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_workers, default=None, metavar="N",
                       help="run on a local Dask cluster of N worker processes (needs contextlab[dask])")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster, e.g. tcp://host:8786")
    p.set_defaults(handler=_cmd_eval)


# -- lab -----------------------------------------------------------------------------------


def lab_app_path() -> Path:
    """Return where the Streamlit lab's script lives inside the installed package."""
    import contextlab

    return Path(contextlab.__file__).parent / "ui" / "streamlit_app.py"


def _cmd_lab(args: argparse.Namespace, streamlit_args: list[str]) -> int:
    if args.runs == "-":
        raise ContextLabError("--runs reads a capture file or span export by name, not stdin; "
                              "save it to a file first")
    app = lab_app_path()
    if not app.is_file():
        raise ContextLabError(
            f"the lab's script is missing ({app}); reinstall contextlab, or run "
            "`streamlit run app.py` from a source checkout"
        )
    _require("streamlit", "the lab")
    if args.runs is not None:
        from .captures import LAB_RUNS_ENV, iter_runs

        path = Path(args.runs).resolve()
        next(iter_runs(path))  # a foreign or malformed file is one line here, not in the browser
        os.environ[LAB_RUNS_ENV] = str(path)  # the lab's sidebar opens on this file's runs
    command = [sys.executable, "-m", "streamlit", "run", str(app), *streamlit_args]
    if os.name == "posix":
        # Become the server: SIGTERM, SIGINT and the exit status then reach Streamlit itself,
        # and no orphaned server is left on the port when this command is stopped.
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, command)
        return 0  # reached only when a test stands in for execv
    try:  # Windows has no exec that keeps the process: wait on the child instead
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130


#: Streamlit options checked here, so a typo is one line instead of Streamlit's usage text:
#: each maps to (what it takes, a check). Other options go to Streamlit unchecked.
_BOOLEAN = ("true", "false", "1", "0", "yes", "no", "on", "off")
_STREAMLIT_OPTIONS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "--server.port": ("a port number from 1 to 65535",
                      lambda v: v.isdigit() and len(v) <= 5 and 1 <= int(v) <= 65535),
    "--server.maxUploadSize": ("a whole number of megabytes >= 1",
                               lambda v: v.isdigit() and len(v) <= 9 and int(v) >= 1),
    "--server.headless": ("true or false", lambda v: v.lower() in _BOOLEAN),
    "--server.runOnSave": ("true or false", lambda v: v.lower() in _BOOLEAN),
    "--browser.gatherUsageStats": ("true or false", lambda v: v.lower() in _BOOLEAN),
    "--theme.base": ("light or dark", lambda v: v in ("light", "dark")),
}


def _streamlit_problem(options: list[str]) -> str | None:
    """Return what is wrong with a Streamlit option we know (``--opt V`` or ``--opt=V``), or None."""
    for i, option in enumerate(options):
        name, has_value, value = option.partition("=")
        if name not in _STREAMLIT_OPTIONS:
            continue
        if not has_value:
            if i + 1 >= len(options) or options[i + 1].startswith("--"):
                return f"{name} needs a value"
            value = options[i + 1]
        wanted, check = _STREAMLIT_OPTIONS[name]
        if not check(value.strip()):
            shown = repr(value) if len(value) <= 30 else f"a {len(value)}-character value"
            return f"{name} expects {wanted}, got {shown}"
    return None


def _add_lab(sub: Any) -> None:
    p = sub.add_parser(
        "lab", help="start the Streamlit lab",
        description="Start the Streamlit lab. Arguments after `lab` go to `streamlit run`.",
        epilog="example: contextlab lab --server.port 8502",
    )
    p.add_argument("--runs", metavar="FILE", default=None,
                   help="open on the runs of a capture file or an OpenInference span export")
    p.set_defaults(handler=None)


# -- parser and entry point ----------------------------------------------------------------


def _add_engine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--query", "-q", default="",
                   help="the user's question; documents without a score are scored against it (BM25)")
    p.add_argument("--tokenizer", choices=TOKENIZER_NAMES, default=None,
                   help="token counter (default cl100k_base; heuristic with --seed-compatible)")
    p.add_argument("--seed-compatible", action="store_true",
                   help="reproduce seed 000 exactly: heuristic tokens, reorder before budget, "
                        "headers not counted")
    p.add_argument("--min-tokens", type=_token_count, default=5, metavar="N",
                   help="drop documents shorter than N tokens (default 5)")
    p.add_argument("--placement", choices=PLACEMENTS, default="lost_in_the_middle",
                   help="where documents go in the block (default lost_in_the_middle)")
    p.add_argument("--no-reorder", action="store_true",
                   help="keep relevance order (the same as --placement relevance)")
    p.add_argument("--summarize", action="store_true",
                   help="give documents that do not fit a one-sentence synopsis while budget remains")


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (``--help`` has the rest)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


#: Each command's parser, in the order ``--help`` lists them.
_COMMANDS: list[Callable[[Any], None]] = [_add_build, _add_sweep, _add_eval, _add_index, _add_remove,
                                           _add_search, _add_lab]


def build_parser() -> argparse.ArgumentParser:
    """Return the ``contextlab`` argument parser (every command has ``--help``)."""
    from . import __version__

    parser = _OneLineParser(
        prog="contextlab",
        description="Turn retrieved documents into an LLM prompt's context block, and explain it.",
    )
    parser.add_argument("--version", action="version", version=f"contextlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)
    for add in _COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``contextlab`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if extra and args.command != "lab":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "lab":
            problem = _streamlit_problem(extra)
            if problem:
                print(f"contextlab lab: error: {problem} (see `contextlab lab --help`)", file=sys.stderr)
                return 2
            return _cmd_lab(args, extra)
        return args.handler(args)
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away; that is not an error worth a message.
        # Point stdout at devnull so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    except (ContextLabError, ValueError, OSError) as exc:
        print(f"contextlab: error: {_describe(exc)}", file=sys.stderr)
        return 1
    except (OverflowError, MemoryError, RecursionError) as exc:
        # Input too large or too deep for some step (a number, a nesting): one line naming the
        # error, not a traceback. Any other exception is a bug and keeps its traceback.
        detail = str(exc)[:200]
        print(f"contextlab: error: {type(exc).__name__}{': ' + detail if detail else ''} "
              "(an input or option is too large)", file=sys.stderr)
        return 1


# A library message names both ways to raise a limit; on the command line only the flag counts.
_BOTH_WAYS = re.compile(r"\((--[a-z-]+) on the command line, [a-z_]+= in Python\)")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    return _BOTH_WAYS.sub(r"(\1 N)", str(exc)) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
