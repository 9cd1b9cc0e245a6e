"""JSON over HTTP with the standard library: one deadline per call, a cap on what is read, no redirects.

The measured path talks to servers nobody here controls (llama.cpp, vLLM, proxies). Each call
made through ``post_json`` ends by ``deadline`` seconds whatever the server does (a trickle of
one byte a second included), reads at most ``max_bytes`` of the reply, never follows a redirect
(the prompts would go to a host the results do not name), and hands back a parsed JSON value or
raises ``HTTPFailure`` with a one-line reason. Nothing here imports a third-party package, so the
measured path works from ``pip install 'contextlab[model]'`` alone.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["DEFAULT_MAX_BYTES", "HTTPFailure", "HTTPReply", "post_json"]

#: What one reply may hold before it is refused: far above any real completion or token list.
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
_CHUNK = 64 * 1024


class HTTPFailure(Exception):
    """A call that gave no usable reply; ``reason`` is one line, ``status`` the HTTP status or None.

    ``transient`` says whether the same call may succeed when tried again (a timeout, a dropped
    connection, 429 or 5xx), which is what a retry policy reads.
    """

    def __init__(self, reason: str, *, status: int | None = None, transient: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.transient = transient


@dataclass(frozen=True)
class HTTPReply:
    """A reply read whole within its limits: its status and its parsed JSON body."""

    status: int
    body: Any


def _connection(url: str, timeout: float) -> tuple[http.client.HTTPConnection, str]:
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.netloc, timeout=timeout,
                                           context=ssl.create_default_context()), path
    return http.client.HTTPConnection(parts.netloc, timeout=timeout), path


def _read_capped(reply: http.client.HTTPResponse, sock_owner: http.client.HTTPConnection,
                 ends_at: float, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        left = ends_at - time.monotonic()
        if left <= 0:
            raise HTTPFailure("the reply did not arrive in time", transient=True)
        if sock_owner.sock is not None:
            sock_owner.sock.settimeout(left)
        chunk = reply.read1(_CHUNK) if hasattr(reply, "read1") else reply.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise HTTPFailure(f"the reply is larger than {max_bytes // (1024 * 1024)} MB; refused")
        chunks.append(chunk)


def _status_failure(status: int, body: bytes) -> HTTPFailure:
    if 300 <= status < 400:
        return HTTPFailure(f"answered with a redirect (HTTP {status}); give the final URL as the endpoint",
                           status=status)
    transient = status == 429 or status >= 500
    return HTTPFailure(f"answered HTTP {status}", status=status, transient=transient)


def post_json(url: str, body: Any, *, headers: dict[str, str] | None = None, deadline: float = 30.0,
              max_bytes: int = DEFAULT_MAX_BYTES, method: str = "POST") -> HTTPReply:
    """Return the reply to ``body`` sent as JSON to ``url``, read whole within ``deadline`` seconds.

    Raises ``HTTPFailure`` for no connection, a deadline passed, a reply over ``max_bytes``, a
    redirect, a status other than 2xx, or a body that is not JSON.
    """
    ends_at = time.monotonic() + deadline
    payload = None if body is None else json.dumps(body).encode("utf-8")
    sent = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
    connection, path = _connection(url, timeout=max(0.001, deadline))
    try:
        try:
            connection.request(method, path, body=payload, headers=sent)
            if connection.sock is not None:
                connection.sock.settimeout(max(0.001, ends_at - time.monotonic()))
            reply = connection.getresponse()
            raw = _read_capped(reply, connection, ends_at, max_bytes)
        except HTTPFailure:
            raise
        except (socket.timeout, TimeoutError):
            raise HTTPFailure("the reply did not arrive in time", transient=True) from None
        except ConnectionRefusedError:
            raise HTTPFailure("connection refused; is the server running?", transient=True) from None
        except socket.gaierror:
            raise HTTPFailure("the host name does not resolve") from None
        except ssl.SSLError as exc:
            raise HTTPFailure(f"TLS failed ({exc.reason or type(exc).__name__})") from None
        except (ConnectionError, http.client.HTTPException, OSError) as exc:
            raise HTTPFailure(f"the connection failed ({type(exc).__name__})", transient=True) from None
    finally:
        connection.close()
    if not 200 <= reply.status < 300:
        raise _status_failure(reply.status, raw)
    try:
        return HTTPReply(reply.status, json.loads(raw.decode("utf-8")))
    except (UnicodeDecodeError, ValueError):
        kind = "HTML" if raw.lstrip()[:1] == b"<" else "not JSON"
        raise HTTPFailure(f"the reply is {kind}; is this an OpenAI-compatible endpoint?") from None
