"""Grids of engine settings: ``KEY=V1,V2`` specs, checked, expanded into configurations."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError
from ..manager import ContextManager
from ..settings import BLOCK_SETTINGS, EngineSettings
from ..validation import bool_text, boolean_word, message_value, parse_int

__all__ = ["GRID_KEYS", "Configuration", "grid_keys", "parse_grid", "expand_grid"]

#: The engine settings a grid may vary, in column order: every setting that shapes a block
#: (``settings.BLOCK_SETTINGS``). The command line spells its own keys and turns them into these.
GRID_KEYS: tuple[str, ...] = BLOCK_SETTINGS
# A grid this large is a typo (a range with a tiny step), not an evaluation plan.
_MAX_CONFIGS = 1000
_MAX_RANGE = 200


@dataclass(frozen=True)
class Configuration:
    """One cell of a grid: its label, the grid values that define it, and every setting."""

    label: str
    settings: Mapping[str, Any]
    config: EngineSettings
    #: What placement "curve" follows (a ``PositionCurve``; None: the published GPT-3.5-Turbo curve).
    position_curve: Any = None

    def make_manager(self) -> ContextManager:
        """Return the ``ContextManager`` this configuration describes (its curve for placement "curve")."""
        return ContextManager.from_settings(self.config, position_curve=self.position_curve)


def grid_keys() -> list[str]:
    """Return the grid keys (``GRID_KEYS``), in column order."""
    return list(GRID_KEYS)


def _default(key: str) -> Any:
    return EngineSettings.__dataclass_fields__[key].default


def _parse_value(key: str, raw: str) -> Any:
    default = _default(key)
    text = raw.strip()
    if isinstance(default, bool):
        return boolean_word(f"grid {key}", text)
    try:
        if isinstance(default, int):
            return parse_int(text, field=f"grid {key}")
        if isinstance(default, float):
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
            return value
    except ValueError:
        kind = "a whole number" if isinstance(default, int) else "a finite number"
        raise InvalidInputError(f"grid {key}: {message_value(raw)} is not {kind}") from None
    return text


def _expand_range(key: str, part: str) -> list[Any]:
    """Return the values of ``start:stop:step`` (stop included when the steps land on it)."""
    bits = part.split(":")
    if len(bits) != 3:
        raise InvalidInputError(f"grid {key}: {message_value(part)}; a range is start:stop:step")
    start, stop, step = (_parse_value(key, b) for b in bits)
    if isinstance(start, (bool, str)):
        raise InvalidInputError(f"grid {key}: ranges are for numbers; list the values: {key}=a,b")
    if step <= 0 or stop < start:
        raise InvalidInputError(f"grid {key}: {message_value(part)} needs step > 0 and stop >= start")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > _MAX_RANGE:
        raise InvalidInputError(
            f"grid {key}: {message_value(part)} has {count} values (over {_MAX_RANGE}); use a larger step"
        )
    return [type(start)(round(start + i * step, 10)) for i in range(count)]


def parse_grid(specs: Sequence[str] | Mapping[str, Sequence[Any]] | None) -> dict[str, list[Any]]:
    """Return ``{key: [values]}`` for ``KEY=V1,V2`` specs (or a mapping), every value checked.

    Numbers may also be ranges ``start:stop:step``. An unknown key is one line that lists the
    valid keys; a bad value names the key and the value.
    """
    valid = grid_keys()
    if specs is None:
        return {}
    items: list[tuple[str, list[Any]]] = []
    if isinstance(specs, Mapping):
        items = [(str(k), list(v) if isinstance(v, (list, tuple)) else [v]) for k, v in specs.items()]
    else:
        for spec in specs:
            key, sep, rest = str(spec).partition("=")
            key = key.strip()
            if not sep or not key:
                raise InvalidInputError(f"grid {message_value(spec)}: write KEY=V1,V2 (keys: {', '.join(valid)})")
            items.append((key, [p for p in rest.split(",") if p.strip()]))
    grid: dict[str, list[Any]] = {}
    for key, raw_values in items:
        if key not in valid:
            raise InvalidInputError(f"unknown grid key {message_value(key)}; valid keys: {', '.join(valid)}")
        if key in grid:
            raise InvalidInputError(
                f"grid key {message_value(key)} is given twice; list all its values once: {key}=a,b"
            )
        if not raw_values:
            raise InvalidInputError(f"grid {key}: no values; write {key}=V1,V2")
        values: list[Any] = []
        for raw in raw_values:
            if isinstance(raw, str) and ":" in raw and not isinstance(_default(key), str):
                values.extend(_expand_range(key, raw))
            else:
                values.append(_parse_value(key, raw) if isinstance(raw, str) else raw)
        for value in values:
            EngineSettings(**{key: value})  # the one place every setting is checked
        grid[key] = list(dict.fromkeys(values))
    return grid


def _label(settings: Mapping[str, Any]) -> str:
    if not settings:
        return "default"
    return " ".join(f"{k}={bool_text(v)}" for k, v in settings.items())


def expand_grid(grid: Mapping[str, Sequence[Any]], base: EngineSettings | None = None) -> list[Configuration]:
    """Return every configuration of ``grid`` (its cartesian product over ``base``), in order.

    ``base`` is ``EngineSettings`` (or a ``LabConfig``); the grid's keys are library names.
    """
    base = base or EngineSettings()
    keys = [k for k in grid_keys() if k in grid]
    total = math.prod(len(grid[k]) for k in keys) if keys else 1
    if total > _MAX_CONFIGS:
        raise InvalidInputError(f"the grid has {total:,} configurations (over {_MAX_CONFIGS:,}); use fewer values")
    configs = []
    for combo in itertools.product(*(grid[k] for k in keys)):
        settings = dict(zip(keys, combo, strict=False))
        configs.append(Configuration(_label(settings), settings, base.with_changes(**settings)))
    return configs
