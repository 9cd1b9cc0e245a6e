"""A position curve asked for end to end: plan, say what it can show and costs, ask, run, write.

``contextlab curve`` (and any front end) turns what it was given into one ``CurveRequest`` and
calls ``measure_curve``: the questions are planned (``curve.plan_curve``), what they can show is
said (``curve_design.curve_power``) with the calls, tokens and time at the endpoint's last
measured pace, ``confirm`` is asked once, the model answers (all at once, or a batch at a time
until first against last is resolved), the curve and its per-question outcomes are written
whole or not at all, and the pace is kept for the next estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..atomic import check_target
from ..curves.evidence import CurveEvidence
from ..models import endpoint_tokenizer, plan_calls, prompt_counter
from ..models.batch import CallPlan
from ..models.cache import ResponseCache
from ..models.client import ModelClient
from ..models.pace import estimate_seconds, remember_pace
from ..models.replies import safe_line
from ..paired import ALPHA, DEFAULT_DISCORDANCE
from ..progress import Progress
from .curve import CurvePlan, CurveResult, plan_curve, run_curve, write_curve
from .curve_design import LookSchedule, curve_power, look_schedule, run_until_resolved
from .eval_request import Confirm, Say
from .measured import MeasureSettings
from .sets import load_eval_set

__all__ = ["CurveOutcome", "CurveRequest", "measure_curve"]


@dataclass(frozen=True)
class CurveRequest:
    """One position curve as asked for: the questions, the design, the model, and where it is written.

    ``evalset`` None is the bundled set; ``store`` gives other documents to questions without any.
    ``max_questions`` set means: answer ``limit`` questions at a time and stop once the curve is
    resolved, at most ``max_questions`` in all. ``detect`` (points) and ``discordance`` (a share
    of questions) shape what is said before sending about what the questions can show.
    """

    out: str | Path
    measure: MeasureSettings
    evalset: str | Path | None = None
    store: str | Path | None = None
    documents: int = 10
    positions: str | Sequence[int] = (1, 5, 10)
    limit: int = 100
    closed_book: bool = True
    max_questions: int | None = None
    detect: float | None = None
    discordance: float = DEFAULT_DISCORDANCE
    name: str | None = None


@dataclass(frozen=True)
class CurveOutcome:
    """A curve measured and written: the answers, what they show, the label it was written under, the file."""

    result: CurveResult
    evidence: CurveEvidence
    label: str
    path: Path


def _plan(request: CurveRequest, say: Say) -> CurvePlan:
    """Return the run's plan (the largest set of questions it may answer), the set's notes said."""
    evalset = None
    if request.evalset is not None:
        evalset = load_eval_set(request.evalset, store=request.store)
        for line in evalset.notes:
            say(line)
    plan = plan_curve(
        evalset,
        documents=request.documents,
        positions=request.positions,
        limit=request.max_questions if request.max_questions is not None else request.limit,
        shots=request.measure.shots,
        closed_book=request.closed_book,
    )
    skipped = plan.skipped_note()
    if skipped:
        say(skipped)
    return plan


def _cost_said(
    plan: CurvePlan, schedule: LookSchedule | None, client: ModelClient, cache: ResponseCache | None, say: Say
) -> CallPlan:
    """Return what the run may send (a ``CallPlan``), having said what the confirmation's line does not."""
    # The prompts are the paper's lists, not budgeted blocks: the endpoint's counts only price them.
    tokenizer, _ = endpoint_tokenizer(client.endpoint, client.model, store=cache)
    counter, exact = prompt_counter(tokenizer), tokenizer is not None
    cost = plan_calls(client, plan.prompts, cache, counter, tokens_exact=exact)
    if schedule is not None and cost.calls:
        first = plan_calls(client, plan.first(schedule.looks[0]).prompts, cache, counter, tokens_exact=exact)
        say(
            f"the calls below are the most this run sends if it never resolves; the first look, after "
            f"{schedule.looks[0]} questions, needs {first.calls} of them"
        )
    if cost.calls:
        client.resolve_model()  # down, not its API, or no such model: one line before asking to send
        estimate = estimate_seconds(cache, client.endpoint, client.model_label, cost.prompt_tokens)
        say(
            f"about {estimate[0] / 60:.0f} minutes {estimate[1]}"
            if estimate is not None
            else "no pace measured at this endpoint yet: the progress bar's ETA says once the first calls are answered"
        )
    return cost


def _confirmed(
    request: CurveRequest,
    plan: CurvePlan,
    schedule: LookSchedule | None,
    client: ModelClient,
    cache: ResponseCache | None,
    say: Say,
    confirm: Confirm,
) -> bool:
    """Say what the run can show and costs, and return whether ``confirm`` lets it send."""
    alpha = schedule.look_alpha if schedule is not None else ALPHA
    power = curve_power(
        len(plan.questions), len(plan.positions), detect=request.detect, discordance=request.discordance, alpha=alpha
    )
    for line in power.lines():
        say(line)
    if schedule is not None:
        say(schedule.describe())
    return confirm(_cost_said(plan, schedule, client, cache, say), client.endpoint)


def measure_curve(
    request: CurveRequest, *, say: Say, confirm: Confirm, progress: Progress | None = None
) -> CurveOutcome | None:
    """Return the measured curve of ``request``, written to ``request.out``; None when ``confirm`` refused.

    The output path is checked first: a typo costs nothing. ``progress`` hears the prompts answered.
    """
    path = check_target(request.out, "out")
    plan = _plan(request, say)
    schedule = (
        look_schedule(request.limit, request.max_questions, len(plan.positions))
        if request.max_questions is not None
        else None
    )
    client, cache = request.measure.client(), request.measure.open_cache()
    if cache is not None and cache.note:
        say(cache.note)
    if not _confirmed(request, plan, schedule, client, cache, say, confirm):
        return None
    concurrency = request.measure.concurrency
    if schedule is None:
        result = run_curve(plan, client, cache=cache, concurrency=concurrency, progress=progress)
        evidence = result.evidence()
    else:
        looked = schedule
        result, _ = run_until_resolved(
            plan,
            client,
            schedule,
            cache=cache,
            concurrency=concurrency,
            progress=progress,
            on_look=lambda look: say(look.describe(looked)),
        )
        evidence = result.evidence(alpha=schedule.look_alpha)
    for line in result.notes:
        say(line)
    label = safe_line(request.name) if request.name else result.model
    write_curve(result, path, label, evidence)
    if result.pace is not None:
        remember_pace(cache, client.endpoint, client.model_label, result.pace)
    return CurveOutcome(result, evidence, label, path)
