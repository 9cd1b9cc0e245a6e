"""Measured answers in an evaluation: each block asked of a real model, and the answer scored.

``plan_measured`` builds every question's block under every configuration (in the model's own
tokens when the endpoint counts them) and the prompt around it (Liu et al.'s QA prompt, with
solved examples in front), and says what the run will cost (``MeasuredRun.cost``) before
anything is sent. ``MeasuredRun.run`` asks the model (cache first, bounded concurrency) and
returns the ``EvalResult`` with ``answer``, ``correct``, ``latency_ms``, ``prompt_tokens`` and
``completion_tokens`` in every row, and measured ``accuracy`` (%, 95% Wilson interval) in the
summary beside ``expected_accuracy``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..build_cache import BuildCache
from ..manager import ContextManager
from ..models.batch import (
    DEFAULT_CONCURRENCY,
    CallPlan,
    CallStats,
    answer_notes,
    answer_prompts,
    plan_calls,
    request_key,
)
from ..models.cache import ResponseCache
from ..models.client import ModelAnswer, ModelClient
from ..models.pace import measured_pace
from ..models.prompts import DEFAULT_TEMPLATE, QATemplate, Shot
from ..models.scoring import answer_is_correct
from ..models.tokenizer import EndpointTokenizer, endpoint_tokenizer, prompt_counter
from ..progress import Progress
from ..tokenizers import Tokenizer, model_vocabulary, server_count_note
from ..types import ContextResult, Document, PromptRequest
from .chunks import evaluate_chunk
from .curve import solved_questions
from .options import RunOptions
from .rows import MEASURED_COLUMNS, EvalRow, ModelReply
from .run import EvalResult, RunPlan, plan_run
from .sets import EvalQuestion, EvalSet

__all__ = ["MeasureSettings", "MeasuredRun", "plan_measured", "served_model"]


@dataclass(frozen=True)
class MeasureSettings:
    """Which model answers and how: endpoint, model, API, shots, concurrency, cache, prompt.

    ``cache`` is a file path (None: the default under the user's cache folder); ``use_cache``
    False sends every prompt again and keeps nothing. ``model_tokens`` fits blocks in the
    model's own tokens when the endpoint can count them (llama.cpp, vLLM).
    """

    endpoint: str
    model: str | None = None
    api: str = "chat"
    shots: int = 0
    concurrency: int = DEFAULT_CONCURRENCY
    cache: str | Path | None = None
    use_cache: bool = True
    template: QATemplate = DEFAULT_TEMPLATE
    model_tokens: bool = True

    def client(self) -> ModelClient:
        """Return the ``ModelClient`` these settings describe (checked, nothing sent)."""
        return ModelClient(self.endpoint, self.model, api=self.api)

    def open_cache(self) -> ResponseCache | None:
        """Return the response cache to use (None with ``use_cache`` off)."""
        return ResponseCache(self.cache) if self.use_cache else None


def _managers(plan: RunPlan, tokenizer: Any) -> list[ContextManager]:
    """Return each configuration's manager, counting in ``tokenizer`` where it uses cl100k_base."""
    managers = []
    for c in plan.configs:
        manager = c.make_manager()
        config = c.config
        if tokenizer is not None and not config.seed_compatible and config.tokenizer == "cl100k_base":
            kwargs = {**config.manager_kwargs(), "tokenizer": tokenizer, "position_curve": manager.position_curve}
            manager = ContextManager(**kwargs)
        managers.append(manager)
    return managers


#: The memo under which the cache remembers which model an endpoint served (its default, when none was named).
_SERVED_MEMO = "served-model"


def served_model(client: ModelClient, cache: ResponseCache | None, *, asked: bool) -> str | None:
    """Return the id of the model that answered: the endpoint's after calls, the cache's memory after none.

    After calls (``asked``) the endpoint names the model it served and the cache remembers it, so
    a rerun answered wholly from the cache still names the model (not just "the endpoint's default").
    """
    memo = f"{_SERVED_MEMO}\x00{client.endpoint}\x00{client.model_label}"
    if asked:
        client.resolve_model()  # known already after the calls: no request
        name = client.served_model
        if cache is not None and name:
            cache.memo_put(memo, name)
        return name
    remembered = cache.memo_get(memo) if cache is not None else None
    return remembered or client.model_label or None


def _shot_block(manager: ContextManager, question: str, doc: Document) -> str:
    request = PromptRequest(query=question, documents=[doc], max_context_tokens=100_000)
    return manager.build(request).context_block


@dataclass
class MeasuredRun:
    """A measured run, planned: every row's metrics and prompt; ``run()`` asks the model."""

    plan: RunPlan
    settings: MeasureSettings
    client: ModelClient
    cache: ResponseCache | None
    rows: list[EvalRow]
    prompts: list[str]
    blocks: list[str]
    #: How block budgets were counted: the model's own tokens, or cl100k_base (approximate).
    budget_tokens: str
    shots: list[Shot] = field(default_factory=list)
    #: The endpoint's tokenizer (None: cl100k_base counts the budgets).
    tokenizer: Any = None
    #: Lines to show the user: why budgets are approximate, a read-only cache; after ``run``, answers cut.
    notes: list[str] = field(default_factory=list)

    def cost(self) -> CallPlan:
        """Return how many calls and prompt tokens the run will send (cached answers excluded).

        With calls to make, the endpoint is asked for its models first, so a server that is down,
        a URL that is not its API, or a model it lacks is one line before anyone is asked to send
        anything; a run answered wholly from the cache needs no server.
        """
        cost = plan_calls(
            self.client,
            self.prompts,
            self.cache,
            prompt_counter(self.tokenizer),
            tokens_exact=self.tokenizer is not None,
        )
        if cost.calls:
            self.client.resolve_model()
        return cost

    def run(
        self, progress: Progress | None = None, on_answers: Callable[[list[EvalRow]], None] | None = None
    ) -> EvalResult:
        """Return the ``EvalResult`` with every row's measured answer (see the module doc).

        ``on_answers`` gets the rows answered so far, each time more have arrived: the cached ones
        at once, then after each wave of ``concurrency`` calls (``progress`` too, between waves, so
        its time left is read from whole waves, not from the first call of one).
        """
        started = time.monotonic()
        if on_answers is None:
            answers = answer_prompts(
                self.client, self.prompts, cache=self.cache, concurrency=self.settings.concurrency, progress=progress
            )
        else:
            answers = self._in_waves(progress, on_answers)
        pace = measured_pace(answers, time.monotonic() - started, self.settings.concurrency)
        self.notes += answer_notes(answers, self.client) + self._count_notes(answers)
        gold = self._gold()
        rows = [_measured(row, reply, gold) for row, reply in zip(self.rows, answers, strict=False)]
        served = served_model(self.client, self.cache, asked=any(not a.cached for a in answers))
        result = self.plan.result(
            rows, endpoint=self.client.endpoint, answer_model=served or None, extra_columns=MEASURED_COLUMNS
        )
        result.provenance["answered_with"] = {
            **self.client.describe(),
            "shots": self.settings.shots,
            "budget_tokens": self.budget_tokens,
        }
        result.pace = pace
        return result

    def _count_notes(self, answers: list[ModelAnswer]) -> list[str]:
        """Return the server's prompt tokens beside ours for the prompts sent in this run (none when it sent none)."""
        sent = {p: a.prompt_tokens for p, a in zip(self.prompts, answers, strict=False) if not a.cached}
        counted = {p: n for p, n in sent.items() if n is not None}
        if not counted:
            return []
        how = "the endpoint's /tokenize" if isinstance(self.tokenizer, EndpointTokenizer) else self.budget_tokens
        ours = sum(prompt_counter(self.tokenizer)(p) for p in counted)
        return [server_count_note(sum(counted.values()), ours, how)]

    def _gold(self) -> dict[str, tuple[str, ...]]:
        return {q.query_id: q.answers for q in self.plan.evalset.questions}

    def _in_waves(self, progress: Progress | None, on_answers: Callable[[list[EvalRow]], None]) -> list[ModelAnswer]:
        """Return the answers to every prompt, asked ``concurrency`` at a time, each wave handed on as it lands."""
        distinct = list(dict.fromkeys(self.prompts))
        known = {p for p in distinct if self.cache is not None and request_key(self.client, p) in self.cache}
        todo = [p for p in distinct if p not in known]
        size = self.settings.concurrency
        waves = ([[p for p in distinct if p in known]] if known else []) + [
            todo[i : i + size] for i in range(0, len(todo), size)
        ]
        stats = CallStats(total=len(distinct), started=time.monotonic())
        gold = self._gold()
        got: dict[str, ModelAnswer] = {}
        for wave in waves:
            for prompt, reply in zip(
                wave, answer_prompts(self.client, wave, cache=self.cache, concurrency=size), strict=False
            ):
                got[prompt] = reply
                stats.done += 1
                stats.cached += reply.cached
                stats.calls += not reply.cached
                stats.cut += reply.cut
                stats.prompt_tokens += 0 if reply.cached else reply.prompt_tokens or 0
                stats.completion_tokens += 0 if reply.cached else reply.completion_tokens or 0
            if progress is not None:
                progress(stats.done, stats.total, stats.note())
            on_answers(
                [_measured(row, got[p], gold) for row, p in zip(self.rows, self.prompts, strict=False) if p in got]
            )
        return [got[p] for p in self.prompts]


def _measured(row: EvalRow, reply: ModelAnswer, gold: Mapping[str, tuple[str, ...]]) -> EvalRow:
    """Return ``row`` with its measured answer: the answer line, right or wrong, latency and tokens."""
    answers = gold.get(row.query_id)
    correct = answer_is_correct(reply.answer, answers) if answers else None
    said = ModelReply(reply.answer, correct, reply.latency_ms, reply.prompt_tokens, reply.completion_tokens)
    return replace(row, reply=said)


def plan_measured(
    evalset: EvalSet | str | Path | None = None,
    grid: Sequence[str] | Mapping[str, Sequence[Any]] | None = None,
    options: RunOptions | None = None,
    *,
    measure: MeasureSettings,
) -> MeasuredRun:
    """Return the planned measured run of ``evalset`` x ``grid`` (as ``plan_run`` takes them).

    The rows come from the one evaluation loop (``chunks.evaluate_chunk``), here with each
    configuration's manager counting in the model's own tokens and each block made into the
    model's prompt. Nothing is sent to the model but token counts (when the endpoint counts, and
    they are not remembered in the cache); ``MeasuredRun.cost()`` then says what answering will
    send. ``options.curves`` (a measured curve) gives ``expected_accuracy`` and what placement
    "curve" follows.
    """
    plan = plan_run(evalset, grid, options)
    client = measure.client()
    cache = measure.open_cache()
    counter, why = (
        endpoint_tokenizer(client.endpoint, client.model, store=cache) if measure.model_tokens else (None, None)
    )
    tokenizer: Tokenizer | None = counter
    notes = [cache.note] if cache is not None and cache.note else []
    if why is not None:
        # No /tokenize (OpenAI, Ollama): the model's name may still give its own vocabulary, offline.
        tokenizer = model_vocabulary(client.model)
        fallback = "approximate for this model" if tokenizer is None else f"{client.model}'s own vocabulary"
        notes.append(f"{why}: budgets are in {tokenizer.name if tokenizer else 'cl100k_base'} tokens, {fallback}")
    budget_tokens = tokenizer.name if tokenizer is not None else "cl100k_base (approximate for this model)"
    managers = _managers(plan, tokenizer)
    solved = solved_questions(measure.shots, {q.query_id for q in plan.evalset.questions})
    # Each configuration shows its solved examples' passages the way it shows its own blocks.
    shots = [[Shot(q.query, q.answers[0], _shot_block(m, q.query, doc)) for q, doc in solved] for m in managers]
    prompts: list[str] = []
    blocks: list[str] = []

    def prompt_of(question: EvalQuestion, k: int, result: ContextResult) -> None:
        blocks.append(result.context_block)
        prompts.append(measure.template.render(question.query, result.context_block, shots[k]))

    rows = evaluate_chunk(
        plan.evalset.questions,
        plan.evalset.retriever,
        plan.configs,
        plan.options,
        BuildCache(),
        managers=managers,
        on_row=prompt_of,
    )
    return MeasuredRun(
        plan,
        measure,
        client,
        cache,
        rows,
        prompts,
        blocks,
        budget_tokens,
        shots[0] if shots else [],
        tokenizer=tokenizer,
        notes=notes,
    )
