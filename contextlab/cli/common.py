"""What every command shares: the one-line parser, the engine options, settings and scoring."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable
from typing import Any, NoReturn, get_type_hints

from ..errors import ContextLabError
from ..lab.config import LabConfig
from ..retrieval import fts_query, needs_scoring
from ..retrieval.scoring import score_unscored
from ..settings import (
    DEFAULT_DEDUP_THRESHOLD,
    DEFAULT_MAX_CONTEXT_TOKENS,
    DEFAULT_MIN_DOC_TOKENS,
    DEFAULT_PLACEMENT,
    DEFAULT_TOKENIZER,
    WHOLE_RANGES,
    EngineSettings,
    setting_range_text,
)
from ..stages.dedup import DEFAULT_MEASURE, MEASURES
from ..stages.format import DEFAULT_SCORE_LABEL
from ..stages.reorder import PLACEMENTS
from ..tokenizers import TOKENIZER_NAMES, check_tokenizer_name
from ..types import ContextResult, Document
from .flags import RUN_OPTIONS, SETTING_FLAGS, note
from .inputs import int_at_least, label, threshold

__all__ = ["OneLineParser", "add_engine_options", "engine_overrides", "config_of", "scored", "summary", "require"]

#: The settings that are switches (``--summarize-overflow`` / ``--no-summarize-overflow``), by their field's type.
_SWITCHES = frozenset(name for name, kind in get_type_hints(EngineSettings).items() if kind is bool)


def tokenizer_name(value: str) -> str:
    """Return ``value`` when it names a tokenizer or a known model (an argparse type)."""
    try:
        return check_tokenizer_name(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


#: What each setting's flag says in ``--help`` (the defaults are the library's).
_HELP: dict[str, str] = {
    "max_context_tokens": f"token budget of the block (default {DEFAULT_MAX_CONTEXT_TOKENS})",
    "dedup_threshold": f"near-duplicate similarity threshold, {setting_range_text('dedup_threshold')} "
    f"(default {DEFAULT_DEDUP_THRESHOLD})",
    "min_doc_tokens": f"drop documents shorter than N tokens (default {DEFAULT_MIN_DOC_TOKENS})",
    "placement": f"where documents go in the block (default {DEFAULT_PLACEMENT})",
    "summarize_overflow": "give documents that do not fit a one-sentence synopsis while budget remains",
    "seed_compatible": "reproduce seed 000 exactly: heuristic tokens, reorder before budget, headers not "
    "counted, shingle near-duplicates",
    "tokenizer": f"token counter: {', '.join(TOKENIZER_NAMES)} or a model name such as gpt-4o "
    f"(default {DEFAULT_TOKENIZER}; heuristic with --seed-compatible)",
    "budget_before_reorder": "pick documents by relevance until the budget is spent, then place them "
    "(default; --no-budget-before-reorder places first, as seed 000)",
    "budget_includes_headers": "count headers and separators toward the budget (default; "
    "--no-budget-includes-headers counts text only, as seed 000)",
    "dedup_measure": f"how near duplicates are measured (default {DEFAULT_MEASURE})",
    "score_label": f"the word before a score in a header (default {DEFAULT_SCORE_LABEL!r})",
}
#: The settings that take one of a few names.
_CHOICES: dict[str, tuple[str, ...]] = {
    "placement": PLACEMENTS,
    "dedup_measure": MEASURES,
}
#: The argument type of the settings that take a number, or a name checked as it is typed.
_TYPES: dict[str, Callable[[str], object]] = {
    "max_context_tokens": int_at_least(*WHOLE_RANGES["max_context_tokens"]),
    "min_doc_tokens": int_at_least(*WHOLE_RANGES["min_doc_tokens"]),
    "dedup_threshold": threshold,
    "tokenizer": tokenizer_name,
}

#: The placeholder each typed flag shows in ``--help``.
_METAVARS = {"dedup_threshold": "T", "tokenizer": "NAME"}


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (``--help`` has the rest)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def add_engine_options(p: argparse.ArgumentParser, *, ranges: dict[str, tuple[str, str]] | None = None) -> None:
    """Add the query and a flag per engine setting (``flags.SETTING_FLAGS``) to ``p``.

    The flags default to None, so a setting given on the command line is known as given even
    when its value equals the default (``--budget 2048``); the defaults themselves are the
    library's, filled in by ``LabConfig``. ``ranges`` maps a setting to the range spec its flag
    takes instead (``contextlab sweep``): ``(default, help)``.
    """
    p.add_argument(
        *RUN_OPTIONS["query"],
        default="",
        help="the user's question; documents without a score are scored against it (BM25)",
    )
    for name, spellings in SETTING_FLAGS.items():
        if ranges and name in ranges:
            default, text = ranges[name]
            p.add_argument(*spellings, dest=name, default=default, metavar="RANGE", help=text)
        elif name in _SWITCHES:
            p.add_argument(*spellings, dest=name, action=argparse.BooleanOptionalAction, default=None, help=_HELP[name])
        elif name in _CHOICES:
            p.add_argument(*spellings, dest=name, choices=_CHOICES[name], default=None, help=_HELP[name])
        else:
            p.add_argument(
                *spellings,
                dest=name,
                type=_TYPES.get(name, str),
                default=None,
                metavar=_METAVARS.get(name, "N" if name in _TYPES else "TEXT"),
                help=_HELP[name],
            )


def engine_overrides(args: argparse.Namespace) -> dict[str, object]:
    """Return the ``LabConfig`` values the command line gave explicitly (library names)."""
    return {name: getattr(args, name) for name in SETTING_FLAGS if getattr(args, name, None) is not None}


def config_of(args: argparse.Namespace, **changes: Any) -> LabConfig:
    """Return the ``LabConfig`` the engine options stand for: defaults, then what was given."""
    values: dict[str, object] = {"query": args.query}
    values.update(engine_overrides(args))
    values.update(changes)
    config: LabConfig = LabConfig.from_dict(values)
    return config


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
            f"{feature} needs the {module} package; install it with `pip install 'contextlab[{extra}]'`"
        )
