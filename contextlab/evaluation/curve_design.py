"""Planning a position curve before it is paid for, and stopping it honestly once it has answered.

- ``curve_power``: what N questions per position can show (the smallest paired difference
  McNemar's test detects with 80% power, from a discordance it states), and how many questions a
  D-point difference needs;
- ``look_schedule``: a fixed schedule of looks (every ``batch`` questions up to a maximum) and the
  α each test at each look may spend (Bonferroni: α split over looks and tests);
- ``run_until_resolved``: adds questions a batch at a time and stops at the first look whose
  test resolves, first against last (McNemar's exact p) or Cochran's Q for any position effect.

A test at each look at the full α would find a difference that is not there far more often than
α says (every look is another chance); splitting α over the planned looks keeps the chance of a
false "resolved" over the whole run at most α, however the looks fall.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..curves.evidence import CurveEvidence
from ..errors import InvalidInputError
from ..models.batch import DEFAULT_CONCURRENCY
from ..models.pace import combined_pace
from ..paired import (
    ALPHA,
    DEFAULT_DISCORDANCE,
    detectable_difference,
    questions_for_difference,
)
from ..validation import message_value, whole_number
from .curve import CurvePlan, CurveResult, run_curve

__all__ = ["CurvePower", "Look", "LookSchedule", "curve_power", "look_schedule", "run_until_resolved"]


def _comparisons(positions: int) -> int:
    """Return the tests of a curve's family: each position against the first, each middle one against the last."""
    return max(1, 2 * positions - 3)


@dataclass(frozen=True)
class CurvePower:
    """What a planned curve can show: N, the family's α, the discordance assumed, and the sizes it detects."""

    questions: int
    comparisons: int
    alpha: float
    discordance: float
    detectable: float | None
    detect: float | None = None
    needed: int | None = None

    def lines(self) -> list[str]:
        """Return the plan in words: what N detects, and (``detect``) how many a D-point difference needs."""
        basis = (
            f"paired McNemar, 80% power, α = {self.alpha:g}"
            + (f" split over {self.comparisons} comparisons" if self.comparisons > 1 else "")
            + f", assuming {100 * self.discordance:.0f}% of questions are answered differently at two positions"
        )
        if self.detectable is None:
            out = [f"{self.questions} questions per position cannot detect any difference ({basis})"]
        else:
            out = [
                f"{self.questions} questions per position detect a difference of {self.detectable:.1f} points "
                f"or more ({basis})"
            ]
        if self.detect is not None:
            out.append(
                f"a {self.detect:g}-point difference needs about {self.needed:,} questions per position"
                if self.needed is not None
                else f"a {self.detect:g}-point difference cannot be shown when only {100 * self.discordance:.0f}% "
                "of questions answer differently; give a larger --discordance if you expect more"
            )
        return out


def curve_power(
    questions: int,
    positions: int,
    *,
    detect: float | None = None,
    discordance: float = DEFAULT_DISCORDANCE,
    alpha: float = ALPHA,
) -> CurvePower:
    """Return the ``CurvePower`` of ``questions`` per position over ``positions`` positions (``detect`` in points)."""
    whole_number("questions", questions, minimum=1)
    m = _comparisons(positions)
    found = detectable_difference(questions, discordance, alpha=alpha / m)
    needed = None
    if detect is not None:
        if not isinstance(detect, (int, float)) or not 0 < detect <= 100:
            raise InvalidInputError(
                f"detect must be a difference in points between 0 and 100, got {message_value(detect)}", field="detect"
            )
        if detect / 100.0 <= discordance:
            needed = questions_for_difference(detect / 100.0, discordance, alpha=alpha / m)
    return CurvePower(
        questions,
        m,
        alpha,
        discordance,
        None if found is None else 100.0 * found,
        None if detect is None else float(detect),
        needed,
    )


@dataclass(frozen=True)
class LookSchedule:
    """The looks of a run that stops when resolved: question counts, and the α each test spends."""

    looks: tuple[int, ...]
    alpha: float
    tests: int

    @property
    def look_alpha(self) -> float:
        """Return the α of each look's family of claims: α / looks."""
        return self.alpha / len(self.looks)

    @property
    def test_alpha(self) -> float:
        """Return the α each stopping test spends at each look: α / (looks x tests)."""
        return self.alpha / (len(self.looks) * self.tests)

    def describe(self) -> str:
        """Return the schedule in one line, with the correction it makes."""
        counts = ", ".join(str(n) for n in self.looks)
        tests = "first against last" if self.tests == 1 else "first against last, and Cochran's Q"
        return (
            f"looks after {counts} questions; α = {self.alpha:g} split over {len(self.looks)} looks x "
            f"{self.tests} test(s) ({tests}), Bonferroni: each tested at p < {self.test_alpha:.3g}, "
            f"claims at α = {self.look_alpha:.3g}"
        )


def look_schedule(batch: int, max_questions: int, positions: int, *, alpha: float = ALPHA) -> LookSchedule:
    """Return looks every ``batch`` questions up to ``max_questions`` (the last look at the maximum)."""
    whole_number("batch", batch, minimum=1)
    whole_number("max_questions", max_questions, minimum=batch)
    looks = [batch * i for i in range(1, math.ceil(max_questions / batch) + 1)]
    looks[-1] = max_questions
    return LookSchedule(tuple(looks), alpha, 1 if positions == 2 else 2)


@dataclass(frozen=True)
class Look:
    """One look: the questions answered so far, the two tests' p, and whether the run stops here."""

    questions: int
    first_last_p: float
    cochran_p: float | None
    resolved: bool

    def describe(self, schedule: LookSchedule) -> str:
        """Return the look in one line."""
        tests = f"first against last p = {self.first_last_p:.3g}"
        if self.cochran_p is not None and schedule.tests == 2:
            tests += f", Cochran's Q p = {self.cochran_p:.3g}"
        verdict = "resolved: stop" if self.resolved else f"not resolved at p < {schedule.test_alpha:.3g}"
        return f"look at {self.questions} questions: {tests}; {verdict}"


def _look(evidence: CurveEvidence, schedule: LookSchedule) -> Look:
    first, last = evidence.points[0].position, evidence.points[-1].position
    ends = evidence.difference(first, last)
    assert ends is not None
    q = evidence.no_effect[2] if evidence.no_effect is not None else None
    resolved = ends.p_value < schedule.test_alpha or (schedule.tests == 2 and q is not None and q < schedule.test_alpha)
    return Look(evidence.questions or 0, ends.p_value, q, resolved)


def run_until_resolved(
    plan: CurvePlan,
    client: Any,
    schedule: LookSchedule,
    *,
    cache: Any = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Any = None,
    on_look: Callable[[Look], None] | None = None,
) -> tuple[CurveResult, list[Look]]:
    """Return the curve at the first look that resolves (or the last), and every look taken.

    ``plan`` holds the run's largest set of questions (the schedule's last look); each look
    answers the plan's first questions up to its count (answers already given come from
    ``cache``, or from memory without one), so the questions and prompts are the same whether
    the run stops early or not.
    """
    from ..models.cache import ResponseCache

    if len(plan.positions) < 2:
        raise InvalidInputError("stopping when resolved needs two positions or more", field="positions")
    memory = cache if cache is not None else ResponseCache(":memory:")
    looks: list[Look] = []
    paces = []
    result: CurveResult | None = None
    for count in _counts(schedule.looks, len(plan.questions)):
        result = run_curve(plan.first(count), client, cache=memory, concurrency=concurrency, progress=progress)
        if result.pace is not None:
            paces.append(result.pace)
        result.pace = combined_pace(paces)
        look = _look(result.evidence(alpha=schedule.look_alpha), schedule)
        looks.append(look)
        if on_look is not None:
            on_look(look)
        if look.resolved:
            break
    assert result is not None
    return result, looks


def _counts(looks: Sequence[int], available: int) -> list[int]:
    """Return the looks' question counts that the plan's questions reach (the last cut to what there is)."""
    counts = sorted({min(n, available) for n in looks})
    return counts or [available]
