"""Counting in the model's own tokens: the endpoint's ``/tokenize`` as a tokenizer choice.

llama.cpp's server and vLLM both count text at ``POST /tokenize`` beside their ``/v1`` routes.
``EndpointTokenizer`` implements the engine's ``Tokenizer`` protocol over it, with a memo so each
text is sent once; ``endpoint_tokenizer`` returns one only when the endpoint really counts, so
a caller falls back to cl100k_base (and says the budget is approximate) otherwise.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..errors import EndpointError
from .client import _api_key, check_endpoint_url, scrub
from .http import HTTPFailure, post_json

__all__ = ["EndpointTokenizer", "endpoint_tokenizer", "prompt_counter", "server_root"]

_MEMO_SIZE = 50_000


def server_root(endpoint: str) -> str:
    """Return the server's root URL: ``endpoint`` without a trailing ``/v1``."""
    url = check_endpoint_url(endpoint)
    return url[:-3] if url.endswith("/v1") else url


class EndpointTokenizer:
    """Counts and cuts text with the endpoint's own tokenizer (``POST /tokenize``, ``/detokenize``).

    ``name`` is ``"endpoint:<root URL>"``, so caches keyed by tokenizer name keep its counts apart.
    Thread-safe; each distinct text is counted once (the ``_MEMO_SIZE`` most recent kept).
    """

    def __init__(self, endpoint: str, model: str | None = None, *, timeout: float = 30.0,
                 store: Any = None) -> None:
        self.root = server_root(endpoint)
        #: A ``ResponseCache`` that keeps counts and cuts across runs (so a rerun needs no server).
        self.store = store
        self.model = model
        self.name = f"endpoint:{self.root}"
        self.timeout = timeout
        self._memo: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self.requests = 0

    def _headers(self) -> dict[str, str]:
        key, _ = _api_key()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            reply = post_json(self.root + path, body, headers=self._headers(), deadline=self.timeout)
        except HTTPFailure as exc:
            if exc.status is not None:
                raise EndpointError(scrub(f"{self.root}{path} {exc.reason}; it cannot count tokens")) from None
            raise EndpointError(scrub(f"cannot reach {self.root}{path} to count tokens: {exc.reason}")) from None
        self.requests += 1
        if not isinstance(reply.body, dict):
            raise EndpointError(f"{self.root}{path} did not answer with a JSON object; it cannot count tokens")
        return reply.body

    def encode(self, text: str) -> list[int]:
        """Return the token ids of ``text`` (no special tokens added)."""
        body: dict[str, Any] = {"content": text, "add_special": False}
        if self.model:
            body["model"] = self.model
        tokens = self._post("/tokenize", body).get("tokens")
        if not isinstance(tokens, list):
            raise EndpointError(f"{self.root}/tokenize gave no token list; it cannot count tokens")
        return [t if isinstance(t, int) else t.get("id") for t in tokens]

    def _stored(self, kind: str, text: str, extra: str = "") -> tuple[str, str | None]:
        if self.store is None:
            return "", None
        key = "tok:" + hashlib.sha256(f"{kind}\0{self.root}\0{self.model or ''}\0{extra}\0{text}".encode()).hexdigest()
        return key, self.store.memo_get(key)

    def count(self, text: str) -> int:
        """Return the number of the model's tokens in ``text`` (memoised, and kept in ``store``)."""
        with self._lock:
            known = self._memo.get(text)
            if known is not None:
                self._memo.move_to_end(text)
                return known
        key, stored = self._stored("count", text)
        if stored is not None:
            value = int(stored)
        else:
            value = len(self.encode(text)) if text else 0
            if key:
                self.store.memo_put(key, str(value))
        with self._lock:
            self._memo[text] = value
            while len(self._memo) > _MEMO_SIZE:
                self._memo.popitem(last=False)
        return value

    def truncate(self, text: str, max_tokens: int) -> str:
        """Return the longest prefix of ``text`` within ``max_tokens`` of the model's tokens."""
        if max_tokens <= 0:
            return ""
        key, stored = self._stored("cut", text, str(max_tokens))
        if stored is not None:
            return stored
        ids = self.encode(text)
        cut = text if len(ids) <= max_tokens else str(
            self._post("/detokenize", {"tokens": ids[:max_tokens]}).get("content", ""))
        if key:
            self.store.memo_put(key, cut)
        return cut

    def __repr__(self) -> str:
        return f"EndpointTokenizer({self.root!r})"


def endpoint_tokenizer(endpoint: str, model: str | None = None, *, store: Any = None) -> EndpointTokenizer | None:
    """Return an ``EndpointTokenizer`` when the endpoint counts tokens, else None (OpenAI, Ollama).

    With a ``store`` that remembers the endpoint counting, the answer holds with the endpoint down.
    """
    tokenizer = EndpointTokenizer(endpoint, model, store=store)
    try:
        if tokenizer.count("Hello world") < 1:
            return None
    except EndpointError:
        return None
    return tokenizer


def prompt_counter(tokenizer: EndpointTokenizer | None) -> Callable[[str], int]:
    """Return how to count a prompt: the endpoint's tokenizer, or cl100k_base (an approximation)."""
    if tokenizer is not None:
        return tokenizer.count
    from ..tokenizers import get_tokenizer

    return get_tokenizer("cl100k_base").count
