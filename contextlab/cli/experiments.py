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
from .flags import error_line, note
from .inputs import int_at_least

__all__ = ["add_experiment_options", "cmd_experiment", "VARY_KINDS"]

#: What ``--vary`` takes: the position curve (the default), then the context experiments.
VARY_KINDS = ("position", "length", "distractors", "orders", "abstain")
# Library fields -> the flags that set them, for one-line errors.
_FLAGS = {
    "lengths": "--lengths",
    "distractors": "--distractors",
    "distractor_kind": "--distractor-kind",
    "documents": "--documents",
    "filler": "--filler",
    "position": "--position",
    "orders": "--orders",
}
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
        help="the tokens a request may hold at --endpoint (default: as the server says; llama.cpp does)",
    )
    p.epilog = (p.epilog or "") + (
        f". With --vary abstain an answer is a refusal when it is empty or holds one of: {refusal_phrases_text()}"
    )


def _flagged(exc: ValueError) -> str:
    text = str(exc)
    field = getattr(exc, "field", None)
    flag = _FLAGS.get(field or "")
    if flag and text.startswith(f"{field}:"):
        text = flag + text[len(field or "") :]
    elif flag and text.startswith(f"{field} "):
        text = f"{flag} {text[len(field or '') + 1 :]}"
    return text.replace("distractor_kind random", "--distractor-kind random").replace("a store,", "a --store,")


def _plan(args: argparse.Namespace, tokenizer: Any) -> Any:
    from ..evaluation.experiments import ExperimentSettings, plan_experiment
    from ..evaluation.experiments.contexts import read_filler
    from ..evaluation.sets import load_eval_set

    settings = ExperimentSettings(
        kind=args.vary,
        lengths=args.lengths,
        position=args.position,
        distractors=args.distractors,
        distractor_kind=args.distractor_kind,
        orders=args.orders,
        documents=args.documents,
        seed=args.seed,
        shots=args.shots,
        limit=args.max_questions if args.until_resolved else args.limit,
    )
    evalset = load_eval_set(args.evalset, store=args.store) if args.evalset else None
    for line in evalset.notes if evalset is not None else []:
        note(line)
    filler = read_filler(args.filler) if args.filler else None
    plan = plan_experiment(settings, evalset, tokenizer=tokenizer, filler=filler)
    skipped = plan.skipped_note()
    if skipped:
        note(skipped)
    return plan


def _tokenizer(client: Any, cache: Any) -> Any:
    from ..models import endpoint_tokenizer
    from ..tokenizers import get_tokenizer

    tokenizer, why = endpoint_tokenizer(client.endpoint, client.model, store=cache)
    if tokenizer is not None:
        return tokenizer
    note(f"tokens counted in cl100k_base, an approximation of the model's ({why})")
    return get_tokenizer("cl100k_base")


def _check_window(args: argparse.Namespace, plan: Any, client: Any) -> None:
    from ..evaluation.experiments import check_window, served_window

    window = args.window or served_window(client.endpoint)
    if window is None:
        note("the endpoint does not say how many tokens a request may hold; give --window N to check every level")
        return
    check_window(plan, window, client.sampling.max_tokens, endpoint=client.endpoint)
    longest = max(plan.longest_prompt(level) for level in plan.settings.levels)
    note(f"every level fits the model's window of {window:,} tokens a request (the longest prompt: {longest:,})")


def _before_sending(args: argparse.Namespace, plan: Any, schedule: Any, client: Any, cache: Any) -> bool:
    from ..evaluation.experiments import level_costs
    from ..evaluation.experiments.evidence import level_power_lines
    from ..models import plan_calls
    from ..models.pace import estimate_seconds
    from ..paired import ALPHA

    alpha = schedule.look_alpha if schedule is not None else ALPHA
    levels = len(plan.settings.levels)
    for line in level_power_lines(
        len(plan.questions), levels, detect=args.detect, discordance=args.discordance, alpha=alpha
    ):
        note(line)
    if schedule is not None:
        note(schedule.describe())
    counts = {c.prompt: c.prompt_tokens for c in plan.cases}
    cost = plan_calls(client, plan.prompts, cache, counts.__getitem__, tokens_exact=plan.counted_in != "cl100k_base")
    if cost.calls:
        client.resolve_model()

        def seconds(tokens: int) -> float | None:
            found = estimate_seconds(cache, client.endpoint, client.model_label, tokens)
            return None if found is None else found[0]

        for level in level_costs(plan, client, cache, seconds):
            note(level.line())
        if seconds(1) is None:
            note("no pace measured at this endpoint yet: the progress bar's ETA says once the first calls are answered")
    from .model import confirm_calls

    return confirm_calls(cost, client.endpoint, args.yes)


def _measured(args: argparse.Namespace) -> tuple[Any, Any, Any, Any] | None:
    from ..evaluation.curve_design import look_schedule
    from ..evaluation.experiments import run_experiment, run_experiment_until_resolved
    from ..progress import ProgressBar
    from .model import measure_settings

    settings = measure_settings(args, args.model)
    client, cache = settings.client(), settings.open_cache()
    if cache is not None and cache.note:
        note(cache.note)
    plan = _plan(args, _tokenizer(client, cache))
    _check_window(args, plan, client)
    levels = len(plan.settings.levels)
    schedule = look_schedule(args.limit, args.max_questions, levels) if args.until_resolved else None
    if not _before_sending(args, plan, schedule, client, cache):
        return None
    progress = ProgressBar(sys.stderr, width=24, label="prompts")
    if schedule is None:
        result = run_experiment(plan, client, cache=cache, concurrency=args.concurrency, progress=progress)
        evidence = result.evidence()
    else:
        result, _ = run_experiment_until_resolved(
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


def cmd_experiment(args: argparse.Namespace) -> int:
    """Run ``contextlab curve --vary KIND`` for a context experiment; return the exit code."""
    from ..errors import InvalidInputError
    from ..evaluation.experiments import experiment_table, write_experiment
    from ..models.pace import remember_pace
    from ..models.replies import safe_line
    from .model import interrupted

    if args.no_closed_book:
        note("--no-closed-book is for the position curve; the context experiments ask no closed-book question")
    try:
        measured = _measured(args)
    except InvalidInputError as exc:
        error_line(f"{_flagged(exc)} (see `{_PROG} --help`)", prog=_PROG)
        return 2
    except KeyboardInterrupt as stop:
        return interrupted(stop)
    if measured is None:
        return 1
    result, evidence, client, cache = measured
    label = safe_line(args.name) if args.name else result.model
    write_experiment(result, args.out, label, evidence)
    print(terminal_safe_lines(experiment_table(result, label)))
    tests = [f"paired tests of {evidence.measure} (each level against the first; McNemar's exact p, Holm-corrected):"]
    print(terminal_safe_lines("\n".join(tests + [f"  {line}" for line in evidence.lines()])))
    if result.plan.settings.kind == "orders":
        print(f"flip rate: {result.flip_rate():.1f}% of questions right in some orders and wrong in others")
    if result.pace is not None:
        print(terminal_safe_lines("\n".join(["pace:", *(f"  {line}" for line in result.pace.lines())])))
        remember_pace(cache, client.endpoint, client.model_label, result.pace)
    note(f"wrote the {args.vary} experiment of {label} ({len(result.plan.questions)} questions) to {args.out}")
    return 0
