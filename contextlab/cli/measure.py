"""``contextlab eval --endpoint``: measured answers (and ``--curve``, your own curve, for any eval).

``eval`` calls ``cmd_eval_measured`` when ``--endpoint`` is given: the library plans the run
(``plan_measured``), the command says what it will send and how long it may take, asks, then the
model answers. A measured run keeps its rows in memory (a model answers a few questions a second
at best) and writes ``results.csv`` and the summary whole or not at all. ``--curve`` is a
``RunOptions`` value like any other: plain and measured runs both read it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..atomic import check_target
from ..safe_text import terminal_safe_lines
from .flags import note
from .model import confirm_calls, interrupted, measure_settings

__all__ = ["cmd_eval_measured", "add_measure_options", "finish_eval"]


def add_measure_options(p: argparse.ArgumentParser) -> None:
    """Add ``--endpoint --api --shots --concurrency --cache/--no-cache --yes --curve`` to ``eval``."""
    from .model import add_model_options

    add_model_options(p)
    p.add_argument(
        "--curve",
        metavar="FILE",
        help="a curve file from `contextlab curve`: expected_accuracy (and placement=curve) "
        "read your model's measured curve instead of the published ones",
    )


def _answered(args: argparse.Namespace, options: Any) -> Any:
    """Return the measured run's result (None when the user did not let it send), notes said on the way."""
    from ..evaluation.measured import plan_measured
    from ..models.pace import estimate_seconds, remember_pace
    from ..progress import ProgressBar

    run = plan_measured(args.evalset, args.grid, options, measure=measure_settings(args, args.model))
    for line in run.plan.notes + run.notes:
        note(line)
    said = len(run.notes)
    cost = run.cost()
    if cost.calls:
        estimate = estimate_seconds(run.cache, run.client.endpoint, run.client.model_label, cost.prompt_tokens)
        if estimate is not None:
            note(f"about {estimate[0] / 60:.0f} minutes {estimate[1]}")
    if not confirm_calls(cost, run.client.endpoint, args.yes):
        return None
    result = run.run(progress=ProgressBar(sys.stderr, width=24, label="prompts"))
    for line in run.notes[said:]:
        note(line)
    for line in result.pace.lines():
        note(f"pace: {line}")
    remember_pace(run.cache, run.client.endpoint, run.client.model_label, result.pace)
    return result


def finish_eval(result: Any, args: argparse.Namespace, options: Any) -> int:
    """Write a run kept in memory, say how a measured curve was read, print the table; return 0."""
    from ..evaluation.metrics import curve_reading_note
    from ..evaluation.output import summary_table, write_results

    warning = curve_reading_note(result.rows, options.curves) if options.curves is not None else None
    if warning:
        note(warning)
    write_results(result, args.out, args.summary)
    print(terminal_safe_lines(summary_table(result)))
    written = f" and {args.summary}" if args.summary else ""
    note(f"wrote {result.n_rows} rows to {args.out}{written}")
    return 0


def cmd_eval_measured(args: argparse.Namespace, options: Any) -> int:
    """Run ``eval`` with a model answering (``--endpoint``): plan, say the cost, ask, answer, write."""
    if options.on_dask:
        note("a run with --endpoint runs here, not on Dask: leave out --workers/--scheduler")
        return 2
    for path, field in ((args.out, "out"), (args.summary, "summary")):
        if path:  # before a call is paid for: a typo in a path costs nothing
            check_target(path, field)
    try:
        result = _answered(args, options)
    except KeyboardInterrupt as stop:
        return interrupted(stop)
    if result is None:
        return 1
    return finish_eval(result, args, options)
