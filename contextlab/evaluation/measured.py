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
from ..curves.curve_file import PositionData
from ..curves.published import accuracy_at, position_curve
from ..intervals import wilson_interval
from ..manager import ContextManager
from ..models.batch import CallPlan, CallStats, answer_notes, answer_prompts, plan_calls, request_key
from ..models.cache import ResponseCache
from ..models.client import ModelAnswer, ModelClient
from ..models.pace import measured_pace
from ..models.prompts import DEFAULT_TEMPLATE, QATemplate, Shot
from ..models.scoring import answer_is_correct
from ..models.tokenizer import endpoint_tokenizer, prompt_counter
from ..types import Document, PromptRequest
from .curve import solved_questions
from .metrics import prepare_question, question_metrics
from .run import EvalResult, RunPlan, plan_run

__all__ = ["MEASURED_COLUMNS", "MeasureSettings", "MeasuredRun", "plan_measured", "apply_curve", "curve_reading_note",
           "evaluate_with_curve", "served_model", "with_curve"]

#: The columns a measured run adds to every row, after the metrics.
MEASURED_COLUMNS: tuple[str, ...] = ("answer", "correct", "latency_ms", "prompt_tokens", "completion_tokens")


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
    concurrency: int = 4
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


def with_curve(plan: RunPlan, curves: PositionData | None) -> RunPlan:
    """Return ``plan`` whose "curve" placements follow ``curves`` (a measured curve file's data)."""
    if curves is None:
        return plan
    curve = position_curve(curves.models()[0], data=curves)
    plan.configs = [replace(c, position_curve=curve) for c in plan.configs]
    return plan


def apply_curve(rows: list[dict[str, Any]], curves: PositionData, questions: int | None = None) -> list[dict[str, Any]]:
    """Return ``rows`` with ``expected_accuracy`` read from ``curves`` (a measured curve) instead.

    The gold at position p of a block of n documents reads the curve's model at p of n
    (interpolated as the published curves are); a gold not in the block reads its closed-book
    accuracy, a block of one gold document its gold-only accuracy. ``curve`` names the curve;
    ``curve_low``/``curve_high`` are the 95% Wilson interval of the value read on ``questions``
    (the curve's N; without it the curve is taken as exact). A block of another size than the
    curve was measured with says so in ``curve`` (see ``curve_reading_note``).
    """
    model = curves.models()[0]
    measured = curves.doc_counts(model)
    for row in rows:
        if row.get("expected_accuracy") is None:
            continue
        n, position = row["in_block"], row["gold_position"]
        if position is None:
            value = curves.closed_book(model)
        elif n == 1 and curves.oracle(model) is not None:
            value = curves.oracle(model)
        else:
            value = accuracy_at(model, n, position, data=curves)
        if value is None:
            row.update(expected_accuracy=None, curve=f"measured: {model}", curve_low=None, curve_high=None)
            continue
        low, high = (wilson_interval(value / 100.0 * questions, questions) if questions else
                     (value / 100.0, value / 100.0))
        read = "" if position is None or n == 1 or n in measured else \
            f" ({n} documents read at relative depth on the {'/'.join(map(str, measured))}-document curve)"
        row.update(expected_accuracy=round(value, 3), curve=f"measured: {model}{read}",
                   curve_low=round(100.0 * low, 3), curve_high=round(100.0 * high, 3))
    return rows


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


def curve_reading_note(rows: Sequence[Mapping[str, Any]], curves: PositionData) -> str | None:
    """Return the warning for blocks of other sizes than the measured curve's, None when every block matches.

    A curve measured with K documents says nothing directly about a block of n != K: its gold
    at position p is read at the relative depth (p - 1) / (n - 1) of the K-document curve, which
    assumes the position effect follows relative depth.
    """
    model = curves.models()[0]
    measured = curves.doc_counts(model)
    other = sorted({r["in_block"] for r in rows if r.get("expected_accuracy") is not None
                    and r.get("gold_position") is not None and r["in_block"] > 1 and r["in_block"] not in measured})
    if not other:
        return None
    count = sum(1 for r in rows if r.get("gold_position") is not None and r["in_block"] in other)
    sizes = ", ".join(map(str, other[:8])) + (", ..." if len(other) > 8 else "")
    return (f"the curve of {model} was measured with {'/'.join(map(str, measured))} documents, but {count} of "
            f"{len(rows)} rows have blocks of {sizes}: their gold at position p of n is read at relative depth "
            "(p - 1)/(n - 1) on the measured curve, which assumes the effect follows depth, not count; measure "
            "with `contextlab curve --documents N` for the block size you use to read it directly")


def evaluate_with_curve(evalset: Any, grid: Any, curves: PositionData, *, name: str, progress: Any = None,
                        **options: Any) -> EvalResult:
    """Return the run of ``evalset`` x ``grid`` whose expected accuracy reads ``curves`` (a measured curve).

    No model is asked: each row's ``expected_accuracy`` is read off the curve (with the 95% interval
    its N gives) and placement "curve" follows it; ``name`` (the file's) names the curve in the
    result. ``options`` are ``plan_run``'s. ``contextlab eval --curve`` and the lab's Evaluate run this.
    """
    from ..settings import DEFAULT_CURVE_MODEL

    options.setdefault("model", DEFAULT_CURVE_MODEL)  # the published one only names the run; rows read `curves`
    plan = with_curve(plan_run(evalset, grid, **options), curves)
    rows = apply_curve([row for chunk in plan.chunks(progress) for row in chunk], curves, curves.questions)
    result = plan.result(rows, questions={q.query_id: q.query for q in plan.evalset.questions})
    result.model = f"{curves.models()[0]} (measured curve {name})"
    return result


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
    rows: list[dict[str, Any]]
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
        cost = plan_calls(self.client, self.prompts, self.cache, prompt_counter(self.tokenizer),
                          tokens_exact=self.tokenizer is not None)
        if cost.calls:
            self.client.resolve_model()
        return cost

    def run(self, progress: Any = None, on_answers: Callable[[list[dict[str, Any]]], None] | None = None) -> EvalResult:
        """Return the ``EvalResult`` with every row's measured answer (see the module doc).

        ``on_answers`` gets the rows answered so far, each time more have arrived: the cached ones
        at once, then after each wave of ``concurrency`` calls (``progress`` too, between waves, so
        its time left is read from whole waves, not from the first call of one).
        """
        started = time.monotonic()
        if on_answers is None:
            answers = answer_prompts(self.client, self.prompts, cache=self.cache,
                                     concurrency=self.settings.concurrency, progress=progress)
        else:
            answers = self._in_waves(progress, on_answers)
        pace = measured_pace(answers, time.monotonic() - started, self.settings.concurrency)
        self.notes += answer_notes(answers, self.client)
        gold = self._gold()
        rows = [_measured(row, reply, gold) for row, reply in zip(self.rows, answers)]
        served = served_model(self.client, self.cache, asked=any(not a.cached for a in answers))
        result = self.plan.result(rows, questions={q.query_id: q.query for q in self.plan.evalset.questions},
                                  endpoint=self.client.endpoint, answer_model=served or None,
                                  extra_columns=MEASURED_COLUMNS)
        result.provenance["answered_with"] = {**self.client.describe(), "shots": self.settings.shots,
                                              "budget_tokens": self.budget_tokens}
        result.pace = pace
        return result

    def _gold(self) -> dict[str, Any]:
        return {q.query_id: q.answers for q in self.plan.evalset.questions}

    def _in_waves(self, progress: Any, on_answers: Callable[[list[dict[str, Any]]], None]) -> list[ModelAnswer]:
        """Return the answers to every prompt, asked ``concurrency`` at a time, each wave handed on as it lands."""
        distinct = list(dict.fromkeys(self.prompts))
        known = {p for p in distinct if self.cache is not None and request_key(self.client, p) in self.cache}
        todo = [p for p in distinct if p not in known]
        size = self.settings.concurrency
        waves = ([[p for p in distinct if p in known]] if known else []) + [todo[i:i + size]
                                                                          for i in range(0, len(todo), size)]
        stats = CallStats(total=len(distinct), started=time.monotonic())
        gold = self._gold()
        got: dict[str, ModelAnswer] = {}
        for wave in waves:
            for prompt, reply in zip(wave, answer_prompts(self.client, wave, cache=self.cache, concurrency=size)):
                got[prompt] = reply
                stats.done += 1
                stats.cached += reply.cached
                stats.calls += not reply.cached
                stats.cut += reply.cut
                stats.prompt_tokens += 0 if reply.cached else reply.prompt_tokens or 0
                stats.completion_tokens += 0 if reply.cached else reply.completion_tokens or 0
            if progress is not None:
                progress(stats)
            on_answers([_measured(row, got[p], gold) for row, p in zip(self.rows, self.prompts) if p in got])
        return [got[p] for p in self.prompts]


def _measured(row: dict[str, Any], reply: ModelAnswer, gold: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``row`` with its measured answer: the answer line, right or wrong, latency and tokens."""
    answers = gold.get(row["query_id"])
    return {**row, "answer": reply.answer, "correct": answer_is_correct(reply.answer, answers) if answers else None,
            "latency_ms": reply.latency_ms, "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens}


def plan_measured(evalset: Any = None, grid: Sequence[str] | Mapping[str, Sequence[Any]] | None = None, *,
                  measure: MeasureSettings, curves: PositionData | None = None, curve_questions: int | None = None,
                  **options: Any) -> MeasuredRun:
    """Return the planned measured run of ``evalset`` x ``grid`` (``plan_run``'s ``options``).

    Nothing is sent to the model but token counts (when the endpoint counts, and they are not
    remembered in the cache); ``MeasuredRun.cost()`` then says what answering will send.
    ``curves`` (a measured curve, ``curves.curve_file.load_curve_file``) gives ``expected_accuracy`` and what
    placement "curve" follows.
    """
    plan = plan_run(evalset, grid, **options)
    client = measure.client()
    cache = measure.open_cache()
    tokenizer, why = endpoint_tokenizer(client.endpoint, client.model, store=cache) if measure.model_tokens \
        else (None, None)
    budget_tokens = tokenizer.name if tokenizer is not None else "cl100k_base (approximate for this model)"
    notes = [cache.note] if cache is not None and cache.note else []
    if why is not None:
        notes.append(f"{why}: budgets are in cl100k_base tokens, approximate for this model")
    plan = with_curve(plan, curves)
    managers = _managers(plan, tokenizer)
    run_ids = {q.query_id for q in plan.evalset.questions}
    solved = solved_questions(measure.shots, run_ids)
    # Each configuration shows its solved examples' passages the way it shows its own blocks.
    shots = [[Shot(q.query, q.answers[0], _shot_block(m, q.query, doc)) for q, doc in solved] for m in managers]
    build_cache = BuildCache()
    rows: list[dict[str, Any]] = []
    prompts: list[str] = []
    blocks: list[str] = []
    for q in plan.evalset.questions:
        docs = list(q.documents) if q.documents is not None else plan.evalset.retriever.retrieve(q.query, plan.top_k)
        prep = prepare_question(q, docs)
        for config, manager, shot_list in zip(plan.configs, managers, shots):
            result = manager.build(PromptRequest(query=q.query, documents=prep.documents,
                                                 max_context_tokens=config.config.max_context_tokens),
                                   cache=build_cache)
            rows.append({"config": config.label, "query_id": q.query_id, **config.settings,
                         **question_metrics(prep, result, plan.model)})
            if curves is not None:
                apply_curve(rows[-1:], curves, curve_questions)
            blocks.append(result.context_block)
            prompts.append(measure.template.render(q.query, result.context_block, shot_list))
    return MeasuredRun(plan, measure, client, cache, rows, prompts, blocks, budget_tokens, shots[0] if shots else [],
                       tokenizer=tokenizer, notes=notes)
