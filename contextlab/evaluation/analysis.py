"""Reading a run: the Pareto front, a two-setting table, gold zones per setting, disagreements.

Pure functions over ``EvalResult.rows`` / ``summaries()`` so the lab's charts and tests share them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError
from ..validation import bool_text, message_value
from .metrics import SUMMARY_METRICS, gold_zone
from .rows import EvalRow, RowValue

if TYPE_CHECKING:
    from .grid import Configuration

__all__ = [
    "ZONES",
    "settings_without_effect",
    "pareto_front",
    "setting_table",
    "gold_zone_shares",
    "Disagreement",
    "disagreements",
    "find_configuration",
    "sort_by_difference",
]

#: Where a gold document can be, in the order the lab draws them.
ZONES: tuple[str, ...] = ("first", "middle", "last", "not in block")


def settings_without_effect(
    settings: Mapping[str, Mapping[str, Any]], values: Mapping[str, Any], grid_keys: Sequence[str]
) -> list[str]:
    """Return the grid keys that changed nothing: every question's value is the same under each of their values.

    ``settings`` maps a configuration's label to its grid values, ``values`` to its per-question
    values (the same question order for all; NaN where undefined, equal to NaN). A key changed
    nothing when every two configurations that differ only in it have identical values, and at
    least two do.
    """
    import numpy as np

    quiet = []
    for key in grid_keys:
        groups: dict[tuple[Any, ...], list[str]] = {}
        for label, chosen in settings.items():
            groups.setdefault(tuple(chosen[k] for k in grid_keys if k != key), []).append(label)
        compared = [g for g in groups.values() if len(g) > 1]
        if compared and all(
            np.array_equal(
                np.asarray(values[g[0]], dtype=float), np.asarray(values[other], dtype=float), equal_nan=True
            )
            for g in compared
            for other in g[1:]
        ):
            quiet.append(key)
    return quiet


def pareto_front(
    summaries: Sequence[Mapping[str, Any]], *, cost: str = "tokens_used", gain: str = "expected_accuracy"
) -> list[str]:
    """Return the labels of the configurations no other beats: as cheap or cheaper, and better.

    Ordered by cost. A configuration is dominated when another costs no more and gains at
    least as much, strictly better in one of the two.
    """
    points = [(s[cost], s[gain], s["config"]) for s in summaries if s.get(cost) is not None and s.get(gain) is not None]
    front = []
    for c, g, name in points:
        dominated = any(c2 <= c and g2 >= g and (c2 < c or g2 > g) for c2, g2, _ in points)
        if not dominated:
            front.append((c, -g, name))
    return [name for _, _, name in sorted(front)]


def setting_table(
    summaries: Sequence[Mapping[str, Any]], x_key: str, y_key: str, metric: str = "expected_accuracy"
) -> tuple[list[Any], list[Any], list[list[float | None]]]:
    """Return ``(x values, y values, cells)``: ``metric`` for each pair of two grid settings.

    With more grid keys than these two, a cell is the mean over the other settings' configurations.
    """
    known = (*SUMMARY_METRICS, "accuracy")
    if metric not in known:
        raise InvalidInputError(f"unknown metric {message_value(metric)}; choose one of: {', '.join(known)}")
    for key in (x_key, y_key):
        if not summaries or key not in summaries[0]:
            raise InvalidInputError(f"{message_value(key)} is not a setting of this run")
    xs = list(dict.fromkeys(s[x_key] for s in summaries))
    ys = list(dict.fromkeys(s[y_key] for s in summaries))
    cells: list[list[float | None]] = []
    for y in ys:
        row = []
        for x in xs:
            values = [s[metric] for s in summaries if s[x_key] == x and s[y_key] == y and s[metric] is not None]
            row.append(sum(values) / len(values) if values else None)
        cells.append(row)
    return xs, ys, cells


def gold_zone_shares(rows: Sequence[EvalRow], by: str = "config") -> dict[RowValue, dict[str, float]]:
    """Return, per value of ``by`` (a grid key or "config"), the share of gold documents in each zone.

    Zones are first / middle / last of the block, or not in it; questions with no gold
    document among their inputs are left out (no placement could put them anywhere).
    """
    counts: dict[RowValue, dict[str, int]] = {}
    for r in rows:
        if not r.metrics.gold_retrieved:
            continue
        zone = gold_zone(r.metrics.gold_position, r.metrics.in_block)
        counts.setdefault(r.value(by), dict.fromkeys(ZONES, 0))[zone] += 1
    return {k: {z: n / max(1, sum(c.values())) for z, n in c.items()} for k, c in counts.items()}


@dataclass(frozen=True)
class Disagreement:
    """A question two configurations differ on: the two values, and the gold's position and tokens under each."""

    query_id: str
    a: RowValue
    b: RowValue
    a_position: int | None
    b_position: int | None
    a_tokens: int
    b_tokens: int

    @property
    def difference(self) -> float | None:
        """Return B - A (yes/no as 1/0), None where either has no value."""
        if self.a is None or self.b is None or isinstance(self.a, str) or isinstance(self.b, str):
            return None
        return float(self.b) - float(self.a)


def disagreements(
    rows: Sequence[EvalRow], config_a: str, config_b: str, metric: str = "gold_in_block"
) -> list[Disagreement]:
    """Return the questions where configurations ``config_a`` and ``config_b`` differ on ``metric``."""
    a = {r.query_id: r for r in rows if r.config == config_a}
    b = {r.query_id: r for r in rows if r.config == config_b}
    if not a or not b:
        missing = config_a if not a else config_b
        raise InvalidInputError(f"no configuration {message_value(missing)} in this run")
    out = []
    for qid, ra in a.items():
        rb = b.get(qid)
        if rb is None or ra.value(metric) == rb.value(metric):
            continue
        out.append(
            Disagreement(
                qid,
                ra.value(metric),
                rb.value(metric),
                ra.metrics.gold_position,
                rb.metrics.gold_position,
                ra.metrics.tokens_used,
                rb.metrics.tokens_used,
            )
        )
    return out


def find_configuration(configs: Sequence[Configuration], spec: str) -> Configuration:
    """Return the configuration ``spec`` names: its label, or ``KEY=V`` settings that match exactly one.

    ``"max_context_tokens=512"`` picks the one configuration with that budget (the other grid
    keys must then have one value, or be named too: ``"max_context_tokens=512 placement=relevance"``).
    """
    text = " ".join(str(spec).split())
    for config in configs:
        if config.label == text:
            return config
    wanted: dict[str, str] = {}
    for part in text.split():
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise InvalidInputError(
                f"baseline {message_value(spec)}: give a configuration's label or KEY=V settings; "
                f"configurations: {', '.join(c.label for c in configs)}",
                field="baseline",
            )
        wanted[key] = value
    matches = [c for c in configs if all(k in c.settings and bool_text(c.settings[k]) == v for k, v in wanted.items())]
    if len(matches) != 1:
        how = "matches no configuration" if not matches else f"matches {len(matches)} configurations"
        raise InvalidInputError(
            f"baseline {message_value(spec)} {how}; name one of: {', '.join(c.label for c in configs)}",
            field="baseline",
        )
    return matches[0]


def sort_by_difference(
    summaries: Sequence[Mapping[str, Any]], metric: str, *, descending: bool = True
) -> list[Mapping[str, Any]]:
    """Return ``summaries`` ordered by their paired difference against the baseline on ``metric``.

    The baseline itself (difference 0 by definition) sorts as 0; a configuration without a
    paired difference on ``metric`` goes last.
    """

    def key(s: Mapping[str, Any]) -> tuple[int, float]:
        paired = s.get("vs_baseline")
        if paired is None:
            return (0, 0.0)
        value = (paired.get(metric) or {}).get("difference")
        if value is None:
            return (1, 0.0)
        return (0, -value if descending else value)

    return sorted(summaries, key=key)
