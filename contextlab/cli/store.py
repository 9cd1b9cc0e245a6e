"""The command's store commands: ``index``, ``remove`` and ``search`` over a SQLite store."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import ContextLabError
from ..retrieval import SQLiteBackend
from ..safe_text import json_terminal_safe, terminal_safe
from ..validation import message_value
from .flags import note
from .inputs import add_input_options, label, read_documents, score, top_k

__all__ = ["add_index", "add_remove", "add_search"]


def origin(spec: str, db: str) -> str | None:
    """Return the identity of FILE ``spec`` in store ``db``: its path from the store's folder.

    Stdin (``-``) has none: what it brings is known by each document's source (or content),
    so a second batch read from stdin adds to the first instead of replacing it by position.
    """
    if spec == "-":
        return None
    return os.path.relpath(os.path.abspath(spec), os.path.dirname(os.path.abspath(db)))


def cmd_index(args: argparse.Namespace) -> int:
    # Every file is read (and checked) before the store changes.
    loaded = [(spec, read_documents(spec, args)) for spec in args.files]
    with SQLiteBackend(args.db, read_only=False) as store:
        for spec, documents in loaded:
            r = store.index(documents, origin=origin(spec, args.db))
            print(
                terminal_safe(
                    f"{label(spec)}: {r.added} added, {r.replaced} replaced, "
                    f"{r.unchanged} unchanged, {r.removed} removed"
                )
            )
        print(terminal_safe(f"{args.db} holds {len(store)} document(s)"))
    return 0


def add_index(sub: Any) -> None:
    p = sub.add_parser(
        "index",
        help="add files' documents to a SQLite full-text store",
        description="Add the documents of each FILE to the SQLite FTS5 store DB (created if "
        "missing). A document with a source (or an id) is known by it, whichever file "
        "it came from: indexing it again replaces it, never duplicates it. One without "
        "is known by its file and its position in it. Re-indexing a file replaces "
        "what was indexed from it before, and removes what it no longer holds. "
        "Documents from stdin (-) only add or replace: one without a source is known "
        "by its content. Prints what was added, replaced, unchanged and removed.",
        epilog="example: contextlab index kb.db docs.jsonl notes.md",
    )
    p.add_argument("db", metavar="DB", help="the store file")
    p.add_argument("files", metavar="FILE", nargs="+", help="documents to add, or - for stdin")
    add_input_options(p)
    p.set_defaults(handler=cmd_index)


def _require_store(db: str) -> None:
    """Raise unless ``db`` is an existing file: remove and search never create a store."""
    if not Path(db).is_file():
        raise ContextLabError(f"no store at {db!r}; create one with `contextlab index {db} FILE...`")


def cmd_remove(args: argparse.Namespace) -> int:
    _require_store(args.db)
    # A name is a file as it was indexed, or a document source as the store shows it.
    names = {name: [k for k in dict.fromkeys([origin(name, args.db), name]) if k] for name in args.sources}
    with SQLiteBackend(args.db, read_only=False) as store:
        counts = store.remove_sources([n for keys in names.values() for n in keys])
        left = len(store)
    missing = []
    for name, keys in names.items():
        removed = sum(counts.get(k, 0) for k in keys)
        if removed:
            print(terminal_safe(f"removed {removed} document(s) from {name}"))
        else:
            missing.append(name)
    print(terminal_safe(f"{args.db} holds {left} document(s)"))
    if missing:
        raise ContextLabError(
            f"nothing in {args.db} came from {', '.join(map(repr, missing))}; "
            "give a file as it was indexed, or a source `search` shows"
        )
    return 0


def add_remove(sub: Any) -> None:
    p = sub.add_parser(
        "remove",
        help="delete a file's documents from a store",
        description="Delete from DB every document indexed from each SOURCE file, or whose source is SOURCE.",
        epilog="example: contextlab remove kb.db old-notes.md",
    )
    p.add_argument("db", metavar="DB", help="a store made by `contextlab index`")
    p.add_argument("sources", metavar="SOURCE", nargs="+", help="a file as indexed, or a source")
    p.set_defaults(handler=cmd_remove)


def cmd_search(args: argparse.Namespace) -> int:
    _require_store(args.db)
    # Read-only: a search never creates or changes a file, and works on a read-only store.
    with SQLiteBackend(args.db, read_only=True) as store:
        outcome = store.search(args.query, top_k=args.top_k)
    if outcome.note:
        note(outcome.note)
    hits = [h for h in outcome.results if h.score >= args.min_score]
    if args.format == "json":
        payload = [
            {"rank": i, "id": h.id, "score": h.score, "source": h.source, "content": h.content, "metadata": h.metadata}
            for i, h in enumerate(hits, start=1)
        ]
        sys.stdout.write(json_terminal_safe(json.dumps(payload, indent=2, ensure_ascii=False, default=str)) + "\n")
        return 0
    if not hits:
        print(f"contextlab: no document matches {terminal_safe(message_value(args.query))}", file=sys.stderr)
        return 0
    for i, h in enumerate(hits, start=1):
        preview = " ".join(h.content.split())
        if len(preview) > 100:
            preview = preview[:99] + "…"
        # One line per result whatever the source and text hold: no forged rows, no escape codes.
        print(terminal_safe(f"{i:>3}  {h.score:.3f}  {h.source or '-'}  {preview}"))
    return 0


def add_search(sub: Any) -> None:
    p = sub.add_parser(
        "search",
        help="search a SQLite store (BM25, scores in [0, 1])",
        description="Print the documents of DB that best match QUERY, best first, with scores "
        "in [0, 1] (BM25's order; the score is the share of the highest BM25 the query could reach).",
        epilog="example: contextlab search kb.db 'refund policy' --top-k 3",
    )
    p.add_argument("db", metavar="DB", help="a store made by `contextlab index`")
    p.add_argument("query", metavar="QUERY", help="words to search for (no query syntax)")
    p.add_argument("--top-k", "-k", type=top_k, default=5, metavar="K", help="how many results (default 5)")
    p.add_argument(
        "--min-score",
        type=score,
        default=0.0,
        metavar="S",
        help="hide results scoring below S, a number from 0 to 1 (default 0)",
    )
    p.add_argument(
        "--format", "-f", choices=("text", "json"), default="text", help="text: one line per result; json: full results"
    )
    p.set_defaults(handler=cmd_search)
