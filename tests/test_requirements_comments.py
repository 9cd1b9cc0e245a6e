"""Every path a requirements file's comment names exists: a comment says who needs the dependency."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# A project path in a comment: under one of the project's folders, or a top-level .py file.
PATH = re.compile(r"\b((?:contextlab|tests|benchmarks|docs)/[\w./-]*\w/?|[\w-]+\.py)\b")


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-dev.txt", "requirements-bench.txt"])
def test_requirements_comments_name_only_files_that_exist(name):
    comments = [line.partition("#")[2] for line in (ROOT / name).read_text(encoding="utf-8").splitlines()]
    named = [path for comment in comments for path in PATH.findall(comment)]
    missing = [path for path in named if not (ROOT / path).exists()]
    assert missing == []


def test_the_check_sees_a_missing_file():
    assert PATH.findall(" engine: shingles (contextlab/stages/dedup.py); lab (contextlab/ui/charts.py)") == [
        "contextlab/stages/dedup.py",
        "contextlab/ui/charts.py",
    ]
    assert not (ROOT / "contextlab/stages/dedup.py").exists()
