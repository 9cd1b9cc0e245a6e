"""A server that answers, but not as HTTP promises, is told for what it sent: never "is the server running?".

Every test here injects a fault through the fake server of tests/fault_server.py: a body shorter
than its Content-Length, a chunked body that breaks off, bytes that are not HTTP, a gzip body
nobody asked for, TLS where the server speaks plain HTTP, a certificate nobody here trusts. A
real server cannot be made to misbehave on demand; no answer here stands for a model's work.
"""

from __future__ import annotations

import gzip
import json

import pytest

from contextlab.errors import EndpointError
from contextlab.models import ModelClient, ResponseCache, answer_prompts, endpoint_tokenizer
from tests.fault_server import TLS_CERT, completion_body, fault_server, send_raw, send_wire

GOOD = json.dumps(completion_body("Paris")).encode("utf-8")


@pytest.fixture
def server():
    with fault_server() as running:
        yield running


def _client(url: str, **options) -> ModelClient:
    return ModelClient(url, "m", api="completions", max_retries=options.pop("max_retries", 0), timeout=10, **options)


def _posts(server) -> int:
    return sum(1 for p in server.paths() if p.startswith("POST"))


def test_endpoint_transport_faults_body_shorter_than_its_length_is_refused_and_never_cached(server, tmp_path):
    """Injects a fault: a whole JSON completion whose Content-Length promises 500 bytes more; then the line ends."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (len(GOOD) + 500)
    server.on("POST", "/v1/completions", send_wire(head + GOOD))
    cache = ResponseCache(tmp_path / "c.sqlite")
    with pytest.raises(EndpointError) as err:
        answer_prompts(_client(server.url, max_retries=1), ["prompt"], cache=cache)
    assert str(err.value) == (
        f"the endpoint {server.url} sent a reply cut off before its end "
        f"({len(GOOD)} of {len(GOOD) + 500} bytes) (POST /completions after 1 retries)"
    )
    assert _posts(server) == 2  # a cut reply may be a passing fault: tried again once, as told
    assert len(cache) == 0


def test_endpoint_transport_faults_chunked_body_that_breaks_off_is_said_so(server):
    """Injects a fault: a chunked reply whose next chunk size is not a number (the body breaks off)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    server.on("POST", "/v1/completions", send_wire(head + b'7\r\n{"choic\r\nzz\r\n'))
    with pytest.raises(EndpointError) as err:
        _client(server.url).complete("prompt")
    assert str(err.value) == f"the endpoint {server.url} sent a reply cut off before its end (POST /completions)"


def test_endpoint_transport_faults_chunked_reply_that_is_whole_is_read(server):
    """Injects nothing wrong: a chunked reply in 7-byte chunks (what proxies send) is read whole."""
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(GOOD[i : i + 7]), GOOD[i : i + 7]) for i in range(0, len(GOOD), 7))
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    server.on("POST", "/v1/completions", send_wire(head + chunks + b"0\r\n\r\n"))
    assert _client(server.url).complete("prompt").text == "Paris"


def test_endpoint_transport_faults_reply_that_is_not_http_is_one_line_and_not_retried(server):
    """Injects a fault: the port answers bytes that are not HTTP (another protocol listens there)."""
    server.on("POST", "/v1/completions", send_wire(b"+OK POP3 server ready\r\n\r\n"))
    with pytest.raises(EndpointError) as err:
        _client(server.url, max_retries=3).complete("prompt")
    assert str(err.value) == (
        f"the endpoint {server.url} answered with something that is not HTTP "
        "(POST /completions); is it an OpenAI-compatible API?"
    )
    assert _posts(server) == 1


def test_endpoint_transport_faults_gzip_body_nobody_asked_for_is_named(server):
    """Injects a fault: a completion compressed with gzip although the request asked for identity."""
    server.on("POST", "/v1/completions", send_raw(gzip.compress(GOOD), headers={"Content-Encoding": "gzip"}))
    with pytest.raises(EndpointError) as err:
        _client(server.url).complete("prompt")
    assert str(err.value) == (
        f"the endpoint {server.url} sent a reply in the content encoding gzip, which contextlab "
        "did not ask for (it asks for identity) (POST /completions)"
    )


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (
            send_wire(b"+OK POP3 server ready\r\n\r\n"),
            "/tokenize answered with something that is not HTTP; it cannot count tokens",
        ),
        (
            send_raw(gzip.compress(b'{"tokens": [1, 2]}'), headers={"Content-Encoding": "gzip"}),
            "/tokenize sent a reply in the content encoding gzip",
        ),
    ],
)
def test_endpoint_transport_faults_tokenize_answering_badly_falls_back_with_a_note(server, reply, why):
    """Injects a fault: /tokenize answers bytes that are not HTTP, or gzip: cl100k_base counts, the note says why."""
    server.on("POST", "/tokenize", reply)
    tokenizer, note = endpoint_tokenizer(server.url)
    assert tokenizer is None
    assert note.startswith(f"http://127.0.0.1:{server.server_port}{why}")


def test_endpoint_transport_faults_https_to_a_plain_http_server_asks_about_the_scheme(server):
    """Injects a fault: https:// given for a server of plain HTTP (the fake answers the handshake in HTTP)."""
    url = server.url.replace("http://", "https://")
    with pytest.raises(EndpointError) as err:
        _client(url).list_models()
    message = str(err.value)
    assert message.startswith(f"cannot talk to the endpoint {url}: TLS failed (")
    assert message.endswith("); does it serve https? a server of plain http needs an http:// endpoint")
    assert "is the server running" not in message


def test_endpoint_transport_faults_untrusted_certificate_says_how_to_trust_it(monkeypatch):
    """Injects a fault: an https fake with a self-signed certificate; the line's advice (SSL_CERT_FILE) then works."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with fault_server(tls=True) as tls:
        with pytest.raises(EndpointError) as err:
            _client(tls.url).list_models()
        assert str(err.value) == (
            f"cannot talk to the endpoint {tls.url}: its TLS certificate is not trusted here "
            "(self-signed certificate); if you trust it, point SSL_CERT_FILE at its "
            "authority's certificate"
        )
        monkeypatch.setenv("SSL_CERT_FILE", str(TLS_CERT))
        assert _client(tls.url).list_models() == ["m"]


def test_endpoint_transport_faults_name_lookup_that_hangs_ends_at_the_deadline(server, monkeypatch):
    """Injects a fault: the resolver hangs for the endpoint's host name (a dead DNS server), as getaddrinfo would.

    The deadline covers the lookup too; an address that resolves at once still connects.
    """
    import socket
    import threading
    import time

    from contextlab.errors import HTTPFailure
    from contextlab.models.http import post_json

    server.on(
        "POST",
        "/v1/completions",
        send_wire(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(GOOD) + GOOD
        ),
    )
    real, release = socket.getaddrinfo, threading.Event()

    def lookup(host, *args, **kwargs):
        if host == "stuck.invalid":
            release.wait(30)
            raise socket.gaierror("gave up")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    port = server.url.rsplit(":", 1)[1].split("/")[0]
    started = time.monotonic()
    with pytest.raises(HTTPFailure, match=r"^no connection to stuck\.invalid was made in time$") as caught:
        post_json(f"http://stuck.invalid:{port}/v1/completions", {"prompt": "x"}, deadline=1.0)
    assert caught.value.transient and time.monotonic() - started < 3.0
    release.set()
    reply = post_json(f"http://localhost:{port}/v1/completions", {"prompt": "x"}, deadline=5.0)
    assert reply["choices"][0]["text"] == "Paris"
