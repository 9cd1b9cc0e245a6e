"""``contextlab build``: one context block from a file's documents (or a captured run)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..atomic import check_target, write_text
from ..errors import ContextLabError
from ..lab.config import LabConfig
from ..safe_text import json_terminal_safe, terminal_safe_lines
from ..types import ContextResult, Document
from .common import add_engine_options, config_of, engine_overrides, scored, summary
from .flags import note
from .inputs import add_input_options, positive_int, read_all_documents
from .orders import add_orders_options, cmd_build_orders, wants_orders

__all__ = ["add_build"]


def cmd_build(args: argparse.Namespace) -> int:
    if args.out is not None:
        check_target(args.out, "--out")
    if args.run is not None:
        documents, config = _run_input(args)
    else:
        documents = scored(read_all_documents([args.file, *args.more_files], args), args)
        config = config_of(args)
    result = config.build(documents)
    for result_note in result.notes:
        note(result_note)
    if wants_orders(args):
        return cmd_build_orders(args, documents, config, result)
    if args.out is not None:
        _write_out(args.out, args.format, documents, config, result)
    elif args.format == "json":
        sys.stdout.write(
            json_terminal_safe(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str)) + "\n"
        )
    else:
        # Newlines are the block's own; any other control character is shown, not sent.
        sys.stdout.write(terminal_safe_lines(result.context_block) + "\n")
    if documents and not result.included_docs:
        counts = result.fate_counts()
        note(
            f"no document made it into the block ({counts['filtered']} too short for --min-tokens, "
            f"{counts['duplicate']} duplicate(s), {counts['excluded']} over the budget of "
            f"{result.tokens_budget})"
        )
    elif sys.stderr.isatty():
        print(summary(result), file=sys.stderr)
    return 0


def _write_out(path: str, form: str, documents: list[Document], config: LabConfig, result: ContextResult) -> None:
    """Write the build to ``path``: the HTML report for a ``.html`` name, else what ``--format`` prints."""
    if path.lower().endswith((".html", ".htm")):
        from ..lab.report import html_report

        text = html_report(result, config, documents)
    elif form == "json":
        text = json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n"
    else:
        text = result.context_block + "\n"
    write_text(path, text)
    note(f"wrote {path}")


def _run_input(args: argparse.Namespace) -> tuple[list[Document], LabConfig]:
    """Return run ``--run`` of FILE (a capture file or span export): its documents and settings.

    The run's recorded settings are used; every engine option given on the command line
    overrides them (even one whose value equals its default). Documents without a score are
    scored against the (run's) query.
    """
    from ..runs.captures import read_run

    if args.file == "-":
        raise ContextLabError("--run reads a capture file or span export by name, not stdin")
    run = read_run(args.file, args.run)
    if run.note:
        note(run.note)
    changes = engine_overrides(args)
    if args.query:
        changes["query"] = args.query
    config = LabConfig.from_run(run).with_changes(**changes)
    scoring = argparse.Namespace(**{**vars(args), "query": config.query, "file": f"{args.file} run {args.run}"})
    return scored(run.documents, scoring), config


def add_build(sub: Any) -> None:
    p = sub.add_parser(
        "build",
        help="print the context block for FILE's documents",
        description="Filter, rank, deduplicate, reorder and budget FILE's documents into a "
        "citation-labelled context block, printed on stdout.",
        epilog="example: contextlab build docs.jsonl --query 'how do refunds work' --budget 800; with a model: "
        "... --endpoint http://127.0.0.1:8080/v1 --api completions --shots 2 --orders first,middle,last",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="documents: .json, .jsonl, .csv, .txt, .md, .pdf, .docx, .html, a chunk file, a folder, or - for stdin",
    )
    p.add_argument("more_files", metavar="FILE", nargs="*", help="more files or folders, read after the first")
    add_engine_options(p)
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "json"),
        default="text",
        help="text: the block; json: the whole result with its per-document trace",
    )
    p.add_argument(
        "--run",
        type=positive_int,
        default=None,
        metavar="N",
        help="FILE is a capture file (a component's capture_to=) or an OpenInference "
        "span export: build its run N (numbered as the lab lists them) with the "
        "run's own query and settings; options given here override them",
    )
    p.add_argument(
        "--out",
        "-o",
        default=None,
        metavar="FILE",
        help="write to FILE instead of stdout; a name ending in .html writes a self-contained HTML report "
        "(the block coloured by source, every document's fate and why, the settings and the query)",
    )
    add_input_options(p)
    add_orders_options(p)
    p.set_defaults(handler=cmd_build)
