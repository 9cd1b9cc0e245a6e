"""``contextlab curve --vary length|distractors|orders|abstain``: the context experiments, from the shell.

Parse, plan every prompt (the levels checked against the model's window before any call), say
what the questions can show and what each level costs, ask, run the one loop, write the file in
the curve file's columns, and print accuracy per level with the paired tests in words. Bad input
is one line and exit 2, before anything is sent.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..safe_text import terminal_safe_lines
from .flags import FLAGS, error_line, note
from .inputs import int_at_least

__all__ = ["add_experiment_options", "cmd_experiment", "VARY_KINDS"]

#: What ``--vary`` takes: the position curve (the default), then the context experiments.
VARY_KINDS = ("position", "length", "distractors", "orders", "abstain")
_PROG = "contextlab curve"


def _levels(name: str, minimum: int) -> Any:
    def parse(text: str) -> tuple[int, ...]:
        from ..evaluation.experiments import parse_levels

        try:
            return parse_levels(name, text, minimum=minimum)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected whole numbers >= {minimum} separated by commas, such as "
                f"{'500,2000,8000' if minimum else '0,1,4'}; got {text!r}"
            ) from None

    return parse


def add_experiment_options(p: argparse.ArgumentParser) -> None:
    """Add ``--vary`` and the options of each context experiment to ``contextlab curve``."""
    from ..evaluation.experiments.refusals import refusal_phrases_text

    p.add_argument(
        "--vary",
        choices=VARY_KINDS,
        default="position",
        help="the factor to vary: the gold's position (default), the context's length in tokens, the "
        "distractors beside the answer, the documents' order, or the answer removed (abstain)",
    )
    p.add_argument(
        "--lengths",
        type=_levels("lengths", 1),
        default=(500, 2000, 8000),
        metavar="T1,T2",
        help="--vary length: total context tokens per level, padded with passages unrelated to the question "
        "(default 500,2000,8000; each must fit the model's window)",
    )
    p.add_argument(
        "--position",
        type=int_at_least(1, 10_000),
        default=1,
        metavar="P",
        help="--vary length or abstain: the answer passage's place (default 1)",
    )
    p.add_argument(
        "--filler", metavar="FILE", help="--vary length: pad with this text file's paragraphs (default: bundled)"
    )
    p.add_argument(
        "--distractors",
        type=_levels("distractors", 0),
        default=(0, 1, 4),
        metavar="D1,D2",
        help="--vary distractors: distractors per level, at seeded random places (default 0,1,4)",
    )
    p.add_argument(
        "--distractor-kind",
        choices=("related", "random"),
        default="related",
        help="--vary distractors: related (the question's other documents, then retrieved ones; default) "
        "or random (unrelated passages)",
    )
    p.add_argument(
        "--orders",
        type=int_at_least(2, 50),
        default=3,
        metavar="N",
        help="--vary orders: seeded shuffles of each question's --documents documents (default 3)",
    )
    p.add_argument("--seed", type=int_at_least(0), default=0, metavar="N", help="the seed of every shuffle")
    p.add_argument(
        "--window",
        type=int_at_least(256),
        default=None,
        metavar="TOKENS",
        help="the tokens a request may hold at --endpoint, to check every level against (default: as the server says)",
    )
    p.epilog = (p.epilog or "") + (
        f". With --vary abstain an answer is a refusal when it is empty or holds one of: {refusal_phrases_text()}"
    )


def _flagged(exc: ValueError) -> str:
    text = str(exc)
    field = getattr(exc, "field", None)
    flag = FLAGS.get(field or "")
    if flag and text.startswith(f"{field}:"):
        text = flag + text[len(field or "") :]
    elif flag and text.startswith(f"{field} "):
        text = f"{flag} {text[len(field or '') + 1 :]}"
    return text.replace("distractor_kind random", "--distractor-kind random").replace("a store,", "a --store,")


def experiment_request(args: argparse.Namespace) -> Any:
    """Return the one ``ExperimentRequest`` the parsed flags stand for."""
    from ..evaluation.experiments.request import ExperimentRequest
    from .model import measure_settings

    return ExperimentRequest(
        out=args.out,
        measure=measure_settings(args, args.model),
        kind=args.vary,
        evalset=args.evalset,
        store=args.store,
        lengths=args.lengths,
        position=args.position,
        filler=args.filler,
        distractors=args.distractors,
        distractor_kind=args.distractor_kind,
        orders=args.orders,
        documents=args.documents,
        seed=args.seed,
        limit=args.limit,
        max_questions=args.max_questions if args.until_resolved else None,
        detect=args.detect,
        discordance=args.discordance,
        window=args.window,
        name=args.name,
    )


def cmd_experiment(args: argparse.Namespace) -> int:
    """Run ``contextlab curve --vary KIND`` for a context experiment; return the exit code."""
    from ..errors import InvalidInputError
    from ..evaluation.experiments import experiment_table
    from ..evaluation.experiments.request import measure_experiment
    from ..progress import ProgressBar
    from .model import confirm_calls, interrupted

    if args.no_closed_book:
        note("--no-closed-book is for the position curve; the context experiments ask no closed-book question")
    try:
        outcome = measure_experiment(
            experiment_request(args),
            say=note,
            confirm=lambda cost, endpoint: confirm_calls(cost, endpoint, args.yes),
            progress=ProgressBar(sys.stderr, width=24, label="prompts"),
        )
    except InvalidInputError as exc:
        error_line(f"{_flagged(exc)} (see `{_PROG} --help`)", prog=_PROG)
        return 2
    except KeyboardInterrupt as stop:
        return interrupted(stop)
    if outcome is None:
        return 1
    result, evidence = outcome.result, outcome.evidence
    print(terminal_safe_lines(experiment_table(result, outcome.label)))
    tests = [f"paired tests of {evidence.measure} (each level against the first; McNemar's exact p, Holm-corrected):"]
    print(terminal_safe_lines("\n".join(tests + [f"  {line}" for line in evidence.lines()])))
    if result.plan.settings.kind == "orders":
        print(f"flip rate: {result.flip_rate():.1f}% of questions right in some orders and wrong in others")
    if result.pace is not None:
        print(terminal_safe_lines("\n".join(["pace:", *(f"  {line}" for line in result.pace.lines())])))
    note(f"wrote the {args.vary} experiment of {outcome.label} ({len(result.plan.questions)} questions) to {args.out}")
    return 0
