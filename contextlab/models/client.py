"""A model behind any OpenAI-compatible endpoint, through the official ``openai`` client.

Ollama, vLLM, a llama.cpp server (``contextlab model serve``), LM Studio or OpenAI itself: give
the base URL (``http://127.0.0.1:8080/v1``) and, when the server has several, the model name.
Timeouts and retries with backoff on 429, 5xx, timeouts and dropped connections are the
``openai`` client's own. The API key comes from ``CONTEXTLAB_API_KEY``, else ``OPENAI_API_KEY``,
and nowhere else; no message, cache entry or result ever holds it. ``openai`` is an optional
extra (``pip install 'contextlab[openai]'``), imported only when a request is made.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import EndpointError, InvalidInputError
from ..validation import finite_number, one_of, whole_number
from .scoring import first_line

__all__ = ["API_KEY_VARIABLES", "APIS", "ModelAnswer", "ModelClient", "Sampling", "api_key_source",
           "check_endpoint_url", "default_sampling"]

#: Where the key is read from, in order. Nothing else is ever read or written.
API_KEY_VARIABLES: tuple[str, ...] = ("CONTEXTLAB_API_KEY", "OPENAI_API_KEY")
#: The two request flavours: chat messages or a plain text completion (base models).
APIS: tuple[str, ...] = ("chat", "completions")
# The openai client insists on a key; a local server without one ignores this word.
_NO_KEY = "no-key"


def _api_key() -> tuple[str | None, str | None]:
    for name in API_KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value, name
    return None, None


def api_key_source() -> str | None:
    """Return the name of the variable the key comes from (never the key), or None without one."""
    return _api_key()[1]


def check_endpoint_url(endpoint: str) -> str:
    """Return ``endpoint`` without a trailing slash, or raise when it is not an http(s) URL.

    A URL that carries credentials (``user:key@host``, ``?api_key=``) is refused: the key
    belongs in ``CONTEXTLAB_API_KEY``, never in a URL that may be shared or logged.
    """
    if not isinstance(endpoint, str) or not endpoint.strip():
        raise InvalidInputError("endpoint must be a URL such as http://127.0.0.1:8080/v1", field="endpoint")
    url = endpoint.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInputError("endpoint must be an http:// or https:// URL such as http://127.0.0.1:8080/v1",
                                field="endpoint")
    if "@" in parts.netloc or "key" in parts.query.lower() or "token" in parts.query.lower():
        raise InvalidInputError("endpoint must not carry a key or password; put the key in "
                                "CONTEXTLAB_API_KEY and give the plain URL", field="endpoint")
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
        whole_number("max_tokens", self.max_tokens, minimum=1)

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
    """One reply: its text, the answer line the paper scores, token counts and latency."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    cached: bool = False
    finish_reason: str | None = None

    @property
    def answer(self) -> str:
        """Return the first non-empty line of the reply (the model's answer)."""
        return first_line(self.text)


@dataclass
class ModelClient:
    """Sends prompts to one model at one OpenAI-compatible endpoint.

    ``model`` None means the endpoint's first (often only) model, looked up when needed.
    ``timeout`` is per request in seconds (generous: a small CPU server with several requests in
    flight can take minutes on a long prompt); ``max_retries`` is the openai client's retry count
    (with exponential backoff) on 429, 5xx, timeouts and dropped connections.
    """

    endpoint: str
    model: str | None = None
    api: str = "chat"
    sampling: Sampling | None = None
    timeout: float = 600.0
    max_retries: int = 4
    _client: Any = field(default=None, init=False, repr=False, compare=False)
    _resolved: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.endpoint = check_endpoint_url(self.endpoint)
        one_of("api", self.api, APIS)
        if self.model is not None and (not isinstance(self.model, str) or not self.model.strip()):
            raise InvalidInputError("model must be a model name, or None for the endpoint's own", field="model")
        self.sampling = self.sampling or default_sampling(self.api)
        finite_number("timeout", self.timeout, minimum=0.1)
        whole_number("max_retries", self.max_retries, minimum=0)

    # -- identity (what the cache key and the results name) --------------------------------
    @property
    def model_label(self) -> str:
        """Return the model as asked for ("" for the endpoint's default): the cache key's model."""
        return self.model or ""

    def request_fields(self) -> dict[str, Any]:
        """Return what besides the prompt identifies a request: api and sampling (no key)."""
        assert self.sampling is not None
        return {"api": self.api, **self.sampling.as_dict()}

    # -- the openai client -------------------------------------------------------------------
    def _openai(self) -> Any:
        if self._client is None:
            try:
                import openai
            except ImportError:
                raise EndpointError("measuring with a model needs the openai package: "
                                    "pip install 'contextlab[openai]'") from None
            key, _ = _api_key()
            self._client = openai.OpenAI(base_url=self.endpoint, api_key=key or _NO_KEY,
                                         timeout=self.timeout, max_retries=self.max_retries)
        return self._client

    def _fail(self, exc: Exception) -> EndpointError:
        """Return the one-line ``EndpointError`` for an openai exception (the key scrubbed)."""
        import openai

        source = api_key_source()
        if isinstance(exc, openai.APIConnectionError):
            reason = "timed out" if isinstance(exc, openai.APITimeoutError) else _cause(exc)
            message = (f"cannot reach the endpoint {self.endpoint} ({reason}); is the server running? "
                       "`contextlab model serve` starts the bundled model")
        elif isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            message = (f"the endpoint {self.endpoint} refused the API key from {source} (HTTP {exc.status_code})"
                       if source else f"the endpoint {self.endpoint} needs an API key (HTTP {exc.status_code}); "
                       f"set {API_KEY_VARIABLES[0]}")
        elif isinstance(exc, openai.NotFoundError):
            message = (f"the endpoint {self.endpoint} does not serve model {self.model_label or '(default)'!r} "
                       "or this API (HTTP 404); check the model name and --api")
        elif isinstance(exc, openai.RateLimitError):
            message = (f"the endpoint {self.endpoint} kept refusing with HTTP 429 (rate limit) after "
                       f"{self.max_retries} retries; lower concurrency or try later")
        elif isinstance(exc, openai.APIStatusError):
            message = f"the endpoint {self.endpoint} answered HTTP {exc.status_code}: {_short(exc)}"
        else:
            message = f"the endpoint {self.endpoint} failed: {type(exc).__name__}: {_short(exc)}"
        return EndpointError(scrub(message))

    def list_models(self) -> list[str]:
        """Return the ids of the models the endpoint serves (``GET /models``)."""
        import openai

        try:
            return [m.id for m in self._openai().models.list()]
        except openai.OpenAIError as exc:
            raise self._fail(exc) from None

    def resolve_model(self) -> str:
        """Return the model to send: the one asked for, after checking the endpoint serves it.

        Raises one ``EndpointError`` line when the endpoint is down, refuses the key, or does not
        list the model (servers that cannot list their models are taken at their word).
        """
        if self._resolved is not None:
            return self._resolved
        try:
            served = self.list_models()
        except EndpointError as exc:
            if "HTTP 404" not in str(exc):
                raise
            served = []
        if self.model is None:
            if not served:
                raise EndpointError(f"the endpoint {self.endpoint} lists no models; give the model name")
            self._resolved = served[0]
        elif served and self.model not in served:
            raise EndpointError(f"the endpoint {self.endpoint} does not serve model {self.model!r}; "
                                f"it serves: {', '.join(served[:10])}")
        else:
            self._resolved = self.model
        return self._resolved

    def complete(self, prompt: str) -> ModelAnswer:
        """Return the model's reply to ``prompt`` (one request; retried by the openai client)."""
        import openai

        model = self.resolve_model()
        fields = self.request_fields()
        fields.pop("api")
        start = time.perf_counter()
        try:
            if self.api == "chat":
                reply = self._openai().chat.completions.create(
                    model=model, messages=[{"role": "user", "content": prompt}], **fields)
                choice = reply.choices[0]
                text = choice.message.content or ""
            else:
                reply = self._openai().completions.create(model=model, prompt=prompt, **fields)
                choice = reply.choices[0]
                text = choice.text or ""
        except openai.OpenAIError as exc:
            raise self._fail(exc) from None
        latency = (time.perf_counter() - start) * 1000.0
        usage = reply.usage
        return ModelAnswer(text=text, prompt_tokens=getattr(usage, "prompt_tokens", None),
                           completion_tokens=getattr(usage, "completion_tokens", None),
                           latency_ms=round(latency, 1), finish_reason=choice.finish_reason)

    def describe(self) -> Mapping[str, Any]:
        """Return what a results file says about the model (endpoint, model, api, sampling; no key)."""
        return {"endpoint": self.endpoint, "model": self._resolved or self.model_label, **self.request_fields()}


def scrub(message: str) -> str:
    """Return ``message`` with the API key (if set) replaced by ``[key]``."""
    key, _ = _api_key()
    return message.replace(key, "[key]") if key else message


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    while inner is not None and (inner.__cause__ or inner.__context__) is not None:
        inner = inner.__cause__ or inner.__context__
    text = str(inner) if inner is not None else str(exc)
    if "refused" in text.lower():
        return "connection refused"
    return _short(text) or "connection failed"


def _short(value: Any, limit: int = 200) -> str:
    text = " ".join(str(getattr(value, "message", value)).split())
    return text if len(text) <= limit else text[:limit] + "..."
