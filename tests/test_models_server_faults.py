"""Stopping and pointing, with the bundled model answering for real (llama.cpp serving Gemma 3 270M).

Ctrl-C during a measured run, a URL without /v1, a cache that may not be written, a count an
older version kept from a broken /tokenize: the faults are the user's or the file's; every
answer and every count comes from the real server, nothing is faked.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess

import pytest

pytest.importorskip("xllamacpp")

from contextlab.errors import EndpointError  # noqa: E402
from contextlab.models import (  # noqa: E402
    EndpointTokenizer,
    LocalModelServer,
    ModelClient,
    ResponseCache,
)
from tests.helpers import CLI, run_cli, wait_until  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.integration]


@pytest.fixture(scope="module")
def server():
    with LocalModelServer(port=0, parallel=1, context=2048) as running:
        yield running


def _answered(cache) -> int:
    if not cache.exists():
        return 0
    try:
        return sqlite3.connect(cache).execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_models_server_faults_sigint_cancels_the_queue_keeps_the_answers_and_says_so(server, tmp_path):
    """Ctrl-C after the first answer: the queued calls are cancelled at once, the answers kept, one line."""
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
        "3",
        "--no-closed-book",
        "--concurrency",
        "1",
        "--cache",
        str(cache),
        "--yes",
        "--out",
        str(tmp_path / "c.csv"),
    ]
    proc = subprocess.Popen(
        [*CLI, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    wait_until(lambda: _answered(cache) >= 1, 600, what="the first answer in the cache", proc=proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)  # before: every queued call was sent first (9 calls here)
    assert proc.returncode == 130
    last = err.strip().splitlines()[-1]
    found = re.fullmatch(
        r"contextlab: note: interrupted: (\d+) of 9 calls sent, (\d+) answered and kept in the "
        r"cache, (\d+) in flight dropped, (\d+) not sent; rerun to resume \(only the calls not in "
        r"the cache are sent again\)",
        last,
    )
    assert found, last
    sent, answered, dropped, unsent = map(int, found.groups())
    assert sent == answered + dropped and sent + unsent == 9 and unsent >= 1 and answered >= 1
    assert "Traceback" not in err and not (tmp_path / "c.csv").exists()
    kept = _answered(cache)
    assert answered <= kept < 9
    # a rerun would send only what is missing (asked without --yes, it says so and sends nothing)
    resumed = run_cli(*[a for a in args if a != "--yes"])
    assert resumed.returncode == 1, resumed.stderr
    said = re.search(r"this run sends (\d+) calls?, .*; (\d+) answers? comes? from the cache", resumed.stderr)
    assert said and (int(said[1]), int(said[2])) == (9 - kept, kept), resumed.stderr


def test_models_server_faults_url_without_v1_says_which_url_to_give(server, tmp_path):
    """The user gives llama.cpp's root: its /completions there is not the OpenAI API, /v1 is."""
    root = server.url[:-3]
    with pytest.raises(EndpointError) as err:
        ModelClient(root, api="completions", max_retries=0).resolve_model()
    assert str(err.value) == (
        f"the endpoint {root} is the server's root, not its OpenAI API; the API is at "
        f"{server.url}: give that URL as the endpoint"
    )
    done = run_cli(
        "eval",
        "--endpoint",
        root,
        "--api",
        "completions",
        "--limit",
        "1",
        "--top-k",
        "2",
        "--yes",
        "--no-cache",
        "--out",
        str(tmp_path / "r.csv"),
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == f"contextlab: error: {err.value}"
    assert "Traceback" not in done.stderr and not (tmp_path / "r.csv").exists()


def test_models_server_faults_read_only_cache_serves_its_answers_and_keeps_no_new_one(server, tmp_path, read_only):
    """A cache file that may not be written: the answers it holds are used, new ones asked and not kept."""
    cache = tmp_path / "c.sqlite"
    common = [
        "eval",
        "--endpoint",
        server.url,
        "--api",
        "completions",
        "--shots",
        "1",
        "--top-k",
        "2",
        "--yes",
        "--cache",
        str(cache),
    ]
    first = run_cli(*common, "--limit", "1", "--out", str(tmp_path / "one.csv"))
    assert first.returncode == 0, first.stderr
    read_only(cache)
    before = cache.read_bytes()
    again = run_cli(*common, "--limit", "2", "--out", str(tmp_path / "two.csv"))
    assert again.returncode == 0, again.stderr
    assert (
        f"contextlab: note: cache {cache} is read-only: it serves the answers it holds, and new answers are not "
        "kept (a rerun asks them again)"
    ) in again.stderr.splitlines()
    assert "this run sends 1 call, " in again.stderr and "; 1 answer comes from the cache" in again.stderr
    assert cache.read_bytes() == before
    one, two = (tmp_path / "one.csv").read_text().splitlines(), (tmp_path / "two.csv").read_text().splitlines()
    assert two[:2] == one[:2]  # the held answer, served as it was


def test_models_server_faults_count_kept_from_a_broken_tokenize_is_recounted_by_the_real_one(server, tmp_path):
    """A cache an older version filled from a broken /tokenize (2,000,000 tokens): the real server counts again."""
    cache = ResponseCache(tmp_path / "c.sqlite")
    text = "Hello world, how are you?"
    planted = EndpointTokenizer(server.url, store=cache)
    key, _ = planted._stored("count", text)
    cache.memo_put(key, "2000000")
    assert EndpointTokenizer(server.url, store=cache).count(text) == 7
    assert cache.memo_get(key) == "7"
