"""``contextlab curve``: your model's position curve (Liu et al.'s experiment), in the bundled curves' format."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..safe_text import terminal_safe_lines
from .flags import note
from .inputs import int_at_least, positive_int
from .model import add_model_options, confirm_calls, interrupted, measure_settings

__all__ = ["add_curve"]


def _table(points: list[dict[str, Any]], label: str) -> str:
    lines = [f"{label}: accuracy by condition (95% Wilson interval)",
             f"{'condition':<22} {'accuracy %':>10} {'interval':>15} {'N':>5}"]
    for p in points:
        name = {"closed_book": "closed book", "oracle": "gold only"}.get(p["kind"]) or \
            f"gold at {p['position']} of {p['total_docs']}"
        lines.append(f"{name:<22} {p['accuracy']:>10.1f} {p['accuracy_low']:>6.1f} - {p['accuracy_high']:<6.1f} "
                     f"{p['questions']:>5}")
    return "\n".join(lines)


def _measured(args: argparse.Namespace) -> Any:
    """Return the curve's ``CurveResult`` (None when the user did not let it send), notes said on the way."""
    from ..evaluation.curve import plan_curve, run_curve
    from ..models import CallProgressBar, endpoint_tokenizer, plan_calls, prompt_counter

    settings = measure_settings(args, args.model)
    plan = plan_curve(documents=args.documents, positions=args.positions, limit=args.limit, shots=args.shots,
                      closed_book=not args.no_closed_book)
    client = settings.client()
    cache = settings.open_cache()
    if cache is not None and cache.note:
        note(cache.note)
    # The prompts are the paper's lists, not budgeted blocks: the endpoint's counts only price them.
    tokenizer, _ = endpoint_tokenizer(client.endpoint, client.model, store=cache)
    cost = plan_calls(client, plan.prompts, cache, prompt_counter(tokenizer), tokens_exact=tokenizer is not None)
    if cost.calls:
        client.resolve_model()  # down, not its API, or no such model: one line before asking to send
    if not confirm_calls(cost, client.endpoint, args.yes):
        return None
    result = run_curve(plan, client, cache=cache, concurrency=args.concurrency,
                       progress=CallProgressBar(sys.stderr))
    for line in result.notes:
        note(line)
    return result


def cmd_curve(args: argparse.Namespace) -> int:
    from ..evaluation.curve import write_curve
    from ..models.replies import safe_line

    try:
        result = _measured(args)
    except KeyboardInterrupt as stop:
        return interrupted(stop)
    if result is None:
        return 1
    label = safe_line(args.name) if args.name else result.model
    write_curve(result, args.out, label)
    print(terminal_safe_lines(_table(result.points(), label)))
    note(f"wrote the curve of {label} ({len(result.plan.questions)} questions) to {args.out}; "
         f"use it with: contextlab eval --curve {args.out}")
    return 0


def add_curve(sub: Any) -> None:
    """Add ``contextlab curve``."""
    p = sub.add_parser(
        "curve", help="measure your model's position curve (the lost-in-the-middle experiment)",
        description="For each bundled NaturalQuestions-Open question, put the gold passage at each of "
                    "--positions among --documents passages (the others: the most BM25-similar bundled "
                    "passages holding no gold answer), ask the model at --endpoint with Liu et al.'s QA "
                    "prompt, and score its answers as the paper does; closed-book and gold-only too. "
                    "Writes accuracy per position with 95%% intervals in the bundled curves' format.",
        epilog="example: contextlab curve --endpoint http://127.0.0.1:8080/v1 --api completions --shots 2 "
               "--documents 5 --positions 1,3,5 --limit 30 --out curve.csv; then contextlab eval --curve curve.csv",
    )
    add_model_options(p, required=True)
    p.add_argument("--documents", "-K", type=int_at_least(2, 30), default=10, metavar="K",
                   help="passages per prompt, the gold among K-1 distractors (default 10)")
    p.add_argument("--positions", default="1,5,10", metavar="P1,P2",
                   help="the gold's 1-based positions to measure (default 1,5,10)")
    p.add_argument("--limit", "-n", type=positive_int, default=100, metavar="N",
                   help="the first N bundled questions (default 100)")
    p.add_argument("--no-closed-book", action="store_true", help="skip the closed-book condition (no documents)")
    p.add_argument("--name", metavar="LABEL", help="the model's name in the file (default: the endpoint's model id)")
    p.add_argument("--out", "-o", required=True, metavar="CSV", help="write the curve here (whole or not at all)")
    p.set_defaults(handler=cmd_curve)
