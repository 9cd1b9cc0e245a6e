"""JSON over HTTP on httpx: one deadline per call, a cap on what is read, no redirects, proxies honoured.

The measured path talks to servers nobody here controls (llama.cpp, vLLM, proxies). Each call
made through ``post_json`` ends by ``deadline`` seconds whatever the server or the resolver does
(a trickle of one byte a second, in the headers as in the body; a name lookup that hangs): the
call runs on a worker thread that is given up at the deadline, its socket shut so it ends too.
It reads at most ``max_bytes`` of the reply, never follows a redirect (the prompts would go to a
host the results do not name), and hands back a parsed JSON value or raises ``HTTPFailure`` with
a one-line reason. ``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` are honoured
as every Python tool honours them, and certificates are checked against the system's
authorities (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` add others).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import socket
import ssl
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from ..errors import HTTPFailure, InvalidInputError
from ..safe_text import terminal_safe
from ..validation import parse_int

if TYPE_CHECKING:
    import httpx

__all__ = ["DEFAULT_MAX_BYTES", "post_json", "size_text"]

#: What one reply may hold before it is refused: far above any real completion or token list.
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
_CHUNK = 64 * 1024
# How much of a server's own words (an error message, a redirect's target) a reason quotes.
_QUOTED = 160
# A Retry-After beyond this is not waited for (the retry policy's own backoff applies instead).
_MAX_RETRY_AFTER = 60.0
_LATE = "the reply did not arrive in time"
_PORTS = {"http": 80, "https": 443}


def size_text(n: int) -> str:
    """Return a byte count for a message: ``64 KB``, ``8 MB``, ``512 bytes``."""
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)} MB"
    if n >= 1024:
        return f"{n // 1024:,} KB"
    return f"{n} bytes"


@functools.lru_cache(maxsize=8)
def _client(environment: tuple[tuple[str, str], ...]) -> httpx.Client:
    """Return the client for one setting of the environment (its proxies and certificates are read when made)."""
    import httpx  # when a call is made: `import contextlab.models` and the CLI start without it

    return httpx.Client(
        verify=ssl.create_default_context(),  # the system's authorities, and SSL_CERT_FILE / SSL_CERT_DIR
        trust_env=True,
        follow_redirects=False,
        # A fresh connection per call: the watchdog shuts the socket the call opened, never a shared one.
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=0),
    )


def _shared_client() -> httpx.Client:
    names = ("SSL_CERT_FILE", "SSL_CERT_DIR")
    return _client(tuple(sorted((k, v) for k, v in os.environ.items() if k.lower().endswith("_proxy") or k in names)))


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


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Return the wait the server asked for (``retry-after-ms`` or ``Retry-After`` in seconds), if sane."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        try:
            seconds = float(value) * scale if value is not None else None
        except ValueError:
            seconds = None
        if seconds is not None and 0 <= seconds <= _MAX_RETRY_AFTER:
            return seconds
    return None


def _status_failure(url: str, status: int, headers: Mapping[str, str], body: bytes) -> HTTPFailure:
    if 300 <= status < 400:
        target = urljoin(url, headers.get("location") or "")
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
        retry_after=_retry_after(headers) if transient else None,
        kind="status",
    )


def _causes(exc: BaseException) -> list[BaseException]:
    """Return ``exc`` and the exceptions it was raised from (or while handling), outermost first."""
    chain = [exc]
    while (inner := chain[-1].__cause__ or chain[-1].__context__) is not None and len(chain) < 10:
        chain.append(inner)
    return chain


def _transport_failure(exc: httpx.TransportError) -> HTTPFailure:
    """Return the failure for a call that got no reply: no connection, TLS, a hang-up, or bytes that are not HTTP."""
    import h11
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return HTTPFailure(_LATE, transient=True, kind="timeout")
    if isinstance(exc, httpx.ProxyError):  # the proxy answered CONNECT with other than 2xx (407: it wants a login)
        return HTTPFailure(f"answered {_quoted(str(exc))}", kind="proxy")
    causes = _causes(exc)
    if any(isinstance(c, h11.RemoteProtocolError) for c in causes):
        # A status line or headers that are not HTTP (another protocol on the port): asking again gets the same.
        return HTTPFailure("answered with something that is not HTTP", kind="not_http")
    root = causes[-1]
    if isinstance(root, ssl.SSLCertVerificationError):
        return HTTPFailure(
            f"its TLS certificate is not trusted here ({root.verify_message or root.reason}); if you "
            "trust it, point SSL_CERT_FILE at its authority's certificate",
            kind="tls",
        )
    if isinstance(root, ssl.SSLError):
        return HTTPFailure(
            f"TLS failed ({root.reason or type(root).__name__}); does it serve https? a server of "
            "plain http needs an http:// endpoint",
            kind="tls",
        )
    if isinstance(root, ConnectionRefusedError):
        return HTTPFailure("connection refused", transient=True, kind="refused")
    if isinstance(root, socket.gaierror):
        return HTTPFailure("the host name does not resolve", kind="dns")
    what = type(root).__name__ if isinstance(root, OSError) else "closed with no reply"
    return HTTPFailure(f"the connection failed ({what})", transient=True)


def _read_capped(response: httpx.Response, max_bytes: int, *, refuse: bool) -> bytes:
    """Return the body, at most ``max_bytes`` of it: beyond that refused (or, ``refuse`` False, cut)."""
    import httpx

    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_bytes():  # as it arrives: an early end keeps its count
            size += len(chunk)
            if size > max_bytes and not refuse:
                return b"".join(chunks) + chunk[: max_bytes - size + len(chunk)]
            if size > max_bytes:
                raise HTTPFailure(f"sent a reply larger than {size_text(max_bytes)}; refused", kind="too_large")
            chunks.append(chunk)
    except httpx.TimeoutException:
        raise HTTPFailure(_LATE, transient=True, kind="timeout") from None
    except httpx.TransportError:  # the connection ended before the body did
        length = response.headers.get("content-length", "")
        said = f" ({size:,} of {total:,} bytes)" if (total := _whole(length)) is not None else ""
        raise HTTPFailure(f"sent a reply cut off before its end{said}", transient=True, kind="cut_off") from None
    return b"".join(chunks)


def _whole(text: str) -> int | None:
    """Return a header's whole number, or None where it is not one."""
    try:
        return parse_int(text, field="content-length")
    except InvalidInputError:
        return None


class _Call:
    """One request on a worker thread: what came back, and the socket to shut when its deadline passes."""

    def __init__(self) -> None:
        self.stream: Any = None
        self.address = ""
        self.status = 0
        self.headers: Mapping[str, str] = {}
        self.body = b""
        self.error: HTTPFailure | None = None
        self.crash: Exception | None = None

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """Keep where httpx connects, and the newest stream it opened (TCP, then TLS over it): the watchdog's handle."""
        if event == "connection.connect_tcp.started":
            self.address = f"{info.get('host')}:{info.get('port')}"
        opened = info.get("return_value")
        if event.endswith(".complete") and hasattr(opened, "get_extra_info"):
            self.stream = opened

    def shut(self) -> None:
        """Shut the call's socket, so a worker blocked reading it ends now; returns nothing."""
        sock = self.stream.get_extra_info("socket") if self.stream is not None else None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def run(self, client: httpx.Client, request: httpx.Request, max_bytes: int) -> None:
        """Send ``request`` and read its reply within its limits (on the worker thread); keep what it raised."""
        try:
            self._exchange(client, request, max_bytes)
        except Exception as exc:  # not a failure of the server's: raised again in the caller's thread
            self.crash = exc

    def _exchange(self, client: httpx.Client, request: httpx.Request, max_bytes: int) -> None:
        import httpx

        try:
            response = client.send(request, stream=True)
        except httpx.TransportError as exc:
            failed, url = _transport_failure(exc), request.url
            proxied = self.address and self.address != f"{url.host}:{url.port or _PORTS.get(url.scheme)}"
            if proxied and failed.kind in ("refused", "dns", "connection", "proxy"):  # the proxy failed, not the server
                failed = HTTPFailure(f"the proxy {self.address}: {failed.reason}", kind="proxy")
            self.error = failed
            return
        try:
            self.status, self.headers = response.status_code, response.headers
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if not response.is_success:  # read only far enough to quote the server's message
                self.body = _read_capped(response, _CHUNK, refuse=False) if encoding == "identity" else b""
            elif encoding != "identity":  # a gzip body is not the JSON asked for (and may be a bomb)
                self.error = HTTPFailure(
                    f"sent a reply in the content encoding {_quoted(encoding)}, which contextlab did not "
                    "ask for (it asks for identity)",
                    kind="encoding",
                )
            else:
                self.body = _read_capped(response, max_bytes, refuse=True)
        except HTTPFailure as exc:
            self.error = exc
        finally:
            response.close()


def post_json(
    url: str,
    body: Any,
    *,
    headers: dict[str, str] | None = None,
    deadline: float = 30.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    method: str = "POST",
) -> Any:
    """Return the parsed JSON reply to ``body`` sent as JSON to ``url``, read whole within ``deadline`` seconds.

    ``body`` None sends none (``method="GET"``). Raises ``HTTPFailure`` for no connection, a
    deadline passed (the name lookup, connecting, sending, the headers and the body all count), a
    reply over ``max_bytes``, a redirect, a status other than 2xx, or a body that is not JSON.
    """
    payload = None if body is None else json.dumps(body).encode("utf-8")
    sent = {
        "Accept": "application/json",
        "Accept-Encoding": "identity",
        **({"Content-Type": "application/json"} if payload else {}),
        **(headers or {}),
    }
    call, client = _Call(), _shared_client()
    request = client.build_request(
        method,
        url,
        content=payload,
        headers={name.encode("ascii"): value.encode("latin-1") for name, value in sent.items()},  # a key: Latin-1
        timeout=deadline,
        extensions={"trace": call.trace},
    )
    worker = threading.Thread(target=call.run, args=(client, request, max_bytes), name="contextlab-http", daemon=True)
    worker.start()
    worker.join(deadline)
    if worker.is_alive():  # left behind: its socket shut, it ends; a hung name lookup ends on its own
        call.shut()
        host = urlsplit(url).hostname or url
        reason = _LATE if call.stream is not None else f"no connection to {_quoted(host)} was made in time"
        raise HTTPFailure(reason, transient=True, kind="timeout")
    if call.crash is not None:
        raise call.crash
    if call.error is not None:
        raise call.error
    if not 200 <= call.status < 300:
        raise _status_failure(url, call.status, call.headers, call.body)
    try:
        return json.loads(call.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        start = call.body.lstrip()[:1]
        said = (
            "an HTML page, not JSON" if start == b"<" else "an empty reply" if not start else "a reply that is not JSON"
        )
        raise HTTPFailure(f"sent {said}", kind="not_json") from None
