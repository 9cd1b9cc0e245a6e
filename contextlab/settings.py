"""The engine's settings and their defaults, written once.

``EngineSettings`` holds every setting of one context build (the lab's ``LabConfig`` adds the
query). ``ContextManager``, ``PromptRequest``, ``LabConfig``, the CLI, evaluation grids, the
framework integrations and capture files all read their defaults and names from here.

One name per setting, the library's: ``max_context_tokens`` (the document budget),
``dedup_threshold``, ``min_doc_tokens``, ``placement``, ``summarize_overflow``,
``seed_compatible``, ``tokenizer``, ``budget_before_reorder``, ``budget_includes_headers``,
``dedup_measure``, ``score_label``, ``max_memory_messages``. Files, links and captures
use these names and no other (the package is 0.x: no aliases for names it used before).

Seed 000's ``use_lost_in_middle`` switch is a keyword of ``ContextManager`` (and of the
framework components, which take the manager's keywords); it follows one rule (``placement_for``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from types import MappingProxyType
from typing import Any, TypeVar

from .errors import InvalidInputError
from .stages.dedup.edit_measure import DEFAULT_MEASURE, MEASURES, SEED_MEASURE
from .stages.format import DEFAULT_SCORE_LABEL, score_label_text
from .stages.reorder import PLACEMENTS
from .tokenizers import check_tokenizer_name
from .types import DEFAULT_MAX_CONTEXT_TOKENS
from .validation import is_finite_number, message_value, one_of, whole_number

__all__ = [
    "DEFAULT_CURVE_MODEL",
    "DEFAULT_DEDUP_THRESHOLD",
    "DEFAULT_MAX_CONTEXT_TOKENS",
    "DEFAULT_MAX_MEMORY_MESSAGES",
    "DEFAULT_MIN_DOC_TOKENS",
    "DEFAULT_PLACEMENT",
    "DEFAULT_TOKENIZER",
    "DEDUP_THRESHOLD_RANGE",
    "WHOLE_RANGES",
    "setting_range_text",
    "EXPORT_EXTRAS",
    "EXPORT_MARKER",
    "EngineSettings",
    "LEGACY_REORDER",
    "SEED_MODE",
    "BLOCK_SETTINGS",
    "SETTING_NAMES",
    "placement_for",
]

# DEFAULT_MAX_CONTEXT_TOKENS (2048), the document budget every front end opens on (a sample set
# may state its own), is written in types.py, below this module, for PromptRequest.
DEFAULT_DEDUP_THRESHOLD = 0.85
DEFAULT_MIN_DOC_TOKENS = 5
DEFAULT_PLACEMENT = "lost_in_the_middle"
DEFAULT_TOKENIZER = "cl100k_base"
#: How many turns ``ContextManager.format_memory`` keeps when not told (seed 000's default).
DEFAULT_MAX_MEMORY_MESSAGES = 10
#: Whose published position curve placement "curve" follows when no measured curve is given.
DEFAULT_CURVE_MODEL = "GPT-3.5-Turbo"
#: What seed-compatible mode fixes (``ContextManager.seed_compatible``): seed 000's budget rules
#: and its near-duplicate measure (shingle Jaccard).
SEED_MODE: Mapping[str, Any] = MappingProxyType(
    {
        "tokenizer": "heuristic",
        "budget_before_reorder": False,
        "budget_includes_headers": False,
        "dedup_measure": SEED_MEASURE,
    }
)
#: Seed 000's switch between lost-in-the-middle (True) and relevance order (False).
LEGACY_REORDER = "use_lost_in_middle"
#: The key that marks the lab's JSON export of a configuration (its version).
EXPORT_MARKER = "contextlab_config"
#: What the lab's export holds beside the settings: its query. Settings read from an export
#: leave it out; the lab's ``LabConfig``, which has a query, keeps it.
EXPORT_EXTRAS: tuple[str, ...] = ("query",)

_Settings = TypeVar("_Settings", bound="EngineSettings")

#: The whole numbers each count setting takes, written once: the settings, a share link, the
#: command's flags and the lab's widgets accept exactly these.
WHOLE_RANGES: Mapping[str, tuple[int, int]] = MappingProxyType(
    {
        "max_context_tokens": (0, 10_000_000),
        "min_doc_tokens": (0, 100_000),
        "max_memory_messages": (0, 100_000),
    }
)
#: The dedup thresholds the settings take (the lab's slider runs over the same range, in steps of
#: 0.01): 1.0 removes only texts equal once normalised.
DEDUP_THRESHOLD_RANGE: tuple[float, float] = (0.01, 1.0)

_BOOLEANS = ("summarize_overflow", "seed_compatible", "budget_before_reorder", "budget_includes_headers")


def setting_range_text(name: str) -> str:
    """Return the range a numeric setting takes, as messages write it: ``0.01 to 1``, ``0 to 10,000,000``."""
    if name == "dedup_threshold":
        return f"{DEDUP_THRESHOLD_RANGE[0]:g} to {DEDUP_THRESHOLD_RANGE[1]:g}"
    low, high = WHOLE_RANGES[name]
    return f"{low:,} to {high:,}"


def placement_for(placement: str | None = None, use_lost_in_middle: bool | None = None) -> str:
    """Return the placement that ``placement`` and the older ``use_lost_in_middle`` switch name.

    The one rule, wherever the switch is accepted: True means ``"lost_in_the_middle"``, False
    means ``"relevance"``; None (not given) leaves the choice to ``placement``. Given both, they
    must name the same placement, else ``InvalidInputError``.
    """
    if use_lost_in_middle is not None and not isinstance(use_lost_in_middle, bool):
        raise InvalidInputError(
            f"{LEGACY_REORDER} must be True or False, got {use_lost_in_middle!r}", field=LEGACY_REORDER
        )
    if use_lost_in_middle is None:
        return DEFAULT_PLACEMENT if placement is None else one_of("placement", placement, PLACEMENTS)
    implied = "lost_in_the_middle" if use_lost_in_middle else "relevance"
    if placement is not None and placement != implied:
        raise InvalidInputError(
            f"placement={placement!r} contradicts {LEGACY_REORDER}={use_lost_in_middle} (which means "
            f"placement={implied!r}); give placement alone ({LEGACY_REORDER} is the older switch)",
            field="placement",
        )
    return implied


@dataclass(frozen=True)
class EngineSettings:
    """Every engine setting of one context build, with the library's defaults."""

    max_context_tokens: int = DEFAULT_MAX_CONTEXT_TOKENS
    dedup_threshold: float = DEFAULT_DEDUP_THRESHOLD
    min_doc_tokens: int = DEFAULT_MIN_DOC_TOKENS
    placement: str = DEFAULT_PLACEMENT
    summarize_overflow: bool = False
    seed_compatible: bool = False
    tokenizer: str = DEFAULT_TOKENIZER
    budget_before_reorder: bool = True
    budget_includes_headers: bool = True
    #: How near duplicates are measured (``stages.dedup.MEASURES``); seed-compatible mode uses
    #: seed 000's shingle Jaccard whatever this says.
    dedup_measure: str = DEFAULT_MEASURE
    #: The word before a score in a header: ``(relevance: 0.87)``.
    score_label: str = DEFAULT_SCORE_LABEL
    #: How many turns ``format_memory`` keeps when not told.
    max_memory_messages: int = DEFAULT_MAX_MEMORY_MESSAGES

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ``InvalidInputError`` naming the first field whose value cannot be used."""
        for name, (low, high) in WHOLE_RANGES.items():
            whole_number(name, getattr(self, name), minimum=low, maximum=high)
        least, most = DEDUP_THRESHOLD_RANGE
        threshold = self.dedup_threshold
        if not (is_finite_number(threshold) and least <= threshold <= most):
            raise InvalidInputError(
                f"dedup_threshold must be a number from {setting_range_text('dedup_threshold')} (1 removes only "
                f"copies), got {message_value(threshold)}",
                field="dedup_threshold",
            )
        one_of("placement", self.placement, PLACEMENTS)
        check_tokenizer_name(self.tokenizer)
        one_of("dedup_measure", self.dedup_measure, MEASURES)
        score_label_text(self.score_label)
        for name in _BOOLEANS:
            if not isinstance(getattr(self, name), bool):
                raise InvalidInputError(f"{name} must be true or false, got {getattr(self, name)!r}", field=name)

    @property
    def effective_tokenizer(self) -> str:
        """Return the tokenizer the build really uses (seed-compatible mode forces the heuristic)."""
        return SEED_MODE["tokenizer"] if self.seed_compatible else self.tokenizer

    def manager_kwargs(self) -> dict[str, Any]:
        """Return the ``ContextManager`` keyword arguments these settings stand for.

        In seed-compatible mode the settings ``SEED_MODE`` fixes are left out: the manager's
        ``seed_compatible()`` sets them.
        """
        kwargs: dict[str, Any] = {
            "max_context_tokens": self.max_context_tokens,
            "dedup_threshold": float(self.dedup_threshold),
            "min_doc_tokens": self.min_doc_tokens,
            "placement": self.placement,
            "summarize_overflow": self.summarize_overflow,
            "score_label": self.score_label,
            "max_memory_messages": self.max_memory_messages,
        }
        if not self.seed_compatible:
            kwargs.update((name, getattr(self, name)) for name in SEED_MODE)
        return kwargs

    def engine_settings(self) -> EngineSettings:
        """Return just the engine's settings (a ``LabConfig`` drops its query)."""
        values = {f.name: getattr(self, f.name) for f in fields(EngineSettings)}
        return EngineSettings(**values)

    def with_changes(self: _Settings, **changes: Any) -> _Settings:
        """Return a copy with ``changes`` applied (validated)."""
        return replace(self, **changes) if changes else self

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as plain data, in the library's names."""
        return asdict(self)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Return the names of this class's settings, in order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls: type[_Settings], data: object, *, where: str = "configuration") -> _Settings:
        """Return the settings in ``data``; an unknown field is a clear error that lists the known ones.

        A lab export (``EXPORT_MARKER`` in ``data``) may hold its query too: settings without a
        query field leave it out.
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"a {where} must be a JSON object, got {type(data).__name__}")
        known = {f.name: f for f in fields(cls)}
        extras = EXPORT_EXTRAS if EXPORT_MARKER in data else ()
        data = {k: v for k, v in data.items() if k != EXPORT_MARKER and (k in known or k not in extras)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise InvalidInputError(
                f"unknown {where} field(s): {', '.join(unknown)}; known fields are: {', '.join(known)}"
            )
        values: dict[str, Any] = {}
        for name, value in data.items():
            default = known[name].default
            if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            values[name] = value
        return cls(**values)

    @classmethod
    def from_json(cls: type[_Settings], text: str | bytes) -> _Settings:
        """Return the settings in a JSON export (the lab's "Download configuration"); bad JSON is a clear error."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"configuration file is not valid JSON: {exc}") from exc
        return cls.from_dict(data)


#: The settings' names, in order (what integrations accept as keywords).
SETTING_NAMES: tuple[str, ...] = EngineSettings.field_names()
#: The settings that shape a context block, in order: every one but ``max_memory_messages``
#: (only ``format_memory`` reads it). What a grid can vary and the command line's flags set.
BLOCK_SETTINGS: tuple[str, ...] = tuple(n for n in SETTING_NAMES if n != "max_memory_messages")
