"""The loaders' limits hold on every kind of input: devices, pipes, deep JSON, the lab's caches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from contextlab.errors import LoadError
from contextlab.loaders import load_bytes, load_file, parse_pasted

ROOT = Path(__file__).resolve().parents[1]
LINE = b'{"content": "refunds take five working days to arrive", "score": 0.5}\n'


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".json", ".txt"])
def test_loaders_device_without_newlines_stops_at_the_byte_limit(tmp_path, suffix):
    link = tmp_path / f"zeros{suffix}"
    link.symlink_to("/dev/zero")
    with pytest.raises(LoadError, match=r"zeros\S* is more than 3,000,000 bytes|over the 3,000,000-byte limit"):
        load_file(link, max_bytes=3_000_000)


def test_loaders_cli_jsonl_from_dev_zero_is_one_line_within_memory(tmp_path):
    link = tmp_path / "zeros.jsonl"
    link.symlink_to("/dev/zero")
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))\n"
        "from contextlab.cli import main\n"
        f"sys.exit(main(['build', {str(link)!r}, '--max-bytes', '5000000']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "zeros.jsonl" in lines[0] and "5,000,000" in lines[0]


def test_loaders_line_longer_than_a_block_is_read_whole(tmp_path):
    text = "word " * 500_000  # 2.5 MB on one line: spans several read blocks
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"content": text}) + "\n" + json.dumps({"content": "second one"}) + "\n")
    docs = load_file(path)
    assert [len(d.content) for d in docs] == [2_500_000, 10]


def test_loaders_jsonl_from_a_fifo_is_read(tmp_path):
    fifo = tmp_path / "piped.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(LINE * 3)

    writer = threading.Thread(target=write)
    writer.start()
    docs = load_file(fifo)
    writer.join()
    assert [d.content for d in docs] == ["refunds take five working days to arrive"] * 3


def test_loaders_cli_jsonl_on_stdin_is_read():
    done = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "build", "-", "--input-format", "jsonl", "--query", "refunds"],
        input=LINE,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert b"refunds take five working days to arrive" in done.stdout


def _deep(levels: int) -> str:
    return '[{"content": "deep one", "metadata": {"x": ' + "[" * levels + "]" * levels + "}}]"


def test_loaders_json_nested_600_levels_names_the_file():
    with pytest.raises(LoadError, match=r"^deep\.json: JSON nested more than 100 levels deep"):
        load_bytes(_deep(600).encode(), "deep.json")


def test_loaders_jsonl_nested_600_levels_names_the_line():
    data = LINE + _deep(600)[1:-1].encode() + b"\n"
    with pytest.raises(LoadError, match=r"^deep\.jsonl: line 2: JSON nested more than 100 levels deep"):
        load_bytes(data, "deep.jsonl")


def test_loaders_pasted_json_nested_600_levels_names_the_paste():
    with pytest.raises(LoadError, match=r"^pasted text: JSON nested more than 100 levels deep"):
        parse_pasted(_deep(600))


def test_loaders_json_nested_90_levels_is_read():
    docs = load_bytes(_deep(90).encode(), "fine.json")
    assert docs[0].content == "deep one"


def test_loaders_csv_metadata_nested_600_levels_stays_text():
    cell = '{"a": ' + "[" * 600 + "]" * 600 + "}"
    data = b'content,metadata\nhello there,"' + cell.replace('"', '""').encode() + b'"\n'
    docs = load_bytes(data, "rows.csv")
    assert docs[0].metadata["metadata"] == cell
