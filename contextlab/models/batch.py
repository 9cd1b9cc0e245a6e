"""Many prompts to one model: from the cache first, the rest sent with bounded concurrency.

``plan_calls`` says before anything is sent how many calls a batch needs and how many prompt
tokens they carry; ``answer_prompts`` sends them and keeps each answer in the cache the moment it
arrives; ``CallProgressBar`` draws calls, tokens and the time left.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, TextIO

from ..progress import ProgressBar
from ..validation import whole_number
from .cache import CachedResponse, ResponseCache, cache_key
from .client import ModelAnswer, ModelClient

__all__ = ["CallPlan", "CallStats", "CallProgressBar", "plan_calls", "answer_prompts", "request_key"]


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

    def describe(self) -> str:
        """Return one line such as ``40 calls, 31,200 prompt tokens (8 more answers from the cache)``."""
        approx = "" if self.tokens_exact else " (approximate: cl100k_base)"
        cached = f"; {self.cached} answers come from the cache" if self.cached else ""
        return f"{self.calls} calls, {self.prompt_tokens:,} prompt tokens{approx}{cached}"


def plan_calls(client: ModelClient, prompts: Sequence[str], cache: ResponseCache | None,
               count: Callable[[str], int], *, tokens_exact: bool = False) -> CallPlan:
    """Return the ``CallPlan`` of ``prompts``; ``count`` gives a prompt's tokens (e.g. the endpoint's)."""
    distinct = list(dict.fromkeys(prompts))
    todo = [p for p in distinct if cache is None or request_key(client, p) not in cache]
    return CallPlan(prompts=len(distinct), cached=len(distinct) - len(todo), calls=len(todo),
                    prompt_tokens=sum(count(p) for p in todo), tokens_exact=tokens_exact)


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


Progress = Callable[[CallStats], None]


def _from_cache(entry: CachedResponse) -> ModelAnswer:
    return ModelAnswer(entry.text, entry.prompt_tokens, entry.completion_tokens, entry.latency_ms,
                       cached=True, finish_reason=entry.finish_reason)


def answer_prompts(client: ModelClient, prompts: Sequence[str], *, cache: ResponseCache | None = None,
                   concurrency: int = 4, progress: Progress | None = None) -> list[ModelAnswer]:
    """Return the model's answer to each prompt, in order: cached ones first, the rest sent.

    At most ``concurrency`` requests are in flight. Each answer is stored in ``cache`` as it
    arrives, so when a call fails (its ``EndpointError`` is raised once the calls in flight
    end) or the process is killed, a rerun sends only what is still missing. ``progress`` is
    called from the calling thread only.
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
        progress(stats)

    def one(prompt: str) -> ModelAnswer:
        reply = client.complete(prompt)
        if cache is not None:  # stored the moment it arrives: a kill after this loses nothing
            cache.put(keys[prompt], client.endpoint, client.model_label,
                      CachedResponse(reply.text, reply.prompt_tokens, reply.completion_tokens,
                                     reply.latency_ms, reply.finish_reason))
        return reply

    if todo:
        client.resolve_model()  # one clear line now if the endpoint is down, not one per call
        # Progress is reported from this thread only (a UI's widgets belong to the caller's thread).
        with ThreadPoolExecutor(max_workers=min(concurrency, len(todo))) as pool:
            futures = {pool.submit(one, p): p for p in todo}
            for future in as_completed(futures):
                if future.exception() is not None:
                    for other in futures:
                        other.cancel()
                    raise future.exception()  # type: ignore[misc]
                reply = future.result()
                answers[futures[future]] = reply
                stats.done += 1
                stats.calls += 1
                stats.prompt_tokens += reply.prompt_tokens or 0
                stats.completion_tokens += reply.completion_tokens or 0
                if progress is not None:
                    progress(stats)
    return [answers[p] for p in prompts]


class CallProgressBar:
    """``[#####.....] 12/40 prompts 31.2 s  9 calls 3 cached  8,120+96 tokens  ETA 1m05s``:
    the one ``ProgressBar`` (``contextlab.progress``), fed a batch's ``CallStats``."""

    def __init__(self, stream: TextIO | None = None, *, width: int = 24, enabled: bool | None = None) -> None:
        self.bar = ProgressBar(stream, width=width, label="prompts", enabled=enabled)

    @property
    def enabled(self) -> bool:
        """True when the bar draws (its stream is a terminal, or it was told to)."""
        return self.bar.enabled

    def __call__(self, stats: CallStats) -> None:
        """Redraw the bar with the batch's calls, cached answers, tokens and ETA."""
        eta = stats.eta_s
        left = "ETA --" if eta is None else f"ETA {int(eta // 60)}m{int(eta % 60):02d}s"
        self.bar(stats.done, stats.total, f"{stats.calls} calls {stats.cached} cached  "
                 f"{stats.prompt_tokens:,}+{stats.completion_tokens:,} tokens  {left}")

    def __repr__(self) -> str:
        return f"CallProgressBar(enabled={self.enabled})"


def describe_stats(stats: Any) -> str:
    """Return the finished batch in one line (calls, cached answers, tokens, seconds)."""
    return (f"{stats.calls} calls, {stats.cached} from the cache, {stats.prompt_tokens:,} prompt + "
            f"{stats.completion_tokens:,} completion tokens, {stats.elapsed_s:.1f} s")
