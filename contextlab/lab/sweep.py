"""A parameter sweep: the same documents built over a grid of dedup thresholds and budgets.

``run_sweep`` returns one row per (``dedup_threshold``, ``max_context_tokens``) pair with how
many documents met each fate (``types.FATES``: they add up to the documents in), how many are
in the block (``in_block``: included whole, truncated or summarized) and the tokens spent;
``contextlab sweep`` writes the rows as CSV and ``contextlab.charts`` draws them. Builds share
one ``BuildCache``, so each text is tokenized once and each threshold deduplicates once.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TextIO, TypedDict

from ..errors import InvalidInputError
from ..progress import Progress
from ..settings import DEDUP_THRESHOLD_RANGE, WHOLE_RANGES, setting_range_text
from ..types import FATES, IN_BLOCK_FATES, Document, PromptRequest
from ..validation import message_value, parse_int, whole_number
from .config import LabConfig

__all__ = ["SWEEP_COLUMNS", "MAX_BUILDS", "SweepRow", "parse_range", "sweep_grid", "run_sweep", "write_csv"]

#: The columns of a sweep row (and of ``contextlab sweep``'s CSV), in order.
SWEEP_COLUMNS: tuple[str, ...] = (
    "dedup_threshold",
    "max_context_tokens",
    *FATES,
    "in_block",
    "tokens_used",
    "utilization_pct",
)


class SweepRow(TypedDict):
    """One (threshold, budget) pair of a sweep: documents per fate, in the block, and tokens spent."""

    dedup_threshold: float
    max_context_tokens: int
    filtered: int
    duplicate: int
    excluded: int
    truncated: int
    summarized: int
    included: int
    in_block: int
    tokens_used: int
    utilization_pct: float


#: Default cap on the builds of one sweep: a typo such as 0:1:0.0001 should not start a million.
MAX_BUILDS = 10_000
# How a message says to raise the cap (the command shows its flag, ``--max-builds N``).
_RAISE = "raise the limit (max_builds=N)"


def parse_range(
    spec: str, *, integer: bool = False, name: str = "value", max_values: int = MAX_BUILDS
) -> list[float] | list[int]:
    """Return the values ``spec`` names: ``start:stop:step`` (stop included), ``a,b,c`` or one value."""
    text = spec.strip()
    convert: Callable[[str], Any] = partial(parse_int, field=name) if integer else float

    def number(part: str) -> Any:
        try:
            value = convert(part.strip())
        except ValueError:
            kind = "a whole number" if integer else "a number"
            raise InvalidInputError(f"{name} {spec!r}: {part.strip()!r} is not {kind}", field=name) from None
        if not integer and not math.isfinite(value):
            raise InvalidInputError(f"{name} {spec!r}: {part.strip()!r} is not a finite number", field=name)
        return value

    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise InvalidInputError(f"{name} {spec!r}: write a range as start:stop:step, e.g. 0.5:1.0:0.05", field=name)
        start, stop, step = (number(p) for p in parts)
        if step <= 0:
            raise InvalidInputError(f"{name} {spec!r}: the step must be > 0", field=name)
        if stop < start:
            raise InvalidInputError(f"{name} {spec!r}: stop is below start", field=name)
        # The epsilon keeps the stop value when float steps land a hair past it.
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count > max_values:
            raise InvalidInputError(
                f"{name} {spec!r} has {count:,} values, over the limit of "
                f"{max_values:,} builds; use a larger step or {_RAISE}",
                field=name,
            )
        values = [start + i * step for i in range(count)]
        return [int(v) for v in values] if integer else [round(v, 10) for v in values]
    if not text:
        raise InvalidInputError(f"{name}: empty; give a value, a list a,b,c or a range start:stop:step", field=name)
    return [number(p) for p in text.split(",")]


def sweep_grid(
    thresholds: str,
    budgets: str,
    *,
    max_builds: int = MAX_BUILDS,
    names: tuple[str, str, str] = ("dedup_threshold", "max_context_tokens", "max_builds"),
) -> tuple[list[float], list[int]]:
    """Return the thresholds and budgets two range specs name, checked, at most ``max_builds`` pairs.

    ``names`` are what messages call the two specs and the cap (the CLI passes its flags).
    """
    whole_number(names[2], max_builds, minimum=1)
    values = parse_range(thresholds, name=names[0], max_values=max_builds)
    low, high = DEDUP_THRESHOLD_RANGE
    for t in values:
        if not low <= t <= high:
            raise InvalidInputError(
                f"{names[0]} {message_value(thresholds)}: {t} is outside {setting_range_text('dedup_threshold')}",
                field=names[0],
            )
    sizes = parse_range(budgets, integer=True, name=names[1], max_values=max_builds)
    least, most = WHOLE_RANGES["max_context_tokens"]
    for b in sizes:
        if not least <= b <= most:
            raise InvalidInputError(
                f"{names[1]} {message_value(budgets)}: {b} is outside {setting_range_text('max_context_tokens')}",
                field=names[1],
            )
    cells = len(values) * len(sizes)
    if cells > max_builds:
        raise InvalidInputError(
            f"the grid has {cells:,} builds, over the limit of {max_builds:,}; use larger steps or {_RAISE}"
        )
    return [float(v) for v in values], [int(b) for b in sizes]


def run_sweep(
    documents: Sequence[Document],
    config: LabConfig,
    thresholds: Sequence[float],
    budgets: Sequence[int],
    *,
    progress: Progress | None = None,
) -> list[SweepRow]:
    """Return one row per (threshold, budget) pair: what ``config``'s build kept, cut and spent.

    Every setting but the threshold and the budget comes from ``config``; ``progress`` is
    told (builds done, builds in all) after each one.
    """
    from ..build_cache import BuildCache

    cache = BuildCache()
    rows: list[SweepRow] = []
    for threshold in thresholds:
        manager = config.with_changes(dedup_threshold=float(threshold)).make_manager()
        for budget in budgets:
            result = manager.build(
                PromptRequest(query=config.query, documents=list(documents), max_context_tokens=budget),
                cache=cache,
            )
            counts = result.fate_counts()
            rows.append(
                SweepRow(
                    dedup_threshold=threshold,
                    max_context_tokens=budget,
                    filtered=counts["filtered"],
                    duplicate=counts["duplicate"],
                    excluded=counts["excluded"],
                    truncated=counts["truncated"],
                    summarized=counts["summarized"],
                    included=counts["included"],
                    in_block=sum(counts[fate] for fate in IN_BLOCK_FATES),
                    tokens_used=result.tokens_used,
                    utilization_pct=result.utilization_pct,
                )
            )
            if progress is not None:
                progress(len(rows), len(thresholds) * len(budgets))
    return rows


def write_csv(rows: Sequence[SweepRow], stream: TextIO) -> None:
    """Write sweep ``rows`` to ``stream`` as CSV with a header of ``SWEEP_COLUMNS``."""
    writer = csv.DictWriter(stream, fieldnames=list(SWEEP_COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
