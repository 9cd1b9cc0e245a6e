"""``contextlab build FILE --endpoint URL --orders first,middle,last``: the position effect, live, on your documents.

The block is built as ``build`` builds it; then the question is asked once per order with the
answer document (``--answer-source``, else the most relevant in the block) moved there, the
calls counted and confirmed first (``--yes`` skips the question), each answer printed as it
arrives and marked right or wrong against ``--gold`` answers. One library call does the work:
``contextlab.evaluation.orders.plan_orders`` (the lab's "Ask the model in several orders" too).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TypedDict

from ..errors import ContextLabError
from ..lab.config import LabConfig
from ..safe_text import json_terminal_safe, terminal_safe
from ..types import ContextResult, Document
from ..validation import message_value
from .model import add_model_options, confirm_calls, measure_settings

__all__ = ["add_orders_options", "wants_orders", "cmd_build_orders"]


def add_orders_options(p: argparse.ArgumentParser) -> None:
    """Add ``--orders --answer-source --gold`` and the model options (``--endpoint --model ...``) to ``build``."""
    add_model_options(p)
    p.add_argument(
        "--orders",
        default=None,
        metavar="LIST|N",
        help="with --endpoint: ask the question once per order with the answer document placed "
        "first, middle and/or last (default first,middle,last), or a number N from 2 to 10: N places "
        "spread evenly from first to last",
    )
    p.add_argument(
        "--answer-source",
        default=None,
        metavar="SOURCE",
        help="the source of the document that holds the answer (default: the most relevant in the block)",
    )
    p.add_argument(
        "--gold",
        action="append",
        default=[],
        metavar="ANSWER",
        help="a correct answer (repeat for more): each order's answer is marked right or wrong",
    )


def wants_orders(args: argparse.Namespace) -> bool:
    """Return True when ``build`` should ask a model (``--endpoint``); ``--orders`` alone is an error."""
    if args.orders is not None and not args.endpoint:
        raise ContextLabError("--orders asks a model: give --endpoint URL too (`contextlab model serve` starts one)")
    for flag, value in (("--answer-source", args.answer_source), ("--gold", args.gold), ("--model", args.model)):
        if value and not args.endpoint:
            raise ContextLabError(f"{flag} goes with --endpoint URL --orders first,middle,last")
    return bool(args.endpoint)


class OrderAnswer(TypedDict):
    """One order's answer as ``--format json`` prints it."""

    order: str
    position: int
    documents: int
    answer: str
    correct: bool | None
    cached: bool


def _say(message: str) -> None:
    """Print ``contextlab: ...`` on stderr as one line, every control character in it made visible."""
    print(f"contextlab: {terminal_safe(message)}", file=sys.stderr)


def _answer_indices(documents: list[Document], source: str | None) -> tuple[int, ...]:
    if source is None:
        return ()
    found = tuple(i for i, d in enumerate(documents) if d.source == source or str(d.metadata.get("id")) == source)
    if not found:
        raise ContextLabError(f"--answer-source {message_value(source)}: no document has that source or id")
    return found


def cmd_build_orders(
    args: argparse.Namespace, documents: list[Document], config: LabConfig, result: ContextResult
) -> int:
    """Ask ``config.query`` over ``result``'s block in each order; print the answers as they arrive."""
    from ..evaluation.orders import orders_verdict, plan_orders

    if not config.query.strip():
        raise ContextLabError("--endpoint asks the model a question: give it with --query")
    plan = plan_orders(
        documents,
        config,
        config.query,
        measure=measure_settings(args, args.model),
        answer=_answer_indices(documents, args.answer_source),
        gold_answers=args.gold,
        orders=args.orders or "first,middle,last",
        result=result,
    )
    moved = next(t for t in result.trace if t.input_index == plan.moved_index)
    _say(
        f"asking {len(plan.cases)} orders of {plan.block_size} documents, {plan.moved_as} "
        f"(#{moved.input_index} {moved.source or ''}) moved"
    )
    if not confirm_calls(plan.cost(), plan.client.endpoint, args.yes):
        return 1
    rows: list[OrderAnswer] = []

    def arrived(answer: Any) -> None:
        rows.append(
            OrderAnswer(
                order=answer.order,
                position=answer.position,
                documents=plan.block_size,
                answer=answer.answer,
                correct=answer.correct,
                cached=answer.cached,
            )
        )
        if args.format != "json":
            mark = "" if answer.correct is None else ("  [right]" if answer.correct else "  [wrong]")
            line = f"{answer.order:<11} (pos {answer.position} of {plan.block_size}): {answer.answer}{mark}"
            sys.stdout.write(terminal_safe(line) + "\n")
            sys.stdout.flush()

    answers = plan.run(on_answer=arrived)
    if args.format == "json":
        document = {
            "question": config.query,
            "moved": {"input_index": moved.input_index, "source": moved.source, "as": plan.moved_as},
            "model": plan.model_name(answers),
            "endpoint": plan.client.endpoint,
            "orders": rows,
        }
        sys.stdout.write(json_terminal_safe(json.dumps(document, indent=2, ensure_ascii=False)) + "\n")
    else:
        _say(f"answered by {plan.model_name(answers) or 'the endpoint default model'} at {plan.client.endpoint}")
        verdict = orders_verdict(answers)
        if verdict is not None:
            _say(verdict)
    return 0
