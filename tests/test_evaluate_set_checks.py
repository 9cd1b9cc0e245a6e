"""A question set is checked before a run: ids name one question each, and a curve run whose
questions are all skipped says why and how many."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextlab.cli import main
from contextlab.errors import InvalidInputError, LoadError
from contextlab.evaluation.curve import plan_curve
from contextlab.evaluation.sets import parse_eval_records

_DOCS = [
    {"content": "Paris is the capital of France.", "source": "paris"},
    {"content": "Berlin is a city in Germany.", "source": "berlin"},
]


def _line(query_id: str, query: str, answer: str) -> dict[str, object]:
    return {"id": query_id, "query": query, "documents": _DOCS, "gold_sources": ["paris"], "answers": [answer]}


def _write(path: Path, *records: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_set_with_duplicate_ids_is_refused_naming_them():
    records = [_line("a", "capital of france?", "Paris"), _line("b", "q2?", "x"), _line("a", "capital?", "Rome")]
    records.append(_line("b", "q4?", "y"))
    with pytest.raises(LoadError) as caught:
        parse_eval_records(records, name="mine.jsonl")
    assert str(caught.value) == (
        "mine.jsonl: question ids must be unique; repeated: 'a', 'b'; give each line its own \"id\""
    )


def test_set_ids_given_by_line_number_never_repeat():
    evalset = parse_eval_records(
        [{**_line("x", "q?", "Paris")}, {"query": "q2?", "documents": _DOCS, "answers": ["Paris"]}]
    )
    assert [q.query_id for q in evalset.questions] == ["x", "q2"]


@pytest.mark.parametrize("command", ["eval", "curve"])
def test_cli_refuses_a_set_with_duplicate_ids_in_one_line(command, tmp_path, capsys):
    path = _write(tmp_path / "dup.jsonl", _line("q1", "capital of france?", "Paris"), _line("q1", "other?", "Rome"))
    extra = ["--endpoint", "http://127.0.0.1:9", "--yes"] if command == "curve" else []
    code = main([command, str(path), "--out", str(tmp_path / "r.csv"), *extra])
    err = capsys.readouterr().err
    assert code == 1
    assert err == (
        "contextlab: error: dup.jsonl: question ids must be unique; repeated: 'q1'; give each line its own \"id\"\n"
    )
    assert not (tmp_path / "r.csv").exists()


def test_curve_plan_with_every_question_skipped_says_why_and_how_many():
    evalset = parse_eval_records([_line(f"q{i}", f"capital {i}?", "Paris") for i in range(12)], name="mine.jsonl")
    with pytest.raises(InvalidInputError) as caught:
        plan_curve(evalset, documents=10, positions="1,10", limit=20)
    assert str(caught.value) == (
        "all 12 questions skipped: each has 1 other documents without an answer, documents=10 needs 9; "
        "lower it or give each question more documents"
    )
    assert caught.value.field == "documents"


def test_curve_plan_with_every_question_skipped_for_other_reasons_counts_them():
    no_answers = {"id": "n", "query": "q?", "documents": _DOCS, "gold_sources": ["paris"]}
    no_gold = {"id": "g", "query": "q?", "documents": _DOCS[1:], "answers": ["Lyon"]}
    evalset = parse_eval_records([no_answers, no_gold, {**no_answers, "id": "n2"}], name="mine.jsonl")
    with pytest.raises(InvalidInputError) as caught:
        plan_curve(evalset, documents=2, positions="1,2", limit=5)
    assert str(caught.value) == (
        'all 3 questions skipped: 2 no "answers" to score the model\'s answer by; '
        '1 no gold document (name it in "gold_sources")'
    )


def test_cli_curve_with_every_question_skipped_names_the_flag(tmp_path, capsys):
    path = _write(tmp_path / "few.jsonl", *[_line(f"q{i}", f"capital {i}?", "Paris") for i in range(12)])
    out = str(tmp_path / "c.csv")
    code = main(["curve", str(path), "--documents", "10", "--endpoint", "http://127.0.0.1:9", "--yes", "--out", out])
    assert code == 1
    assert capsys.readouterr().err == (
        "contextlab: error: all 12 questions skipped: each has 1 other documents without an answer, "
        "--documents 10 needs 9; lower it or give each question more documents\n"
    )
