"""The lab's configuration: the engine's settings plus the query, as the lab shares them.

``LabConfig`` is ``contextlab.settings.EngineSettings`` (every engine setting, its library
name and default) with the query added. It round-trips through a dict (JSON export/import),
through URL query parameters (shareable links), and renders a Python snippet that rebuilds the
same result with the library. Exports and links use the library's names and no other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from ..build_cache import BuildCache
from ..errors import InvalidInputError
from ..manager import ContextManager
from ..settings import EXPORT_MARKER, WHOLE_RANGES, EngineSettings, setting_range_text
from ..stages.reorder import PositionCurve
from ..types import ContextResult, Document, PromptRequest
from ..validation import bool_text, boolean_word, message_value, parse_int, text

if TYPE_CHECKING:
    from ..runs.captures import CapturedRun

__all__ = ["LabConfig"]


@dataclass(frozen=True)
class LabConfig(EngineSettings):
    """Every parameter of one context build: the engine's settings and the query."""

    query: str = ""

    def validate(self) -> None:
        """Raise ``InvalidInputError`` naming the first field whose value cannot be used."""
        text("query", self.query)
        super().validate()

    @classmethod
    def from_settings(cls, settings: EngineSettings, *, query: str = "") -> LabConfig:
        """Return the lab's configuration of ``settings`` with ``query``."""
        return cls(query=query, **settings.engine_settings().to_dict())

    @classmethod
    def from_run(cls, run: CapturedRun) -> LabConfig:
        """Return a captured run's configuration: its recorded settings (or the defaults) and query."""
        return cls.from_settings(run.config(), query=run.query)

    # -- the engine -----------------------------------------------------------------
    def make_manager(self, *, position_curve: PositionCurve | None = None) -> ContextManager:
        """Return the ``ContextManager`` this configuration describes.

        Placement "curve" follows ``position_curve`` (a measured curve the caller loaded), by
        default the published one (``ContextManager.from_settings``).
        """
        return ContextManager.from_settings(self, position_curve=position_curve)

    def build(self, documents: list[Document], *, cache: BuildCache | None = None) -> ContextResult:
        """Return this configuration's build of ``documents`` (its query, at its budget)."""
        return self.make_manager().build(PromptRequest(query=self.query, documents=list(documents)), cache=cache)

    # -- JSON (``to_dict``, ``from_dict`` and ``from_json`` are EngineSettings') ----------
    def to_json(self) -> str:
        """Return the configuration as indented JSON text (the lab's export)."""
        return json.dumps({EXPORT_MARKER: 1, **self.to_dict()}, indent=2)

    # -- URL -----------------------------------------------------------------------
    def to_query_params(self) -> dict[str, str]:
        """Return the parameters that differ from the defaults, as URL query strings."""
        default = LabConfig()
        params: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(default, f.name):
                continue
            params[f.name] = bool_text(value)
        return params

    @classmethod
    def from_query_params(cls, params: Mapping[str, str | list[str]]) -> tuple[LabConfig, list[str]]:
        """Return the configuration in URL ``params`` and one warning per value ignored.

        A link must always open: a bad value falls back to its default and is reported.
        """
        values: dict[str, object] = {}
        warnings: list[str] = []
        known = {f.name: f for f in fields(cls)}
        last = {k: (v[-1] if v else "") if isinstance(v, list) else v for k, v in params.items()}
        for name, raw in last.items():
            if name not in known:
                continue
            default = known[name].default
            try:
                value = _parse_param(name, raw, default)
                cls.from_dict({name: value})  # validate this one field in isolation
            except InvalidInputError as exc:
                warnings.append(f"ignored URL parameter {name}={message_value(raw)}: {_link_reason(name, exc)}")
                continue
            values[name] = value
        return cls.from_dict(values), warnings

    # -- code ----------------------------------------------------------------------
    def code_snippet(self, documents_expr: str = 'load_file("documents.json")') -> str:
        """Return Python that rebuilds this result with the library."""
        kwargs = self.manager_kwargs()
        defaults = EngineSettings().to_dict()
        args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items() if defaults.get(k) != v)
        make = f"ContextManager.seed_compatible({args})" if self.seed_compatible else f"ContextManager({args})"
        return "\n".join(
            [
                "from contextlab import ContextManager, PromptRequest",
                "from contextlab.loaders import load_file",
                "",
                f"documents = {documents_expr}",
                f"manager = {make}",
                f"result = manager.build(PromptRequest(query={self.query!r}, documents=documents))",
                "print(result.context_block)",
            ]
        )


def _link_reason(name: str, error: InvalidInputError) -> str:
    """Return why a link's value of ``name`` was ignored, without quoting the value again."""
    if name in WHOLE_RANGES:
        return f"a whole number from {setting_range_text(name)}"
    if name == "dedup_threshold":
        return f"a number from {setting_range_text(name)}"
    _, listed, choices = str(error).partition("; choose one of: ")
    return f"choose one of: {choices}" if listed else str(error)


def _parse_param(name: str, raw: object, default: object) -> object:
    """Return a link's text ``raw`` as the kind of value ``default`` is; ``InvalidInputError`` if it is none."""
    value = str(raw).strip()
    if isinstance(default, bool):
        return boolean_word(name, value)
    if isinstance(default, int):
        return parse_int(value, field=name)
    if isinstance(default, float):
        number = _float_or_none(value)
        if number is None:
            raise InvalidInputError(f"{name} must be a number, got {message_value(value)}", field=name)
        return number
    return value


def _float_or_none(value: str) -> float | None:
    """Return the number ``value`` writes (a short one: float() of a huge text is slow), else None."""
    try:
        return float(value) if len(value) <= 40 else None
    except ValueError:
        return None
