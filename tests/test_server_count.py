"""The server's prompt-token count beside contextlab's: the sentence, and a measured run with the bundled model."""

from __future__ import annotations

import re

import pytest

from contextlab.tokenizers import server_count_note


@pytest.mark.parametrize(
    ("server", "ours", "said"),
    [
        (1000, 980, "prompt tokens: the server counted 1,000, contextlab 980 with llama3 (2.0% below the server's; "),
        (1000, 1000, "prompt tokens: the server counted 1,000, contextlab 1,000 with llama3 (the same count; "),
        (
            1000,
            1001,
            "prompt tokens: the server counted 1,000, contextlab 1,001 with llama3 (0.1% above the server's; ",
        ),
        (0, 12, "prompt tokens: the server reported none; contextlab counted 12 with llama3"),
    ],
)
def test_server_count_note_says_the_difference_in_percent_of_the_servers(server, ours, said):
    assert server_count_note(server, ours, "llama3").startswith(said)


@pytest.mark.slow
@pytest.mark.integration
def test_measured_run_prints_the_servers_count_beside_ours(tmp_path):
    pytest.importorskip("xllamacpp")
    from contextlab.models import LocalModelServer
    from tests.helpers import run_cli

    served = LocalModelServer(port=0, parallel=1, context=2048)
    url = served.start()
    try:
        proc = run_cli(
            "eval", "--endpoint", url, "--api", "completions", "--limit", "1", "--top-k", "2", "--no-cache", "--yes",
            "--out", str(tmp_path / "rows.csv"),
        )  # fmt: skip
    finally:
        served.stop()
    assert proc.returncode == 0, proc.stderr
    said = re.search(
        r"prompt tokens: the server counted ([\d,]+), contextlab ([\d,]+) with the endpoint's /tokenize", proc.stderr
    )
    assert said is not None, proc.stderr
    server, ours = (int(n.replace(",", "")) for n in said.groups())
    assert server - ours == 1  # the one prompt's BOS token, which the server adds and the text does not hold


@pytest.mark.parametrize(
    ("model", "vocabulary"),
    [("gpt-4o", "o200k_base"), ("qwen3:8b", "qwen3"), ("claude-sonnet-4-5", None), ("m", None), (None, None)],
)
def test_model_vocabulary_is_the_exact_one_a_model_name_gives(model, vocabulary):
    from contextlab.tokenizers import model_vocabulary

    found = model_vocabulary(model)
    assert (found.name if found is not None else None) == vocabulary


def test_measured_run_without_tokenize_counts_in_the_named_models_vocabulary(tmp_path):
    """Injects a fault a local server cannot give: an OpenAI-like endpoint with no /tokenize, serving gpt-4o."""
    from tests.fault_server import completion_body, fault_server, send_json
    from tests.helpers import run_cli

    with fault_server() as server:
        server.on("GET", "/v1/models", send_json({"object": "list", "data": [{"id": "gpt-4o", "object": "model"}]}))
        usage = {"prompt_tokens": 700, "completion_tokens": 2, "total_tokens": 702}
        server.on("POST", "/v1/completions", send_json(completion_body("Paris", usage=usage)))
        proc = run_cli(
            "eval", "--endpoint", server.url, "--model", "gpt-4o", "--api", "completions", "--limit", "1",
            "--top-k", "2", "--no-cache", "--yes", "--out", str(tmp_path / "rows.csv"),
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    port = server.server_port
    assert (
        f"contextlab: note: http://127.0.0.1:{port}/tokenize answered HTTP 404 (not found); it cannot count tokens: "
        "budgets are in o200k_base tokens, gpt-4o's own vocabulary"
    ) in proc.stderr
    said = re.search(r"prompt tokens: the server counted 700, contextlab ([\d,]+) with o200k_base \(", proc.stderr)
    assert said is not None, proc.stderr
