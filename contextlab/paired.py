"""Rates on the same questions: exact paired tests, their intervals, their power, and honest corrections.

The same questions asked under two or more conditions (a gold document at position 1, 3 or 5; two
configurations) make a paired experiment: only the questions answered differently carry
information about the difference. Pure functions over counts (the standard library only):

- ``mcnemar_exact``: McNemar's exact two-sided p for two conditions' discordant counts;
- ``paired_rate_interval``: Bonett and Price's interval of a paired difference of rates;
- ``cochran_q``: Cochran's Q for "every condition has the same rate", k conditions (exact or
  permutation p, valid on a few dozen questions);
- ``rate_difference``: two rates measured on different (or unknown) pairings, Newcombe's interval
  and the pooled z test; for positively correlated paired data it is the conservative choice;
- ``holm_adjust``: Holm's step-down correction of a family of p-values;
- ``mcnemar_power``, ``detectable_difference``, ``questions_for_difference``: what N questions
  can show, before they are spent (Connor's normal approximation for McNemar's test, 1987);
- ``look_alpha``: the α each of a fixed schedule of looks may spend (Bonferroni split).

Rates and differences are fractions here (0.067, not 6.7 points); callers scale for display.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from .errors import InvalidInputError
from .intervals import Z_95, wilson_interval

__all__ = [
    "ALPHA",
    "DEFAULT_DISCORDANCE",
    "PERMUTATIONS",
    "POWER",
    "cochran_q",
    "detectable_difference",
    "holm_adjust",
    "look_alpha",
    "mcnemar_exact",
    "mcnemar_power",
    "paired_rate_interval",
    "questions_for_difference",
    "rate_difference",
    "z_for",
]

#: Significance level below which a difference is called shown (two-sided).
ALPHA = 0.05
#: Power asked of a planned comparison ("N questions would detect D points with 80% power").
POWER = 0.80
#: The share of questions assumed to be answered differently under two conditions when nothing was
#: measured yet (stated wherever it is used). 0.25 is between a small model near the floor (~0.1)
#: and a 50% model with weakly correlated answers (~0.4); it sets the width of a plan, not a result.
DEFAULT_DISCORDANCE = 0.25

_NORMAL = NormalDist()


def z_for(alpha: float) -> float:
    """Return the two-sided critical z of ``alpha`` (1.96 at 0.05)."""
    if not 0 < alpha < 1:
        raise InvalidInputError(f"alpha must be between 0 and 1, got {alpha!r}")
    return _NORMAL.inv_cdf(1 - alpha / 2)


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"{name} must be a whole number >= 0, got {value!r}")
    return value


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Return McNemar's exact two-sided p-value for ``only_a`` and ``only_b`` discordant questions.

    ``only_a``: questions where A is yes and B no; ``only_b`` the other way. Under "no
    difference" each discordant question is a fair coin, so p = 2 * P(Binomial(n, 1/2) <= min),
    capped at 1; no discordant question at all gives 1.0.
    """
    _count("only_a", only_a)
    _count("only_b", only_b)
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    # Exact integers until the last division: no underflow at thousands of discordant pairs.
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, float(2 * tail / 2**n))


def paired_rate_interval(only_a: int, only_b: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Return ``(low, high)`` of the difference of two paired rates (B - A): Bonett and Price (2012).

    The adjusted Wald interval for paired proportions (one pseudo-question added to each
    discordant cell): never zero width, so a difference seen on a handful of questions is not
    reported as exact. Fractions, clamped to [-1, 1].
    """
    if n <= 0:
        return (math.nan, math.nan)
    p_a = (only_a + 1) / (n + 2)
    p_b = (only_b + 1) / (n + 2)
    diff = p_b - p_a
    half = z * math.sqrt(max(0.0, p_a + p_b - diff * diff) / (n + 2))
    centre = (only_b - only_a) / n
    # Centred on the observed difference, as wide as the adjusted interval (which shrinks it toward 0).
    return (max(-1.0, min(centre, diff) - half), min(1.0, max(centre, diff) + half))


#: Resamples of Cochran's Q permutation test (seeded: a run gives the same p every time).
PERMUTATIONS = 20_000


def _permutation_p(row_sums: Sequence[int], k: int, observed: int, base: int, *, seed: int = 0) -> float:
    """Return P(sum of squared column totals >= ``observed``) with each row's answers shuffled.

    Under "no condition differs", which of a question's k conditions got its r yes answers is
    arbitrary: each of the C(k, r) arrangements is equally likely, so the rows with r yes answers
    each pick one arrangement at random. ``base`` questions answered yes everywhere add
    to every column. (count + 1) / (resamples + 1), never 0.
    """
    import itertools

    import numpy as np

    rng = np.random.default_rng(seed)
    columns = np.full((PERMUTATIONS, k), base, dtype=np.int64)
    for r in sorted(set(row_sums)):
        rows = sum(1 for v in row_sums if v == r)
        if math.comb(k, r) <= 4096:
            patterns = np.array(
                [[1 if c in chosen else 0 for c in range(k)] for chosen in itertools.combinations(range(k), r)],
                dtype=np.int64,
            )
            picks = rng.integers(0, len(patterns), size=(PERMUTATIONS, rows))
            offsets = (picks + len(patterns) * np.arange(PERMUTATIONS)[:, None]).ravel()
            counts = np.bincount(offsets, minlength=PERMUTATIONS * len(patterns)).reshape(PERMUTATIONS, -1)
            columns += np.rint(counts.astype(float) @ patterns.astype(float)).astype(np.int64)
            continue
        row = np.array([1] * r + [0] * (k - r), dtype=np.int8)
        for start in range(0, PERMUTATIONS, 200):  # too many arrangements to list: shuffle each row
            count = min(200, PERMUTATIONS - start)
            shuffled = rng.permuted(np.broadcast_to(row, (count, rows, k)), axis=2)
            columns[start : start + count] += shuffled.sum(axis=1)
    hits = int(((columns * columns).sum(axis=1) >= observed).sum())
    return (hits + 1) / (PERMUTATIONS + 1)


def cochran_q(outcomes: Sequence[Sequence[bool]]) -> tuple[float, int, float]:
    """Return ``(Q, degrees of freedom, p)``: Cochran's Q that k conditions share one rate.

    ``outcomes[c][i]`` is question i's yes/no under condition c (every condition the same
    questions, in the same order). p is exact where it can be at any N: for two conditions
    McNemar's exact p (Q is then McNemar's statistic), for more a seeded permutation test of
    ``PERMUTATIONS`` resamples (the chi-square approximation with k - 1 degrees of freedom
    claims too much on a few dozen questions). Questions answered alike under every condition
    carry no information; with none answered differently Q is 0 and p 1.
    """
    k = len(outcomes)
    if k < 2:
        raise InvalidInputError(f"Cochran's Q needs two conditions or more, got {k}")
    n = len(outcomes[0])
    if any(len(column) != n for column in outcomes):
        raise InvalidInputError(
            f"Cochran's Q needs every condition on the same questions: {[len(c) for c in outcomes]} answers"
        )
    col = [sum(bool(v) for v in column) for column in outcomes]
    row = [sum(bool(outcomes[c][i]) for c in range(k)) for i in range(n)]
    total = sum(col)
    denominator = k * total - sum(r * r for r in row)
    if denominator == 0:
        return (0.0, k - 1, 1.0)
    squares = sum(c * c for c in col)
    q = (k - 1) * (k * squares - total * total) / denominator
    if k == 2:
        only_first = sum(1 for a, b in zip(outcomes[0], outcomes[1], strict=False) if a and not b)
        only_second = sum(1 for a, b in zip(outcomes[0], outcomes[1], strict=False) if b and not a)
        return (q, 1, mcnemar_exact(only_first, only_second))
    return (q, k - 1, _permutation_p([r for r in row if 0 < r < k], k, squares, row.count(k)))


def rate_difference(
    successes_a: float, n_a: int, successes_b: float, n_b: int, z: float = Z_95
) -> tuple[float, float, float, float]:
    """Return ``(B - A, low, high, p)`` for two rates without their pairing: Newcombe's interval, pooled z.

    Newcombe's hybrid score interval (1998, method 10) from the two Wilson intervals, and the
    pooled two-proportion z test's two-sided p. For the same questions under two conditions
    whose answers are positively correlated (they are: an easy question is easy anywhere) the
    paired test is at least as strong, so a difference this resolves a paired test resolves too.
    """
    if n_a <= 0 or n_b <= 0:
        return (math.nan, math.nan, math.nan, math.nan)
    p_a, p_b = successes_a / n_a, successes_b / n_b
    low_a, high_a = wilson_interval(successes_a, n_a, z)
    low_b, high_b = wilson_interval(successes_b, n_b, z)
    diff = p_b - p_a
    low = diff - math.sqrt((p_b - low_b) ** 2 + (high_a - p_a) ** 2)
    high = diff + math.sqrt((high_b - p_b) ** 2 + (p_a - low_a) ** 2)
    pooled = (successes_a + successes_b) / (n_a + n_b)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    p = 1.0 if spread == 0 else math.erfc(abs(diff) / spread / math.sqrt(2))
    return (diff, max(-1.0, low), min(1.0, high), min(1.0, p))


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Return Holm's step-down adjusted p-values, in the order given (each <= 1, monotone in rank).

    Call a difference shown when its adjusted p is below α: the chance of calling any true
    "no difference" shown stays at most α over the whole family.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def _check_discordance(discordance: float) -> float:
    if not isinstance(discordance, (int, float)) or not 0 < discordance <= 1:
        raise InvalidInputError(f"discordance must be a share of questions in (0, 1], got {discordance!r}")
    return float(discordance)


def mcnemar_power(difference: float, discordance: float, n: int, alpha: float = ALPHA) -> float:
    """Return the power of McNemar's test to show a paired ``difference`` on ``n`` questions.

    ``discordance`` is the share of questions answered differently under the two conditions
    (it bounds the difference: |difference| <= discordance). Connor's normal approximation:
    Φ((√n |δ| − z √ψ) / √(ψ − δ²)).
    """
    psi = _check_discordance(discordance)
    delta = abs(difference)
    if delta > psi + 1e-12:
        raise InvalidInputError(
            f"a difference of {delta:.3f} needs at least that share of questions answered differently, not {psi:.3f}"
        )
    if n <= 0 or delta == 0:
        return 0.0
    spread = math.sqrt(max(0.0, psi - delta * delta))
    signal = math.sqrt(n) * delta - z_for(alpha) * math.sqrt(psi)
    if spread == 0:
        return 1.0 if signal > 0 else 0.0
    return _NORMAL.cdf(signal / spread)


def questions_for_difference(
    difference: float, discordance: float = DEFAULT_DISCORDANCE, *, alpha: float = ALPHA, power: float = POWER
) -> int:
    """Return how many questions McNemar's test needs to show ``difference`` with ``power``.

    n = (z_α √ψ + z_β √(ψ − δ²))² / δ² (Connor 1987), rounded up; ``difference`` a fraction.
    """
    psi = _check_discordance(discordance)
    delta = abs(difference)
    if not 0 < delta <= psi:
        raise InvalidInputError(f"difference must be above 0 and at most the discordance {psi:.3f}, got {difference!r}")
    z_beta = _NORMAL.inv_cdf(power)
    n = (z_for(alpha) * math.sqrt(psi) + z_beta * math.sqrt(psi - delta * delta)) ** 2 / (delta * delta)
    return max(2, math.ceil(n - 1e-9))


def detectable_difference(
    n: int, discordance: float = DEFAULT_DISCORDANCE, *, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """Return the smallest paired difference (a fraction) ``n`` questions show with ``power``.

    None when no difference up to the discordance itself reaches that power on ``n`` questions.
    """
    psi = _check_discordance(discordance)
    if n <= 0 or mcnemar_power(psi, psi, n, alpha) < power:
        return None
    low, high = 0.0, psi
    for _ in range(60):  # bisection: power rises with the difference
        mid = (low + high) / 2
        if mcnemar_power(mid, psi, n, alpha) >= power:
            high = mid
        else:
            low = mid
    return high


def look_alpha(looks: int, alpha: float = ALPHA) -> float:
    """Return the α each of ``looks`` planned looks may spend: α / looks (Bonferroni).

    Stopping at the first look whose test resolves, with every look tested at α / looks, keeps
    the chance of a false "resolved" at most α over the whole schedule, however the looks fall.
    """
    if isinstance(looks, bool) or not isinstance(looks, int) or looks < 1:
        raise InvalidInputError(f"looks must be a whole number >= 1, got {looks!r}")
    return alpha / looks
