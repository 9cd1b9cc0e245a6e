"""What every command shares: the one-line parser, the engine options, settings and scoring."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from ..errors import ContextLabError
from ..lab.config import PLACEMENTS, LabConfig
from ..retrieval import fts_query, needs_scoring
from ..retrieval.scoring import score_unscored
from ..settings import (DEFAULT_DEDUP_THRESHOLD, DEFAULT_MAX_CONTEXT_TOKENS, DEFAULT_MIN_DOC_TOKENS,
                        DEFAULT_PLACEMENT)
from ..tokenizers import TOKENIZER_NAMES
from ..types import ContextResult, Document
from .flags import note
from .inputs import label, threshold, token_count

__all__ = ["OneLineParser", "add_engine_options", "add_budget_options", "engine_overrides",
           "config_of", "scored", "summary", "require"]

#: The engine options. They default to None, so an option given on the command line is known as
#: given even when its value equals the default (``--budget 2048``); the defaults themselves are
#: the library's (``contextlab.settings``), filled in by ``LabConfig``.
_ENGINE_OPTIONS: tuple[str, ...] = ("min_tokens", "placement", "no_reorder", "summarize", "seed_compatible",
                                    "tokenizer", "budget", "threshold")


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (``--help`` has the rest)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """Add the engine's options (query, tokenizer, filtering, placement, summaries) to ``p``."""
    p.add_argument("--query", "-q", default="",
                   help="the user's question; documents without a score are scored against it (BM25)")
    p.add_argument("--tokenizer", choices=TOKENIZER_NAMES, default=None,
                   help="token counter (default cl100k_base; heuristic with --seed-compatible)")
    p.add_argument("--seed-compatible", action="store_true", default=None,
                   help="reproduce seed 000 exactly: heuristic tokens, reorder before budget, "
                        "headers not counted")
    p.add_argument("--min-tokens", type=token_count, default=None, metavar="N",
                   help=f"drop documents shorter than N tokens (default {DEFAULT_MIN_DOC_TOKENS})")
    p.add_argument("--placement", choices=PLACEMENTS, default=None,
                   help=f"where documents go in the block (default {DEFAULT_PLACEMENT})")
    p.add_argument("--no-reorder", action="store_true", default=None,
                   help="keep relevance order (the same as --placement relevance)")
    p.add_argument("--summarize", action="store_true", default=None,
                   help="give documents that do not fit a one-sentence synopsis while budget remains")


def add_budget_options(p: argparse.ArgumentParser) -> None:
    """Add ``--budget`` and ``--threshold`` (single values) to ``p``."""
    p.add_argument("--budget", "-b", type=token_count, default=None, metavar="N",
                   help=f"token budget of the block (default {DEFAULT_MAX_CONTEXT_TOKENS})")
    p.add_argument("--threshold", "-t", type=threshold, default=None, metavar="T",
                   help=f"near-duplicate similarity threshold in (0, 1] (default {DEFAULT_DEDUP_THRESHOLD})")


def engine_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Return the ``LabConfig`` values the command line gave explicitly (library names)."""
    given = {name: getattr(args, name) for name in _ENGINE_OPTIONS
             if getattr(args, name, None) is not None}
    values: dict[str, Any] = {}
    if given.get("no_reorder"):
        values["placement"] = "relevance"
    elif "placement" in given:
        values["placement"] = given["placement"]
    for flag, field in (("min_tokens", "min_doc_tokens"), ("summarize", "summarize_overflow"),
                        ("seed_compatible", "seed_compatible"), ("tokenizer", "tokenizer"),
                        ("budget", "max_context_tokens"), ("threshold", "dedup_threshold")):
        if flag in given and (flag not in ("summarize", "seed_compatible") or given[flag]):
            values[field] = given[flag]
    return values


def config_of(args: argparse.Namespace, **changes: Any) -> LabConfig:
    """Return the ``LabConfig`` the engine options stand for: defaults, then what was given."""
    values: dict[str, Any] = {"query": args.query}
    values.update(engine_overrides(args))
    values.update(changes)
    return LabConfig.from_dict(values)


def scored(documents: list[Document], args: argparse.Namespace) -> list[Document]:
    """Return the documents with a BM25 score for each one without; say once what was scored."""
    if needs_scoring(documents) and not fts_query(args.query)[1]:
        raise ContextLabError(
            f"{label(args.file)} has documents without a score; pass --query to score them "
            "against (BM25), or give each document a score field"
        )
    outcome = score_unscored(documents, args.query)
    if outcome.note:
        note(outcome.note)
    return outcome.documents


def summary(result: ContextResult) -> str:
    """Return the one-line account of a build printed on a terminal."""
    counts = result.fate_counts()
    return (
        f"contextlab: {len(result.included_docs)} of {len(result.trace)} documents in the block, "
        f"{result.tokens_used} of {result.tokens_budget} tokens ({result.utilization_pct}%), "
        f"{result.duplicates_removed} duplicate(s) removed, {counts.get('truncated', 0)} truncated"
    )


def require(module: str, feature: str, extra: str = "lab") -> None:
    """Raise ``ContextLabError`` naming the extra to install when ``module`` is missing."""
    if importlib.util.find_spec(module) is None:
        raise ContextLabError(
            f"{feature} needs the {module} package; install it with "
            f"`pip install 'contextlab[{extra}]'`"
        )


def printed(text: str) -> None:
    """Print ``text`` on stdout (one place, so every command prints the same way)."""
    sys.stdout.write(text + "\n")
