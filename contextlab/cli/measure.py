"""``contextlab eval --endpoint`` and ``--curve``: measured answers, and expected accuracy from your own curve.

``eval`` calls ``cmd_eval_measured`` when ``--endpoint`` is given (or ``--curve`` is), so a plain
``eval`` is unchanged. A measured run keeps its rows in memory (a model answers a few questions a
second at best) and writes ``results.csv`` and the summary whole or not at all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..safe_text import terminal_safe_lines
from .flags import note
from .model import confirm_calls, interrupted, measure_settings
from .outputs import check_target

__all__ = ["cmd_eval_measured", "add_measure_options"]


def add_measure_options(p: argparse.ArgumentParser) -> None:
    """Add ``--endpoint --api --shots --concurrency --cache/--no-cache --yes --curve`` to ``eval``."""
    from .model import add_model_options

    add_model_options(p)
    p.add_argument("--curve", metavar="FILE",
                   help="a curve file from `contextlab curve`: expected_accuracy (and placement=curve) "
                        "read your model's measured curve instead of the published ones")


def _curve(args: argparse.Namespace) -> Any:
    if not args.curve:
        return None
    from ..curves.curve_file import load_curve_file

    return load_curve_file(args.curve)


def _answered(args: argparse.Namespace, loaded: Any, curves: Any, n_curve: int | None,
              options: dict[str, Any]) -> Any:
    """Return the measured run's result (None when the user did not let it send), notes said on the way."""
    from ..evaluation.measured import plan_measured
    from ..models import CallProgressBar

    run = plan_measured(loaded, args.grid, measure=measure_settings(args, args.model), curves=curves,
                        curve_questions=n_curve, **options)
    from ..models.pace import estimate_seconds, remember_pace

    for line in run.notes:
        note(line)
    said = len(run.notes)
    cost = run.cost()
    if cost.calls:
        estimate = estimate_seconds(run.cache, run.client.endpoint, run.client.model_label, cost.prompt_tokens)
        if estimate is not None:
            note(f"about {estimate[0] / 60:.0f} minutes {estimate[1]}")
    if not confirm_calls(cost, run.client.endpoint, args.yes):
        return None
    result = run.run(progress=CallProgressBar(sys.stderr))
    for line in run.notes[said:]:
        note(line)
    for line in result.pace.lines():
        note(f"pace: {line}")
    remember_pace(run.cache, run.client.endpoint, run.client.model_label, result.pace)
    return result


def cmd_eval_measured(args: argparse.Namespace, evalset: str | None) -> int:
    """Run ``eval`` with a model answering (``--endpoint``) and/or a measured curve (``--curve``)."""
    from ..evaluation import summary_table
    from ..settings import DEFAULT_CURVE_MODEL
    from ..evaluation.measured import evaluate_with_curve
    from ..evaluation.output import write_results
    from ..evaluation.sets import load_eval_set

    if args.workers is not None or args.scheduler is not None:
        note("a run with --endpoint or --curve runs here, not on Dask: leave out --workers/--scheduler")
        return 2
    for path, flag in ((args.out, "--out"), (args.summary, "--summary")):
        if path:  # before a call is paid for: a typo in a path costs nothing
            check_target(path, flag)
    loaded = None if evalset is None else load_eval_set(evalset, store=args.store, max_bytes=args.max_bytes)
    for set_note in loaded.notes if loaded is not None else []:
        note(set_note)
    curves = _curve(args)
    n_curve = curves.questions if curves is not None else None
    options = {"top_k": args.top_k, "limit": args.limit, "baseline": args.baseline, "blocks": args.blocks}
    if curves is not None:
        options["model"] = DEFAULT_CURVE_MODEL  # the published one only names the run; rows read `curves`
    else:
        options["model"] = args.curve_model
    if not args.endpoint:  # --curve alone: the estimate from your own curve, no model asked
        result = evaluate_with_curve(loaded, args.grid, curves, name=Path(args.curve).name, **options)
    else:
        try:
            result = _answered(args, loaded, curves, n_curve, options)
        except KeyboardInterrupt as stop:
            return interrupted(stop)
        if result is None:
            return 1
    if curves is not None:
        from ..evaluation.measured import curve_reading_note

        result.model = f"{curves.models()[0]} (measured curve {Path(args.curve).name})"
        warning = curve_reading_note(result.rows, curves)
        if warning:
            note(warning)
    write_results(result, args.out, args.summary)
    print(terminal_safe_lines(summary_table(result)))
    written = f" and {args.summary}" if args.summary else ""
    note(f"wrote {result.n_rows} rows to {args.out}{written}")
    return 0
