"""Asking the model every prompt of a context experiment: one loop over questions x levels, scored.

``run_experiment`` sends the plan's prompts through ``models.batch.answer_prompts`` (bounded
concurrency, the response cache first, so a rerun after a stop sends only what is missing) and
scores each answer as Liu et al. do, and whether it abstains (``refusals``).
``run_experiment_until_resolved`` adds questions a batch at a time on the position curve's look
schedule (``curve_design.look_schedule``: α split over the looks) and stops at the first look
whose test resolves: the first level against the last, or Cochran's Q over all of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...models.batch import DEFAULT_CONCURRENCY
from ...models.pace import RunPace, combined_pace, measured_pace
from ...models.replies import safe_line
from ...models.scoring import answer_is_correct
from ...paired import ALPHA
from ..curve_design import Look, LookSchedule
from .evidence import LevelEvidence, level_effect
from .plan import ExperimentPlan
from .refusals import is_refusal

__all__ = ["ExperimentResult", "ExperimentRow", "run_experiment", "run_experiment_until_resolved"]


@dataclass(frozen=True)
class ExperimentRow:
    """One answered prompt: the question, the level, the answer and how it scored."""

    query_id: str
    level: int
    answer: str
    correct: bool
    abstained: bool
    context_tokens: int
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None


@dataclass
class ExperimentResult:
    """Every answer of an experiment, and what they show (``evidence``, ``flip_rate``)."""

    plan: ExperimentPlan
    model: str
    rows: list[ExperimentRow]
    meta: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pace: RunPace | None = None

    def outcomes(self, measure: str | None = None) -> dict[int, list[bool]]:
        """Return ``{level: yes/no per question}`` of ``measure`` (default the kind's), questions in plan order."""
        measure = measure or self.plan.settings.measure
        marks = {(r.query_id, r.level): (r.abstained if measure == "abstained" else r.correct) for r in self.rows}
        return {level: [marks[(q.query_id, level)] for q in self.plan.questions] for level in self.plan.settings.levels}

    def evidence(self, alpha: float = ALPHA) -> LevelEvidence:
        """Return the paired tests between levels of the kind's measure (accuracy, or abstained)."""
        settings = self.plan.settings
        labels = {level: settings.label(level) for level in settings.levels}
        return level_effect(self.outcomes(), labels, measure=settings.measure, alpha=alpha)

    def flip_rate(self) -> float:
        """Return the % of questions whose correctness is not the same at every level (orders: the flip rate)."""
        by_level = self.outcomes("accuracy")
        questions = len(self.plan.questions)
        if not questions:
            return 0.0
        flips = sum(1 for i in range(questions) if len({marks[i] for marks in by_level.values()}) > 1)
        return 100.0 * flips / questions

    def rate(self, level: int, measure: str) -> float:
        """Return the % of questions at ``level`` that are ``measure`` (``accuracy``, ``abstained``, ``made_up``)."""
        rows = [r for r in self.rows if r.level == level]
        if not rows:
            return 0.0
        if measure == "made_up":
            hits = sum(1 for r in rows if not r.abstained)
        else:
            hits = sum(1 for r in rows if (r.abstained if measure == "abstained" else r.correct))
        return 100.0 * hits / len(rows)


def run_experiment(
    plan: ExperimentPlan,
    client: Any,
    *,
    cache: Any = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Any = None,
) -> ExperimentResult:
    """Return the answers of ``client`` (a ``ModelClient``) to every prompt of ``plan``, scored."""
    from ...models.batch import answer_notes, answer_prompts

    order = list(dict.fromkeys(plan.prompts))
    started = time.monotonic()
    sent = answer_prompts(client, order, cache=cache, concurrency=concurrency, progress=progress)
    pace = measured_pace(sent, time.monotonic() - started, concurrency)
    replies = dict(zip(order, sent, strict=True))
    gold = {q.query_id: q.answers for q in plan.questions}
    rows = []
    for case in plan.cases:
        reply = replies[case.prompt]
        rows.append(
            ExperimentRow(
                case.query_id,
                case.level,
                reply.answer,
                answer_is_correct(reply.answer, gold[case.query_id]),
                is_refusal(reply.answer),
                case.context_tokens,
                reply.prompt_tokens,
                reply.completion_tokens,
                reply.latency_ms,
            )
        )
    answers = [replies[p] for p in order]
    model = (client.served_model if any(not a.cached for a in answers) else None) or client.model or "model"
    return ExperimentResult(
        plan,
        safe_line(model),
        rows,
        meta={**client.describe(), "shots": plan.settings.shots},
        notes=answer_notes(answers, client),
        pace=pace,
    )


def _look(evidence: LevelEvidence, schedule: LookSchedule) -> Look:
    ends = evidence.differences[-1]  # the first level against the last
    q = evidence.no_effect[2] if evidence.no_effect is not None else None
    resolved = ends.p_value < schedule.test_alpha or (schedule.tests == 2 and q is not None and q < schedule.test_alpha)
    return Look(evidence.questions, ends.p_value, q, resolved)


def run_experiment_until_resolved(
    plan: ExperimentPlan,
    client: Any,
    schedule: LookSchedule,
    *,
    cache: Any = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Any = None,
    on_look: Callable[[Look], None] | None = None,
) -> tuple[ExperimentResult, list[Look]]:
    """Return the experiment at the first look that resolves (or the last), and every look taken.

    Each look answers the plan's first questions up to its count; answers already given come
    from ``cache`` (or from memory without one), so the prompts are the same whether it stops
    early or not.
    """
    from ...errors import InvalidInputError
    from ...models.cache import ResponseCache

    if len(plan.settings.levels) < 2:
        raise InvalidInputError("stopping when resolved needs two levels or more", field="levels")
    memory = cache if cache is not None else ResponseCache(":memory:")
    looks: list[Look] = []
    paces: list[RunPace] = []
    result: ExperimentResult | None = None
    for count in sorted({min(n, len(plan.questions)) for n in schedule.looks}):
        result = run_experiment(plan.first(count), client, cache=memory, concurrency=concurrency, progress=progress)
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
