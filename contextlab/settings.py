"""The engine's settings and their defaults, written once.

``EngineSettings`` holds every setting of one context build (the lab's ``LabConfig`` adds the
query). ``ContextManager``, ``PromptRequest``, ``LabConfig``, the CLI, evaluation grids, the
framework integrations and capture files all read their defaults and names from here.

One name per setting, the library's: ``max_context_tokens`` (the document budget),
``dedup_threshold``, ``min_doc_tokens``, ``placement``, ``summarize_overflow``,
``seed_compatible``, ``tokenizer``, ``budget_before_reorder``, ``budget_includes_headers``,
``dedup_measure``, ``score_label``, ``max_memory_messages``. Older names are
aliases (``ALIASES``): accepted with a ``DeprecationWarning`` in code, silently when read from
files and links written by earlier versions; new files are written with the library's names.

The older ``use_lost_in_middle`` switch follows one rule everywhere (``placement_for``).
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from types import MappingProxyType
from typing import Any, TypeVar

from .errors import InvalidInputError
from .stages.dedup.outcome import DEFAULT_MEASURE, MEASURES, SEED_MEASURE
from .stages.format import DEFAULT_SCORE_LABEL, score_label_text
from .stages.reorder import PLACEMENTS
from .tokenizers import TOKENIZER_NAMES
from .types import DEFAULT_MAX_CONTEXT_TOKENS
from .validation import fraction, one_of, whole_number

__all__ = [
    "ALIASES",
    "DEFAULT_CURVE_MODEL",
    "DEFAULT_DEDUP_THRESHOLD",
    "DEFAULT_MAX_CONTEXT_TOKENS",
    "DEFAULT_MAX_MEMORY_MESSAGES",
    "DEFAULT_MIN_DOC_TOKENS",
    "DEFAULT_PLACEMENT",
    "DEFAULT_TOKENIZER",
    "EXPORT_MARKER",
    "EngineSettings",
    "LEGACY_REORDER",
    "SEED_MODE",
    "SETTING_NAMES",
    "accepts_aliases",
    "canonical_names",
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
    {"tokenizer": "heuristic", "budget_before_reorder": False, "budget_includes_headers": False,
     "dedup_measure": SEED_MEASURE}
)
#: The older switch between lost-in-the-middle (True) and relevance order (False).
LEGACY_REORDER = "use_lost_in_middle"
#: Older names of settings, mapped to the library's name. Deprecated; they still load.
ALIASES: Mapping[str, str] = MappingProxyType({"budget": "max_context_tokens"})
#: The key that marks the lab's JSON export of a configuration (its version).
EXPORT_MARKER = "contextlab_config"

_BOOLEANS = ("summarize_overflow", "seed_compatible", "budget_before_reorder", "budget_includes_headers")
T = TypeVar("T")


def placement_for(placement: str | None = None, use_lost_in_middle: bool | None = None) -> str:
    """Return the placement that ``placement`` and the older ``use_lost_in_middle`` switch name.

    The one rule, wherever the switch is accepted: True means ``"lost_in_the_middle"``, False
    means ``"relevance"``; None (not given) leaves the choice to ``placement``. Given both, they
    must name the same placement, else ``InvalidInputError``.
    """
    if use_lost_in_middle is not None and not isinstance(use_lost_in_middle, bool):
        raise InvalidInputError(f"{LEGACY_REORDER} must be True or False, got {use_lost_in_middle!r}",
                                field=LEGACY_REORDER)
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


def canonical_names(values: Mapping[str, Any], *, where: str = "settings",
                    warn: bool = True) -> dict[str, Any]:
    """Return ``values`` with every alias renamed to the library's name and the legacy switch read.

    ``warn`` emits a ``DeprecationWarning`` per alias used (code); files and links written by
    earlier versions are read with ``warn=False``. An alias given beside its own name with a
    different value is an error, as is ``use_lost_in_middle`` contradicting ``placement``.
    """
    out = dict(values)
    for old, new in ALIASES.items():
        if old not in out:
            continue
        value = out.pop(old)
        if warn:
            warnings.warn(f"{where}: {old!r} is deprecated; use {new!r}", DeprecationWarning, stacklevel=3)
        if new in out and out[new] != value:
            raise InvalidInputError(f"{new} is given twice, also as its older name {old} ({where}); "
                                    f"give {new} alone", field=new)
        out[new] = value
    if LEGACY_REORDER in out:
        out["placement"] = placement_for(out.get("placement"), out.pop(LEGACY_REORDER))
    return out


def accepts_aliases(cls: type[T]) -> type[T]:
    """Return the dataclass ``cls`` with a constructor that also takes the older names (warning)."""
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs.keys() & (ALIASES.keys() | {LEGACY_REORDER}):
            kwargs = canonical_names(kwargs, where=cls.__name__)
        init(self, *args, **kwargs)

    cls.__init__ = __init__  # type: ignore[misc]
    return cls


@accepts_aliases
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
        whole_number("max_context_tokens", self.max_context_tokens, minimum=0)
        fraction("dedup_threshold", self.dedup_threshold)
        whole_number("min_doc_tokens", self.min_doc_tokens, minimum=0)
        one_of("placement", self.placement, PLACEMENTS)
        one_of("tokenizer", self.tokenizer, TOKENIZER_NAMES)
        one_of("dedup_measure", self.dedup_measure, MEASURES)
        score_label_text(self.score_label)
        whole_number("max_memory_messages", self.max_memory_messages, minimum=0)
        for name in _BOOLEANS:
            if not isinstance(getattr(self, name), bool):
                raise InvalidInputError(f"{name} must be true or false, got {getattr(self, name)!r}",
                                        field=name)

    @property
    def budget(self) -> int:
        """Deprecated name of ``max_context_tokens``."""
        warnings.warn("'budget' is deprecated; use 'max_context_tokens'", DeprecationWarning, stacklevel=2)
        return self.max_context_tokens

    @property
    def use_lost_in_middle(self) -> bool:
        """True when the placement is the lost-in-the-middle reorder (the older switch)."""
        return self.placement == "lost_in_the_middle"

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

    def with_changes(self, **changes: Any) -> Any:
        """Return a copy with ``changes`` applied (validated; older names accepted, warning)."""
        return replace(self, **canonical_names(changes, where=type(self).__name__)) if changes else self

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as plain data, in the library's names."""
        return asdict(self)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Return the names of this class's settings, in order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "configuration") -> Any:
        """Return the settings in ``data`` (older names accepted); an unknown field is a clear error."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"a {where} must be a JSON object, got {type(data).__name__}")
        data = canonical_names({k: v for k, v in data.items() if k != EXPORT_MARKER}, where=where,
                               warn=False)
        known = {f.name: f for f in fields(cls)}
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
    def from_json(cls, text: str | bytes) -> Any:
        """Return the settings in a JSON export (the lab's); bad JSON is a clear error."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"configuration file is not valid JSON: {exc}") from exc
        return cls.from_dict(data)


#: The settings' names, in order (what integrations accept as keywords, beside the aliases).
SETTING_NAMES: tuple[str, ...] = EngineSettings.field_names()
