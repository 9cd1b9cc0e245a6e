"""`contextlab eval --corpus`: questions without documents retrieve from files read as build reads them."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from contextlab.cli import main

QUESTIONS = [
    {"id": "ship", "query": "where do orders ship from", "answers": ["Rotterdam"]},
    {"id": "refund", "query": "how long is the refund window for annual plans", "answers": ["30 days"]},
]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "refunds.md").write_text(
        "# Refunds\n\nAnnual plans can be refunded in full within 30 days of purchase. "
        "After that, refunds are prorated by the month.\n\n"
        "# Invoices\n\nInvoices are sent by email on the first day of each month.\n",
        encoding="utf-8",
    )
    (folder / "shipping.txt").write_text(
        "Orders ship from Rotterdam within two working days.\n\nReturns go back to the same warehouse.\n",
        encoding="utf-8",
    )
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return folder, questions


def test_eval_corpus_retrieves_from_a_chunked_folder(tmp_path, capsys):
    folder, questions = _files(tmp_path)
    out = tmp_path / "results.csv"
    code = main(["eval", str(questions), "--corpus", str(folder), "--chunk-size", "20", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    rows = {r["query_id"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert sorted(rows) == ["refund", "ship"]
    assert rows["ship"]["answer_in_block"] == "1" and rows["refund"]["answer_in_block"] == "1"


def test_eval_corpus_and_store_are_one_or_the_other(tmp_path, capsys):
    folder, questions = _files(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["eval", str(questions), "--corpus", str(folder), "--store", "kb.db", "--out", "r.csv"])
    assert stop.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_eval_corpus_missing_file_is_one_line(tmp_path, capsys):
    _, questions = _files(tmp_path)
    code = main(["eval", str(questions), "--corpus", str(tmp_path / "nope.md"), "--out", str(tmp_path / "r.csv")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "nope.md" in err[0]
