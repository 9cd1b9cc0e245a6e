"""Statistics of an evaluation run: intervals that mean what they say, paired tests, a recommendation.

Pure functions over numbers and sequences (numpy only), shared by the aggregates, the
``eval compare`` command and the lab:

- ``wilson_interval``: a rate's 95% interval that stays honest on small sets (never zero width
  unless n is 0);
- ``paired_bootstrap``: the mean paired difference of two configurations over the same questions
  and its percentile-bootstrap interval;
- ``mcnemar_exact``: McNemar's exact (binomial) p-value for two yes/no metrics on the same questions.
"""

from __future__ import annotations

import math

from ..errors import InvalidInputError

__all__ = ["wilson_interval"]


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
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
