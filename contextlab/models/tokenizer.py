"""Counting in the model's own tokens: the endpoint's ``/tokenize`` as a tokenizer choice.

llama.cpp's server and vLLM both count text at ``POST /tokenize`` beside their ``/v1`` routes.
``EndpointTokenizer`` implements the engine's ``Tokenizer`` protocol over it, with a memo so each
text is sent once. Every reply is checked before it is used or kept: a token list of whole
numbers, no more tokens than the text has bytes (a count that cannot be true for the text's
length is refused), a cut that is the start of the text (never other text in its place).
``endpoint_tokenizer`` returns one only when the endpoint really counts and cuts; otherwise it
says why, and a caller falls back to cl100k_base (and says the budget is approximate). An
endpoint that cannot be reached at all is an error, unless the cache remembers how it counted.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..errors import EndpointError, HTTPFailure, InvalidInputError
from ..validation import parse_int
from .client import check_endpoint_url, unreachable
from .http import post_json
from .keys import auth_headers, scrub

__all__ = ["EndpointTokenizer", "endpoint_tokenizer", "prompt_counter", "server_root"]

_MEMO_SIZE = 50_000
_PROBE = "Hello world"
# Whatever a server adds despite add_special=False (a BOS, an EOS) on top of one token per byte.
_SPECIAL_SLACK = 2
# Failures that mean nothing answered at all (as opposed to a server that answered badly).
_UNREACHED = ("refused", "dns", "tls", "timeout", "connection", "proxy")


def server_root(endpoint: str) -> str:
    """Return the server's root URL: ``endpoint`` without a trailing ``/v1``."""
    url = check_endpoint_url(endpoint)
    return url[:-3] if url.endswith("/v1") else url


def _most_tokens(text: str) -> int:
    """Return the most tokens ``text`` can be: one per UTF-8 byte, plus a server's special tokens."""
    return len(text.encode("utf-8")) + _SPECIAL_SLACK


def _start_of(text: str, cut: object) -> str | None:
    """Return the start of ``text`` that ``cut`` (a /detokenize reply) stands for, or None when it is not one.

    A character split between two tokens comes back as U+FFFD, and a SentencePiece model may put
    a space in front: both are allowed for; any other text is not the start of ``text``.
    """
    if not isinstance(cut, str):
        return None
    cut = cut.rstrip("\ufffd")
    for start in (cut, cut[1:] if cut.startswith(" ") else None):
        if start is not None and text.startswith(start):
            return start
    return None


def _plausible(text: str, count: int) -> bool:
    least = 1 if text.strip() else 0
    return least <= count <= _most_tokens(text)


class EndpointTokenizer:
    """Counts and cuts text with the endpoint's own tokenizer (``POST /tokenize``, ``/detokenize``).

    ``name`` is ``"endpoint:<root URL>"``, so caches keyed by tokenizer name keep its counts apart.
    Thread-safe; each distinct text is counted once (the ``_MEMO_SIZE`` most recent kept).
    """

    def __init__(self, endpoint: str, model: str | None = None, *, timeout: float = 30.0, store: Any = None) -> None:
        self.endpoint = check_endpoint_url(endpoint)
        self.root = server_root(endpoint)
        #: A ``ResponseCache`` that keeps counts and cuts across runs (so a rerun needs no server).
        self.store = store
        self.model = model
        self.name = f"endpoint:{self.root}"
        self.timeout = timeout
        self._memo: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self.requests = 0

    def _post(self, path: str, body: dict[str, Any], text: str, does: str = "count tokens") -> dict[str, Any]:
        try:
            reply = post_json(
                self.root + path,
                body,
                headers=auth_headers(),
                deadline=self.timeout,
                max_bytes=64 * 1024 + 32 * len(text.encode("utf-8")),
            )
        except HTTPFailure as exc:
            if exc.kind == "timeout":  # it was reached: this route is slow (or the whole server is stuck)
                raise EndpointError(
                    f"{self.root}{path} did not answer within {self.timeout:g} s; is the server "
                    "overloaded? try again when it answers"
                ) from None
            if exc.status is None and exc.kind in _UNREACHED:
                raise EndpointError(scrub(unreachable(self.endpoint, exc.reason, exc.kind))) from None
            raise EndpointError(
                scrub(f"{self.root}{path} {exc.reason}; it cannot {does}"), status=exc.status or 0
            ) from None
        self.requests += 1
        if not isinstance(reply, dict):
            raise EndpointError(f"{self.root}{path} did not answer with a JSON object; it cannot {does}", status=0)
        return reply

    def encode(self, text: str) -> list[int]:
        """Return the token ids of ``text`` (no special tokens added), checked to be possible for it."""
        body: dict[str, Any] = {"content": text, "add_special": False}
        if self.model:
            body["model"] = self.model
        tokens = self._post("/tokenize", body, text).get("tokens")
        if not isinstance(tokens, list):
            raise EndpointError(f"{self.root}/tokenize gave no token list; it cannot count tokens", status=0)
        raw = [t.get("id") if isinstance(t, dict) else t for t in tokens]
        ids = [i for i in raw if isinstance(i, int) and not isinstance(i, bool) and i >= 0]
        if len(ids) != len(raw):
            raise EndpointError(
                f"{self.root}/tokenize gave token ids that are not whole numbers; it cannot count tokens", status=0
            )
        if not _plausible(text, len(ids)):
            raise EndpointError(
                f"{self.root}/tokenize counted {len(ids):,} tokens in a text of "
                f"{len(text.encode('utf-8')):,} bytes, which cannot be true; its counts are not "
                "used",
                status=0,
            )
        return ids

    def _stored(self, kind: str, text: str, extra: str = "") -> tuple[str, str | None]:
        if self.store is None:
            return "", None
        key = "tok:" + hashlib.sha256(f"{kind}\0{self.root}\0{self.model or ''}\0{extra}\0{text}".encode()).hexdigest()
        return key, self.store.memo_get(key)

    def _remembered_count(self, text: str) -> tuple[str, int | None]:
        """Return the store's key for ``text``'s count and the count it holds, if one that can be true."""
        key, stored = self._stored("count", text)
        try:
            count = None if stored is None else parse_int(stored, field="count", low=0)
        except InvalidInputError:
            count = None
        if count is None or not _plausible(text, count):
            return key, None  # an impossible count kept by an older version is counted again
        return key, count

    def count(self, text: str) -> int:
        """Return the number of the model's tokens in ``text`` (memoised, and kept in ``store``)."""
        with self._lock:
            known = self._memo.get(text)
            if known is not None:
                self._memo.move_to_end(text)
                return known
        key, value = self._remembered_count(text)
        if value is None:
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
        if stored is not None and text.startswith(stored):  # anything else kept by an older version is cut again
            return stored
        ids = self.encode(text)
        cut = text
        if len(ids) > max_tokens:
            said = self._post("/detokenize", {"tokens": ids[:max_tokens]}, text, "cut text to a budget").get("content")
            start = _start_of(text, said)
            if start is None:
                raise EndpointError(
                    f"{self.root}/detokenize gave back no text, or text that is not the start of the "
                    "text it was given; it cannot cut text to a budget",
                    status=0,
                )
            cut = start
        if key:
            self.store.memo_put(key, cut)
        return cut

    def __repr__(self) -> str:
        return f"EndpointTokenizer({self.root!r})"


def _refusal_key(tokenizer: EndpointTokenizer) -> str:
    return "tok:refused:" + hashlib.sha256(f"{tokenizer.root}\0{tokenizer.model or ''}".encode()).hexdigest()


def endpoint_tokenizer(
    endpoint: str, model: str | None = None, *, store: Any = None
) -> tuple[EndpointTokenizer | None, str | None]:
    """Return ``(tokenizer, None)`` when the endpoint counts tokens, else ``(None, why not)`` (OpenAI, Ollama).

    ``why not`` is one line (``/tokenize answered HTTP 404``, or a count that cannot be true).
    With a ``store`` that remembers the endpoint's counts, the answer holds with the endpoint
    down. An endpoint that cannot be reached, whose way of counting nothing remembers, raises
    ``EndpointError`` naming it (the real cause, not a counting problem).
    """
    tokenizer = EndpointTokenizer(endpoint, model, store=store)
    try:
        tokens = tokenizer.count(_PROBE)
        if tokens > 1:  # cutting is half of a tokenizer: a server with /tokenize but no /detokenize has none
            tokenizer.truncate(_PROBE, tokens - 1)
    except EndpointError as exc:
        if exc.status is None:  # nothing answered
            refused = store.memo_get(_refusal_key(tokenizer)) if store is not None else None
            if refused is None:
                raise
            return None, refused
        why = str(exc)
        if store is not None:  # kept only to say why when the endpoint is down; a rerun asks again
            store.memo_put(_refusal_key(tokenizer), why)
        return None, why
    return tokenizer, None


def prompt_counter(tokenizer: EndpointTokenizer | None) -> Callable[[str], int]:
    """Return how to count a prompt: the endpoint's tokenizer, or cl100k_base (an approximation)."""
    if tokenizer is not None:
        return tokenizer.count
    from ..tokenizers import get_tokenizer

    return get_tokenizer("cl100k_base").count
