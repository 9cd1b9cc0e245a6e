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
    proc = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", *args], cwd=REPO, capture_output=True, text=True, check=True
    )
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
    proc = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", *args], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert proc.stdout == match.group(2)


def test_readme_curve_transcript_is_the_shipped_curve_and_its_paired_tests():
    """The README's `curve` run is the bundled model's shipped curve: its table and paired tests, every character.

    Rebuilt with the command's own formatting from the shipped file and the per-question outcomes
    beside it, so the README, the file and the lab (which reads the same file) cannot disagree.
    """
    import csv
    from importlib import resources

    from contextlab.cli.curve import _table, _tests
    from contextlab.curves.outcomes import file_evidence
    from contextlab.evaluation.curve import ConditionAccuracy

    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```text\n\$ contextlab curve .*?--yes\n(.*?)\npace:\n", text, re.S)
    assert match, "README lost its curve transcript"
    path = resources.files("contextlab").joinpath("data", "gemma3_270m_measured.csv")
    rows = list(csv.DictReader(line for line in path.read_text().splitlines() if not line.startswith("#")))
    points = [
        ConditionAccuracy(
            r["kind"],
            int(r["total_docs"] or 0),
            int(r["position"]) if r["position"] else None,
            int(r["questions"]),
            0,  # the table shows no count of right answers
            float(r["accuracy"]),
            float(r["accuracy_low"]),
            float(r["accuracy_high"]),
        )
        for r in rows
    ]
    expected = _table(points, rows[0]["model"]) + "\n" + _tests(file_evidence(path))
    assert match.group(1) == expected


def test_readme_lab_export_is_what_the_lab_downloads():
    """The export the README reads is the lab's "Download configuration" of that query at 1,200 tokens."""
    from contextlab.lab.config import LabConfig

    text = (REPO / "docs" / "examples" / "contextlab-config.json").read_text(encoding="utf-8")
    config = LabConfig(query="annual plan refund after three months", max_context_tokens=1200)
    assert text == config.to_json() + "\n"
    assert '"max_context_tokens": 1200' in text
