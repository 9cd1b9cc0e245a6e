"""A model behind any OpenAI-compatible endpoint, over httpx (``models.http``; proxies from the environment).

Ollama, vLLM, a llama.cpp server (``contextlab model serve``), LM Studio or OpenAI itself: give
the base URL (``http://127.0.0.1:8080/v1``) and, when the server has several, the model name.
Every call has one deadline covering the whole reply (``timeout``), reads at most a few
megabytes, follows no redirect, and is retried with backoff on 429, 5xx, timeouts and dropped
connections (``max_retries``); a reply is checked at the door (``models.replies``) and a failure
is one ``EndpointError`` line naming the endpoint. The key (``models.keys``) goes in the
``Authorization`` header only and is scrubbed from every text the server sends back.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import BadReply, EndpointError, HTTPFailure, InvalidInputError
from ..validation import finite_number, one_of, whole_number
from .http import post_json
from .keys import (
    API_KEY_VARIABLES,
    api_key_source,
    auth_headers,
    refuse_key_in_url,
    scrub,
)
from .pace import ServerTiming, server_timing
from .replies import answer_char_limit, completion, model_ids, safe_line
from .scoring import first_line

__all__ = [
    "APIS",
    "CUT",
    "ModelAnswer",
    "ModelClient",
    "Sampling",
    "check_endpoint_url",
    "default_sampling",
    "unreachable",
]

#: The two request flavours: chat messages or a plain text completion (base models).
APIS: tuple[str, ...] = ("chat", "completions")
#: The finish reason of an answer contextlab cut: longer than its ``max_tokens`` could produce.
CUT = "cut"
_VERSIONED = re.compile(r"/v\d+[a-z0-9]*$")
# The first contact (GET /models) is quick to say a server is down: no backoff on a refusal there.
_PROBE_DEADLINE = 30.0
_BACKOFF_FIRST, _BACKOFF_MOST = 0.5, 8.0


# Failures of a server that answered, only not as HTTP promises: said as what it sent, never as "is it running?".
_ANSWERED_BADLY = ("too_large", "not_json", "cut_off", "not_http", "encoding")


def unreachable(endpoint: str, reason: str, kind: str = "connection") -> str:
    """Return the line for an endpoint nothing answers at: its URL, the cause, and what to do.

    A TLS failure (``kind`` ``"tls"``) means something answered: its ``reason`` says what to do. A
    proxy's failure (``"proxy"``) points at the settings that chose the proxy.
    """
    if kind == "tls":
        return f"cannot talk to the endpoint {endpoint}: {reason}"
    if kind == "proxy":
        return (
            f"cannot reach the endpoint {endpoint} ({reason}); check HTTP_PROXY and HTTPS_PROXY, "
            "or add its host to NO_PROXY"
        )
    return (
        f"cannot reach the endpoint {endpoint} ({reason}); is the server running? "
        "`contextlab model serve` starts the bundled model"
    )


def check_endpoint_url(endpoint: str) -> str:
    """Return ``endpoint`` without a trailing slash, or raise when it is not a plain http(s) URL.

    A URL that carries credentials (``user:key@host``, a query string, a fragment, the key in
    its path) is refused: the key belongs in ``CONTEXTLAB_API_KEY``, never in a URL that is
    printed, shared and written into results.
    """
    if not isinstance(endpoint, str) or not endpoint.strip():
        raise InvalidInputError("endpoint must be a URL such as http://127.0.0.1:8080/v1", field="endpoint")
    url = endpoint.strip()
    try:
        urlsplit(url)
    except ValueError:  # "http://[::1/v1", "http://[x]/v1": urlsplit refuses only a bracketed host
        raise InvalidInputError(
            "endpoint's host in [ ] must be an IPv6 address with both brackets, as in http://[::1]:8080/v1",
            field="endpoint",
        ) from None
    refuse_key_in_url(url)
    url = url.rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInputError(
            "endpoint must be an http:// or https:// URL such as http://127.0.0.1:8080/v1", field="endpoint"
        )
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:  # never quoted: what stands there may be a pasted key
        raise InvalidInputError(
            "endpoint's port must be a number from 1 to 65535, as in http://127.0.0.1:8080/v1", field="endpoint"
        )
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise InvalidInputError("endpoint must not hold spaces or control characters", field="endpoint")
    return url


@dataclass(frozen=True)
class Sampling:
    """The sampling settings sent with every request (part of each cache key)."""

    temperature: float = 0.0
    max_tokens: int = 32
    stop: tuple[str, ...] = ()
    seed: int | None = 0

    def __post_init__(self) -> None:
        finite_number("temperature", self.temperature, minimum=0.0)
        whole_number("max_tokens", self.max_tokens, minimum=1, maximum=100_000)

    def as_dict(self) -> dict[str, Any]:
        """Return the settings as the request fields they become."""
        out: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.stop:
            out["stop"] = list(self.stop)
        if self.seed is not None:
            out["seed"] = self.seed
        return out


def default_sampling(api: str) -> Sampling:
    """Return greedy decoding of a short answer; a completion also stops at the line's end."""
    return Sampling(stop=("\n",)) if api == "completions" else Sampling()


@dataclass(frozen=True)
class ModelAnswer:
    """One reply: its text, the answer line the paper scores, token counts and latency.

    ``finish_reason`` is the server's (``"stop"``, ``"length"``), or ``"cut"`` when the reply was
    longer than its ``max_tokens`` could be and contextlab kept only its start (``cut``).
    """

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    cached: bool = False
    finish_reason: str | None = None
    #: What the server says the request cost it (llama.cpp's ``timings``), when it says (``models.pace``).
    server: ServerTiming | None = None

    @property
    def answer(self) -> str:
        """Return the first non-empty line of the reply (the model's answer)."""
        return first_line(self.text)

    @property
    def cut(self) -> bool:
        """True when contextlab cut the reply (it was longer than ``max_tokens`` allow)."""
        return self.finish_reason == CUT


def _reply_byte_cap(max_tokens: int) -> int:
    """Return how many bytes a completion of ``max_tokens`` may take on the wire (1 MB at least)."""
    return max(1024 * 1024, max_tokens * 4096)


@dataclass
class ModelClient:
    """Sends prompts to one model at one OpenAI-compatible endpoint.

    ``model`` None means the endpoint's first (often only) model, looked up when needed.
    ``timeout`` is each call's deadline in seconds, the whole reply read included (generous: a
    small CPU server with several requests in flight can take minutes on a long prompt);
    ``max_retries`` is how often a call is tried again, with exponential backoff (or the wait a
    429 asks for), on 429, 5xx, timeouts and dropped connections.
    """

    endpoint: str
    model: str | None = None
    api: str = "chat"
    sampling: Sampling | None = None
    timeout: float = 600.0
    max_retries: int = 4
    _resolved: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.endpoint = check_endpoint_url(self.endpoint)
        one_of("api", self.api, APIS)
        if self.model is not None and (not isinstance(self.model, str) or not self.model.strip()):
            raise InvalidInputError("model must be a model name, or None for the endpoint's own", field="model")
        self.sampling = self.sampling or default_sampling(self.api)
        finite_number("timeout", self.timeout, minimum=0.1)
        whole_number("max_retries", self.max_retries, minimum=0, maximum=20)

    # -- identity (what the cache key and the results name) --------------------------------
    @property
    def model_label(self) -> str:
        """Return the model as asked for ("" for the endpoint's default): the cache key's model."""
        return self.model or ""

    @property
    def served_model(self) -> str | None:
        """Return the model that answers, as one safe line (None until ``resolve_model``)."""
        return safe_line(scrub(self._resolved)) if self._resolved is not None else None

    def request_fields(self) -> dict[str, Any]:
        """Return what besides the prompt identifies a request: api and sampling (no key)."""
        assert self.sampling is not None
        return {"api": self.api, **self.sampling.as_dict()}

    # -- calls -------------------------------------------------------------------------------
    def _failure(self, call: str, exc: HTTPFailure, tries: int, deadline: float) -> EndpointError:
        """Return the one-line ``EndpointError`` for a failed call (the key scrubbed)."""
        after = f" after {tries - 1} retries" if tries > 1 else ""
        if exc.status in (401, 403):
            source = api_key_source()
            message = (
                f"the endpoint {self.endpoint} refused the API key from {source} (HTTP {exc.status})"
                if source
                else f"the endpoint {self.endpoint} needs an API key (HTTP {exc.status}); set {API_KEY_VARIABLES[0]}"
            )
        elif exc.status == 404:
            message = (
                f"the endpoint {self.endpoint} does not serve model {self.model_label or '(default)'!r} "
                f"or this API (HTTP 404 on {call}); check the model name and --api"
                + ("" if _VERSIONED.search(self.endpoint) else ", and that the URL ends in /v1")
            )
        elif exc.status == 429:
            message = (
                f"the endpoint {self.endpoint} kept refusing with HTTP 429 (rate limit){after}; "
                "lower concurrency or try later"
            )
        elif exc.kind == "timeout":
            message = (
                f"the endpoint {self.endpoint} did not answer {call} within {deadline:g} s{after}; "
                "is it overloaded? lower concurrency or raise the timeout"
            )
        elif exc.status is None and exc.kind not in _ANSWERED_BADLY:
            message = unreachable(self.endpoint, exc.reason + after, exc.kind)
        elif exc.kind in ("not_json", "not_http"):
            message = f"the endpoint {self.endpoint} {exc.reason} ({call}); is it an OpenAI-compatible API?"
        else:
            message = f"the endpoint {self.endpoint} {exc.reason} ({call}{after})"
        return EndpointError(scrub(message), status=exc.status)

    def _call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        max_bytes: int | None = None,
        deadline: float | None = None,
        retry_refused: bool = True,
        cancel: threading.Event | None = None,
    ) -> Any:
        """Return the JSON reply of one call, tried again on transient failures, or raise ``EndpointError``."""
        call, deadline = f"{method} {path}", deadline or self.timeout
        options: dict[str, Any] = {"deadline": deadline, "method": method, "headers": auth_headers()}
        if max_bytes is not None:
            options["max_bytes"] = max_bytes
        for attempt in range(self.max_retries + 1):
            try:
                return post_json(self.endpoint + path, body, **options)
            except HTTPFailure as exc:
                retry = exc.transient and (retry_refused or exc.kind != "refused") and attempt < self.max_retries
                if not retry or (cancel is not None and cancel.is_set()):
                    raise self._failure(call, exc, attempt + 1, deadline) from None
                wait = (
                    exc.retry_after if exc.retry_after is not None else min(_BACKOFF_MOST, _BACKOFF_FIRST * 2**attempt)
                )
                if cancel is not None:
                    if cancel.wait(wait):
                        raise self._failure(call, exc, attempt + 1, deadline) from None
                else:
                    time.sleep(wait)
        raise AssertionError("unreachable: the loop returns or raises")

    def _models_reply(self) -> Any:
        return self._call("GET", "/models", deadline=min(self.timeout, _PROBE_DEADLINE), retry_refused=False)

    def list_models(self) -> list[str]:
        """Return the ids of the models the endpoint serves (``GET /models``), as sent."""
        try:
            return model_ids(self._models_reply())
        except BadReply as exc:
            raise EndpointError(scrub(f"the endpoint {self.endpoint}: {exc}")) from None

    def _listed(self) -> tuple[list[str] | None, str]:
        """Return the ids the endpoint lists (None: no list, HTTP 404 or a broken one) and what was broken."""
        try:
            return model_ids(self._models_reply()), ""
        except EndpointError as exc:
            if exc.status != 404:
                raise
            return None, ""
        except BadReply as exc:  # taken at its word when a model is named; said when one must be chosen
            return None, str(exc)

    def _api_below(self) -> str | None:
        """Return ``endpoint + "/v1"`` when the endpoint is a server's root and its API is there, else None."""
        if _VERSIONED.search(urlsplit(self.endpoint).path):
            return None
        below = ModelClient(
            self.endpoint + "/v1", self.model, api=self.api, timeout=min(self.timeout, 10.0), max_retries=0
        )
        try:
            below.list_models()
        except EndpointError:
            return None
        return below.endpoint

    def resolve_model(self) -> str:
        """Return the model to send: the one asked for, after checking the endpoint serves it.

        Raises one ``EndpointError`` line when the endpoint is down, refuses the key, is a
        server's root whose API is under ``/v1`` (it says which URL to give), or does not list
        the model (servers that cannot list their models are taken at their word).
        """
        if self._resolved is not None:
            return self._resolved
        served, why = self._listed()
        below = self._api_below()
        if below is not None:
            raise EndpointError(
                f"the endpoint {self.endpoint} is the server's root, not its OpenAI API; "
                f"the API is at {below}: give that URL as the endpoint"
            )
        if self.model is None:
            if not served:
                said = f"sent a broken model list ({scrub(why)})" if why else "lists no models (GET /models)"
                raise EndpointError(
                    f"the endpoint {self.endpoint} {said}; give the model name"
                    + ("" if _VERSIONED.search(self.endpoint) else ", and check that the URL ends in /v1")
                )
            self._resolved = served[0]
        elif served and self.model not in served:
            shown = ", ".join(safe_line(scrub(m), 80) for m in served[:10])
            raise EndpointError(f"the endpoint {self.endpoint} does not serve model {self.model!r}; it serves: {shown}")
        else:
            self._resolved = self.model
        return self._resolved

    def complete(self, prompt: str, *, cancel: threading.Event | None = None) -> ModelAnswer:
        """Return the model's checked reply to ``prompt`` (one call, retried on transient failures).

        The text is scrubbed of the key and cut (``finish_reason`` ``"cut"``) when it is longer
        than ``max_tokens`` can be; a reply that is not a completion raises ``EndpointError``.
        ``cancel``, once set, stops waiting to retry.
        """
        assert self.sampling is not None
        model = self.resolve_model()
        fields = self.request_fields()
        fields.pop("api")
        if self.api == "chat":
            path, body = "/chat/completions", {"model": model, "messages": [{"role": "user", "content": prompt}]}
        else:
            path, body = "/completions", {"model": model, "prompt": prompt}
        max_tokens = self.sampling.max_tokens
        start = time.perf_counter()
        reply = self._call("POST", path, {**body, **fields}, max_bytes=_reply_byte_cap(max_tokens), cancel=cancel)
        latency = (time.perf_counter() - start) * 1000.0
        try:
            checked = completion(reply, self.api, prompt_bytes=len(prompt.encode("utf-8")), max_tokens=max_tokens)
        except BadReply as exc:
            raise EndpointError(
                scrub(f"the endpoint {self.endpoint} sent a broken reply to POST {path}: {exc}; nothing was kept")
            ) from None
        text, reason = scrub(checked.text), checked.finish_reason
        limit = answer_char_limit(max_tokens)
        if len(text) > limit:
            text, reason = text[:limit], CUT
        return ModelAnswer(
            text=text,
            prompt_tokens=checked.prompt_tokens,
            completion_tokens=checked.completion_tokens,
            latency_ms=round(latency, 1),
            finish_reason=reason,
            server=server_timing(reply),
        )

    def describe(self) -> Mapping[str, Any]:
        """Return what a results file says about the model (endpoint, model, api, sampling; no key)."""
        return {"endpoint": self.endpoint, "model": self.served_model or self.model_label, **self.request_fields()}
