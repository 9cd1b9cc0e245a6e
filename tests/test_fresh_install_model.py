"""`pip install '.[model]'` alone answers a measured question with the bundled model.

The rest of the suite runs in the environment ``requirements-dev.txt`` makes, which brings many
packages along; a module the measured path imports without declaring it (``httpx`` once) works
there and fails for a user. Here a fresh virtual environment gets the project from the registry
with only its ``model`` extra, then serves the bundled model and asks it one question through
``contextlab eval --endpoint``: a real model, nothing faked, nothing borrowed from the test run.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[1]


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL, **kwargs)
    assert result.returncode == 0, f"{' '.join(command[:5])} ... failed:\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def model_env(tmp_path_factory) -> Path:
    """Return the bin/ folder of a fresh venv holding contextlab[model] and nothing else."""
    work = tmp_path_factory.mktemp("fresh")
    source = work / "src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "*.egg-info", "build", ".pytest_cache", ".hypothesis", "tests"
        ),
    )
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{source}[model]"])
    return venv / "bin"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _printed_url(log: Path) -> str | None:
    """Return the base URL `contextlab model serve` prints on a line of its own, once it has."""
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    return next((line for line in lines if line.startswith("http://127.0.0.1:") and line.endswith("/v1")), None)


def test_fresh_install_model_extra_alone_answers_one_question(model_env, tmp_path):
    env = _env()
    # Nothing from the test environment is importable there, so a module that only "comes with"
    # a package of the dev requirements cannot hide.
    probe = _run([str(model_env / "python"), "-c", "import importlib.util as u; print(u.find_spec('pytest'))"], env=env)
    assert probe.stdout.strip() == "None"
    # The URL is the command's output (stdout); llama.cpp's log and the notes go to stderr. Read
    # apart: llama.cpp writes a log line in pieces from its own thread, so in one merged file the
    # URL line could land between a line's timestamp and its text.
    port_file, log_file = tmp_path / "serve.out", tmp_path / "serve.log"
    with port_file.open("w") as out, log_file.open("w") as log:
        server = subprocess.Popen(
            [str(model_env / "contextlab"), "model", "serve", "--port", "0"],
            stdout=out,
            stderr=log,
            env=env,
            cwd=tmp_path,
        )
    try:
        wait_until(
            lambda: _printed_url(port_file) is not None or server.poll() is not None,
            300.0,
            what="the bundled model server to print its URL",
        )
        assert server.poll() is None, log_file.read_text()
        url = _printed_url(port_file)
        out = tmp_path / "rows.csv"
        done = _run(
            [
                str(model_env / "contextlab"),
                "eval",
                "--endpoint",
                url,
                "--api",
                "completions",
                "--shots",
                "1",
                "--limit",
                "1",
                "--top-k",
                "2",
                "--no-cache",
                "--yes",
                "--out",
                str(out),
                "--summary",
                str(tmp_path / "summary.json"),
            ],
            env=env,
            cwd=tmp_path,
        )
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert "Traceback" not in done.stderr
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 1 and rows[0]["correct"] in ("0", "1")
    assert int(rows[0]["prompt_tokens"]) > 50
