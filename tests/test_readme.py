"""The README's Python runs, and prints exactly the output it shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```python\n(.*?)```\n\n```output\n(.*?)```", re.S)


def readme_examples() -> list[tuple[str, str]]:
    return BLOCK.findall((REPO / "README.md").read_text(encoding="utf-8"))


def test_readme_has_examples():
    assert len(readme_examples()) >= 2


@pytest.mark.parametrize("index", range(len(readme_examples())))
def test_readme_example_prints_shown_output(index, monkeypatch):
    code, expected = readme_examples()[index]
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"README.md example {index + 1}", "exec"), {"__name__": "__readme__"})
    assert out.getvalue() == expected


def test_readme_cli_transcript_is_real():
    import shlex
    import subprocess
    import sys

    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```\n\$ (contextlab build .*?)\n(.*?)```", text, re.S)
    assert match, "README lost its transcript"
    args = shlex.split(match.group(1))[1:]
    proc = subprocess.run([sys.executable, "-m", "contextlab.cli", *args], cwd=REPO,
                          capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == match.group(2).strip()


@pytest.mark.slow
def test_readme_eval_transcript_is_real(tmp_path):
    """The showcase `eval` table is what the shipped code prints, every character (stdout)."""
    import shlex
    import subprocess
    import sys

    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```\n\$ (contextlab eval .*?)\n(.*?)```", text, re.S)
    assert match, "README lost its eval transcript"
    args = shlex.split(match.group(1))[1:]
    proc = subprocess.run([sys.executable, "-m", "contextlab.cli", *args], cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    assert proc.stdout == match.group(2)
