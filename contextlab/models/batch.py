"""Many prompts to one model: from the cache first, the rest sent with bounded concurrency.

``plan_calls`` says before anything is sent how many calls a batch needs and how many prompt
tokens they carry; ``answer_prompts`` sends them and keeps each answer in the cache the moment it
arrives, telling a ``progress.Progress`` (e.g. a ``ProgressBar``) the prompts done and, as its
note, the calls, tokens and time left (``CallStats.note``).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import RunInterrupted
from ..progress import Progress
from ..validation import whole_number
from .cache import CachedResponse, ResponseCache, cache_key
from .client import ModelAnswer, ModelClient
from .replies import answer_char_limit

__all__ = [
    "DEFAULT_CONCURRENCY",
    "CallPlan",
    "CallStats",
    "plan_calls",
    "answer_prompts",
    "answer_notes",
    "request_key",
]

#: Requests in flight at once unless told: a few per core of a local server.
DEFAULT_CONCURRENCY = 4


def request_key(client: ModelClient, prompt: str) -> str:
    """Return the cache key of ``prompt`` sent by ``client`` (endpoint, model, api, sampling, prompt)."""
    fields = client.request_fields()
    api = fields.pop("api")
    return cache_key(client.endpoint, client.model_label, api, fields, prompt)


@dataclass(frozen=True)
class CallPlan:
    """What a batch will cost: distinct prompts, those already cached, and the calls left."""

    prompts: int
    cached: int
    calls: int
    prompt_tokens: int
    tokens_exact: bool

    def describe(self, endpoint: str) -> str:
        """Return e.g. ``40 calls, 31,200 prompt tokens to URL; 8 answers come from the cache``."""
        approx = "" if self.tokens_exact else " (approximate: cl100k_base)"
        cached = (
            ""
            if not self.cached
            else (
                f"; {self.cached:,} answer{'s' if self.cached != 1 else ''} come{'' if self.cached != 1 else 's'} "
                "from the cache"
            )
        )
        return (
            f"{self.calls:,} call{'s' if self.calls != 1 else ''}, {self.prompt_tokens:,} prompt tokens{approx} "
            f"to {endpoint}{cached}"
        )


def plan_calls(
    client: ModelClient,
    prompts: Sequence[str],
    cache: ResponseCache | None,
    count: Callable[[str], int],
    *,
    tokens_exact: bool = False,
) -> CallPlan:
    """Return the ``CallPlan`` of ``prompts``; ``count`` gives a prompt's tokens (e.g. the endpoint's)."""
    distinct = list(dict.fromkeys(prompts))
    todo = [p for p in distinct if cache is None or request_key(client, p) not in cache]
    return CallPlan(
        prompts=len(distinct),
        cached=len(distinct) - len(todo),
        calls=len(todo),
        prompt_tokens=sum(count(p) for p in todo),
        tokens_exact=tokens_exact,
    )


@dataclass
class CallStats:
    """A batch's progress: prompts done of all, calls made, answers from the cache, tokens."""

    total: int
    done: int = 0
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = 0.0
    #: Answers contextlab cut (longer than their max_tokens allow).
    cut: int = 0

    @property
    def elapsed_s(self) -> float:
        """Return the seconds since the batch started."""
        return time.monotonic() - self.started

    @property
    def eta_s(self) -> float | None:
        """Return the seconds left at the pace of the calls made so far (None before the first)."""
        if self.calls == 0:
            return None
        return self.elapsed_s / self.calls * (self.total - self.done)

    def note(self) -> str:
        """Return what a progress line says beside the counts: calls, cached answers, tokens, the time left.

        ``4 calls, 0 cached, 4,000+40 tokens; about 1m50s left at the pace of the calls so far`` (no
        estimate before the first call is answered, none once all are).
        """
        text = f"{self.calls} calls, {self.cached} cached, {self.prompt_tokens:,}+{self.completion_tokens:,} tokens"
        eta = self.eta_s
        if eta is None or self.done >= self.total:
            return text
        return text + f"; about {int(eta // 60)}m{int(eta % 60):02d}s left at the pace of the calls so far"


def _from_cache(entry: CachedResponse) -> ModelAnswer:
    return ModelAnswer(
        entry.text,
        entry.prompt_tokens,
        entry.completion_tokens,
        entry.latency_ms,
        cached=True,
        finish_reason=entry.finish_reason,
    )


def answer_prompts(
    client: ModelClient,
    prompts: Sequence[str],
    *,
    cache: ResponseCache | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
) -> list[ModelAnswer]:
    """Return the model's answer to each prompt, in order: cached ones first, the rest sent.

    At most ``concurrency`` requests are in flight. Each answer is stored in ``cache`` as it
    arrives, so when a call fails (its ``EndpointError`` is raised at once and nothing more is
    sent) or the process is killed, a rerun sends only what is still missing. Ctrl-C cancels
    every call not yet sent and raises ``RunInterrupted`` saying how many were answered and
    kept. ``progress`` is told (prompts done, prompts in all, ``CallStats.note()``), from the
    calling thread only.
    """
    whole_number("concurrency", concurrency, minimum=1)
    keys = {p: request_key(client, p) for p in dict.fromkeys(prompts)}
    stats = CallStats(total=len(keys), started=time.monotonic())
    answers: dict[str, ModelAnswer] = {}
    for prompt, key in keys.items():
        entry = cache.get(key) if cache is not None else None
        if entry is not None:
            answers[prompt] = _from_cache(entry)
            stats.cached += 1
            stats.done += 1
    todo = [p for p in keys if p not in answers]
    if progress is not None:
        progress(stats.done, stats.total, stats.note())
    if todo:
        client.resolve_model()  # one clear line now if the endpoint is down, not one per call
        answers.update(_send_all(client, todo, keys, cache, concurrency, stats, progress))
    return [answers[p] for p in prompts]


class _Calls:
    """The calls of a batch in flight: a queue of prompts, worker threads, and what came back.

    The workers are daemon threads: Ctrl-C must not wait for a call in flight to finish (a
    server may take minutes), and one that is answered afterwards is still kept in the cache.
    """

    def __init__(
        self, client: ModelClient, todo: list[str], keys: Mapping[str, str], cache: ResponseCache | None
    ) -> None:
        self.client, self.keys, self.cache = client, keys, cache
        self.waiting: queue.SimpleQueue[str] = queue.SimpleQueue()
        for prompt in todo:
            self.waiting.put(prompt)
        self.back: queue.SimpleQueue[tuple[str, ModelAnswer | None, BaseException | None]] = queue.SimpleQueue()
        self.stop = threading.Event()
        self.sent = 0
        self._lock = threading.Lock()

    def work(self) -> None:
        """Answer prompts from the queue until it is empty or the batch stops; returns nothing."""
        while not self.stop.is_set():
            try:
                prompt = self.waiting.get_nowait()
            except queue.Empty:
                return
            with self._lock:
                self.sent += 1
            try:
                reply = self.client.complete(prompt, cancel=self.stop)
                if self.cache is not None:  # stored the moment it arrives: a kill after this loses nothing
                    self.cache.put(
                        self.keys[prompt],
                        self.client.endpoint,
                        self.client.model_label,
                        CachedResponse(
                            reply.text,
                            reply.prompt_tokens,
                            reply.completion_tokens,
                            reply.latency_ms,
                            reply.finish_reason,
                        ),
                    )
            except BaseException as exc:  # handed to the calling thread, which raises it
                self.back.put((prompt, None, exc))
                return
            self.back.put((prompt, reply, None))

    def interrupted(self, answered: int, total: int) -> RunInterrupted:
        """Return the ``RunInterrupted`` that says what was sent, answered and kept."""
        self.stop.set()
        in_flight = max(0, self.sent - answered)
        done = f"interrupted: {self.sent} of {total} calls sent, {answered} answered"
        left = f"{in_flight} in flight dropped, {total - self.sent} not sent"
        if self.cache is None or self.cache.read_only:
            why = "no cache" if self.cache is None else "the cache is read-only"
            return RunInterrupted(f"{done} and not kept ({why}), {left}; a rerun sends them all again")
        return RunInterrupted(
            f"{done} and kept in the cache, {left}; rerun to resume (only the calls not in the cache are sent again)"
        )


def _send_all(
    client: ModelClient,
    todo: list[str],
    keys: Mapping[str, str],
    cache: ResponseCache | None,
    concurrency: int,
    stats: CallStats,
    progress: Progress | None,
) -> dict[str, ModelAnswer]:
    """Return the answers to ``todo``, sent by at most ``concurrency`` worker threads."""
    calls = _Calls(client, todo, keys, cache)
    for _ in range(min(concurrency, len(todo))):
        threading.Thread(target=calls.work, daemon=True, name="contextlab-call").start()
    answers: dict[str, ModelAnswer] = {}
    try:
        while len(answers) < len(todo):
            try:
                prompt, reply, exc = calls.back.get(timeout=0.2)  # short waits: Ctrl-C is seen at once
            except queue.Empty:
                continue
            if exc is not None:
                calls.stop.set()
                raise exc
            assert reply is not None
            answers[prompt] = reply
            stats.done += 1
            stats.calls += 1
            stats.cut += reply.cut
            stats.prompt_tokens += reply.prompt_tokens or 0
            stats.completion_tokens += reply.completion_tokens or 0
            if progress is not None:
                progress(stats.done, stats.total, stats.note())
    except KeyboardInterrupt:
        raise calls.interrupted(len(answers), len(todo)) from None
    return answers


def answer_notes(answers: Sequence[ModelAnswer], client: ModelClient) -> list[str]:
    """Return the lines a batch's answers call for: how many were cut, how many stopped before any text, and where."""
    assert client.sampling is not None
    limit = client.sampling.max_tokens
    notes = []
    cut = sum(1 for a in answers if a.cut)
    if cut:
        notes.append(
            f"{_answers(cut)} from {client.endpoint} {'were' if cut != 1 else 'was'} longer than "
            f"max_tokens={limit} allows and {'were' if cut != 1 else 'was'} cut at "
            f"{answer_char_limit(limit):,} characters"
        )
    # A reasoning model spends its tokens thinking first (llama.cpp and vLLM send that apart from the
    # content): at the limit it has said nothing, and every such answer is scored wrong.
    silent = sum(1 for a in answers if a.finish_reason == "length" and not a.text.strip())
    if silent:
        notes.append(
            f"{_answers(silent)} from {client.endpoint} reached max_tokens={limit} before any text "
            "and scored as wrong; a reasoning model thinks first: give it more tokens or turn its "
            "reasoning off"
        )
    return notes


def _answers(n: int) -> str:
    return f"{n:,} answer{'s' if n != 1 else ''}"
