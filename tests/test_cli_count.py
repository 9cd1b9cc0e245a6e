"""``contextlab count``: tokens per file in each tokenizer, side by side; bad input is one line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from contextlab import cli

TEXT = "Hello world\n12345678901234567890\n"  # cl100k_base, o200k_base, llama3: 11 tokens; qwen3: 24


@pytest.fixture
def run(capsys, monkeypatch):
    """Return a runner of ``cli.main`` in this process, with what a subprocess would give back."""

    def run_main(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        capsys.readouterr()
        try:
            code = cli.main(list(args))
        except SystemExit as exc:  # usage errors exit through argparse
            code = exc.code if isinstance(exc.code, int) else 0
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run_main


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "b.txt").write_text("こんにちは世界", encoding="utf-8")  # 4 in cl100k_base, 2 in the others
    return tmp_path


def test_count_one_file_defaults_to_cl100k_base(run, files):
    proc = run("count", "a.txt", cwd=files)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines() == ["file   cl100k_base", "a.txt           11"]


def test_count_side_by_side_with_difference_and_resolved_vocabulary(run, files):
    proc = run("count", "a.txt", "b.txt", "--tokenizer", "gpt-4", "--tokenizer", "qwen2.5-7b-instruct", cwd=files)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "file   gpt-4  qwen2.5-7b-instruct",
        "a.txt     11         24 (+118.2%)",
        "b.txt      4           2 (-50.0%)",
        "total     15          26 (+73.3%)",
        "(+/-%: each count's difference from gpt-4's)",
        "gpt-4: counted in cl100k_base",
        "qwen2.5-7b-instruct: counted in qwen3",
    ]


def test_count_estimate_says_so_and_names_its_vocabulary(run, files):
    proc = run("count", "b.txt", "--tokenizer", "o200k_base", "--tokenizer", "claude-sonnet-4", cwd=files)
    lines = proc.stdout.splitlines()
    assert lines[0] == "file   o200k_base  claude-sonnet-4 (estimate)"
    assert lines[1] == "b.txt           2                 4 (+100.0%)"
    assert lines[-1] == "claude-sonnet-4: an estimate in cl100k_base (Claude publishes no tokenizer)"


def test_count_json_from_stdin(run, files):
    proc = run(
        "count", "-", "--tokenizer", "meta-llama/Llama-3.1-8B-Instruct", "--tokenizer", "qwen3", "-f", "json",
        cwd=files, stdin=TEXT.encode(),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "tokenizers": [
            {
                "name": "meta-llama/Llama-3.1-8B-Instruct",
                "vocabulary": "llama3",
                "exact": True,
                "estimate_for": None,
                "counted_as": "llama3",
            },
            {"name": "qwen3", "vocabulary": "qwen3", "exact": True, "estimate_for": None, "counted_as": "qwen3"},
        ],
        "files": [
            {
                "file": "stdin",
                "characters": 33,
                "tokens": {"meta-llama/Llama-3.1-8B-Instruct": 11, "qwen3": 24},
                "difference_pct": {"qwen3": 118.2},
            }
        ],
        "total": {"meta-llama/Llama-3.1-8B-Instruct": 11, "qwen3": 24},
        "total_difference_pct": {"qwen3": 118.2},
    }


def test_count_empty_file_has_no_percentage(run, tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    proc = run("count", "empty.txt", "--tokenizer", "llama3", "--tokenizer", "o200k_base", cwd=tmp_path)
    assert proc.stdout.splitlines()[:2] == ["file       llama3  o200k_base", "empty.txt       0     0 (n/a)"]


def test_count_odd_bytes_are_counted(run, tmp_path):
    (tmp_path / "nul.txt").write_bytes(b"x\x00" * 5000)
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 \xff")  # not UTF-8: each bad byte counts as U+FFFD
    (tmp_path / "surrogate.txt").write_bytes(b"\xed\xa0\x80x")  # an encoded lone surrogate
    proc = run("count", "nul.txt", "latin1.txt", "surrogate.txt", "-f", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    counts = [f["tokens"]["cl100k_base"] for f in json.loads(proc.stdout)["files"]]
    assert counts == [10000, 3, 2]  # as tiktoken counts the decoded text: 'caf\ufffd \ufffd', '\ufffd\ufffd\ufffdx'
    assert proc.stderr.splitlines() == [
        "contextlab: note: latin1.txt: bytes that are not UTF-8 were counted as U+FFFD",
        "contextlab: note: surrogate.txt: bytes that are not UTF-8 were counted as U+FFFD",
    ]


@pytest.mark.slow
def test_count_ten_megabytes_on_one_line(run, tmp_path):
    (tmp_path / "long.txt").write_bytes(b"a" * 10_000_000)
    proc = run("count", "long.txt", "--tokenizer", "gpt-4o", "--tokenizer", "qwen3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == "long.txt  1,250,000  1,250,000 (+0.0%)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.txt"], "contextlab: error: missing.txt: No such file or directory"),
        (["."], "contextlab: error: .: is a folder; name the files in it to count"),
        (["a.txt", "--max-bytes", "5"], "contextlab: error: a.txt "),
    ],
)
def test_count_bad_input_is_one_line_naming_it(run, files, args, message):
    proc = run("count", *args, cwd=files)
    assert proc.returncode == 1 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith(message), proc.stderr


def test_count_unknown_tokenizer_is_a_usage_error_listing_what_is_known(run, files):
    proc = run("count", "a.txt", "--tokenizer", "mistral-7b", cwd=files)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert "argument --tokenizer: unknown tokenizer 'mistral-7b'; choose one of: cl100k_base, o200k_base, llama3, " in (
        proc.stderr
    )
    assert "Llama 3, Qwen 2/2.5/3, Claude and Gemini as an estimate" in proc.stderr


def test_count_file_name_with_control_characters_is_escaped(run, tmp_path):
    (tmp_path / "a\x1bb.txt").write_text("Hello world", encoding="utf-8")
    proc = run("count", "a\x1bb.txt", cwd=tmp_path)
    assert proc.stdout.splitlines()[1] == "a\\x1bb.txt            2"


def test_count_file_name_that_is_not_utf8_is_escaped(run, tmp_path):
    (tmp_path / "bad\udcffname.txt").write_text("Hello world", encoding="utf-8")  # bytes b"bad\xffname.txt"
    proc = run("count", "bad\udcffname.txt", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == "bad\\udcffname.txt            2"
