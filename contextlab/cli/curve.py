"""``contextlab curve``: your model's position curve (Liu et al.'s experiment), in the bundled curves' format.

Before sending: what the planned questions can show (``--detect D``: how many a D-point
difference needs), the calls, tokens and the time at the endpoint's last measured pace. After:
accuracy per condition with 95% intervals, the paired tests between positions in words, and
how fast the endpoint answered (with the server's own timings where it reports them).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..atomic import check_target
from ..safe_text import terminal_safe_lines
from ..validation import message_value
from .flags import error_line, note
from .inputs import int_at_least, positive_int
from .model import add_model_options, confirm_calls, interrupted, measure_settings

__all__ = ["add_curve"]


def _table(points: list[dict[str, Any]], label: str) -> str:
    lines = [
        f"{label}: accuracy by condition (95% Wilson interval)",
        f"{'condition':<22} {'accuracy %':>10} {'interval':>15} {'N':>5}",
    ]
    for p in points:
        name = {"closed_book": "closed book", "oracle": "gold only"}.get(
            p["kind"]
        ) or f"gold at {p['position']} of {p['total_docs']}"
        lines.append(
            f"{name:<22} {p['accuracy']:>10.1f} {p['accuracy_low']:>6.1f} - {p['accuracy_high']:<6.1f} "
            f"{p['questions']:>5}"
        )
    return "\n".join(lines)


def _tests(evidence: Any) -> str:
    from ..evaluation.curve import paired_test_lines

    lines = ["paired tests (the same questions at every position; McNemar's exact p, Holm-corrected):"]
    return "\n".join(lines + [f"  {line}" for line in paired_test_lines(evidence)])


def _plan(args: argparse.Namespace) -> Any:
    from ..evaluation.curve import plan_curve
    from ..evaluation.sets import load_eval_set

    evalset = None
    if args.evalset:
        evalset = load_eval_set(args.evalset, store=args.store)
        for line in evalset.notes:
            note(line)
    size = args.max_questions if args.until_resolved else args.limit
    plan = plan_curve(
        evalset,
        documents=args.documents,
        positions=args.positions,
        limit=size,
        shots=args.shots,
        closed_book=not args.no_closed_book,
    )
    if plan.skipped_note():
        note(plan.skipped_note())
    return plan


def _before_sending(args: argparse.Namespace, plan: Any, schedule: Any, client: Any, cache: Any) -> bool:
    """Say what the run can show and costs, and return whether it may send."""
    from ..evaluation.curve_design import curve_power
    from ..models import endpoint_tokenizer, plan_calls, prompt_counter
    from ..models.pace import estimate_seconds
    from ..paired import ALPHA

    alpha = schedule.look_alpha if schedule is not None else ALPHA
    power = curve_power(
        len(plan.questions), len(plan.positions), detect=args.detect, discordance=args.discordance, alpha=alpha
    )
    for line in power.lines():
        note(line)
    if schedule is not None:
        note(schedule.describe())
    # The prompts are the paper's lists, not budgeted blocks: the endpoint's counts only price them.
    tokenizer, _ = endpoint_tokenizer(client.endpoint, client.model, store=cache)
    cost = plan_calls(client, plan.prompts, cache, prompt_counter(tokenizer), tokens_exact=tokenizer is not None)
    if schedule is not None and cost.calls:
        first = plan_calls(
            client,
            plan.first(schedule.looks[0]).prompts,
            cache,
            prompt_counter(tokenizer),
            tokens_exact=tokenizer is not None,
        )
        note(
            f"what follows is the most --until-resolved sends; the first look, after {schedule.looks[0]} "
            f"questions, needs {first.calls} of those calls"
        )
    if cost.calls:
        client.resolve_model()  # down, not its API, or no such model: one line before asking to send
        estimate = estimate_seconds(cache, client.endpoint, client.model_label, cost.prompt_tokens)
        note(
            f"about {estimate[0] / 60:.0f} minutes {estimate[1]}"
            if estimate is not None
            else "no pace measured at this endpoint yet: the progress bar's ETA says once the first calls are answered"
        )
    return confirm_calls(cost, client.endpoint, args.yes)


def _check(args: argparse.Namespace) -> str | None:
    if args.max_questions is not None and not args.until_resolved:
        return "--max-questions goes with --until-resolved (without it, --limit says how many questions)"
    if args.until_resolved and args.max_questions is None:
        return "--until-resolved needs --max-questions N (the most questions it may add)"
    if args.until_resolved and args.max_questions < args.limit:
        return f"--max-questions {args.max_questions} is below the first batch (--limit {args.limit})"
    if args.store and not args.evalset:
        return "--store goes with your own SET.jsonl (the bundled questions bring their passages)"
    return None


def _measured(args: argparse.Namespace) -> tuple[Any, Any, Any, Any] | None:
    """Return ``(result, evidence, client, cache)``, None when the user did not let it send; notes said on the way."""
    from ..evaluation.curve import run_curve
    from ..evaluation.curve_design import look_schedule, run_until_resolved
    from ..progress import ProgressBar

    settings = measure_settings(args, args.model)
    plan = _plan(args)
    schedule = look_schedule(args.limit, args.max_questions, len(plan.positions)) if args.until_resolved else None
    client, cache = settings.client(), settings.open_cache()
    if cache is not None and cache.note:
        note(cache.note)
    if not _before_sending(args, plan, schedule, client, cache):
        return None
    progress = ProgressBar(sys.stderr, width=24, label="prompts")
    if schedule is None:
        result = run_curve(plan, client, cache=cache, concurrency=args.concurrency, progress=progress)
        evidence = result.evidence()
    else:
        result, _ = run_until_resolved(
            plan,
            client,
            schedule,
            cache=cache,
            concurrency=args.concurrency,
            progress=progress,
            on_look=lambda look: note(look.describe(schedule)),
        )
        evidence = result.evidence(alpha=schedule.look_alpha)
    for line in result.notes:
        note(line)
    return result, evidence, client, cache


def cmd_curve(args: argparse.Namespace) -> int:
    from ..evaluation.curve import write_curve
    from ..models.pace import remember_pace
    from ..models.replies import safe_line

    problem = _check(args)
    if problem:
        error_line(f"{problem} (see `contextlab curve --help`)", prog="contextlab curve")
        return 2
    check_target(args.out, "out")  # before a call is paid for: a typo in a path costs nothing
    try:
        measured = _measured(args)
    except KeyboardInterrupt as stop:
        return interrupted(stop)
    if measured is None:
        return 1
    result, evidence, client, cache = measured
    label = safe_line(args.name) if args.name else result.model
    write_curve(result, args.out, label, evidence)
    print(terminal_safe_lines(_table(result.points(), label)))
    print(terminal_safe_lines(_tests(evidence)))
    if result.pace is not None:
        print(terminal_safe_lines("\n".join(["pace:", *(f"  {line}" for line in result.pace.lines())])))
        remember_pace(cache, client.endpoint, client.model_label, result.pace)
    note(
        f"wrote the curve of {label} ({len(result.plan.questions)} questions) to {args.out} and its "
        f"per-question outcomes beside it; use it with: contextlab eval --curve {args.out}"
    )
    return 0


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(
            f"expected a share of questions in (0, 1], such as 0.25, got {message_value(text)}"
        )
    return value


def _points(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 100:
        raise argparse.ArgumentTypeError(
            f"expected a difference in points from 0 to 100, such as 10, got {message_value(text)}"
        )
    return value


def add_curve(sub: Any) -> None:
    """Add ``contextlab curve``."""
    from ..paired import DEFAULT_DISCORDANCE

    p = sub.add_parser(
        "curve",
        help="measure your model's position curve (the lost-in-the-middle experiment)",
        description="For each question (the bundled NaturalQuestions-Open ones, or your SET.jsonl in eval's "
        "format), put the gold document at each of --positions among --documents documents (the "
        "others: the question's own documents, a --store's nearest passages, or for the bundled "
        "set the most BM25-similar passages, none holding a gold answer), ask the model at "
        "--endpoint with Liu et al.'s QA prompt, and score its answers as the paper does; "
        "closed-book and gold-only too. Writes accuracy per position with 95% intervals in the "
        "bundled curves' format, the per-question outcomes beside it, and the paired tests.",
        epilog="example: contextlab curve --endpoint http://127.0.0.1:8080/v1 --api completions --shots 2 "
        "--documents 5 --positions 1,3,5 --limit 50 --until-resolved --max-questions 200 --out curve.csv; "
        "then contextlab eval --curve curve.csv",
    )
    p.add_argument(
        "evalset",
        metavar="SET",
        nargs="?",
        default=None,
        help="your questions in eval's JSONL format (query, documents, gold_sources, answers); "
        "default: the bundled NaturalQuestions-Open set",
    )
    p.add_argument("--store", metavar="DB", help="take other documents for questions without any from this store")
    add_model_options(p, required=True)
    p.add_argument(
        "--documents",
        "-K",
        type=int_at_least(2, 30),
        default=10,
        metavar="K",
        help="documents per prompt, the gold among K-1 others (default 10)",
    )
    p.add_argument(
        "--positions",
        default="1,5,10",
        metavar="P1,P2",
        help="the gold's 1-based positions to measure (default 1,5,10)",
    )
    p.add_argument(
        "--limit",
        "-n",
        type=positive_int,
        default=100,
        metavar="N",
        help="questions to measure (default 100; with --until-resolved, the size of each batch)",
    )
    p.add_argument(
        "--detect",
        type=_points,
        default=None,
        metavar="D",
        help="say how many questions a D-point difference between two positions needs",
    )
    p.add_argument(
        "--discordance",
        type=_share,
        default=DEFAULT_DISCORDANCE,
        metavar="S",
        help=f"the share of questions assumed to answer differently at two positions, for the power "
        f"said before sending (default {DEFAULT_DISCORDANCE})",
    )
    p.add_argument(
        "--until-resolved",
        action="store_true",
        help="add --limit questions at a time and stop once first against last (or Cochran's Q) "
        "is resolved, α split over the planned looks",
    )
    p.add_argument(
        "--max-questions",
        type=positive_int,
        default=None,
        metavar="N",
        help="with --until-resolved: the most questions to add",
    )
    p.add_argument("--no-closed-book", action="store_true", help="skip the closed-book condition (no documents)")
    p.add_argument("--name", metavar="LABEL", help="the model's name in the file (default: the endpoint's model id)")
    p.add_argument("--out", "-o", required=True, metavar="CSV", help="write the curve here (whole or not at all)")
    p.set_defaults(handler=cmd_curve)
