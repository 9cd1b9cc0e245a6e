"""contextlab.models without a model: scoring, the prompt, the cache, the key, and faults.

No test here fakes a model's answer. The HTTP fake below only produces faults a real server
cannot be made to produce on demand (HTTP 429, a dropped connection); it never answers.
The bundled model itself is exercised in tests/test_models_server.py.
"""

from __future__ import annotations

import http.server
import socket
import sqlite3
import threading

import pytest

from contextlab.errors import EndpointError, InvalidInputError
from contextlab.models import (
    CLOSED_BOOK_INSTRUCTION,
    QA_INSTRUCTION,
    QATemplate,
    ResponseCache,
    Sampling,
    Shot,
    answer_is_correct,
    answer_prompts,
    api_key_source,
    cache_key,
    check_endpoint_url,
    first_line,
    free_port,
    normalize_answer,
    paper_documents,
    plan_calls,
)
from contextlab.models.cache import CachedResponse
from contextlab.models.client import ModelClient
from contextlab.types import Document

SECRET = "sk-contextlab-test-SECRET-0123456789"


# -- scoring, as Liu et al. score -------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "golds", "expected"),
    [
        ("The Eiffel Tower.", ["eiffel tower"], True),
        ("It was Wilhelm Conrad Röntgen, in 1901", ["Wilhelm Conrad Röntgen"], True),
        ("Marie Curie", ["Wilhelm Conrad Röntgen"], False),
        ("anything at all", ["the", "."], False),  # golds that normalise to nothing never match
        ("1980s", ["the 1980s", "1970s"], True),
        ("", ["Paris"], False),
    ],
)
def test_models_answer_is_correct_as_the_paper_scores(answer, golds, expected):
    assert answer_is_correct(answer, golds) is expected


def test_models_normalize_answer_is_squad_normalisation():
    assert normalize_answer("  The  Quick, brown fox!  An apple ") == "quick brown fox apple"


def test_models_first_line_is_the_answer():
    assert first_line("\n  Paris \nQuestion: what else?") == "Paris"
    assert first_line("   ") == ""


# -- the prompt ------------------------------------------------------------------------------


def test_models_paper_documents_format():
    docs = [Document("Paris is  the capital.", source="France"), Document("No title here.")]
    assert paper_documents(docs) == ("Document [1](Title: France) Paris is the capital.\nDocument [2] No title here.")


def test_models_template_renders_instruction_shots_then_question():
    shot = Shot("capital of France?", "Paris", "Document [1](Title: France) Paris is the capital.")
    prompt = QATemplate().render("who wrote Hamlet?", "Document [1](Title: Hamlet) By Shakespeare.", [shot])
    assert prompt == (
        f"{QA_INSTRUCTION}\n\n"
        "Document [1](Title: France) Paris is the capital.\n\nQuestion: capital of France?\nAnswer: Paris\n\n"
        "Document [1](Title: Hamlet) By Shakespeare.\n\nQuestion: who wrote Hamlet?\nAnswer:"
    )


def test_models_template_closed_book_uses_the_closed_book_instruction():
    assert (
        QATemplate().render("who wrote Hamlet?", "")
        == f"{CLOSED_BOOK_INSTRUCTION}\n\nQuestion: who wrote Hamlet?\nAnswer:"
    )


def test_models_template_question_format_must_hold_the_question():
    with pytest.raises(InvalidInputError, match=r"question_format must contain \{question\}"):
        QATemplate(question_format="Q:")


# -- the cache -------------------------------------------------------------------------------


def test_models_cache_key_changes_with_every_part():
    base = ("http://h/v1", "m", "chat", {"temperature": 0.0}, "prompt")
    keys = {cache_key(*base)}
    for i, other in enumerate(["http://g/v1", "m2", "completions", {"temperature": 0.5}, "prompt!"]):
        changed = list(base)
        changed[i] = other
        keys.add(cache_key(*changed))
    assert len(keys) == 6
    assert cache_key("http://h/v1/", "m", "chat", {"temperature": 0.0}, "prompt") == cache_key(*base)


def test_models_cache_keeps_answers_across_processes(tmp_path):
    path = tmp_path / "responses.sqlite"
    cache = ResponseCache(path)
    cache.put("k1", "http://h/v1", "m", CachedResponse("Paris", 12, 1, 30.5, "stop"))
    cache.close()
    again = ResponseCache(path)
    assert again.get("k1") == CachedResponse("Paris", 12, 1, 30.5, "stop")
    assert again.get("k2") is None
    assert len(again) == 1


def test_models_cache_refuses_a_file_that_is_not_one(tmp_path):
    bad = tmp_path / "not.sqlite"
    bad.write_text("hello, not a database" * 100)
    with pytest.raises(InvalidInputError, match="not a contextlab response cache"):
        ResponseCache(bad)


def test_models_plan_calls_counts_only_what_the_cache_lacks(tmp_path):
    from contextlab.models import request_key

    client = ModelClient("http://127.0.0.1:9/v1", "m", api="completions")
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put(request_key(client, "one two"), client.endpoint, "m", CachedResponse("x", 2, 1, 1.0))
    plan = plan_calls(client, ["one two", "three four five", "three four five"], cache, lambda p: len(p.split()))
    assert (plan.prompts, plan.cached, plan.calls, plan.prompt_tokens) == (2, 1, 1, 3)


# -- the key and the URL ---------------------------------------------------------------------


def test_models_key_comes_from_contextlab_then_openai_variable(monkeypatch):
    monkeypatch.delenv("CONTEXTLAB_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert api_key_source() is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-b")
    assert api_key_source() == "OPENAI_API_KEY"
    monkeypatch.setenv("CONTEXTLAB_API_KEY", "sk-a")
    assert api_key_source() == "CONTEXTLAB_API_KEY"


@pytest.mark.parametrize("url", ["http://user:sk-1@host/v1", "https://host/v1?api_key=sk-1", "ftp://host/v1", ""])
def test_models_endpoint_url_must_be_plain_http(url):
    with pytest.raises(InvalidInputError, match="endpoint must"):
        check_endpoint_url(url)


def test_models_sampling_is_checked():
    with pytest.raises(InvalidInputError, match="max_tokens must be a whole number >= 1"):
        Sampling(max_tokens=0)


# -- faults ----------------------------------------------------------------------------------


def test_models_unreachable_endpoint_is_one_line_without_the_key(monkeypatch):
    monkeypatch.setenv("CONTEXTLAB_API_KEY", SECRET)
    client = ModelClient(f"http://127.0.0.1:{free_port()}/v1", "m", max_retries=0, timeout=5)
    with pytest.raises(EndpointError) as err:
        client.complete("hello")
    message = str(err.value)
    assert message.startswith(f"cannot reach the endpoint {client.endpoint} (connection refused)")
    assert "\n" not in message and SECRET not in message


class _FaultServer(http.server.ThreadingHTTPServer):
    """A FAKE endpoint for faults only: it never answers a prompt, it refuses (429) or hangs up."""

    daemon_threads = True

    def __init__(self, fault: str) -> None:
        self.fault = fault
        self.attempts = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self.authorization: list[str] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _FaultHandler)


class _FaultHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # /v1/models: the one thing it lists, so the client gets to the fault
        body = b'{"object": "list", "data": [{"id": "m", "object": "model"}]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        server = self.server
        with server.lock:
            server.attempts += 1
            server.in_flight += 1
            server.most_in_flight = max(server.most_in_flight, server.in_flight)
            server.authorization.append(self.headers.get("Authorization", ""))
        threading.Event().wait(0.05)
        with server.lock:
            server.in_flight -= 1
        if server.fault == "drop":
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        body = b'{"error": {"message": "rate limited", "type": "rate_limit"}}'
        self.send_response(429)
        self.send_header("Content-Type", "application/json")
        self.send_header("retry-after-ms", "10")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def fault_server(request):
    server = _FaultServer(request.param)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("fault_server", ["429"], indirect=True)
def test_models_429_is_retried_then_one_line(fault_server, monkeypatch):
    monkeypatch.setenv("CONTEXTLAB_API_KEY", SECRET)
    client = ModelClient(f"http://127.0.0.1:{fault_server.server_port}/v1", "m", max_retries=3, timeout=10)
    with pytest.raises(EndpointError, match=r"kept refusing with HTTP 429 \(rate limit\) after 3 retries"):
        client.complete("hello")
    assert fault_server.attempts == 4  # the first try and three retries
    assert fault_server.authorization == [f"Bearer {SECRET}"] * 4  # the key goes in the header only


@pytest.mark.slow
@pytest.mark.parametrize("fault_server", ["drop"], indirect=True)
def test_models_dropped_connection_is_retried_then_one_line(fault_server):
    client = ModelClient(f"http://127.0.0.1:{fault_server.server_port}/v1", "m", max_retries=2, timeout=10)
    with pytest.raises(EndpointError, match="cannot reach the endpoint"):
        client.complete("hello")
    assert fault_server.attempts == 3


@pytest.mark.parametrize("fault_server", ["429"], indirect=True)
def test_models_answer_prompts_bounds_concurrency_and_keeps_nothing_failed(fault_server, tmp_path):
    client = ModelClient(f"http://127.0.0.1:{fault_server.server_port}/v1", "m", max_retries=0, timeout=10)
    cache = ResponseCache(tmp_path / "c.sqlite")
    with pytest.raises(EndpointError, match="HTTP 429"):
        answer_prompts(client, [f"prompt {i}" for i in range(12)], cache=cache, concurrency=3)
    assert 1 <= fault_server.most_in_flight <= 3
    assert len(cache) == 0


@pytest.mark.parametrize("fault_server", ["429"], indirect=True)
def test_models_cache_file_never_holds_the_key(fault_server, tmp_path, monkeypatch):
    monkeypatch.setenv("CONTEXTLAB_API_KEY", SECRET)
    client = ModelClient(f"http://127.0.0.1:{fault_server.server_port}/v1", "m", max_retries=0, timeout=10)
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", client.endpoint, client.model_label, CachedResponse("x", 1, 1, 1.0))
    with pytest.raises(EndpointError):
        answer_prompts(client, ["p"], cache=cache)
    cache.close()
    for file in tmp_path.iterdir():
        assert SECRET.encode() not in file.read_bytes()
    rows = sqlite3.connect(tmp_path / "c.sqlite").execute("SELECT * FROM responses").fetchall()
    assert rows[0][:4] == ("k", client.endpoint, "m", "x")


def test_models_batch_progress_is_the_one_protocol_with_the_batchs_counts_as_its_note():
    import io

    from contextlab.models import CallStats
    from contextlab.progress import ProgressBar

    stream = io.StringIO()
    bar = ProgressBar(stream, width=4, label="prompts", enabled=True)
    stats = CallStats(total=2, done=2, calls=1, cached=1, prompt_tokens=1200, completion_tokens=7)
    assert stats.note() == "1 calls, 1 cached, 1,200+7 tokens"  # all answered: no time left to estimate
    bar(stats.done, stats.total, stats.note())
    line = stream.getvalue()
    assert line.startswith("\r[####] 2/2 prompts ") and line.endswith("  1 calls, 1 cached, 1,200+7 tokens\n")
