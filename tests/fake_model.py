"""A FAKE model with a known, deterministic effect, on 127.0.0.1: for tests that an experiment finds what is there.

It is not a stand-in for a model's work in general (answers that stand for a model come from the
bundled model): it exists so a test can check that a context experiment detects an effect that is
known to be there, and reports none where none is. It speaks the OpenAI completions API
(``GET /v1/models``, ``POST /v1/completions``) and says its window at ``GET /props`` as llama.cpp does.

How it answers a prompt in Liu et al.'s format: it takes the ``Document [n]`` lines of the question
asked (after the solved examples), keeps only the last ``reach`` characters of them (nothing before
that is seen: a model whose attention slides), and answers with the first sentence
``The code of item K is X.`` whose K is the question's (``What is the code of item K?``); with none
it refuses (``I don't know``), or, ``refuse=False``, makes an answer up (``ABC``).
"""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FakeModel", "fake_model"]

_DOC = re.compile(r"^Document \[\d+\](?:\(Title: [^)]*\))? (.*)$")
_QUESTION = re.compile(r"What is the code of item (\w+)\?")


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, value: object) -> None:
        body = json.dumps(value).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        server = self.server
        assert isinstance(server, FakeModel)
        if self.path == "/v1/models":
            self._send({"object": "list", "data": [{"id": "fake", "object": "model"}]})
        elif self.path == "/props":
            self._send({"default_generation_settings": {"n_ctx": server.window}})
        else:
            self.send_error(404)

    def do_POST(self) -> None:
        server = self.server
        assert isinstance(server, FakeModel)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if self.path != "/v1/completions":
            self.send_error(404)
            return
        with server.lock:
            server.calls += 1
        answer = server.answer(body["prompt"])
        usage = {"prompt_tokens": len(body["prompt"]) // 4, "completion_tokens": 3}
        self._send({"model": "fake", "choices": [{"text": " " + answer, "finish_reason": "stop"}], "usage": usage})


class FakeModel(http.server.ThreadingHTTPServer):
    """The fake (see the module): ``reach`` characters of documents seen, ``refuse`` or make up, ``window`` said."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, *, reach: int = 1_000_000, refuse: bool = True, window: int = 4096) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.reach, self.refuse, self.window = reach, refuse, window
        self.calls = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        """Return the base URL (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.server_port}/v1"

    def answer(self, prompt: str) -> str:
        """Return the fake's answer to ``prompt`` (see the module)."""
        asked = prompt[prompt.rfind("Question:") :]
        last = prompt[: prompt.rfind("Question:")]
        last = last[last.rfind("Answer:") + 1 :] if "Answer:" in last else last
        lines = [m.group(1) for m in (_DOC.match(line) for line in last.splitlines()) if m]
        seen = "\n".join(lines)[-self.reach :]
        item = _QUESTION.search(asked)
        if item is not None:
            found = re.search(rf"The code of item {re.escape(item.group(1))} is (\w+)\.", seen)
            if found is not None:
                return found.group(1)
        return "I don't know" if self.refuse else "ABC"


@contextmanager
def fake_model(*, reach: int = 1_000_000, refuse: bool = True, window: int = 4096) -> Iterator[FakeModel]:
    """Yield a running ``FakeModel``; stop it afterwards."""
    server = FakeModel(reach=reach, refuse=refuse, window=window)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
