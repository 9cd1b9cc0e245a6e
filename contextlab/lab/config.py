"""One value holding every engine parameter: what the lab's widgets, its URL and the CLI share.

``LabConfig`` round-trips through a dict (JSON export/import), through URL query parameters
(shareable links), and renders a Python snippet that rebuilds the same result with the library.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..errors import InvalidInputError
from ..stages.reorder import PLACEMENTS
from ..tokenizers import TOKENIZER_NAMES
from ..types import ContextResult, Document, PromptRequest
from ..validation import fraction, one_of, text, whole_number

__all__ = ["LabConfig", "PLACEMENTS"]

_BOOL_TRUE = {"1", "true", "yes", "on"}
_BOOL_FALSE = {"0", "false", "no", "off"}
# Older exports and links carry this switch instead of ``placement``.
_LEGACY_REORDER = "use_lost_in_middle"


@dataclass(frozen=True)
class LabConfig:
    """Every parameter of one context build, with the defaults the lab opens on."""

    query: str = ""
    budget: int = 1024
    dedup_threshold: float = 0.85
    min_doc_tokens: int = 5
    placement: str = "lost_in_the_middle"
    summarize_overflow: bool = False
    tokenizer: str = "cl100k_base"
    seed_compatible: bool = False
    budget_before_reorder: bool = True
    budget_includes_headers: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ``InvalidInputError`` naming the first field whose value cannot be used."""
        text("query", self.query)
        whole_number("budget", self.budget, minimum=0)
        fraction("dedup_threshold", self.dedup_threshold)
        whole_number("min_doc_tokens", self.min_doc_tokens, minimum=0)
        one_of("placement", self.placement, PLACEMENTS)
        one_of("tokenizer", self.tokenizer, TOKENIZER_NAMES)
        for name in ("summarize_overflow", "seed_compatible",
                     "budget_before_reorder", "budget_includes_headers"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInputError(f"{name} must be true or false, got {getattr(self, name)!r}")

    @property
    def use_lost_in_middle(self) -> bool:
        """True when the placement is the lost-in-the-middle reorder (the older switch)."""
        return self.placement == "lost_in_the_middle"

    # -- the engine -----------------------------------------------------------------
    def manager_kwargs(self) -> dict[str, Any]:
        """Return the ``ContextManager`` keyword arguments this configuration stands for."""
        kwargs: dict[str, Any] = {
            "dedup_threshold": float(self.dedup_threshold),
            "min_doc_tokens": self.min_doc_tokens,
            "placement": self.placement,
            "summarize_overflow": self.summarize_overflow,
        }
        if not self.seed_compatible:
            kwargs.update(
                tokenizer=self.tokenizer,
                budget_before_reorder=self.budget_before_reorder,
                budget_includes_headers=self.budget_includes_headers,
            )
        return kwargs

    def make_manager(self):
        """Return the ``ContextManager`` this configuration describes."""
        from ..manager import ContextManager

        if self.seed_compatible:
            return ContextManager.seed_compatible(**self.manager_kwargs())
        return ContextManager(**self.manager_kwargs())

    def build(self, documents: list[Document], *, cache: Any = None) -> ContextResult:
        """Return this configuration's build of ``documents`` (its query and budget)."""
        request = PromptRequest(query=self.query, documents=list(documents),
                                max_context_tokens=self.budget)
        return self.make_manager().build(request, cache=cache)

    @property
    def effective_tokenizer(self) -> str:
        """The tokenizer the build really uses (seed-compatible mode forces the heuristic)."""
        return "heuristic" if self.seed_compatible else self.tokenizer

    def with_changes(self, **changes: Any) -> LabConfig:
        """Return a copy with ``changes`` applied (validated)."""
        return replace(self, **changes)

    # -- JSON ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return the configuration as plain data (the JSON export)."""
        return asdict(self)

    def to_json(self) -> str:
        """Return the configuration as indented JSON text."""
        return json.dumps({"contextlab_config": 1, **self.to_dict()}, indent=2)

    @classmethod
    def from_dict(cls, data: Any) -> LabConfig:
        """Return the configuration in ``data``; unknown or mistyped fields are a clear error."""
        if not isinstance(data, dict):
            raise InvalidInputError(
                f"a configuration must be a JSON object, got {type(data).__name__}"
            )
        data = _legacy_placement({k: v for k, v in data.items() if k != "contextlab_config"})
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise InvalidInputError(
                f"unknown configuration field(s): {', '.join(unknown)}; "
                f"known fields are: {', '.join(known)}"
            )
        values: dict[str, Any] = {}
        for name, value in data.items():
            default = getattr(cls, name)
            if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            values[name] = value
        return cls(**values)

    @classmethod
    def from_json(cls, text: str | bytes) -> LabConfig:
        """Return the configuration in a JSON export; bad JSON is a clear error."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"configuration file is not valid JSON: {exc}") from exc
        return cls.from_dict(data)

    # -- URL -----------------------------------------------------------------------
    def to_query_params(self) -> dict[str, str]:
        """Return the parameters that differ from the defaults, as URL query strings."""
        default = LabConfig()
        params: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(default, f.name):
                continue
            params[f.name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return params

    @classmethod
    def from_query_params(cls, params: dict[str, Any]) -> tuple[LabConfig, list[str]]:
        """Return the configuration in URL ``params`` and one warning per value ignored.

        A link must always open: a bad value falls back to its default and is reported.
        """
        values: dict[str, Any] = {}
        warnings: list[str] = []
        known = {f.name: f for f in fields(cls)}
        params = dict(params)
        if _LEGACY_REORDER in params:
            raw = params.pop(_LEGACY_REORDER)
            try:
                flag = _parse_param(raw[-1] if isinstance(raw, list) and raw else raw, True)
                params.setdefault("placement", "lost_in_the_middle" if flag else "relevance")
            except ValueError as exc:
                warnings.append(f"ignored URL parameter {_LEGACY_REORDER}={raw!r}: {exc}")
        for name, raw in params.items():
            if name not in known:
                continue
            if isinstance(raw, list):
                raw = raw[-1] if raw else ""
            default = getattr(cls, name)
            try:
                value = _parse_param(raw, default)
                cls(**{name: value})  # validate this one field in isolation
            except (InvalidInputError, ValueError) as exc:
                warnings.append(f"ignored URL parameter {name}={raw!r}: {exc}")
                continue
            values[name] = value
        return cls(**values), warnings

    # -- code ----------------------------------------------------------------------
    def code_snippet(self, documents_expr: str = 'load_file("documents.json")') -> str:
        """Return Python that rebuilds this result with the library."""
        kwargs = self.manager_kwargs()
        defaults = {"dedup_threshold": 0.85, "min_doc_tokens": 5, "placement": "lost_in_the_middle",
                    "summarize_overflow": False, "tokenizer": "cl100k_base",
                    "budget_before_reorder": True, "budget_includes_headers": True}
        args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items() if defaults.get(k) != v)
        make = f"ContextManager.seed_compatible({args})" if self.seed_compatible else f"ContextManager({args})"
        return "\n".join([
            "from contextlab import ContextManager, PromptRequest",
            "from contextlab.loaders import load_file",
            "",
            f"documents = {documents_expr}",
            f"manager = {make}",
            f"result = manager.build(PromptRequest(query={self.query!r}, documents=documents,",
            f"                                     max_context_tokens={self.budget}))",
            "print(result.context_block)",
        ])


def _legacy_placement(data: dict[str, Any]) -> dict[str, Any]:
    """Return ``data`` with an older export's ``use_lost_in_middle`` read as a placement."""
    if _LEGACY_REORDER not in data:
        return data
    data = dict(data)
    flag = data.pop(_LEGACY_REORDER)
    if not isinstance(flag, bool):
        raise InvalidInputError(f"{_LEGACY_REORDER} must be true or false, got {flag!r}")
    data.setdefault("placement", "lost_in_the_middle" if flag else "relevance")
    return data


def _parse_param(raw: Any, default: Any) -> Any:
    text = str(raw).strip()
    if isinstance(default, bool):
        low = text.lower()
        if low in _BOOL_TRUE:
            return True
        if low in _BOOL_FALSE:
            return False
        raise ValueError("expected true or false")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text
