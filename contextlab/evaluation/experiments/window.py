"""Before a context experiment sends anything: does every level fit the model's window, and what will it cost.

A llama.cpp server says how many tokens each request may hold (``GET /props``:
``default_generation_settings.n_ctx``, per slot); a prompt longer than that fails at the server
("request exceeds the available context size"), after the calls before it were paid for. So
every level's longest prompt, plus the tokens the answer may take, is checked against the window
first, and a level that cannot fit is refused in one line that names the window. The cost is
said per level, in calls, tokens and (at the endpoint's last measured pace) minutes: long
prompts are slow on a small CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import HTTPFailure, InvalidInputError
from ...models.http import post_json
from ...models.keys import auth_headers
from ...models.tokenizer import server_root
from .plan import ExperimentPlan

__all__ = ["LevelCost", "check_window", "level_costs", "served_window"]

# A window beyond this is not a real server's answer.
_MOST_WINDOW = 100_000_000
_PROPS_BYTES = 4 * 1024 * 1024


def served_window(endpoint: str, *, deadline: float = 10.0) -> int | None:
    """Return the tokens one request may hold at ``endpoint`` as its server says, None when it does not say."""
    try:
        reply = post_json(
            server_root(endpoint) + "/props",
            None,
            method="GET",
            headers=auth_headers(),
            deadline=deadline,
            max_bytes=_PROPS_BYTES,
        )
    except HTTPFailure:
        return None
    settings = reply.get("default_generation_settings") if isinstance(reply, dict) else None
    window = settings.get("n_ctx") if isinstance(settings, dict) else None
    if isinstance(window, bool) or not isinstance(window, int) or not 0 < window <= _MOST_WINDOW:
        return None
    return window


def check_window(plan: ExperimentPlan, window: int, answer_tokens: int, *, endpoint: str = "the endpoint") -> None:
    """Raise naming the first level whose longest prompt and answer exceed ``window`` tokens."""
    for level in plan.settings.levels:
        longest = plan.longest_prompt(level)
        if longest + answer_tokens > window:
            field = {"length": "lengths", "distractors": "distractors"}.get(plan.settings.kind, "documents")
            raise InvalidInputError(
                f"{field}: {plan.settings.label(level)} needs prompts of up to {longest:,} tokens plus "
                f"{answer_tokens} to answer, but the model at {endpoint} reads {window:,} a request; measure "
                f"shorter levels, or serve a larger window (contextlab model serve --context {_room(longest)})",
                field=field,
            )


def _room(tokens: int) -> int:
    """Return the next power of two at or above ``tokens`` plus room for the answer (a window to ask for)."""
    size = 4096
    while size < tokens + 256:
        size *= 2
    return size


@dataclass(frozen=True)
class LevelCost:
    """One level's calls still to send, their prompt tokens, and the seconds they should take (None: no pace yet)."""

    label: str
    calls: int
    prompt_tokens: int
    seconds: float | None

    def line(self) -> str:
        """Return e.g. ``2000 tokens: 10 calls, 21,500 prompt tokens, about 2.1 minutes``."""
        if self.calls == 0:
            return f"{self.label}: every answer comes from the cache"
        text = (
            f"{self.label}: {self.calls:,} call{'s' if self.calls != 1 else ''}, {self.prompt_tokens:,} prompt tokens"
        )
        if self.seconds is None:
            return text
        if self.seconds < 90:
            return text + f", about {self.seconds:.0f} s"
        return text + f", about {self.seconds / 60:.1f} minutes"


def level_costs(plan: ExperimentPlan, client: Any, cache: Any, rate: Callable[[int], float | None]) -> list[LevelCost]:
    """Return each level's ``LevelCost``: the prompts not in ``cache``, their tokens, and ``rate(tokens)`` seconds."""
    from ...models.batch import request_key

    out = []
    for level in plan.settings.levels:
        cases = {c.prompt: c.prompt_tokens for c in plan.cases if c.level == level}
        todo = [t for p, t in cases.items() if cache is None or request_key(client, p) not in cache]
        tokens = sum(todo)
        out.append(LevelCost(plan.settings.label(level), len(todo), tokens, rate(tokens) if todo else 0.0))
    return out
