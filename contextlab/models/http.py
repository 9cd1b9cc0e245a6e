"""JSON over HTTP with the standard library: one deadline per call, a cap on what is read, no redirects.

The measured path talks to servers nobody here controls (llama.cpp, vLLM, proxies). Each call
made through ``post_json`` ends by ``deadline`` seconds whatever the server does (a trickle of
one byte a second included, in the headers as in the body: a watchdog closes the connection
when the time is up) and whatever the resolver does (the name lookup counts), reads at most ``max_bytes`` of the reply, never follows a redirect (the
prompts would go to a host the results do not name), and hands back a parsed JSON value or
raises ``HTTPFailure`` with a one-line reason. Nothing here imports a third-party package, so
the measured path works from ``pip install contextlab`` alone.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..safe_text import terminal_safe

__all__ = ["DEFAULT_MAX_BYTES", "HTTPFailure", "HTTPReply", "post_json", "size_text"]

#: What one reply may hold before it is refused: far above any real completion or token list.
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
_CHUNK = 64 * 1024
# How much of a server's own words (an error message, a redirect's target) a reason quotes.
_QUOTED = 160
# A Retry-After beyond this is not waited for (the retry policy's own backoff applies instead).
_MAX_RETRY_AFTER = 60.0


class HTTPFailure(Exception):
    """A call that gave no usable reply; ``reason`` is one line, ``status`` the HTTP status or None.

    ``transient`` says whether the same call may succeed when tried again (a timeout, a dropped
    connection, 429 or 5xx), which is what a retry policy reads; ``retry_after`` is the wait in
    seconds the server asked for (``Retry-After``), if any; ``kind`` names the failure for a
    caller that words it (``"refused"``, ``"timeout"``, ``"redirect"``, ``"too_large"``,
    ``"not_json"``, ``"status"``, ``"connection"``, ``"dns"``, ``"tls"``; and for a server that
    answered, but not as HTTP promises: ``"cut_off"``, a body shorter than it said; ``"not_http"``,
    no HTTP at all; ``"encoding"``, a compressed body nobody asked for).
    """

    def __init__(
        self,
        reason: str,
        *,
        status: int | None = None,
        transient: bool = False,
        retry_after: float | None = None,
        kind: str = "connection",
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.transient = transient
        self.retry_after = retry_after
        self.kind = kind


@dataclass(frozen=True)
class HTTPReply:
    """A reply read whole within its limits: its status and its parsed JSON body."""

    status: int
    body: Any


def size_text(n: int) -> str:
    """Return a byte count for a message: ``64 KB``, ``8 MB``, ``512 bytes``."""
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)} MB"
    if n >= 1024:
        return f"{n // 1024:,} KB"
    return f"{n} bytes"


def _connection(url: str, ends_at: float) -> tuple[http.client.HTTPConnection, str]:
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    timeout = max(0.001, ends_at - time.monotonic())
    if parts.scheme == "https":
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.netloc, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        connection = http.client.HTTPConnection(parts.netloc, timeout=timeout)
    # http.client connects through this attribute: the name lookup is under the deadline too.
    connection._create_connection = _connector(ends_at)  # type: ignore[attr-defined]
    return connection, path


def _resolve(host: str, port: int, seconds: float) -> list[tuple[Any, ...]]:
    """Return ``getaddrinfo``'s stream addresses of ``host``, or raise when the lookup outlasts ``seconds``.

    The resolver has no timeout of its own (a dead DNS server holds it for tens of seconds), so
    it runs in a daemon thread that is left behind when the deadline passes.
    """
    found: dict[str, Any] = {}

    def look() -> None:
        try:
            found["addresses"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            found["error"] = exc

    worker = threading.Thread(target=look, name="contextlab-resolve", daemon=True)
    worker.start()
    worker.join(max(0.001, seconds))
    if worker.is_alive():
        raise HTTPFailure(f"the host name {_quoted(host)} did not resolve in time", transient=True, kind="timeout")
    if "error" in found:
        raise found["error"]
    return found["addresses"]


def _connector(ends_at: float) -> Any:
    """Return a ``socket.create_connection`` whose name lookup and connect end by ``ends_at``."""

    def create_connection(address: tuple[str, int], timeout: Any = None, source_address: Any = None) -> socket.socket:
        host, port = address
        error: OSError | None = None
        for family, kind, proto, _, sockaddr in _resolve(host, port, ends_at - time.monotonic()):
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(max(0.001, ends_at - time.monotonic()))
                if source_address:
                    sock.bind(source_address)
                sock.connect(sockaddr)
                return sock
            except OSError as exc:
                sock.close()
                error = exc
        raise error or OSError(f"{host} has no address to connect to")

    return create_connection


class _Watchdog:
    """Closes a connection's socket when its deadline passes, whatever call it is blocked in."""

    def __init__(self, connection: http.client.HTTPConnection, seconds: float) -> None:
        self.connection = connection
        self.expired = False
        self._timer = threading.Timer(max(0.001, seconds), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.expired = True
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """Cancel the watchdog (the call ended in time); returns nothing."""
        self._timer.cancel()


def _read_capped(reply: http.client.HTTPResponse, ends_at: float, max_bytes: int, *, refuse: bool = True) -> bytes:
    """Return the body, at most ``max_bytes`` of it: beyond that refused (or, ``refuse`` False, cut)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if ends_at - time.monotonic() <= 0:
            raise HTTPFailure("the reply did not arrive in time", transient=True, kind="timeout")
        chunk = reply.read1(_CHUNK)
        if not chunk:
            if refuse and reply.length:  # the connection ended before the Content-Length it promised
                raise HTTPFailure(
                    f"sent a reply cut off before its end ({size:,} of {size + reply.length:,} bytes)",
                    transient=True,
                    kind="cut_off",
                )
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes and not refuse:
            return b"".join(chunks) + chunk[: max_bytes - size + len(chunk)]
        if size > max_bytes:
            raise HTTPFailure(f"sent a reply larger than {size_text(max_bytes)}; refused", kind="too_large")
        chunks.append(chunk)


def _quoted(text: str) -> str:
    """Return a server's own words as one short safe line."""
    line = terminal_safe(" ".join(text.split()))
    return line if len(line) <= _QUOTED else line[:_QUOTED] + "..."


def _server_message(body: bytes) -> str:
    """Return the error message a JSON error body carries (``{"error": {"message": ...}}``), or ""."""
    try:
        data = json.loads(body[:_CHUNK].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return ""
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error if isinstance(error, str) else None
    if message is None and isinstance(data, dict) and isinstance(data.get("message"), str):
        message = data["message"]
    return _quoted(message) if isinstance(message, str) else ""


def _retry_after(reply: http.client.HTTPResponse) -> float | None:
    """Return the wait the server asked for (``retry-after-ms`` or ``Retry-After`` in seconds), if sane."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = reply.getheader(name)
        try:
            seconds = float(value) * scale if value is not None else None
        except ValueError:
            seconds = None
        if seconds is not None and 0 <= seconds <= _MAX_RETRY_AFTER:
            return seconds
    return None


def _status_failure(url: str, reply: http.client.HTTPResponse, body: bytes) -> HTTPFailure:
    status = reply.status
    if 300 <= status < 400:
        target = urljoin(url, reply.getheader("Location") or "")
        here, there = urlsplit(url), urlsplit(target)
        where = "another origin" if (here.scheme, here.netloc) != (there.scheme, there.netloc) else "another path"
        shown = _quoted(f"{there.scheme}://{there.netloc}{there.path}") if there.netloc else "nowhere"
        return HTTPFailure(
            f"answered with a redirect (HTTP {status}) to {where}, {shown}; contextlab does not "
            "follow redirects: give the final URL as the endpoint if you trust it",
            status=status,
            kind="redirect",
        )
    transient = status == 429 or status >= 500
    said = _server_message(body)
    return HTTPFailure(
        f"answered HTTP {status}" + (f" ({said})" if said else ""),
        status=status,
        transient=transient,
        retry_after=_retry_after(reply) if transient else None,
        kind="status",
    )


def _broken(exc: Exception) -> HTTPFailure:
    """Return the failure for a connection that broke, or for a server that does not answer in HTTP."""
    if isinstance(exc, http.client.IncompleteRead):  # a chunked body that ended early
        return HTTPFailure("sent a reply cut off before its end", transient=True, kind="cut_off")
    if isinstance(exc, http.client.HTTPException) and not isinstance(exc, ConnectionError):
        # A status line or headers that are not HTTP (another protocol on the port): asking again
        # gets the same answer.
        return HTTPFailure(f"answered with something that is not HTTP ({type(exc).__name__})", kind="not_http")
    return HTTPFailure(f"the connection failed ({type(exc).__name__})", transient=True)


def _send(
    connection: http.client.HTTPConnection,
    method: str,
    path: str,
    payload: bytes | None,
    headers: dict[str, str],
    ends_at: float,
    max_bytes: int,
) -> tuple[http.client.HTTPResponse, bytes]:
    """Return the reply and its body, read within the deadline; socket errors are left to the caller."""
    connection.request(method, path, body=payload, headers=headers)
    if connection.sock is not None:
        connection.sock.settimeout(max(0.001, ends_at - time.monotonic()))
    reply = connection.getresponse()
    if not 200 <= reply.status < 300:
        # An error's body is read only far enough to quote the server's message.
        return reply, _read_capped(reply, ends_at, _CHUNK, refuse=False)
    return reply, _read_capped(reply, ends_at, max_bytes)


def post_json(
    url: str,
    body: Any,
    *,
    headers: dict[str, str] | None = None,
    deadline: float = 30.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    method: str = "POST",
) -> HTTPReply:
    """Return the reply to ``body`` sent as JSON to ``url``, read whole within ``deadline`` seconds.

    ``body`` None sends none (``method="GET"``). Raises ``HTTPFailure`` for no connection, a
    deadline passed (connecting, sending, the headers and the body all count), a reply over
    ``max_bytes``, a redirect, a status other than 2xx, or a body that is not JSON.
    """
    ends_at = time.monotonic() + deadline
    payload = None if body is None else json.dumps(body).encode("utf-8")
    sent = {
        "Accept": "application/json",
        **({"Content-Type": "application/json"} if payload else {}),
        **(headers or {}),
    }
    connection, path = _connection(url, ends_at)
    watchdog = _Watchdog(connection, deadline)
    try:
        reply, raw = _send(connection, method, path, payload, sent, ends_at, max_bytes)
    except HTTPFailure as exc:
        if watchdog.expired and exc.kind not in ("too_large", "timeout"):  # a timeout's own reason is kept
            raise HTTPFailure("the reply did not arrive in time", transient=True, kind="timeout") from None
        raise
    except TimeoutError:
        raise HTTPFailure("the reply did not arrive in time", transient=True, kind="timeout") from None
    except ConnectionRefusedError:
        raise HTTPFailure("connection refused", transient=True, kind="refused") from None
    except socket.gaierror:
        raise HTTPFailure("the host name does not resolve", kind="dns") from None
    except ssl.SSLCertVerificationError as exc:
        raise HTTPFailure(
            f"its TLS certificate is not trusted here ({exc.verify_message or exc.reason}); if you "
            "trust it, point SSL_CERT_FILE at its authority's certificate",
            kind="tls",
        ) from None
    except ssl.SSLError as exc:
        raise HTTPFailure(
            f"TLS failed ({exc.reason or type(exc).__name__}); does it serve https? a server of "
            "plain http needs an http:// endpoint",
            kind="tls",
        ) from None
    except (ConnectionError, http.client.HTTPException, OSError) as exc:
        if watchdog.expired:
            raise HTTPFailure("the reply did not arrive in time", transient=True, kind="timeout") from None
        raise _broken(exc) from None
    finally:
        watchdog.stop()
        connection.close()
    if watchdog.expired:  # the watchdog's shutdown reads as an early end of the body: it is a timeout
        raise HTTPFailure("the reply did not arrive in time", transient=True, kind="timeout")
    if not 200 <= reply.status < 300:
        raise _status_failure(url, reply, raw)
    encoding = (reply.getheader("Content-Encoding") or "identity").strip().lower()
    if encoding != "identity":  # http.client asks for identity: a gzip body is not the JSON it reads
        raise HTTPFailure(
            f"sent a reply in the content encoding {_quoted(encoding)}, which contextlab did not "
            "ask for (it asks for identity)",
            kind="encoding",
        )
    try:
        return HTTPReply(reply.status, json.loads(raw.decode("utf-8")))
    except (UnicodeDecodeError, ValueError, RecursionError):
        start = raw.lstrip()[:1]
        said = (
            "an HTML page, not JSON" if start == b"<" else "an empty reply" if not start else "a reply that is not JSON"
        )
        raise HTTPFailure(f"sent {said}", kind="not_json") from None
