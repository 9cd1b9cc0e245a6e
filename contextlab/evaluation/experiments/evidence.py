"""What a context experiment shows, decided from its per-question outcomes: paired tests between levels.

The same questions are asked at every level (every length, every count of distractors, every
order; with the answer passage given and removed), so two levels are compared question by
question: McNemar's exact p on the questions answered differently, Bonett and Price's interval
for the difference, each level against the first (the reference), Holm-corrected over the family;
Cochran's Q asks whether the levels share one rate at all. A difference is "told apart" only when
its adjusted p is below α and its interval excludes 0; otherwise the sentence says these
questions cannot tell, and about how many would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...curves.position_tests import p_text
from ...errors import InvalidInputError
from ...intervals import format_interval, wilson_interval
from ...paired import (
    ALPHA,
    cochran_q,
    detectable_difference,
    holm_adjust,
    mcnemar_exact,
    paired_rate_interval,
    questions_for_difference,
)

__all__ = ["LevelDifference", "LevelEvidence", "LevelPoint", "level_effect", "level_power_lines"]


@dataclass(frozen=True)
class LevelPoint:
    """One level's rate (percent) with its 95% Wilson interval, over ``questions`` questions."""

    level: int
    label: str
    rate: float
    low: float
    high: float
    questions: int
    hits: int


@dataclass(frozen=True)
class LevelDifference:
    """The rate at ``second`` minus at ``first`` (points), its 95% interval, McNemar's p, and whether resolved."""

    first: str
    second: str
    difference: float
    low: float
    high: float
    p_value: float
    adjusted_p: float
    comparisons: int
    questions: int
    resolved: bool
    questions_needed: int | None

    def sentence(self, measure: str) -> str:
        """Return e.g. ``500 tokens -> 2000 tokens: accuracy -6.7 [-20.1, +8.0] points, p = 0.45: cannot tell ...``."""
        text = (
            f"{self.first} -> {self.second}: {measure} "
            f"{format_interval(self.difference, self.low, self.high, signed=True)} points, {p_text(self.p_value)}"
        )
        if self.comparisons > 1 and self.adjusted_p != self.p_value:
            text += f" (Holm-adjusted for {self.comparisons} comparisons: {p_text(self.adjusted_p)})"
        if self.resolved:
            return text + f": told apart on {self.questions:,} questions"
        text += f": cannot tell on {self.questions:,} questions"
        if self.questions_needed is not None:
            return text + f"; about {self.questions_needed:,} would tell a difference this size apart"
        return text + "; no difference was seen"


@dataclass(frozen=True)
class LevelEvidence:
    """What one experiment shows about ``measure``: a point per level, each level against the first, Cochran's Q."""

    measure: str
    points: tuple[LevelPoint, ...]
    differences: tuple[LevelDifference, ...]
    no_effect: tuple[float, int, float] | None
    alpha: float

    @property
    def questions(self) -> int:
        """Return the questions asked at every level."""
        return self.points[0].questions if self.points else 0

    @property
    def shows_effect(self) -> bool:
        """True when some level is told apart from the first (or, with three levels or more, Cochran's Q resolves)."""
        q_resolved = self.no_effect is not None and len(self.points) > 2 and self.no_effect[2] < self.alpha
        return any(d.resolved for d in self.differences) or q_resolved

    def lines(self) -> list[str]:
        """Return the tests in words: the headline, each difference, and (three levels or more) Cochran's Q."""
        if self.shows_effect:
            head = f"the levels change {self.measure}: told apart on {self.questions:,} questions"
        else:
            head = f"no change in {self.measure} shown: cannot tell on {self.questions:,} questions"
        lines = [head, *(d.sentence(self.measure) for d in self.differences)]
        if self.no_effect is not None and len(self.points) > 2:
            q, df, p = self.no_effect
            verdict = (
                "the levels do not share one rate" if p < self.alpha else "one rate for every level is not ruled out"
            )
            lines.append(f"Cochran's Q = {q:.1f} ({df} df), {p_text(p)} (permutation test): {verdict}")
        return lines


def _difference(
    first: str, second: str, a: Sequence[bool], b: Sequence[bool], adjusted: float, p: float, m: int, alpha: float
) -> LevelDifference:
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    n = len(a)
    low, high = paired_rate_interval(only_a, only_b, n)
    diff = 100.0 * (only_b - only_a) / n
    resolved = adjusted < alpha and (low > 0 or high < 0)
    needed = None
    delta, psi = abs(only_b - only_a) / n, (only_a + only_b) / n
    if not resolved and delta > 0:
        needed = questions_for_difference(delta, psi, alpha=alpha / m)
    return LevelDifference(first, second, diff, 100.0 * low, 100.0 * high, p, adjusted, m, n, resolved, needed)


def level_effect(
    outcomes: Mapping[int, Sequence[bool]],
    labels: Mapping[int, str],
    *,
    measure: str = "accuracy",
    alpha: float = ALPHA,
) -> LevelEvidence:
    """Return the ``LevelEvidence`` of ``outcomes`` (``{level: yes/no per question}``, the same questions in order).

    The first level in ``outcomes`` is the reference every other is tested against.
    """
    levels = list(outcomes)
    if not levels:
        raise InvalidInputError("an experiment needs one level or more", field="levels")
    n = len(outcomes[levels[0]])
    if n == 0 or any(len(outcomes[level]) != n for level in levels):
        raise InvalidInputError("every level needs the same questions, at least one", field="outcomes")
    points = []
    for level in levels:
        hits = sum(outcomes[level])
        low, high = wilson_interval(hits, n)
        points.append(LevelPoint(level, labels[level], 100.0 * hits / n, 100.0 * low, 100.0 * high, n, hits))
    first = levels[0]
    pairs = [(first, level) for level in levels[1:]]
    p_values = [
        mcnemar_exact(
            sum(1 for x, y in zip(outcomes[a], outcomes[b], strict=True) if x and not y),
            sum(1 for x, y in zip(outcomes[a], outcomes[b], strict=True) if y and not x),
        )
        for a, b in pairs
    ]
    adjusted = holm_adjust(p_values)
    m = len(pairs)
    differences = tuple(
        _difference(labels[a], labels[b], outcomes[a], outcomes[b], adj, p, m, alpha)
        for (a, b), p, adj in zip(pairs, p_values, adjusted, strict=True)
    )
    no_effect = cochran_q([list(outcomes[level]) for level in levels]) if len(levels) > 1 else None
    return LevelEvidence(measure, tuple(points), differences, no_effect, alpha)


def level_power_lines(
    questions: int, levels: int, *, detect: float | None, discordance: float, alpha: float = ALPHA
) -> list[str]:
    """Return what ``questions`` per level can show (each level against the first, Holm's α split), in words.

    McNemar's test at 80% power with α split over the ``levels - 1`` comparisons, assuming
    ``discordance`` of the questions answer differently at two levels; ``detect`` (points): how
    many questions that difference needs.
    """
    comparisons = max(1, levels - 1)
    share = alpha / comparisons
    basis = (
        f"paired McNemar, 80% power, α = {alpha:g}"
        + (f" split over {comparisons} comparisons" if comparisons > 1 else "")
        + f", assuming {100 * discordance:.0f}% of questions are answered differently at two levels"
    )
    found = detectable_difference(questions, discordance, alpha=share)
    lines = [
        f"{questions} questions per level cannot detect any difference ({basis})"
        if found is None
        else f"{questions} questions per level detect a difference of {100 * found:.1f} points or more ({basis})"
    ]
    if detect is not None:
        if not 0 < detect <= 100:
            raise InvalidInputError(f"detect must be a difference in points between 0 and 100, got {detect!r}")
        if detect / 100.0 <= discordance:
            needed = questions_for_difference(detect / 100.0, discordance, alpha=share)
            lines.append(f"a {detect:g}-point difference needs about {needed:,} questions per level")
        else:
            lines.append(
                f"a {detect:g}-point difference cannot be shown when only {100 * discordance:.0f}% of questions "
                "answer differently; give a larger --discordance if you expect more"
            )
    return lines
