"""A RETRIEVER span with no documents says its block is empty (issue 18, point 11)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from contextlab.runs.captures import iter_runs

ROOT = Path(__file__).resolve().parents[1]
_SPAN = {
    "name": "retrieve",
    "context": {"trace_id": "0x1", "span_id": "0x2"},
    "attributes": {"openinference.span.kind": "RETRIEVER", "input.value": "refund window"},
}


def test_a_retriever_span_without_documents_has_a_note(tmp_path: Path):
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(_SPAN) + "\n", encoding="utf-8")
    [run] = iter_runs(path)
    assert run.documents == []
    assert run.note == (
        "line 1: the RETRIEVER span holds no documents (the retriever returned none), so its block is empty"
    )


def test_cli_build_run_of_an_empty_span_says_so(tmp_path: Path):
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(_SPAN) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "build", str(path), "--run", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "contextlab: note: line 1: the RETRIEVER span holds no documents (the "
        "retriever returned none), so its block is empty\n"
    )
