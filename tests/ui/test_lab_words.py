"""The lab speaks of things by what they are: no project history in its modules' text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The lab's modules: every string, docstring and comment in them is checked.
LAB_FILES = sorted(
    [ROOT / "app.py"]
    + [p for d in ("contextlab/ui", "contextlab/lab", "contextlab/charts") for p in (ROOT / d).rglob("*.py")]
)
#: Project history: design seeds by number, work rounds, issue and pull-request numbers.
HISTORY = re.compile(
    r"\bseeds? 0\d\d\b|\bround \d+\b|\b(?:issue|pr|pull request)s? #?\d+\b|(?<![\w&\"'])#\d{2,5}\b", re.IGNORECASE
)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The original design (seed 000) on the same documents", True),
        ("Reset shares to seed 002", True),
        ("fixed in round 7", True),
        ("see issue 41", True),
        ("as #546 asked", True),
        ('color="#424242"', False),
        ("the original algorithm", False),
        ("seed-compatible mode", False),
        ("round(x, 1)", False),
    ],
)
def test_history_pattern_finds_project_history(text: str, found: bool) -> None:
    assert (HISTORY.search(text) is not None) is found


def test_lab_modules_name_no_project_history() -> None:
    assert len(LAB_FILES) > 40
    hits = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in LAB_FILES
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if HISTORY.search(line)
    ]
    assert hits == []
