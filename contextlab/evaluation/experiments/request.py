"""A context experiment asked for end to end: plan, check the window, say what it can show and costs, run, write.

``contextlab curve --vary KIND`` (and any front end) turns what it was given into one
``ExperimentRequest`` and calls ``measure_experiment``, as ``curve_request.measure_curve`` does
for positions: every prompt is planned and counted (in the endpoint's tokens where it counts them),
every level is checked against the model's window before any call, the power and each level's
cost are said, ``confirm`` is asked once, the model answers (all at once, or a batch at a time
until resolved), and the file is written whole or not at all. Bad input raises
``InvalidInputError`` before anything is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...atomic import check_target
from ...models import endpoint_tokenizer, plan_calls
from ...models.cache import ResponseCache
from ...models.client import ModelClient
from ...models.pace import estimate_seconds, remember_pace
from ...models.replies import safe_line
from ...paired import ALPHA, DEFAULT_DISCORDANCE
from ...progress import Progress
from ...tokenizers import Tokenizer, get_tokenizer
from ..curve_design import LookSchedule, look_schedule
from ..eval_request import Confirm, Say
from ..measured import MeasureSettings
from ..sets import load_eval_set
from .contexts import read_filler
from .design import ExperimentSettings
from .evidence import LevelEvidence, level_power_lines
from .files import write_experiment
from .plan import ExperimentPlan, plan_experiment
from .run import ExperimentResult, run_experiment, run_experiment_until_resolved
from .window import check_window, level_costs, served_window

__all__ = ["ExperimentOutcome", "ExperimentRequest", "measure_experiment"]


@dataclass(frozen=True)
class ExperimentRequest:
    """One context experiment as asked for: the kind and its levels, the questions, the model, the file.

    ``max_questions`` set means: answer ``limit`` questions at a time and stop once resolved, at
    most ``max_questions`` in all. ``window`` None asks the server how many tokens a request may
    hold. ``filler`` None pads with the bundled passages.
    """

    out: str | Path
    measure: MeasureSettings
    kind: str
    evalset: str | Path | None = None
    store: str | Path | None = None
    lengths: Sequence[int] = (500, 2000, 8000)
    position: int = 1
    filler: str | Path | None = None
    distractors: Sequence[int] = (0, 1, 4)
    distractor_kind: str = "related"
    orders: int = 3
    documents: int = 10
    seed: int = 0
    limit: int = 100
    max_questions: int | None = None
    detect: float | None = None
    discordance: float = DEFAULT_DISCORDANCE
    window: int | None = None
    name: str | None = None

    def settings(self) -> ExperimentSettings:
        """Return the experiment's design (checked when made)."""
        return ExperimentSettings(
            kind=self.kind,
            lengths=tuple(self.lengths),
            position=self.position,
            distractors=tuple(self.distractors),
            distractor_kind=self.distractor_kind,
            orders=self.orders,
            documents=self.documents,
            seed=self.seed,
            shots=self.measure.shots,
            limit=self.max_questions if self.max_questions is not None else self.limit,
        )


@dataclass(frozen=True)
class ExperimentOutcome:
    """An experiment measured and written: the answers, what they show, its label, the file."""

    result: ExperimentResult
    evidence: LevelEvidence
    label: str
    path: Path


def _tokenizer(client: ModelClient, cache: ResponseCache | None, say: Say) -> Tokenizer:
    tokenizer, why = endpoint_tokenizer(client.endpoint, client.model, store=cache)
    if tokenizer is not None:
        return tokenizer
    say(f"tokens counted in cl100k_base, an approximation of the model's ({why})")
    return get_tokenizer("cl100k_base")


def _plan(request: ExperimentRequest, tokenizer: Tokenizer, say: Say) -> ExperimentPlan:
    settings = request.settings()
    evalset = load_eval_set(request.evalset, store=request.store) if request.evalset is not None else None
    for line in evalset.notes if evalset is not None else []:
        say(line)
    filler = read_filler(request.filler) if request.filler is not None else None
    plan = plan_experiment(settings, evalset, tokenizer=tokenizer, filler=filler)
    skipped = plan.skipped_note()
    if skipped:
        say(skipped)
    return plan


def _window_checked(request: ExperimentRequest, plan: ExperimentPlan, client: ModelClient, say: Say) -> None:
    window = request.window or served_window(client.endpoint)
    if window is None:
        say("the endpoint does not say how many tokens a request may hold: no level was checked against it")
        return
    assert client.sampling is not None
    check_window(plan, window, client.sampling.max_tokens, endpoint=client.endpoint)
    longest = max(plan.longest_prompt(level) for level in plan.settings.levels)
    say(f"every level fits the model's window of {window:,} tokens a request (the longest prompt: {longest:,})")


def _confirmed(
    request: ExperimentRequest,
    plan: ExperimentPlan,
    schedule: LookSchedule | None,
    client: ModelClient,
    cache: ResponseCache | None,
    say: Say,
    confirm: Confirm,
) -> bool:
    """Say what the run can show and what each level costs, and return whether ``confirm`` lets it send."""
    alpha = schedule.look_alpha if schedule is not None else ALPHA
    levels = len(plan.settings.levels)
    for line in level_power_lines(
        len(plan.questions), levels, detect=request.detect, discordance=request.discordance, alpha=alpha
    ):
        say(line)
    if schedule is not None:
        say(schedule.describe())
    counts = {c.prompt: c.prompt_tokens for c in plan.cases}
    cost = plan_calls(client, plan.prompts, cache, counts.__getitem__, tokens_exact=plan.counted_in != "cl100k_base")
    if cost.calls:
        client.resolve_model()  # down, not its API, or no such model: one line before asking to send

        def seconds(tokens: int) -> float | None:
            found = estimate_seconds(cache, client.endpoint, client.model_label, tokens)
            return None if found is None else found[0]

        for level in level_costs(plan, client, cache, seconds):
            say(level.line())
        pace = estimate_seconds(cache, client.endpoint, client.model_label, 1)
        say(
            f"times {pace[1]}"
            if pace is not None
            else "no pace measured at this endpoint yet: the progress bar's ETA says once the first calls are answered"
        )
    return confirm(cost, client.endpoint)


def measure_experiment(
    request: ExperimentRequest, *, say: Say, confirm: Confirm, progress: Progress | None = None
) -> ExperimentOutcome | None:
    """Return the measured experiment of ``request``, written to ``request.out``; None when ``confirm`` refused."""
    path = check_target(request.out, "out")
    client, cache = request.measure.client(), request.measure.open_cache()
    if cache is not None and cache.note:
        say(cache.note)
    plan = _plan(request, _tokenizer(client, cache, say), say)
    _window_checked(request, plan, client, say)
    levels = len(plan.settings.levels)
    schedule = (
        look_schedule(request.limit, request.max_questions, levels) if request.max_questions is not None else None
    )
    if not _confirmed(request, plan, schedule, client, cache, say, confirm):
        return None
    concurrency = request.measure.concurrency
    if schedule is None:
        result = run_experiment(plan, client, cache=cache, concurrency=concurrency, progress=progress)
        evidence = result.evidence()
    else:
        looked = schedule
        result, _ = run_experiment_until_resolved(
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
    write_experiment(result, path, label, evidence)
    if result.pace is not None:
        remember_pace(cache, client.endpoint, client.model_label, result.pace)
    return ExperimentOutcome(result, evidence, label, path)
