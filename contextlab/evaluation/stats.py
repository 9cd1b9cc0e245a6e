"""Statistics of an evaluation run: intervals that mean what they say, paired comparisons, what extra tokens buy.

Pure functions over numbers and sequences (numpy only), shared by the aggregates, the
``contextlab compare`` command and the lab:

- ``paired_bootstrap``: the mean paired difference of two configurations over the same questions
  and its percentile-bootstrap interval;
- ``paired_comparison``: B against A over the same questions, with McNemar's exact p for yes/no
  metrics (the paired tests themselves live in ``contextlab.paired``);
- ``budget_gains`` and ``knee_index``: what each extra 100 tokens buys, and where that bends.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, TypedDict

from ..errors import InvalidInputError
from ..intervals import Z_95
from ..paired import mcnemar_exact, paired_rate_interval

__all__ = [
    "BOOTSTRAP_SAMPLES",
    "BudgetCurve",
    "BudgetStep",
    "PairedDifference",
    "bootstrap_interval",
    "budget_gains",
    "combine_intervals",
    "knee_index",
    "rising_step",
    "paired_bootstrap",
    "paired_comparison",
    "questions_needed",
]


# -- paired comparisons ----------------------------------------------------------------------

#: Resamples of every bootstrap here (seeded, so a run gives the same intervals every time).
BOOTSTRAP_SAMPLES = 1000
_BOOTSTRAP_BLOCK_ELEMENTS = 4_000_000
#: z of 80% power (for "about M questions would be needed"); Z_95 is the 95% interval's.
Z_POWER_80 = 0.8416


def _paired(a: Sequence[float], b: Sequence[float]) -> Any:
    """Return ``b - a`` over the questions where both are defined (NaN or None = undefined)."""
    import numpy as np

    x = np.array([math.nan if v is None else float(v) for v in a], dtype=float)
    y = np.array([math.nan if v is None else float(v) for v in b], dtype=float)
    if x.shape != y.shape:
        raise InvalidInputError(f"paired values need the same questions: {x.size} against {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    return y[keep] - x[keep]


def bootstrap_interval(
    values: Sequence[float], *, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES
) -> tuple[float, float, float]:
    """Return ``(mean, low, high)``: the mean of ``values`` and its 95% percentile bootstrap interval.

    The values are resampled with replacement ``samples`` times from a generator seeded with
    ``seed`` (so the interval is the same on every run), and each resample's mean taken: the
    interval is the 2.5th and 97.5th percentile of those means. No value: NaNs.
    """
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (math.nan, math.nan, math.nan)
    rng = np.random.default_rng(seed)
    # Resampled indices are drawn in blocks, so a million questions never needs a
    # (samples x n) index matrix in memory at once.
    per_block = max(1, _BOOTSTRAP_BLOCK_ELEMENTS // data.size)
    means = np.empty(samples)
    for start in range(0, samples, per_block):
        count = min(per_block, samples - start)
        means[start : start + count] = data[rng.integers(0, data.size, size=(count, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return (float(data.mean()), float(low), float(high))


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES
) -> tuple[float, float, float]:
    """Return ``(mean of b - a, low, high)``: the paired difference and its 95% percentile bootstrap interval.

    ``a[i]`` and ``b[i]`` are the same question under two configurations; questions where either
    is undefined (None or NaN) are left out (``bootstrap_interval`` of the differences).
    """
    return bootstrap_interval(_paired(a, b), seed=seed, samples=samples)


def questions_needed(differences: Sequence[float], *, z_alpha: float = Z_95, z_power: float = Z_POWER_80) -> int | None:
    """Return about how many questions a paired test needs to tell this difference from none.

    ``n = ((z_alpha + z_power) * sd / mean)^2`` of the per-question differences: a two-sided 5%
    test with 80% power, taking the observed difference as the true one. None when no
    difference was seen (no number of questions separates two equal means).
    """
    import numpy as np

    d = np.asarray(differences, dtype=float)
    d = d[~np.isnan(d)]
    if d.size < 2 or d.mean() == 0:
        return None
    sd = float(d.std(ddof=1))
    if sd == 0:
        return int(d.size)
    return max(2, math.ceil(((z_alpha + z_power) * sd / abs(float(d.mean()))) ** 2))


@dataclass(frozen=True)
class PairedDifference:
    """B against A over the same questions: the mean difference B - A, its 95% interval, and the test.

    ``n`` counts the pairs; ``p_value`` is McNemar's exact p for a yes/no metric (None for
    others), ``only_a``/``only_b`` its discordant counts; ``questions_needed`` see
    ``questions_needed``. Differences are in the metric's unit.
    """

    difference: float
    low: float
    high: float
    n: int
    p_value: float | None = None
    questions_needed: int | None = None
    only_a: int | None = None
    only_b: int | None = None

    def widened(self, low: float, high: float) -> PairedDifference:
        """Return the same difference with the interval ``(low, high)`` (another source of error added)."""
        return replace(self, low=low, high=high)

    def to_dict(self) -> dict[str, float | int | None]:
        """Return the JSON a summary holds: every field, ``only_a``/``only_b`` only for a yes/no metric."""
        out = asdict(self)
        if self.only_a is None:
            del out["only_a"], out["only_b"]
        return out


def paired_comparison(a: Sequence[float], b: Sequence[float], *, yes_no: bool, seed: int = 0) -> PairedDifference:
    """Return B against A over the same questions (``PairedDifference``); for yes/no, McNemar's p.

    A yes/no interval is the paired bootstrap widened, where narrower, to Bonett and Price's.
    """
    d = _paired(a, b)
    mean, low, high = paired_bootstrap(a, b, seed=seed)
    found = PairedDifference(mean, low, high, int(d.size), questions_needed=questions_needed(d))
    if not (yes_no and d.size):
        return found
    only_a, only_b = int((d < 0).sum()), int((d > 0).sum())
    floor_low, floor_high = paired_rate_interval(only_a, only_b, int(d.size))
    return replace(
        found,
        low=min(low, floor_low),
        high=max(high, floor_high),
        only_a=only_a,
        only_b=only_b,
        p_value=mcnemar_exact(only_a, only_b),
    )


def combine_intervals(mean: float, sampling: tuple[float, float], curve: tuple[float, float]) -> tuple[float, float]:
    """Return ``(low, high)`` around ``mean`` from two independent sources of error, side by side.

    Each side's half-width is the root sum of squares of the two intervals' half-widths on that
    side: the questions sampled (``sampling``) and the published curve's own measurement
    (``curve``). Never narrower than either.
    """
    below = math.hypot(mean - sampling[0], mean - curve[0])
    above = math.hypot(sampling[1] - mean, curve[1] - mean)
    return (mean - below, mean + above)


# -- what an extra 100 tokens buys ------------------------------------------------------------


def knee_index(xs: Sequence[float], ys: Sequence[float]) -> int | None:
    """Return the index of the knee of an increasing curve: where it bends most, and gains fall after it.

    Both axes are scaled to [0, 1] between the first and the last point; a candidate is an inner
    point above the straight line joining them, furthest first (Kneedle, Satopää et al., 2011). A
    candidate is the knee only if the returns diminish there: every step after it gains less per
    unit of x than every step before it, and the steps after it never gain more than the one before
    (a later rise means the curve does not flatten there). None with fewer than three points, or
    when no candidate passes (``rising_step`` then names the step that rises).
    """
    if len(xs) < 3 or xs[-1] == xs[0] or ys[-1] == ys[0]:
        return None
    scaled = [((x - xs[0]) / (xs[-1] - xs[0]), (y - ys[0]) / (ys[-1] - ys[0])) for x, y in zip(xs, ys, strict=False)]
    if any(x1 <= x0 for x0, x1 in zip(xs, xs[1:], strict=False)):
        return None
    slopes = [(y1 - y0) / (x1 - x0) for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:], strict=False)]
    for gap, index in sorted(((sy - sx, i) for i, (sx, sy) in enumerate(scaled) if 0 < i < len(xs) - 1), reverse=True):
        before, after = slopes[:index], slopes[index:]
        if gap <= 0:
            break
        if min(before) > max(after) and all(b <= a for a, b in zip(after, after[1:], strict=False)):
            return index
    return None


def rising_step(gains: Sequence[float | None]) -> int | None:
    """Return the index of the first step that gains more than the step before it (no knee there), or None."""
    for i, (before, after) in enumerate(zip(gains, gains[1:], strict=False), start=1):
        if before is not None and after is not None and after > before:
            return i
    return None


#: From one budget to the next: the two budgets, the mean tokens at each, and points gained per 100 tokens
#: (None when the tokens did not grow). ``from`` is a keyword, hence the call form.
BudgetStep = TypedDict(
    "BudgetStep",
    {"from": object, "to": object, "tokens_from": float, "tokens_to": float, "gain_per_100": float | None},
)


class BudgetCurve(TypedDict):
    """Configurations differing only in ``key``: their other settings, the steps, and the knee (or None)."""

    settings: dict[str, object]
    metric: str
    key: str
    steps: list[BudgetStep]
    knee: object


def budget_gains(
    summaries: Sequence[Mapping[str, Any]],
    grid_keys: Sequence[str],
    metric: str = "gold_in_block",
    *,
    key: str = "max_context_tokens",
    cost: str = "tokens_used",
    rate: bool = True,
) -> list[BudgetCurve]:
    """Return, per group of configurations differing only in ``key``, what each extra 100 tokens gains.

    Each group: ``settings`` (its other grid values), ``key``, ``steps`` (between neighbouring budgets:
    ``from``, ``to``, the mean tokens of each, and ``gain_per_100`` — points of ``metric`` per
    100 extra tokens, percentage points for a rate; None when the tokens did not grow), and
    ``knee`` (the budget where the curve bends most, see ``knee_index``, or None). Only groups
    with two budgets or more; none when ``key`` is not a grid key.
    """
    if key not in grid_keys:
        return []
    others = [k for k in grid_keys if k != key]
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for s in summaries:
        if s.get(metric) is not None and s.get(cost) is not None:
            groups.setdefault(tuple(s[k] for k in others), []).append(s)
    scale = 100.0 if rate else 1.0
    out = []
    for group, members in groups.items():
        members = sorted(members, key=lambda s: s[key])
        if len(members) < 2:
            continue
        steps = []
        for lo, hi in zip(members, members[1:], strict=False):
            extra = hi[cost] - lo[cost]
            gain = None if extra <= 0 else float((hi[metric] - lo[metric]) * scale * 100 / extra)
            steps.append(
                BudgetStep(
                    {
                        "from": lo[key],
                        "to": hi[key],
                        "tokens_from": lo[cost],
                        "tokens_to": hi[cost],
                        "gain_per_100": gain,
                    }
                )
            )
        knee = knee_index([s[cost] for s in members], [s[metric] for s in members])
        out.append(
            BudgetCurve(
                settings=dict(zip(others, group, strict=False)),
                metric=metric,
                key=key,
                steps=steps,
                knee=None if knee is None else members[knee][key],
            )
        )
    return out
