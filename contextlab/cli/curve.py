"""``contextlab curve``: your model's position curve (Liu et al.'s experiment), in the bundled curves' format.

Before sending: what the planned questions can show (``--detect D``: how many a D-point
difference needs), the calls, tokens and the time at the endpoint's last measured pace. After:
accuracy per condition with 95% intervals, the paired tests between positions in words, and
how fast the endpoint answered (with the server's own timings where it reports them).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..safe_text import terminal_safe_lines
from ..validation import message_value
from .experiments import add_experiment_options
from .flags import error_line, note
from .inputs import int_at_least, positive_int
from .model import add_model_options, confirm_calls, interrupted, measure_settings

if TYPE_CHECKING:
    from ..curves.evidence import CurveEvidence
    from ..evaluation.curve import ConditionAccuracy
    from ..evaluation.curve_request import CurveRequest

__all__ = ["add_curve"]


_CONDITIONS = {"closed_book": "closed book", "oracle": "gold only"}


def _table(points: Sequence[ConditionAccuracy], label: str) -> str:
    lines = [
        f"{label}: accuracy by condition (95% Wilson interval)",
        f"{'condition':<22} {'accuracy %':>10} {'interval':>15} {'N':>5}",
    ]
    for p in points:
        name = {"closed_book": "closed book", "oracle": "gold only"}.get(
            p.kind
        ) or f"gold at {p.position} of {p.total_docs}"
        lines.append(
            f"{name:<22} {p.accuracy:>10.1f} {p.accuracy_low:>6.1f} - {p.accuracy_high:<6.1f} {p.questions:>5}"
        )
    return "\n".join(lines)


def _tests(evidence: CurveEvidence) -> str:
    from ..evaluation.curve import paired_test_lines

    lines = ["paired tests (the same questions at every position; McNemar's exact p, Holm-corrected):"]
    return "\n".join(lines + [f"  {line}" for line in paired_test_lines(evidence)])


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


def curve_request(args: argparse.Namespace) -> CurveRequest:
    """Return the one ``CurveRequest`` the parsed flags stand for."""
    from ..evaluation.curve_request import CurveRequest

    return CurveRequest(
        out=args.out,
        measure=measure_settings(args, args.model),
        evalset=args.evalset,
        store=args.store,
        documents=args.documents,
        positions=args.positions,
        limit=args.limit,
        closed_book=not args.no_closed_book,
        max_questions=args.max_questions if args.until_resolved else None,
        detect=args.detect,
        discordance=args.discordance,
        name=args.name,
    )


def cmd_curve(args: argparse.Namespace) -> int:
    from ..evaluation.curve_request import measure_curve
    from ..progress import ProgressBar

    problem = _check(args)
    if problem:
        error_line(f"{problem} (see `contextlab curve --help`)", prog="contextlab curve")
        return 2
    if args.vary != "position":
        from .experiments import cmd_experiment

        return cmd_experiment(args)
    try:
        outcome = measure_curve(
            curve_request(args),
            say=note,
            confirm=lambda cost, endpoint: confirm_calls(cost, endpoint, args.yes),
            progress=ProgressBar(sys.stderr, width=24, label="prompts"),
        )
    except KeyboardInterrupt as stop:
        return interrupted(stop)
    if outcome is None:
        return 1
    result = outcome.result
    print(terminal_safe_lines(_table(result.points(), outcome.label)))
    print(terminal_safe_lines(_tests(outcome.evidence)))
    if result.pace is not None:
        print(terminal_safe_lines("\n".join(["pace:", *(f"  {line}" for line in result.pace.lines())])))
    note(
        f"wrote the curve of {outcome.label} ({len(result.plan.questions)} questions) to {args.out} and its "
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


def _add_questions(p: argparse.ArgumentParser) -> None:
    """Add where the questions and their other documents come from."""
    p.add_argument(
        "evalset",
        metavar="SET",
        nargs="?",
        default=None,
        help="your questions in eval's JSONL format (query, documents, gold_sources, answers); "
        "default: the bundled NaturalQuestions-Open set",
    )
    p.add_argument("--store", metavar="DB", help="take other documents for questions without any from this store")


def _add_design(p: argparse.ArgumentParser) -> None:
    """Add the experiment's design: documents per prompt, positions, questions, power and stopping."""
    from ..paired import DEFAULT_DISCORDANCE

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


def add_curve(sub: Any) -> None:
    """Add ``contextlab curve``."""
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
    _add_questions(p)
    add_model_options(p, required=True)
    _add_design(p)
    p.add_argument("--name", metavar="LABEL", help="the model's name in the file (default: the endpoint's model id)")
    p.add_argument("--out", "-o", required=True, metavar="CSV", help="write the curve here (whole or not at all)")
    add_experiment_options(p)
    p.set_defaults(handler=cmd_curve)
