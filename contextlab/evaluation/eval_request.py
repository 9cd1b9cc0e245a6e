"""An evaluation asked for end to end: plan, price, ask, run, remember the pace, write the files.

``contextlab eval`` (and any front end) turns what it was given into one ``EvalRequest`` and
calls ``evaluate_request``; everything after that happens here. The caller hears the notes a
user should read (``say``) and answers the one question a run that calls a model asks before
sending (``confirm``: the calls, the tokens and the endpoint in a ``CallPlan``).

- No model answers: the rows stream to ``results.csv`` as they are made (memory does not grow
  with the questions), unless a measured curve is read, whose reading is said from the rows.
- A model answers (``measure``): the blocks and prompts are planned, the cost is said with the
  time it may take at the endpoint's last measured pace, ``confirm`` is asked, the model
  answers, its pace is kept for the next estimate, and both files are written whole or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import check_target
from ..errors import InvalidInputError
from ..models.batch import CallPlan
from ..models.pace import estimate_seconds, remember_pace
from ..progress import Progress
from .measured import MeasureSettings, plan_measured
from .metrics import curve_reading_note
from .options import RunOptions
from .output import stream_to_files, write_results
from .run import EvalResult, plan_run

__all__ = ["Confirm", "EvalRequest", "Say", "evaluate_request"]

#: Told each line a user should read (what the set's loader found, the cost, the pace, the files).
Say = Callable[[str], None]
#: Asked before a model is sent anything: ``(cost, endpoint)``; True lets the run send.
Confirm = Callable[[CallPlan, str], bool]


@dataclass(frozen=True)
class EvalRequest:
    """One evaluation as asked for: the set, the grid, how it runs, who answers, and where it is written.

    ``evalset`` is a JSONL path (None: the bundled set); ``grid`` the ``KEY=V1,V2`` specs;
    ``measure`` the model that answers (None: no model, only what reaches the block and the
    published or measured curve's estimate); ``out`` the results CSV, ``summary`` the JSON.
    """

    out: str | Path
    evalset: str | Path | None = None
    grid: Sequence[str] | None = None
    options: RunOptions = field(default_factory=RunOptions)
    measure: MeasureSettings | None = None
    summary: str | Path | None = None


def _check_targets(request: EvalRequest) -> None:
    """Raise before any work (or call paid for) when an output path cannot be written."""
    check_target(request.out, "out")
    if request.summary is not None:
        check_target(request.summary, "summary")


def _written(result: EvalResult, request: EvalRequest, say: Say) -> EvalResult:
    """Write a run kept in memory (saying how a measured curve was read first); return it."""
    curves = request.options.curves
    warning = curve_reading_note(result.rows, curves) if curves is not None else None
    if warning:
        say(warning)
    write_results(result, request.out, request.summary)
    return result


def _answered(
    request: EvalRequest, measure: MeasureSettings, say: Say, confirm: Confirm, progress: Progress | None
) -> EvalResult | None:
    """Return the measured run's result, None when ``confirm`` did not let it send."""
    run = plan_measured(request.evalset, request.grid, request.options, measure=measure)
    for line in run.plan.notes + run.notes:
        say(line)
    said = len(run.notes)
    cost = run.cost()
    if cost.calls:
        estimate = estimate_seconds(run.cache, run.client.endpoint, run.client.model_label, cost.prompt_tokens)
        if estimate is not None:
            say(f"about {estimate[0] / 60:.0f} minutes {estimate[1]}")
    if not confirm(cost, run.client.endpoint):
        return None
    result = run.run(progress=progress)
    for line in run.notes[said:]:
        say(line)
    if result.pace is not None:
        for line in result.pace.lines():
            say(f"pace: {line}")
        remember_pace(run.cache, run.client.endpoint, run.client.model_label, result.pace)
    return result


def evaluate_request(
    request: EvalRequest, *, say: Say, confirm: Confirm, progress: Progress | None = None
) -> EvalResult | None:
    """Return the finished run of ``request``, its files written; None when ``confirm`` refused to send.

    Every bad argument and unwritable path fails before the first question runs (or the first
    call is paid for). ``progress`` hears the questions (or, with a model, the prompts) done.
    """
    _check_targets(request)
    if request.measure is not None:
        if request.options.on_dask:
            raise InvalidInputError(
                "a run with a model answering runs here, not on Dask: leave out workers and scheduler",
                field="workers",
            )
        answered = _answered(request, request.measure, say, confirm, progress)
        return None if answered is None else _written(answered, request, say)
    plan = plan_run(request.evalset, request.grid, request.options)
    for line in plan.notes:
        say(line)
    if request.options.curves is not None:  # kept in memory: how the curve was read is said from the rows
        return _written(plan.run(progress), request, say)
    return stream_to_files(plan, request.out, request.summary, progress=progress)
