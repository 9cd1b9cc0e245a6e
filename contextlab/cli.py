"""The ``contextlab`` command: build a context block, sweep parameters, index and search a store.

Each command parses its arguments, makes one library call and prints the result. Settings go
through ``LabConfig``, the object the lab uses. Errors are one line on stderr
(``contextlab: error: ...``) and a non-zero exit, never a traceback. To add a command, write an
``_add_<name>(sub)`` that declares its parser and a ``_cmd_<name>(args)`` it points to, and list
the adder in ``_COMMANDS``.
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

from .errors import ContextLabError
from .lab.config import PLACEMENTS, LabConfig
from .lab.sweep import MAX_BUILDS, SWEEP_COLUMNS, run_sweep, sweep_grid, write_csv
from .loaders import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS, load_bytes, load_file
from .retrieval import SQLiteBackend, fts_query, needs_scoring
from .retrieval.scoring import score_unscored
from .tokenizers import TOKENIZER_NAMES
from .types import ContextResult, Document

__all__ = ["main", "build_parser", "lab_app_path"]

_INPUT_FORMATS = ("auto", "json", "jsonl", "csv", "txt", "md")


# -- argument types ------------------------------------------------------------------------


def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {value}")
        return value

    return parse


_positive_int = _int_at_least(1)
_non_negative_int = _int_at_least(0)


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text}")
    return value


# -- shared steps --------------------------------------------------------------------------


def _label(spec: str) -> str:
    return "stdin" if spec == "-" else spec


def _read_documents(spec: str, args: argparse.Namespace) -> list[Document]:
    """Return the documents of FILE ``spec`` (``-`` is stdin), read as ``--input-format``."""
    fmt, limits = args.input_format, {"max_bytes": args.max_bytes, "max_documents": args.max_documents}
    if spec == "-":
        data = sys.stdin.buffer.read(args.max_bytes + 1)
        return load_bytes(data, "stdin", format=fmt or "auto", **limits)
    if fmt is None:
        return load_file(spec, **limits)
    path = Path(spec)
    with path.open("rb") as fh:
        data = fh.read(args.max_bytes + 1)
    return load_bytes(data, path.name, format=fmt, **limits)


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
    p.add_argument("--budget", "-b", type=_non_negative_int, default=2048, metavar="N",
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
    documents = _scored(_read_documents(args.file, args), args)
    if args.html:
        # Fail on a missing plotly before the grid runs, not after.
        _require("plotly", "sweep --html")
    rows = run_sweep(documents, _config(args), thresholds, budgets,
                     progress=_Progress(len(thresholds) * len(budgets), sys.stderr))
    if args.output and args.output != "-":
        with open(args.output, "w", newline="", encoding="utf-8") as fh:
            write_csv(rows, fh)
        print(f"contextlab: wrote {len(rows)} rows to {args.output}", file=sys.stderr)
    else:
        buffer = io.StringIO()
        write_csv(rows, buffer)
        sys.stdout.write(buffer.getvalue())
    if args.html:
        from .charts.sweep import sweep_figure

        sweep_figure(rows).write_html(args.html, include_plotlyjs=True, full_html=True)
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


# -- index / search ------------------------------------------------------------------------


def _origin(spec: str, db: str) -> str:
    """Return the identity of FILE ``spec`` in store ``db``: its path from the store's folder."""
    if spec == "-":
        return "stdin"
    return os.path.relpath(os.path.abspath(spec), os.path.dirname(os.path.abspath(db)))


def _cmd_index(args: argparse.Namespace) -> int:
    # Every file is read (and checked) before the store changes.
    loaded = [(spec, _read_documents(spec, args)) for spec in args.files]
    with SQLiteBackend(args.db, read_only=False) as store:
        for spec, documents in loaded:
            r = store.index(documents, origin=_origin(spec, args.db))
            print(f"{_label(spec)}: {r.added} added, {r.replaced} replaced, {r.unchanged} unchanged, "
                  f"{r.removed} removed")
        print(f"{args.db} holds {len(store)} document(s)")
    return 0


def _add_index(sub: Any) -> None:
    p = sub.add_parser(
        "index", help="add files' documents to a SQLite full-text store",
        description="Add the documents of each FILE to the SQLite FTS5 store DB (created if "
                    "missing). A document is known by its file and its position in it: "
                    "re-indexing a file replaces what was indexed from it before. Prints what "
                    "was added, replaced, unchanged and removed.",
        epilog="example: contextlab index kb.db docs.jsonl notes.md",
    )
    p.add_argument("db", metavar="DB", help="the store file")
    p.add_argument("files", metavar="FILE", nargs="+", help="documents to add, or - for stdin")
    _add_input_options(p)
    p.set_defaults(handler=_cmd_index)


def _cmd_remove(args: argparse.Namespace) -> int:
    if not Path(args.db).is_file():
        raise ContextLabError(f"no store at {args.db!r}")
    # A name is a file as it was indexed, or a document source as the store shows it.
    names = {name: dict.fromkeys([_origin(name, args.db), name]) for name in args.sources}
    with SQLiteBackend(args.db, read_only=False) as store:
        counts = store.remove_sources([n for keys in names.values() for n in keys])
        left = len(store)
    missing = []
    for name, keys in names.items():
        removed = sum(counts.get(k, 0) for k in keys)
        if removed:
            print(f"removed {removed} document(s) from {name}")
        else:
            missing.append(name)
    print(f"{args.db} holds {left} document(s)")
    if missing:
        raise ContextLabError(f"nothing in {args.db} came from {', '.join(map(repr, missing))}; "
                              "give a file as it was indexed, or a source `search` shows")
    return 0


def _add_remove(sub: Any) -> None:
    p = sub.add_parser(
        "remove", help="delete a file's documents from a store",
        description="Delete from DB every document indexed from each SOURCE file, or whose "
                    "source is SOURCE.",
        epilog="example: contextlab remove kb.db old-notes.md",
    )
    p.add_argument("db", metavar="DB", help="a store made by `contextlab index`")
    p.add_argument("sources", metavar="SOURCE", nargs="+", help="a file as indexed, or a source")
    p.set_defaults(handler=_cmd_remove)


def _cmd_search(args: argparse.Namespace) -> int:
    if not Path(args.db).is_file():
        raise ContextLabError(
            f"no store at {args.db!r}; create one with `contextlab index {args.db} FILE...`"
        )
    # Read-only: a search never creates or changes a file, and works on a read-only store.
    with SQLiteBackend(args.db, read_only=True) as store:
        hits = [h for h in store.retrieve(args.query, top_k=args.top_k) if h.score >= args.min_score]
    if args.format == "json":
        payload = [
            {"rank": i, "id": h.id, "score": h.score, "source": h.source, "content": h.content,
             "metadata": h.metadata}
            for i, h in enumerate(hits, start=1)
        ]
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n")
        return 0
    if not hits:
        print(f"contextlab: no document matches {args.query!r}", file=sys.stderr)
        return 0
    for i, h in enumerate(hits, start=1):
        preview = " ".join(h.content.split())
        if len(preview) > 100:
            preview = preview[:99] + "…"
        print(f"{i:>3}  {h.score:.3f}  {h.source or '-'}  {preview}")
    return 0


def _add_search(sub: Any) -> None:
    p = sub.add_parser(
        "search", help="search a SQLite store (BM25, scores in [0, 1])",
        description="Print the documents of DB that best match QUERY, best first, with scores "
                    "in [0, 1] (the share of the query's searchable weight a document covers).",
        epilog="example: contextlab search kb.db 'refund policy' --top-k 3",
    )
    p.add_argument("db", metavar="DB", help="a store made by `contextlab index`")
    p.add_argument("query", metavar="QUERY", help="words to search for (no query syntax)")
    p.add_argument("--top-k", "-k", type=_positive_int, default=5, metavar="K",
                   help="how many results (default 5)")
    p.add_argument("--min-score", type=float, default=0.0, metavar="S",
                   help="hide results scoring below S (default 0)")
    p.add_argument("--format", "-f", choices=("text", "json"), default="text",
                   help="text: one line per result; json: full results")
    p.set_defaults(handler=_cmd_search)


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
    print(f"contextlab: wrote {len(result.rows)} rows to {args.out}{written}", file=sys.stderr)
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
    p.add_argument("--grid", "-g", action="append", metavar="KEY=V1,V2",
                   help=f"vary a setting (repeatable); keys: {', '.join(GRID_KEYS)}; numbers may be start:stop:step")
    p.add_argument("--top-k", "-k", type=_positive_int, default=DEFAULT_TOP_K, metavar="K",
                   help=f"documents retrieved per question (default {DEFAULT_TOP_K})")
    p.add_argument("--limit", "-n", type=_positive_int, default=None, metavar="N", help="only the first N questions")
    p.add_argument("--model", "-m", default=DEFAULT_MODEL, metavar="M",
                   help=f"whose published position curve gives expected_accuracy (default {DEFAULT_MODEL})")
    p.add_argument("--store", metavar="DB", help="retrieve questions without documents from this store")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_positive_int, default=None, metavar="N",
                       help="run on a local Dask cluster of N worker processes (needs contextlab[dask])")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster, e.g. tcp://host:8786")
    p.set_defaults(handler=_cmd_eval)


# -- lab -----------------------------------------------------------------------------------


def lab_app_path() -> Path:
    """Return where the Streamlit lab's script lives inside the installed package."""
    import contextlab

    return Path(contextlab.__file__).parent / "ui" / "streamlit_app.py"


def _cmd_lab(args: argparse.Namespace, streamlit_args: list[str]) -> int:
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


def _add_input_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input-format", choices=_INPUT_FORMATS, default=None,
                   help="read FILE as this format instead of by its extension "
                        "(stdin defaults to auto: JSON, JSON Lines, or text split on --- lines "
                        "or blank lines)")
    p.add_argument("--max-bytes", type=_positive_int, default=DEFAULT_MAX_BYTES, metavar="N",
                   help=f"refuse inputs larger than N bytes (default {DEFAULT_MAX_BYTES:,})")
    p.add_argument("--max-documents", type=_positive_int, default=DEFAULT_MAX_DOCUMENTS, metavar="N",
                   help=f"refuse inputs of more than N documents (default {DEFAULT_MAX_DOCUMENTS:,})")


def _add_engine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--query", "-q", default="",
                   help="the user's question; documents without a score are scored against it (BM25)")
    p.add_argument("--tokenizer", choices=TOKENIZER_NAMES, default=None,
                   help="token counter (default cl100k_base; heuristic with --seed-compatible)")
    p.add_argument("--seed-compatible", action="store_true",
                   help="reproduce seed 000 exactly: heuristic tokens, reorder before budget, "
                        "headers not counted")
    p.add_argument("--min-tokens", type=_non_negative_int, default=5, metavar="N",
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


# A library message names both ways to raise a limit; on the command line only the flag counts.
_BOTH_WAYS = re.compile(r"\((--[a-z-]+) on the command line, [a-z_]+= in Python\)")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    return _BOTH_WAYS.sub(r"(\1 N)", str(exc)) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
