"""Rates and their intervals: the Wilson interval of a rate, and the one way an interval is written.

Every rate contextlab shows (a curve's point, a configuration's accuracy) carries the interval
its number of questions gives; ``format_interval`` is how every printed figure writes one.
"""

from __future__ import annotations

import math

from .errors import InvalidInputError

__all__ = ["Z_95", "format_bounds", "format_interval", "wilson_interval"]

#: z of a two-sided 95% interval.
Z_95 = 1.96


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Return ``(low, high)``: the Wilson score interval of the rate ``successes / n`` (fractions).

    Right where the normal approximation is not: at 10 of 10 it is [0.722, 1.0], not [1.0, 1.0].
    ``n`` 0 gives ``(nan, nan)``. ``successes`` may be fractional (a mean of 0/1 values times n).
    """
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 <= successes <= n:
        raise InvalidInputError(f"successes must be between 0 and n={n}, got {successes!r}")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # Clamp the rounding noise at the ends (p = 0 or 1 gives exactly 0 or 1 in exact arithmetic).
    return (max(0.0, centre - half), min(1.0, centre + half))


def _spec(signed: bool, digits: int, width: int) -> str:
    sign = "+" if signed else ""
    return f"{sign}{width}.{digits}f" if width else f"{sign}.{digits}f"


def format_bounds(low: float, high: float, *, signed: bool = False, digits: int = 1, width: int = 0) -> str:
    """Return an interval's bounds alone, ``"[5.3, 29.7]"``, written as ``format_interval`` writes them."""
    spec = _spec(signed, digits, width)
    return f"[{low:{spec}}, {high:{spec}}]"


def format_interval(
    value: float, low: float, high: float, *, signed: bool = False, digits: int = 1, width: int = 0
) -> str:
    """Return ``"12.3 [5.3, 29.7]"`` (``"+6.7 [-8.1, +21.4]"`` when ``signed``), each number ``width`` wide.

    Every printed interval is written here.
    """
    bounds = format_bounds(low, high, signed=signed, digits=digits, width=width)
    return f"{value:{_spec(signed, digits, width)}} {bounds}"
