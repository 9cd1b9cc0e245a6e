"""The ``contextlab`` command: build a context block, sweep parameters, index and search a store.

Each command parses its arguments, makes one library call and prints the result. Errors are
one line on stderr (``contextlab: error: ...``) and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import math
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from .errors import ContextLabError, InvalidInputError
from .loaders import DEFAULT_MAX_BYTES, load_bytes, load_file
from .retrieval import SQLiteBackend, fts_query, needs_scoring, score_documents
from .tokenizers import TOKENIZER_NAMES
from .types import ContextResult, Document, PromptRequest

__all__ = [
    "main",
    "build_parser",
    "parse_range",
    "run_sweep",
    "SWEEP_COLUMNS",
    "lab_app_path",
]

#: The CSV columns ``contextlab sweep`` writes, in order.
SWEEP_COLUMNS: tuple[str, ...] = (
    "threshold", "budget", "included", "duplicates", "truncated", "summarized", "excluded",
    "filtered", "tokens_used", "utilization_pct",
)
# A typo such as 0:1:0.0001 should not start a million builds.
_MAX_GRID = 10_000
_INPUT_FORMATS = ("auto", "json", "jsonl", "csv", "txt", "md")


# -- helpers -------------------------------------------------------------------------------


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


def parse_range(spec: str, *, integer: bool = False, name: str = "value") -> list[float] | list[int]:
    """Return the values ``spec`` names: ``start:stop:step`` (stop included), ``a,b,c`` or one value."""
    text = spec.strip()
    convert: Callable[[str], Any] = int if integer else float

    def number(part: str) -> Any:
        try:
            value = convert(part.strip())
        except ValueError:
            kind = "a whole number" if integer else "a number"
            raise InvalidInputError(f"{name} {spec!r}: {part.strip()!r} is not {kind}") from None
        if not integer and not math.isfinite(value):
            raise InvalidInputError(f"{name} {spec!r}: {part.strip()!r} is not a finite number")
        return value

    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise InvalidInputError(
                f"{name} {spec!r}: write a range as start:stop:step, e.g. 0.5:1.0:0.05"
            )
        start, stop, step = (number(p) for p in parts)
        if step <= 0:
            raise InvalidInputError(f"{name} {spec!r}: the step must be > 0")
        if stop < start:
            raise InvalidInputError(f"{name} {spec!r}: stop is below start")
        # The epsilon keeps the stop value when float steps land a hair past it.
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count > _MAX_GRID:
            raise InvalidInputError(f"{name} {spec!r} has {count:,} values; use a larger step")
        values = [start + i * step for i in range(count)]
        return [int(v) for v in values] if integer else [round(v, 10) for v in values]
    if not text:
        raise InvalidInputError(f"{name}: empty; give a value, a list a,b,c or a range start:stop:step")
    return [number(p) for p in text.split(",")]


def _read_documents(spec: str, *, input_format: str | None, max_bytes: int) -> list[Document]:
    if spec == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
        return load_bytes(data, "stdin", format=input_format or "auto", max_bytes=max_bytes)
    if input_format is None:
        return load_file(spec, max_bytes=max_bytes)
    path = Path(spec)
    with path.open("rb") as fh:
        data = fh.read(max_bytes + 1)
    return load_bytes(data, path.name, format=input_format, max_bytes=max_bytes)


def _scored(documents: list[Document], query: str, file_label: str) -> list[Document]:
    if not needs_scoring(documents):
        return documents
    if not fts_query(query)[1]:
        raise InvalidInputError(
            f"{file_label} has documents without a score; pass --query to score them against "
            "(BM25), or give each document a score field"
        )
    return score_documents(documents, query)


def _manager_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "min_doc_tokens": args.min_tokens,
        "use_lost_in_middle": not args.no_reorder,
        "summarize_overflow": args.summarize,
    }
    if args.tokenizer is not None:
        kwargs["tokenizer"] = args.tokenizer
    return kwargs


def _make_manager(seed_compatible: bool, **kwargs: Any):
    from .manager import ContextManager

    if seed_compatible:
        return ContextManager.seed_compatible(**kwargs)
    return ContextManager(**kwargs)


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


# -- build ---------------------------------------------------------------------------------


def _cmd_build(args: argparse.Namespace) -> int:
    documents = _read_documents(args.file, input_format=args.input_format, max_bytes=args.max_bytes)
    documents = _scored(documents, args.query, _label(args.file))
    manager = _make_manager(args.seed_compatible, dedup_threshold=args.threshold, **_manager_kwargs(args))
    result = manager.build(
        PromptRequest(query=args.query, documents=documents, max_context_tokens=args.budget)
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        sys.stdout.write(result.context_block + "\n")
    if documents and not result.included_docs:
        counts = result.fate_counts()
        print(f"contextlab: note: no document made it into the block ({counts['filtered']} too "
              f"short for --min-tokens, {counts['duplicate']} duplicate(s), {counts['excluded']} "
              f"over the budget of {args.budget})", file=sys.stderr)
    elif sys.stderr.isatty():
        print(_summary(result), file=sys.stderr)
    return 0


# -- sweep ---------------------------------------------------------------------------------


def run_sweep(
    documents: Sequence[Document],
    query: str,
    thresholds: Sequence[float],
    budgets: Sequence[int],
    *,
    seed_compatible: bool = False,
    manager_kwargs: dict[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Return one row per (threshold, budget) pair: what the build kept, cut and spent."""
    rows: list[dict[str, Any]] = []
    done = 0
    for threshold in thresholds:
        manager = _make_manager(seed_compatible, dedup_threshold=threshold, **(manager_kwargs or {}))
        for budget in budgets:
            result = manager.build(
                PromptRequest(query=query, documents=list(documents), max_context_tokens=budget)
            )
            counts = result.fate_counts()
            rows.append({
                "threshold": threshold,
                "budget": budget,
                "included": len(result.included_docs),
                "duplicates": result.duplicates_removed,
                "truncated": counts.get("truncated", 0),
                "summarized": counts.get("summarized", 0),
                "excluded": counts.get("excluded", 0),
                "filtered": counts.get("filtered", 0),
                "tokens_used": result.tokens_used,
                "utilization_pct": result.utilization_pct,
            })
            done += 1
            if progress is not None:
                progress(done)
    return rows


def _cmd_sweep(args: argparse.Namespace) -> int:
    thresholds = parse_range(args.threshold, name="--threshold")
    for t in thresholds:
        if not 0 < t <= 1:
            raise InvalidInputError(f"--threshold {args.threshold!r}: {t} is outside (0, 1]")
    budgets = parse_range(args.budget, integer=True, name="--budget")
    for b in budgets:
        if b < 0:
            raise InvalidInputError(f"--budget {args.budget!r}: {b} is below 0")
    cells = len(thresholds) * len(budgets)
    if cells > _MAX_GRID:
        raise InvalidInputError(f"the grid has {cells:,} builds (over {_MAX_GRID:,}); use larger steps")
    documents = _read_documents(args.file, input_format=args.input_format, max_bytes=args.max_bytes)
    documents = _scored(documents, args.query, _label(args.file))
    if args.html:
        # Fail on a missing plotly before the grid runs, not after.
        _require("plotly", "sweep --html")
    rows = run_sweep(
        documents, args.query, thresholds, budgets,
        seed_compatible=args.seed_compatible, manager_kwargs=_manager_kwargs(args),
        progress=_Progress(cells, sys.stderr),
    )
    if args.output and args.output != "-":
        with open(args.output, "w", newline="", encoding="utf-8") as fh:
            _write_csv(rows, fh)
        print(f"contextlab: wrote {len(rows)} rows to {args.output}", file=sys.stderr)
    else:
        buffer = io.StringIO()
        _write_csv(rows, buffer)
        sys.stdout.write(buffer.getvalue())
    if args.html:
        from .ui.sweep_chart import sweep_figure

        sweep_figure(rows).write_html(args.html, include_plotlyjs=True, full_html=True)
        print(f"contextlab: wrote chart to {args.html}", file=sys.stderr)
    return 0


def _write_csv(rows: list[dict[str, Any]], stream: TextIO) -> None:
    writer = csv.DictWriter(stream, fieldnames=list(SWEEP_COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


# -- index / search ------------------------------------------------------------------------


def _cmd_index(args: argparse.Namespace) -> int:
    loaded = [
        (spec, _read_documents(spec, input_format=args.input_format, max_bytes=args.max_bytes))
        for spec in args.files
    ]  # every file is read (and checked) before the store changes
    with SQLiteBackend(args.db) as store:
        for spec, documents in loaded:
            ids = store.add(documents)
            print(f"indexed {len(ids)} document(s) from {_label(spec)}")
        print(f"{args.db} holds {len(store)} document(s)")
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    if not Path(args.db).is_file():
        raise InvalidInputError(
            f"no store at {args.db!r}; create one with `contextlab index {args.db} FILE...`"
        )
    with SQLiteBackend(args.db) as store:
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


# -- lab -----------------------------------------------------------------------------------


def lab_app_path() -> Path:
    """Return where the Streamlit lab's script lives inside the installed package."""
    import contextlab

    return Path(contextlab.__file__).parent / "ui" / "streamlit_app.py"


def _require(module: str, feature: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ContextLabError(
            f"{feature} needs the {module} package; install it with "
            f"`pip install 'contextlab[lab]'`"
        )


def _cmd_lab(args: argparse.Namespace, streamlit_args: list[str]) -> int:
    app = lab_app_path()
    if not app.is_file():
        raise ContextLabError(
            f"the lab's script is missing ({app}); reinstall contextlab, or run "
            "`streamlit run app.py` from a source checkout"
        )
    _require("streamlit", "the lab")
    command = [sys.executable, "-m", "streamlit", "run", str(app), *streamlit_args]
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130


# -- parser and entry point ----------------------------------------------------------------


def _label(spec: str) -> str:
    return "stdin" if spec == "-" else spec


def _add_input_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input-format", choices=_INPUT_FORMATS, default=None,
                   help="read FILE as this format instead of by its extension "
                        "(stdin defaults to auto: JSON, JSON Lines, or text split on --- lines "
                        "or blank lines)")
    p.add_argument("--max-bytes", type=_positive_int, default=DEFAULT_MAX_BYTES,
                   help=f"refuse inputs larger than this (default {DEFAULT_MAX_BYTES:,})")


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
    p.add_argument("--no-reorder", action="store_true",
                   help="keep relevance order (no lost-in-the-middle reordering)")
    p.add_argument("--summarize", action="store_true",
                   help="give documents that do not fit a one-sentence synopsis while budget remains")


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (``--help`` has the rest)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """Return the ``contextlab`` argument parser (every command has ``--help``)."""
    from . import __version__

    parser = _OneLineParser(
        prog="contextlab",
        description="Turn retrieved documents into an LLM prompt's context block, and explain it.",
    )
    parser.add_argument("--version", action="version", version=f"contextlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)

    build = sub.add_parser(
        "build", help="print the context block for FILE's documents",
        description="Filter, rank, deduplicate, reorder and budget FILE's documents into a "
                    "citation-labelled context block, printed on stdout.",
        epilog="example: contextlab build docs.jsonl --query 'how do refunds work' --budget 800",
    )
    build.add_argument("file", metavar="FILE",
                       help="documents: .json, .jsonl, .csv, .txt or .md, or - for stdin")
    _add_engine_options(build)
    build.add_argument("--budget", "-b", type=_non_negative_int, default=2048, metavar="N",
                       help="token budget of the block (default 2048)")
    build.add_argument("--threshold", "-t", type=_threshold, default=0.85, metavar="T",
                       help="near-duplicate Jaccard threshold in (0, 1] (default 0.85)")
    build.add_argument("--format", "-f", choices=("text", "json"), default="text",
                       help="text: the block; json: the whole result with its per-document trace")
    _add_input_options(build)
    build.set_defaults(handler=_cmd_build)

    sweep = sub.add_parser(
        "sweep", help="build over a grid of thresholds and budgets; write CSV (and a chart)",
        description="Build FILE's block for every (threshold, budget) pair and write one CSV row "
                    "each: " + ", ".join(SWEEP_COLUMNS) + ".",
        epilog="ranges are start:stop:step (stop included), a,b,c, or one value; example: "
               "contextlab sweep docs.json -q 'refunds' --threshold 0.5:1.0:0.05 "
               "--budget 500:4000:500 -o sweep.csv --html sweep.html",
    )
    sweep.add_argument("file", metavar="FILE",
                       help="documents: .json, .jsonl, .csv, .txt or .md, or - for stdin")
    _add_engine_options(sweep)
    sweep.add_argument("--threshold", "-t", default="0.5:1.0:0.05", metavar="RANGE",
                       help="dedup thresholds (default 0.5:1.0:0.05)")
    sweep.add_argument("--budget", "-b", default="500:4000:500", metavar="RANGE",
                       help="token budgets (default 500:4000:500)")
    sweep.add_argument("--output", "-o", default=None, metavar="CSV",
                       help="write the CSV here instead of stdout")
    sweep.add_argument("--html", default=None, metavar="HTML",
                       help="also write an interactive plotly chart (needs plotly)")
    _add_input_options(sweep)
    sweep.set_defaults(handler=_cmd_sweep)

    index = sub.add_parser(
        "index", help="add files' documents to a SQLite full-text store",
        description="Add the documents of each FILE to the SQLite FTS5 store DB (created if "
                    "missing). Re-indexing the same document replaces it.",
        epilog="example: contextlab index kb.db docs.jsonl notes.md",
    )
    index.add_argument("db", metavar="DB", help="the store file")
    index.add_argument("files", metavar="FILE", nargs="+", help="documents to add, or - for stdin")
    _add_input_options(index)
    index.set_defaults(handler=_cmd_index)

    search = sub.add_parser(
        "search", help="search a SQLite store (BM25, scores in [0, 1])",
        description="Print the documents of DB that best match QUERY, best first, with scores "
                    "in [0, 1] (the share of the query's searchable weight a document covers).",
        epilog="example: contextlab search kb.db 'refund policy' --top-k 3",
    )
    search.add_argument("db", metavar="DB", help="a store made by `contextlab index`")
    search.add_argument("query", metavar="QUERY", help="words to search for (no query syntax)")
    search.add_argument("--top-k", "-k", type=_positive_int, default=5, metavar="K",
                        help="how many results (default 5)")
    search.add_argument("--min-score", type=float, default=0.0, metavar="S",
                        help="hide results scoring below S (default 0)")
    search.add_argument("--format", "-f", choices=("text", "json"), default="text",
                        help="text: one line per result; json: full results")
    search.set_defaults(handler=_cmd_search)

    lab = sub.add_parser(
        "lab", help="start the Streamlit lab",
        description="Start the Streamlit lab. Arguments after `lab` go to `streamlit run`.",
        epilog="example: contextlab lab --server.port 8502",
    )
    lab.set_defaults(handler=None)
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


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    return str(exc) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
