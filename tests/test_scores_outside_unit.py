"""Scores outside [0, 1] are said, and shown as given (issue 18, point 8)."""

from __future__ import annotations

from contextlab import ContextManager, Document, PromptRequest
from contextlab.stages.format import score_range_note, source_header


def _docs() -> list[Document]:
    return [
        Document("Refunds take five days.", score=7.5, source="a.md"),
        Document("Shipping is free.", score=-3.0, source="b.md"),
        Document("Returns need a receipt.", score=0.5, source="c.md"),
    ]


def test_headers_show_a_score_above_one_and_mark_both_out_of_range():
    assert source_header(1, _docs()[0]) == "--- Source [1] a.md --- (relevance: 7.50, outside 0-1)"
    assert source_header(2, _docs()[1]) == "--- Source [2] b.md --- (relevance: -3.00, outside 0-1)"
    assert source_header(3, _docs()[2]) == "--- Source [3] c.md --- (relevance: 0.50)"
    assert source_header(4, Document("x", score=1.0, source="d.md")) == "--- Source [4] d.md ---"


def test_seed_compatible_headers_keep_the_seed_rule():
    assert source_header(1, _docs()[0], seed_rule=True) == "--- Source [1] a.md ---"
    assert source_header(2, _docs()[1], seed_rule=True) == "--- Source [2] b.md --- (relevance: -3.00)"


def test_build_notes_what_was_seen_and_how_it_is_shown():
    result = ContextManager().build(PromptRequest("refunds", _docs(), max_context_tokens=500))
    assert result.notes == [
        "2 document(s) have scores outside 0-1 (7.5, -3): they rank as given (highest first), and "
        "their headers show the score as given, marked 'outside 0-1'"
    ]
    assert "(relevance: 7.50, outside 0-1)" in result.context_block
    assert result.to_dict()["notes"] == result.notes


def test_seed_compatible_build_says_its_headers_follow_the_seed():
    result = ContextManager.seed_compatible().build(PromptRequest("refunds", _docs(), max_context_tokens=500))
    assert result.notes == [
        "2 document(s) have scores outside 0-1 (7.5, -3): they rank as given (highest first); as in "
        "seed 000, a header shows a score below 1 (-3.00) and none at or above 1"
    ]
    assert "(relevance: 7.50" not in result.context_block


def test_score_range_note_is_none_inside_the_unit_interval():
    assert score_range_note([0.0, 0.5, 1.0]) is None
    assert score_range_note([1.5] * 9).startswith(
        "9 document(s) have scores outside 0-1 (1.5, 1.5, 1.5, 1.5, 1.5, ...):"
    )


def test_cli_build_prints_the_note(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "d.jsonl").write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in (
                {"text": "Refunds take five days.", "score": 7.5, "source": "a.md"},
                {"text": "Shipping is free.", "score": 0.5, "source": "b.md"},
            )
        ),
        encoding="utf-8",
    )
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "build", "d.jsonl"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(root)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "contextlab: note: 1 document(s) have scores outside 0-1 (7.5): they rank as "
        "given (highest first), and their headers show the score as given, marked "
        "'outside 0-1'\n"
    )
    assert proc.stdout.startswith("--- Source [1] a.md --- (relevance: 7.50, outside 0-1)\n")
