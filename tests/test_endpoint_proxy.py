"""The model client honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY as every Python tool does.

A tiny forwarding proxy on 127.0.0.1 (tests/fault_server.py) stands for a company proxy: an
endpoint whose host name only the proxy can resolve is reached through it, and a local endpoint
named in NO_PROXY is reached directly while the proxy set is dead. The endpoint is the fake
server of tests/fault_server.py; no answer here stands for a model's work.
"""

from __future__ import annotations

import pytest

from contextlab.errors import EndpointError
from contextlab.models import ModelClient, endpoint_tokenizer, free_port
from tests.fault_server import TLS_CERT, completion_body, fault_server, forwarding_proxy, send_json

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_set(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
def server():
    with fault_server() as running:
        running.on("POST", "/v1/completions", send_json(completion_body("Paris")))
        yield running


def _client(url: str) -> ModelClient:
    return ModelClient(url, "m", api="completions", max_retries=0, timeout=10)


def test_endpoint_proxy_endpoint_reachable_only_through_the_proxy_answers(server, monkeypatch):
    """An endpoint on a host name only the proxy resolves (model.invalid) answers through HTTP_PROXY."""
    hidden = f"http://model.invalid:{server.server_port}/v1"
    with pytest.raises(EndpointError, match=r"\(the host name does not resolve\)"):
        _client(hidden).complete("prompt")  # without the proxy: unreachable
    with forwarding_proxy({"model.invalid": "127.0.0.1"}) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        assert _client(hidden).complete("prompt").text == "Paris"
        tokenizer, note = endpoint_tokenizer(hidden)  # the /tokenize route goes the same way
    assert proxy.seen == [
        f"GET http://model.invalid:{server.server_port}/v1/models",
        f"POST http://model.invalid:{server.server_port}/v1/completions",
        f"POST http://model.invalid:{server.server_port}/tokenize",
    ]
    assert tokenizer is None
    assert note.startswith(f"http://model.invalid:{server.server_port}/tokenize answered HTTP 404 (not found)")


def test_endpoint_proxy_https_endpoint_is_tunnelled_through_https_proxy(monkeypatch):
    """An https endpoint goes through HTTPS_PROXY as a CONNECT tunnel; its certificate is still checked end to end."""
    with fault_server(tls=True) as tls, forwarding_proxy() as proxy:
        tls.on("POST", "/v1/completions", send_json(completion_body("Paris")))
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        monkeypatch.setenv("SSL_CERT_FILE", str(TLS_CERT))
        url = tls.url.replace("127.0.0.1", "localhost")
        assert _client(url).complete("prompt").text == "Paris"
    assert proxy.seen == [f"CONNECT localhost:{tls.server_port}"] * 2  # one tunnel per call
    assert [path for _, path, _, _ in tls.requests] == ["/v1/models", "/v1/completions"]


def test_endpoint_proxy_local_endpoint_in_no_proxy_is_reached_directly(server, monkeypatch):
    """A dead proxy is set; NO_PROXY names 127.0.0.1, so the local endpoint is reached without it."""
    dead = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("HTTP_PROXY", dead)
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert _client(server.url).complete("prompt").text == "Paris"
    assert server.paths() == ["GET /v1/models", "POST /v1/completions"]


def test_endpoint_proxy_dead_proxy_is_named_in_the_line(server, monkeypatch):
    """A dead proxy is set and NO_PROXY does not name the endpoint: the line names the proxy, not the server."""
    port = free_port()
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{port}")
    with pytest.raises(EndpointError) as err:
        _client(server.url).complete("prompt")
    assert str(err.value) == (
        f"cannot reach the endpoint {server.url} (the proxy 127.0.0.1:{port}: connection refused); "
        "check HTTP_PROXY and HTTPS_PROXY, or add its host to NO_PROXY"
    )
    assert server.paths() == []


def test_endpoint_proxy_that_wants_a_login_is_said_so_not_an_unreachable_server(monkeypatch):
    """A proxy answers CONNECT with 407 (it wants a login): the line quotes the proxy, not the server."""
    with forwarding_proxy(login_required=True) as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        with pytest.raises(EndpointError) as err:
            _client("https://model.example:8443/v1").complete("prompt")
    assert str(err.value) == (
        f"cannot reach the endpoint https://model.example:8443/v1 (the proxy 127.0.0.1:{proxy.server_port}: "
        "answered 407 Proxy Authentication Required); check HTTP_PROXY and HTTPS_PROXY, or add its host to NO_PROXY"
    )
    assert proxy.seen == ["CONNECT model.example:8443"]
