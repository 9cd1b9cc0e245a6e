"""How fast an endpoint answers: a batch's pace, what the server itself spent, and the next run's estimate.

llama.cpp's server reports its own work per request (``timings``: prompt tokens processed,
prompt tokens served from the slot's cache, milliseconds spent on each); OpenAI-style servers
report cached prompt tokens in ``usage.prompt_tokens_details``. ``RunPace`` sums a batch's calls
against its wall time: prompt tokens per second achieved, the share of prompt tokens the server
served from its cache, and the wall time against the server's own busy time at the concurrency
used (the sum of its per-request times over the requests in flight at once: 1.0 means every slot
was busy the whole run, more means the client left the server waiting).

``remember_pace`` keeps a finished batch's rate in the response cache's memo, so the next run
against the same endpoint says up front about how long it will take (``estimate_seconds``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "RunPace",
    "ServerTiming",
    "combined_pace",
    "estimate_seconds",
    "measured_pace",
    "remember_pace",
    "server_timing",
]

_MAX_MS = 86_400_000.0  # a day: no single request's timing is longer
_MAX_TOKENS = 10_000_000


@dataclass(frozen=True)
class ServerTiming:
    """What the server says one request cost it: prompt tokens processed and served from cache, and ms."""

    prompt_tokens: int
    cached_tokens: int
    prompt_ms: float
    predicted_ms: float

    @property
    def busy_ms(self) -> float:
        """Return the server's own time on the request (prompt + generation), in ms."""
        return self.prompt_ms + self.predicted_ms


def _whole(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_TOKENS
    return value if ok else None


def _ms(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= _MAX_MS
    return float(value) if ok else None


def server_timing(body: Mapping[str, Any]) -> ServerTiming | None:
    """Return the ``ServerTiming`` a reply body reports (llama.cpp's ``timings``), None when absent or malformed.

    Only whole token counts and milliseconds from 0 to a day are taken; anything else is
    ignored (these numbers only describe speed, they never change an answer).
    """
    timings = body.get("timings") if isinstance(body, Mapping) else None
    if not isinstance(timings, Mapping):
        return None
    processed, cached = _whole(timings.get("prompt_n")), _whole(timings.get("cache_n", 0))
    prompt_ms, predicted_ms = _ms(timings.get("prompt_ms")), _ms(timings.get("predicted_ms", 0.0))
    if processed is None or cached is None or prompt_ms is None or predicted_ms is None:
        return None
    return ServerTiming(processed, cached, prompt_ms, predicted_ms)


@dataclass(frozen=True)
class RunPace:
    """A batch's calls against its wall time (only calls sent count; answers from the cache cost nothing)."""

    calls: int
    wall_s: float
    concurrency: int
    prompt_tokens: int
    completion_tokens: int
    timings: tuple[ServerTiming, ...] = ()

    @property
    def prompt_tokens_per_s(self) -> float | None:
        """Return the prompt tokens sent per second of wall time."""
        return self.prompt_tokens / self.wall_s if self.wall_s > 0 and self.calls else None

    @property
    def cached_share(self) -> float | None:
        """Return the share of prompt tokens the server served from its cache (None without timings)."""
        total = sum(t.prompt_tokens + t.cached_tokens for t in self.timings)
        return sum(t.cached_tokens for t in self.timings) / total if total else None

    @property
    def server_busy_s(self) -> float | None:
        """Return the server's own time summed over its requests, over the requests in flight at once."""
        if not self.timings or len(self.timings) < self.calls:
            return None
        return sum(t.busy_ms for t in self.timings) / 1000.0 / max(1, min(self.concurrency, self.calls))

    def lines(self) -> list[str]:
        """Return the pace in words: tokens per second, cached share, wall against server time."""
        if not self.calls:
            return ["every answer came from the cache: nothing was sent"]
        rate = self.prompt_tokens_per_s or 0.0
        out = [
            f"{self.calls} calls in {self.wall_s:.1f} s at concurrency {self.concurrency}: "
            f"{rate:,.0f} prompt tokens/s, {self.wall_s / self.calls:.2f} s per call"
        ]
        if self.cached_share is not None:
            out.append(f"the server served {100 * self.cached_share:.0f}% of prompt tokens from its cache")
        busy = self.server_busy_s
        if busy:
            out.append(
                f"wall {self.wall_s:.1f} s against the server's own {busy:.1f} s "
                f"(its per-request times over {min(self.concurrency, self.calls)} in flight): "
                f"{self.wall_s / busy:.2f}x"
            )
        else:
            out.append("the server reports no timings of its own: wall time only")
        return out


def combined_pace(paces: Sequence[RunPace]) -> RunPace:
    """Return the paces of several batches (a run's looks) as one: calls, wall time and tokens summed."""
    concurrency = max((p.concurrency for p in paces), default=1)
    return RunPace(
        sum(p.calls for p in paces),
        sum(p.wall_s for p in paces),
        concurrency,
        sum(p.prompt_tokens for p in paces),
        sum(p.completion_tokens for p in paces),
        tuple(t for p in paces for t in p.timings),
    )


def measured_pace(answers: Sequence[Any], wall_s: float, concurrency: int) -> RunPace:
    """Return the ``RunPace`` of a batch's ``ModelAnswer`` list (``cached`` ones left out) over ``wall_s``."""
    sent = [a for a in answers if not a.cached]
    timings = tuple(a.server for a in sent if getattr(a, "server", None) is not None)
    return RunPace(
        len(sent),
        wall_s,
        concurrency,
        sum(a.prompt_tokens or 0 for a in sent),
        sum(a.completion_tokens or 0 for a in sent),
        timings,
    )


def _memo_key(endpoint: str, model: str) -> str:
    return f"pace:{endpoint.rstrip('/')}|{model}"


def remember_pace(cache: Any, endpoint: str, model: str, pace: RunPace) -> None:
    """Keep ``pace``'s rate in ``cache``'s memo for the next estimate (nothing without a cache or calls)."""
    rate = pace.prompt_tokens_per_s
    if cache is None or rate is None or getattr(cache, "read_only", False):
        return
    cache.memo_put(
        _memo_key(endpoint, model),
        json.dumps({"prompt_tokens_per_s": rate, "calls": pace.calls, "concurrency": pace.concurrency}),
    )


def estimate_seconds(cache: Any, endpoint: str, model: str, prompt_tokens: int) -> tuple[float, str] | None:
    """Return ``(seconds, basis)`` for ``prompt_tokens`` at the endpoint's last measured rate, or None."""
    raw = cache.memo_get(_memo_key(endpoint, model)) if cache is not None else None
    if not raw:
        return None
    try:
        kept = json.loads(raw)
        rate, calls, concurrency = float(kept["prompt_tokens_per_s"]), int(kept["calls"]), int(kept["concurrency"])
    except (TypeError, ValueError, KeyError):
        return None
    if not rate > 0:
        return None
    return (
        prompt_tokens / rate,
        f"at the {rate:,.0f} prompt tokens/s measured over the last {calls} calls "
        f"to this endpoint (concurrency {concurrency})",
    )
