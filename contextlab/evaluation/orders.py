"""One question asked with its answer document first, in the middle and last: the position effect, live.

``plan_orders`` takes one build (the documents, the settings, the question), picks the document
that holds the answer (the one the caller names, else the most relevant in the block) and makes
the same block once per order with only that document moved, every other one in its block order.
``OrdersPlan.cost`` says what asking will send before anything is sent; ``OrdersPlan.run`` asks
the model one order after another (cached answers first), hands each answer over as it arrives
and marks it right or wrong when the gold answers are known. The lab's "Ask the model in three
orders" and ``contextlab build FILE --endpoint URL --orders first,middle,last`` both call these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..manager import ContextManager
from ..models.batch import CallPlan, answer_prompts, plan_calls
from ..models.cache import ResponseCache
from ..models.client import ModelClient
from ..models.prompts import Shot
from ..models.scoring import answer_is_correct
from ..models.tokenizer import prompt_counter
from ..settings import EngineSettings
from ..stages.format import format_block
from ..types import ContextResult, Document, PromptRequest
from ..validation import parse_int
from .curve import solved_questions
from .measured import MeasureSettings, served_model

__all__ = [
    "ORDERS",
    "parse_orders",
    "order_position",
    "order_places",
    "MAX_ORDERS",
    "OrderCase",
    "OrderAnswer",
    "OrdersPlan",
    "orders_verdict",
    "plan_orders",
]

#: The orders a question can be asked in, by where the answer document goes.
ORDERS: tuple[str, ...] = ("first", "middle", "last")
#: The most orders one question is asked in at once (each is a call).
MAX_ORDERS = 10


def parse_orders(spec: str | Sequence[str]) -> tuple[str, ...]:
    """Return the orders ``spec`` names (``"first,middle,last"`` or a list), each once, in the order given."""
    names = [p.strip() for p in spec.split(",")] if isinstance(spec, str) else [str(p).strip() for p in spec]
    names = [n for n in names if n]
    unknown = [n for n in names if n not in ORDERS]
    if unknown or not names:
        raise InvalidInputError(
            f"orders: {', '.join(repr(n) for n in unknown) or 'none given'}; "
            f"give some of {', '.join(ORDERS)}, e.g. first,middle,last",
            field="orders",
        )
    return tuple(dict.fromkeys(names))


def order_position(order: str, n: int) -> int:
    """Return the position (1-based) ``order`` gives the answer document in a block of ``n``: 1, the middle, n."""
    return {"first": 1, "middle": (n + 1) // 2, "last": n}[order]


def _place_name(position: int, n: int) -> str:
    if position in (1, n):
        return "first" if position == 1 else "last"
    return "middle" if position == (n + 1) // 2 else f"position {position}"


def order_places(orders: str | Sequence[str] | int, n: int) -> dict[str, int]:
    """Return each order's name and the answer document's position (1-based) in a block of ``n``.

    ``orders`` names places (``"first,middle,last"``) or counts them (``5`` or ``"5"``): that many
    places spread evenly from first to last, so 3 is first, middle and last.
    """
    if isinstance(orders, str) and orders.strip()[:1] in tuple("0123456789"):
        orders = parse_int(orders, field="orders", low=2, high=MAX_ORDERS)
    if isinstance(orders, int):
        if not 2 <= orders <= MAX_ORDERS:
            raise InvalidInputError(
                f"orders must be a whole number from 2 to {MAX_ORDERS}, got {orders}", field="orders"
            )
        places = [1 + (i * (n - 1)) // (orders - 1) for i in range(orders)] if orders <= n else []
        wanted = {_place_name(p, n): p for p in places}
    else:
        wanted = {o: order_position(o, n) for o in parse_orders(orders)}
    if len(set(wanted.values())) < max(len(wanted), 1) or not wanted:
        count = orders if isinstance(orders, int) else len(wanted)
        raise InvalidInputError(
            f"orders: the block holds {n} document(s), too few for {count} different places; raise the budget "
            "or ask fewer orders",
            field="orders",
        )
    return wanted


@dataclass(frozen=True)
class OrderCase:
    """One order: where the answer document sits, the block in that order and the prompt around it."""

    order: str
    position: int
    documents: tuple[Document, ...]  # the block's documents, in this order
    block: str
    prompt: str


@dataclass(frozen=True)
class OrderAnswer:
    """The model's answer to one order, scored when the gold answers are known (else ``correct`` is None)."""

    order: str
    position: int
    answer: str
    correct: bool | None
    cached: bool
    latency_ms: float | None
    #: The ``max_tokens`` the answer ran into when the server stopped it there (finish reason "length"), else None.
    cut_off_at: int | None = None


@dataclass
class OrdersPlan:
    """The same question and block in several orders, planned; ``run`` asks the model."""

    question: str
    #: Input index of the document that moves, and why it was picked ("the answer" or "the most relevant").
    moved_index: int
    moved_as: str
    block_size: int
    cases: list[OrderCase]
    gold_answers: tuple[str, ...]
    client: ModelClient
    cache: ResponseCache | None

    def cost(self) -> CallPlan:
        """Return what asking will send: calls not answered by the cache, and their prompt tokens (cl100k_base)."""
        return plan_calls(self.client, [c.prompt for c in self.cases], self.cache, prompt_counter(None))

    def run(self, on_answer: Callable[[OrderAnswer], None] | None = None) -> list[OrderAnswer]:
        """Return the answer to every order, asked one after another; ``on_answer`` sees each as it arrives."""
        assert self.client.sampling is not None  # set by ModelClient on creation
        limit = self.client.sampling.max_tokens
        answers = []
        for case in self.cases:
            reply = answer_prompts(self.client, [case.prompt], cache=self.cache, concurrency=1)[0]
            correct = answer_is_correct(reply.answer, self.gold_answers) if self.gold_answers else None
            cut_off_at = limit if reply.finish_reason == "length" else None
            answer = OrderAnswer(
                case.order, case.position, reply.answer, correct, reply.cached, reply.latency_ms, cut_off_at
            )
            answers.append(answer)
            if on_answer is not None:
                on_answer(answer)
        return answers

    def model_name(self, answers: Sequence[OrderAnswer]) -> str | None:
        """Return the id of the model that answered (remembered in the cache for answers it gave)."""
        return served_model(self.client, self.cache, asked=any(not a.cached for a in answers))


def _moved(result: ContextResult, answer: Sequence[int]) -> tuple[int, str]:
    """Return the input index of the document to move, and what it is: the answer, or the most relevant."""
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position or 0)
    if not placed:
        raise InvalidInputError("orders: the block is empty; raise the budget or add documents", field="orders")
    if answer:
        held = [t for t in placed if t.input_index in set(answer)]
        if not held:
            missing = next(t for t in result.trace if t.input_index in set(answer))
            raise InvalidInputError(
                f"orders: the document that holds the answer (#{missing.input_index}) is not in "
                f"the block ({missing.fate}); raise the budget so it fits",
                field="orders",
            )
        return held[0].input_index, "the answer"
    best = min(placed, key=lambda t: (t.relevance_rank or 0, t.position or 0))
    return best.input_index, "the most relevant"


def _shots(manager: ContextManager, count: int) -> list[Shot]:
    """Return ``count`` solved examples, each passage shown as this manager shows its blocks."""
    shots = []
    for question, doc in solved_questions(count, set()):
        request = PromptRequest(query=question.query, documents=[doc], max_context_tokens=100_000)
        shots.append(Shot(question.query, question.answers[0], manager.build(request).context_block))
    return shots


def plan_orders(
    documents: Sequence[Document],
    settings: EngineSettings,
    question: str,
    *,
    measure: MeasureSettings,
    answer: Sequence[int] = (),
    gold_answers: Sequence[str] = (),
    orders: str | Sequence[str] | int = ORDERS,
    result: ContextResult | None = None,
) -> OrdersPlan:
    """Return the plan to ask ``question`` over the block of ``documents`` in each of ``orders``.

    ``result`` is the build of ``documents`` under ``settings`` when the caller has it (else it is
    built). The document moved is the first of ``answer`` (input indices) in the block, else the
    most relevant one; the others keep their block order and their text, so the blocks differ
    only in where that document sits (and the citation numbers). Nothing is sent.
    """
    manager = ContextManager.from_settings(settings)
    if result is None:
        result = manager.build(
            PromptRequest(query=question, documents=list(documents), max_context_tokens=settings.max_context_tokens)
        )
    moved, moved_as = _moved(result, answer)
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position or 0)
    docs = {t.input_index: d for t, d in zip(placed, result.included_docs, strict=False)}
    n = len(placed)
    positions = order_places(orders, n)
    others = [docs[t.input_index] for t in placed if t.input_index != moved]
    shots = _shots(manager, measure.shots)
    cases = []
    for order, position in positions.items():
        ordered = others[: position - 1] + [docs[moved]] + others[position - 1 :]
        block, _ = format_block(ordered, score_label=manager.score_label, seed_rule=manager.is_seed_mode)
        cases.append(OrderCase(order, position, tuple(ordered), block, measure.template.render(question, block, shots)))
    return OrdersPlan(question, moved, moved_as, n, cases, tuple(gold_answers), measure.client(), measure.open_cache())


def _where(order: str) -> str:
    return {"first": "first", "middle": "in the middle", "last": "last"}.get(order, f"at {order}")


def orders_verdict(answers: Sequence[OrderAnswer]) -> str | None:
    """Return what the answers show about order, in one sentence; None when none is scored.

    A position effect is claimed only when the answers show one: right in some orders and wrong
    in others. The flip rate is the share of the other orders scored otherwise than the first one.
    One question shows that order can change an answer, not how often it does.
    """
    scored = [a for a in answers if a.correct is not None]
    if not scored:
        return None
    right = [_where(a.order) for a in scored if a.correct]
    wrong = [_where(a.order) for a in scored if not a.correct]
    if not right or not wrong:
        result = "right" if right else "wrong"
        return (
            f"{result.capitalize()} in all {len(scored)} orders: the order made no difference to this question "
            "(flip rate 0%)."
        )
    others = scored[1:]
    flips = sum(1 for a in others if a.correct != scored[0].correct)
    return (
        f"The order changed the answer: right with the answer document {_listed(right)}, wrong with it "
        f"{_listed(wrong)} (flip rate {100 * flips / len(others):.0f}%: {flips} of the {len(others)} other "
        f"order{'s' if len(others) != 1 else ''} scored otherwise than the first). One question shows that it can "
        "happen, not how often: contextlab curve --vary orders measures that on many questions."
    )


def _listed(places: Sequence[str]) -> str:
    return places[0] if len(places) == 1 else ", ".join(places[:-1]) + " and " + places[-1]
