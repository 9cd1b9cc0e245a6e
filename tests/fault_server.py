"""A FAKE OpenAI-compatible server that injects faults: it never stands in for a model's work.

Each test tells it what to do wrong on a route (``server.on("POST", "/v1/completions", action)``):
send a malformed or huge body, trickle bytes, redirect elsewhere, echo the ``Authorization``
header back, hang up. Every request is recorded (method, path, headers), so a test can check
what was sent and where. Answers that stand for a model's work come from the bundled model
(tests/test_models_server.py), never from here.
"""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

#: A self-signed certificate for localhost and 127.0.0.1 (its key beside it), for a fake that speaks TLS.
TLS_CERT = Path(__file__).parent / "tls" / "localhost.pem"

__all__ = [
    "FaultServer",
    "fault_server",
    "send_json",
    "send_raw",
    "send_wire",
    "trickle",
    "trickle_headers",
    "redirect",
    "echo_authorization",
    "huge_completion",
    "hang_up",
    "TLS_CERT",
    "ForwardingProxy",
    "forwarding_proxy",
]

Action = Callable[["_Handler"], None]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _serve(self) -> None:
        server: FaultServer = self.server  # type: ignore[assignment]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with server.lock:
            server.requests.append((self.command, self.path, dict(self.headers), body))
        action = server.routes.get((self.command, self.path))
        if action is None:
            send_json({"error": {"message": "not found"}}, status=404)(self)
            return
        # The client may give up (a deadline passed): what the fault was for.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            action(self)

    do_GET = do_POST = _serve


class FaultServer(http.server.ThreadingHTTPServer):
    """The fake: routes (method, path) -> action; ``requests`` holds every request received."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, *, tls: bool = False, host: str = "127.0.0.1") -> None:
        self.routes: dict[tuple[str, str], Action] = {}
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.tls, self.host = tls, host
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, 0), _Handler)
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(TLS_CERT, TLS_CERT.with_suffix(".key"))
            self.socket = context.wrap_socket(self.socket, server_side=True)
        self.on("GET", "/v1/models", send_json({"object": "list", "data": [{"id": "m", "object": "model"}]}))

    @property
    def url(self) -> str:
        """Return the base URL a client is given (``http://127.0.0.1:PORT/v1``, https with ``tls``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.server_port}/v1"

    def on(self, method: str, path: str, action: Action) -> FaultServer:
        """Make ``method path`` do ``action``; return the server (calls chain)."""
        self.routes[(method, path)] = action
        return self

    def paths(self) -> list[str]:
        """Return ``"METHOD /path"`` of every request received, in order."""
        with self.lock:
            return [f"{m} {p}" for m, p, _, _ in self.requests]


@contextmanager
def fault_server(*, tls: bool = False, host: str = "127.0.0.1") -> Iterator[FaultServer]:
    """Yield a running ``FaultServer`` on ``host`` (speaking TLS with ``tls``); stop it afterwards."""
    server = FaultServer(tls=tls, host=host)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()


def send_raw(
    body: bytes, *, status: int = 200, content_type: str = "application/json", headers: dict[str, str] | None = None
) -> Action:
    """Return an action that answers ``status`` with ``body`` as is."""

    def act(h: _Handler) -> None:
        h.send_response(status)
        h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.end_headers()
        h.wfile.write(body)

    return act


def send_wire(raw: bytes) -> Action:
    """Return an action that writes ``raw`` as it is (its own status line and headers, or none), then hangs up."""

    def act(h: _Handler) -> None:
        h.wfile.write(raw)
        h.wfile.flush()
        h.connection.shutdown(socket.SHUT_RDWR)
        h.close_connection = True

    return act


def send_json(value: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> Action:
    """Return an action that answers ``status`` with ``value`` as JSON."""
    return send_raw(json.dumps(value).encode("utf-8"), status=status, headers=headers)


def trickle(body: bytes, *, every: float = 0.5) -> Action:
    """Return an action that sends its headers at once, then ``body`` one byte every ``every`` seconds."""

    def act(h: _Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.flush()
        for i in range(len(body)):
            if h.server.stopping.wait(every):  # type: ignore[attr-defined]
                return
            h.wfile.write(body[i : i + 1])
            h.wfile.flush()

    return act


def trickle_headers(*, every: float = 0.5) -> Action:
    """Return an action that sends its status line and headers one byte every ``every`` seconds, forever."""

    def act(h: _Handler) -> None:
        head = b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Slow-%d: %s\r\n" % (i, b"y" * 40) for i in range(90))
        for i in range(len(head)):
            if h.server.stopping.wait(every):  # type: ignore[attr-defined]
                return
            h.wfile.write(head[i : i + 1])
            h.wfile.flush()

    return act


def redirect(location: str, *, status: int = 307) -> Action:
    """Return an action that answers with a redirect to ``location``."""

    def act(h: _Handler) -> None:
        h.send_response(status)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()

    return act


def completion_body(text: Any, api: str = "completions", **extra: Any) -> dict[str, Any]:
    """Return a completion reply whose text is ``text`` (for faults: an echoed header, a huge text)."""
    choice = {
        "index": 0,
        "finish_reason": "stop",
        **({"message": {"role": "assistant", "content": text}} if api == "chat" else {"text": text}),
    }
    return {"object": "text_completion", "choices": [choice], **extra}


def echo_authorization(api: str = "completions") -> Action:
    """Return an action whose completion text is the request's ``Authorization`` header (a hostile server)."""

    def act(h: _Handler) -> None:
        send_json(completion_body(f"The header was: {h.headers.get('Authorization', '')}", api))(h)

    return act


def huge_completion(n_bytes: int) -> Action:
    """Return an action whose completion text is ``n_bytes`` of "a", streamed without a length."""

    def act(h: _Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(b'{"choices": [{"index": 0, "finish_reason": "length", "text": "')
        block = b"a" * 65536
        sent = 0
        while sent < n_bytes and not h.server.stopping.is_set():  # type: ignore[attr-defined]
            h.wfile.write(block)
            sent += len(block)
        h.wfile.write(b'"}]}')
        h.close_connection = True

    return act


def hang_up() -> Action:
    """Return an action that closes the connection without a reply."""

    def act(h: _Handler) -> None:
        h.connection.shutdown(socket.SHUT_RDWR)
        h.close_connection = True

    return act


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    """A forwarding proxy's side: absolute-form requests relayed, CONNECT tunnelled; every request recorded."""

    protocol_version = "HTTP/1.1"
    server: ForwardingProxy

    def log_message(self, *args: object) -> None:
        pass

    def _forward(self) -> None:
        self.server.seen.append(f"{self.command} {self.path}")
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection(self.server.resolve(url.hostname or ""), url.port or 80, timeout=10)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-connection", "connection")}
        upstream.request(self.command, url.path or "/", body=body, headers=headers)
        reply = upstream.getresponse()
        data = reply.read()
        upstream.close()
        self.send_response(reply.status)
        for name, value in reply.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_CONNECT(self) -> None:
        self.server.seen.append(f"CONNECT {self.path}")
        if self.server.login_required:
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        host, port = self.path.rsplit(":", 1)
        upstream = socket.create_connection((self.server.resolve(host), int(port)), timeout=10)
        self.send_response(200)
        self.end_headers()
        self.wfile.flush()

        def pump(source: socket.socket, sink: socket.socket) -> None:
            with contextlib.suppress(OSError):
                while data := source.recv(65536):
                    sink.sendall(data)
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

        back = threading.Thread(target=pump, args=(upstream, self.connection), daemon=True)
        back.start()
        pump(self.connection, upstream)
        back.join(10)
        upstream.close()
        self.close_connection = True

    do_GET = do_POST = _forward


class ForwardingProxy(http.server.ThreadingHTTPServer):
    """A tiny HTTP proxy on 127.0.0.1 for tests: ``seen`` holds every request line; ``hosts`` only it resolves."""

    daemon_threads = True

    def __init__(self, hosts: dict[str, str], *, login_required: bool = False) -> None:
        self.seen: list[str] = []
        self.hosts = hosts
        #: Answer every CONNECT with 407 (a proxy that wants a login).
        self.login_required = login_required
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.url = f"http://127.0.0.1:{self.server_port}"

    def resolve(self, host: str) -> str:
        """Return the address the proxy connects to for ``host`` (its own table first)."""
        return self.hosts.get(host, host)


@contextmanager
def forwarding_proxy(hosts: dict[str, str] | None = None, *, login_required: bool = False) -> Iterator[ForwardingProxy]:
    """Yield a running ``ForwardingProxy`` (``hosts`` maps names only it can resolve); stop it afterwards."""
    proxy = ForwardingProxy(dict(hosts or {}), login_required=login_required)
    thread = threading.Thread(target=proxy.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
