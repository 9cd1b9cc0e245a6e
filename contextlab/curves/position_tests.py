"""Two positions of a curve told apart, or not: the family of differences and their tests.

With per-question outcomes (the same questions at every position) a pair is tested paired:
McNemar's exact p and Bonett and Price's interval; with points alone (a curve file, a published
curve), Newcombe's interval and the pooled z test, the conservative stand-in for the paired test.
The family, each position against the first and each middle one against the last, is corrected
by Holm's step-down method; a difference is resolved when its adjusted p is below ``alpha`` and
its 95% interval excludes 0. ``curves.evidence`` turns the differences into sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..intervals import format_interval
from ..paired import holm_adjust, mcnemar_exact, paired_rate_interval, questions_for_difference, rate_difference

__all__ = ["CurvePoint", "PositionDifference", "differences", "family", "p_text"]


@dataclass(frozen=True)
class CurvePoint:
    """One measured point without its per-question outcomes: position, accuracy %, questions (N or None)."""

    position: int
    accuracy: float
    questions: int | None


def p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


@dataclass(frozen=True)
class PositionDifference:
    """Accuracy at ``second`` minus at ``first`` (points), its 95% interval and test, and whether resolved."""

    first: int
    second: int
    difference: float
    low: float
    high: float
    p_value: float
    adjusted_p: float
    comparisons: int
    questions: int
    paired: bool
    resolved: bool
    questions_needed: int | None
    only_first: int | None = None
    only_second: int | None = None

    def sentence(self) -> str:
        """Return the difference in words.

        For example ``positions 1 and 5 differ by +6.7 [-8.1, +21.4] points, p = 0.45: not told apart on 30
        questions``.
        """
        text = (
            f"positions {self.first} and {self.second} differ by "
            f"{format_interval(self.difference, self.low, self.high, signed=True)} points, "
            f"{p_text(self.p_value)}"
        )
        if self.comparisons > 1 and self.adjusted_p != self.p_value:
            text += f" (Holm-adjusted for {self.comparisons} comparisons: {p_text(self.adjusted_p)})"
        test = "" if self.paired else " (unpaired test)"
        if self.resolved:
            return text + f": told apart on {self.questions:,} questions{test}"
        text += f": not told apart on {self.questions:,} questions{test}"
        if self.questions_needed is not None:
            return text + f"; about {self.questions_needed:,} would tell a difference this size apart"
        return text + "; no difference was seen"


def family(positions: Sequence[int]) -> list[tuple[int, int]]:
    """Return the pairs tested: each position against the first, each middle one against the last."""
    first, last = positions[0], positions[-1]
    return [(first, p) for p in positions[1:]] + [(p, last) for p in positions[1:-1]]


@dataclass(frozen=True)
class _PairTest:
    """One pair of positions tested: the difference (points), its 95% interval, p, N and the discordance."""

    difference: float
    low: float
    high: float
    p_value: float
    questions: int
    discordance: float
    only_first: int | None = None
    only_second: int | None = None


def _paired_test(a: Sequence[bool], b: Sequence[bool]) -> _PairTest:
    only_a = sum(1 for x, y in zip(a, b, strict=False) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=False) if y and not x)
    n = len(a)
    low, high = paired_rate_interval(only_a, only_b, n)
    return _PairTest(
        100.0 * (only_b - only_a) / n,
        100.0 * low,
        100.0 * high,
        mcnemar_exact(only_a, only_b),
        n,
        (only_a + only_b) / n,
        only_a,
        only_b,
    )


def _unpaired_test(a: CurvePoint, b: CurvePoint, n_a: int, n_b: int) -> _PairTest:
    s_a, s_b = a.accuracy / 100.0 * n_a, b.accuracy / 100.0 * n_b
    diff, low, high, p = rate_difference(s_a, n_a, s_b, n_b)
    p_a, p_b = a.accuracy / 100.0, b.accuracy / 100.0
    # Answers at two positions taken as independent: the most discordance they could plausibly show.
    independent = p_a * (1 - p_b) + p_b * (1 - p_a)
    return _PairTest(100.0 * diff, 100.0 * low, 100.0 * high, p, min(n_a, n_b), independent)


def _needed(test: _PairTest, alpha: float) -> int | None:
    delta, psi = abs(test.difference) / 100.0, test.discordance
    if delta == 0 or psi == 0:
        return None
    return questions_for_difference(delta, max(psi, delta), alpha=alpha)


def _test(
    a: int, b: int, by_position: Mapping[int, CurvePoint], outcomes: Mapping[int, Sequence[bool]] | None
) -> _PairTest:
    """Return positions ``a`` and ``b`` tested: paired on ``outcomes``, else on the points' N."""
    if outcomes is not None:
        return _paired_test(outcomes[a], outcomes[b])
    n_a, n_b = by_position[a].questions, by_position[b].questions
    if n_a is None or n_b is None:
        raise InvalidInputError("an unpaired test needs each point's number of questions", field="points")
    return _unpaired_test(by_position[a], by_position[b], n_a, n_b)


def differences(
    points: Sequence[CurvePoint], outcomes: Mapping[int, Sequence[bool]] | None, alpha: float
) -> tuple[list[PositionDifference], list[float]]:
    """Return the family's tested differences (Holm-corrected) and each pair's discordance.

    The family (``family``): each position against the first, each middle one against the last.
    """
    by_position = {p.position: p for p in points}
    pairs = family([p.position for p in points])
    tests = [_test(a, b, by_position, outcomes) for a, b in pairs]
    adjusted = holm_adjust([t.p_value for t in tests])
    m = len(pairs)
    out = []
    for (a, b), t, adj in zip(pairs, tests, adjusted, strict=False):
        resolved = adj < alpha and (t.low > 0 or t.high < 0)
        out.append(
            PositionDifference(
                a,
                b,
                t.difference,
                t.low,
                t.high,
                t.p_value,
                adj,
                m,
                t.questions,
                outcomes is not None,
                resolved,
                None if resolved else _needed(t, alpha / m),
                t.only_first,
                t.only_second,
            )
        )
    return out, [t.discordance for t in tests]
