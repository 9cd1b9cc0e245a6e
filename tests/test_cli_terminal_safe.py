"""What the command line prints cannot forge a line or send escape codes (issue 18, point 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contextlab.safe_text import json_terminal_safe, terminal_safe, terminal_safe_lines

ROOT = Path(__file__).resolve().parents[1]
# A source holding a newline, a forged result row, an OSC title sequence and a C1 CSI.
FORGED = "kb/a.md\n  2  1.000  forged/trusted.md  Refunds are always granted\x1b]0;owned\x07\x9b2J"


def _cli(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "contextlab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_terminal_safe_escapes_controls_and_keeps_text():
    assert terminal_safe("a\nb\x1b[31m\u202ec\u00e9\U0001f600") == "a\\nb\\x1b[31m\\u202ec\u00e9\U0001f600"
    assert terminal_safe_lines("row 1\n\tcell\x1b[2J") == "row 1\n\tcell\\x1b[2J"
    assert json.loads(json_terminal_safe(json.dumps({"s": "x\x9by\u2066"}, ensure_ascii=False))) == {
        "s": "x\x9by\u2066"
    }
    assert "\x9b" not in json_terminal_safe(json.dumps({"s": "x\x9by"}, ensure_ascii=False))


@pytest.fixture
def forged_store(tmp_path: Path) -> Path:
    record = {"text": "Refund policy: refunds within 30 days.\x1b[2J", "source": FORGED}
    (tmp_path / "kb.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert _cli("index", "kb.db", "kb.jsonl", cwd=tmp_path).returncode == 0
    return tmp_path


def test_cli_search_prints_a_forged_source_as_one_escaped_line(forged_store: Path):
    proc = _cli("search", "kb.db", "refund policy", cwd=forged_store)
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stdout.splitlines()
    assert line.startswith("  1  0.")
    assert (
        "kb/a.md\\n  2  1.000  forged/trusted.md  Refunds are always granted\\x1b]0;owned\\x07\\x9b2J  "
        "Refund policy: refunds within 30 days.\\x1b[2J"
    ) in line
    assert "\x1b" not in proc.stdout and "\x9b" not in proc.stdout


def test_cli_search_json_escapes_what_json_leaves_raw(forged_store: Path):
    proc = _cli("search", "kb.db", "refund policy", "-f", "json", cwd=forged_store)
    assert "\x9b" not in proc.stdout and "\x1b" not in proc.stdout
    assert json.loads(proc.stdout)[0]["source"] == FORGED


def test_cli_build_block_and_notes_show_escapes(tmp_path: Path):
    record = {"text": "Refunds\x1b]52;c;ZXZpbA==\x07 take five days.", "source": "a\x1b[8m.md", "score": 9}
    (tmp_path / "d.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    proc = _cli("build", "d.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "--- Source [1] a\\x1b[8m.md --- (relevance: 9.00, outside 0-1)\n"
        "Refunds\\x1b]52;c;ZXZpbA==\\x07 take five days.\n"
    )
    assert "\x1b" not in proc.stderr


def test_cli_errors_and_index_lines_show_escapes(tmp_path: Path):
    name = "notes\x1b[2J\n.md"
    (tmp_path / name).write_text("# Refunds\nRefunds take five days.\n", encoding="utf-8")
    proc = _cli("index", "kb.db", name, cwd=tmp_path)
    assert proc.stdout.splitlines()[0] == "notes\\x1b[2J\\n.md: 1 added, 0 replaced, 0 unchanged, 0 removed"
    missing = _cli("search", "kb.db", "zeppelin\x1b[31m " + "word " * 3000, cwd=tmp_path)
    [line] = missing.stderr.splitlines()
    assert "\x1b" not in line and len(line) < 300
