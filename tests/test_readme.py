"""The README's Python runs and prints what it shows; its transcripts are real; it names every command and image."""

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


#: The transcripts the fast tests rerun: commands that read only the checkout's files.
FAST_TRANSCRIPT = re.compile(r"```\n\$ (contextlab (?:build|count) .*?)\n(.*?)```", re.S)


def test_readme_cli_transcripts_are_real():
    """Every `build` and `count` transcript is what the command prints now (stdout), every line."""
    import shlex
    import subprocess
    import sys

    text = (REPO / "README.md").read_text(encoding="utf-8")
    transcripts = FAST_TRANSCRIPT.findall(text)
    assert [c.split()[1] for c, _ in transcripts].count("build") >= 1, "README lost its build transcript"
    for command, shown in transcripts:
        args = shlex.split(command)[1:]
        proc = subprocess.run(
            [sys.executable, "-m", "contextlab.cli", *args], cwd=REPO, capture_output=True, text=True, check=True
        )
        assert proc.stdout.strip() == shown.strip(), command


def test_readme_names_every_command():
    """The command-line section lists every subcommand `contextlab --help` lists, as `contextlab NAME`."""
    import subprocess
    import sys

    text = (REPO / "README.md").read_text(encoding="utf-8")
    helps = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "--help"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    names = re.findall(r"^    ([a-z]+)(?:\s{2,}|$)", helps, re.M)
    assert {"build", "chunk", "count", "curve", "eval", "lab", "model", "search"} <= set(names)
    assert [n for n in names if f"`contextlab {n}" not in text] == []
    assert "`contextlab model serve" in text


def test_readme_images_exist():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert "docs/screenshots/overview.png" in images and len(images) >= 8
    assert [i for i in images if not (REPO / i).is_file()] == []


def test_readme_first_example_runs_on_the_base_dependencies_alone(tmp_path):
    """The example under `pip install .` imports nothing an extra brings (those imports fail here)."""
    import os
    import subprocess
    import sys

    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## ", 2)[1]
    assert "`pip install .`" in section
    code, expected = BLOCK.findall(section)[0]
    blocker = (
        "import sys, importlib.abc\n"
        "EXTRAS = {'streamlit', 'plotly', 'pandas', 'pypdf', 'docx', 'lxml', 'lxml_html_clean', 'trafilatura',\n"
        "          'semantic_text_splitter', 'xllamacpp', 'langchain_core', 'langchain_classic', 'llama_index',\n"
        "          'haystack', 'dask', 'distributed'}\n"
        "class Extras(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] in EXTRAS:\n"
        "            raise ImportError(name + ' comes with an extra')\n"
        "sys.meta_path.insert(0, Extras())\n"
    )
    script = tmp_path / "example.py"
    script.write_text(blocker + code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


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
