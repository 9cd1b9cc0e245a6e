"""``contextlab build --out``: a .html name writes the HTML report; another name, what stdout would show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextlab import cli

DOCS = [
    {"content": "Refunds are processed within five business days after we receive the item.", "score": 0.9,
     "source": "<script>alert(1)</script>.md"},
    {"content": "Shipping is free for orders over fifty dollars in the continental United States.", "score": 0.4,
     "source": "shipping.md"},
]  # fmt: skip


@pytest.fixture
def docs_file(tmp_path: Path) -> Path:
    path = tmp_path / "docs.json"
    path.write_text(json.dumps(DOCS), encoding="utf-8")
    return path


def test_build_out_html_writes_the_report(docs_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    assert cli.main(["build", str(docs_file), "--query", "refunds <b>now</b>", "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "refunds &lt;b&gt;now&lt;/b&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.md" in page and "<script" not in page
    assert "2 documents in, 2 in the block" in page
    assert capsys.readouterr().out == ""


def test_build_out_other_name_writes_the_block(docs_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "block.txt"
    assert cli.main(["build", str(docs_file), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("--- Source [1] <script>alert(1)</script>.md ---")


def test_build_out_into_a_missing_folder_fails_in_one_line(
    docs_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["build", str(docs_file), "--out", str(tmp_path / "nowhere" / "r.html")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and "does not exist" in err[0]
