"""``contextlab chunk``: cut files into token-bounded chunks and write them as JSON Lines."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..atomic import check_target, write_text
from ..errors import InvalidInputError
from ..loaders import read_chunks
from ..loaders.chunking import MIN_CHUNK_SIZE, check_chunking
from ..tokenizers import TOKENIZER_NAMES
from .flags import error_line, note
from .inputs import int_at_least, non_negative_int

__all__ = ["add_chunk"]

#: The chunk size when none is given: a common retriever's passage length.
DEFAULT_SIZE = 512


def cmd_chunk(args: argparse.Namespace) -> int:
    if args.out is not None:
        check_target(args.out, "--out")
    try:
        check_chunking(args.size, args.size // 8 if args.overlap is None else args.overlap)
    except InvalidInputError as exc:  # the library names its fields; this command's flags are --size, --overlap
        error_line(
            str(exc).replace("chunk_overlap", "--overlap").replace("chunk_size", "--size"), prog="contextlab chunk"
        )
        return 2
    chunks = read_chunks(
        args.files,
        size=args.size,
        overlap=args.overlap,
        tokenizer=args.tokenizer,
        max_bytes=args.max_bytes,
        max_documents=args.max_documents,
    )
    lines = []
    for chunk in chunks:
        row: dict[str, object] = {
            "text": chunk.text,
            "source": chunk.source,
            "start": chunk.start,
            "end": chunk.end,
            "tokens": chunk.tokens,
        }
        if chunk.page is not None:
            row["page"] = chunk.page
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
    if args.out is None:
        sys.stdout.write("".join(lines))
    else:
        write_text(args.out, "".join(lines))
        note(f"{len(chunks):,} chunks from {len({c.source for c in chunks}):,} source(s) written to {args.out}")
    return 0


def add_chunk(sub: Any) -> None:
    from ..loaders import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS

    p = sub.add_parser(
        "chunk",
        help="cut files into chunks of at most N tokens, written as JSON Lines",
        description="Cut files (PDF, DOCX, HTML, text, Markdown, JSON, JSON Lines, CSV; folders too) into "
        "chunks of at most --size tokens, at paragraph, sentence and word ends. One JSON line per chunk: "
        "text, source, start, end (character offsets in the source's text), tokens, and page where known.",
        epilog="example: contextlab chunk report.pdf notes/ --size 256 --overlap 32 --out chunks.jsonl",
    )
    p.add_argument("files", metavar="FILE", nargs="+", help="files or folders to cut")
    p.add_argument(
        "--size",
        type=int_at_least(MIN_CHUNK_SIZE, 10**9),
        default=DEFAULT_SIZE,
        metavar="N",
        help=f"the most tokens a chunk may have (default {DEFAULT_SIZE})",
    )
    p.add_argument(
        "--overlap",
        type=non_negative_int,
        default=None,
        metavar="M",
        help="tokens consecutive chunks share, less than half of --size (default: an eighth of --size)",
    )
    p.add_argument(
        "--tokenizer", choices=TOKENIZER_NAMES, default="cl100k_base", help="whose tokens (default cl100k_base)"
    )
    p.add_argument("--out", "-o", default=None, metavar="JSONL", help="write the chunks here instead of stdout")
    p.add_argument(
        "--max-bytes",
        type=int_at_least(1),
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"refuse files larger than N bytes (default {DEFAULT_MAX_BYTES:,})",
    )
    p.add_argument(
        "--max-documents",
        type=int_at_least(1),
        default=DEFAULT_MAX_DOCUMENTS,
        metavar="N",
        help=f"refuse more than N chunks (default {DEFAULT_MAX_DOCUMENTS:,})",
    )
    p.set_defaults(handler=cmd_chunk)
