"""Uploads and pastes that a loader cannot read are one message each; the good files stay."""

from __future__ import annotations

import pytest

from tests.ui.conftest import metric, open_lab, run, unescape

pytestmark = pytest.mark.integration

GOOD = b'{"content": "refunds take five working days to arrive", "source": "good.jsonl"}\n'
DEEP = ('[{"content": "deep one", "metadata": {"x": ' + "[" * 600 + "]" * 600 + "}}]").encode()


def test_lab_upload_json_nested_600_levels_is_a_message_and_the_good_file_stays():
    at = open_lab()
    run(at.radio(key="doc_source").set_value("upload"))
    run(
        at.file_uploader(key="upload_files").set_value(
            [("deep.json", DEEP, "application/json"), ("good.jsonl", GOOD, "application/json")]
        )
    )
    errors = [unescape(e.value) for e in at.error]
    assert any(e.startswith("deep.json: JSON nested more than 100 levels deep") for e in errors), errors
    assert metric(at, "Documents in") == "1"  # the good file's one document


def test_lab_paste_json_nested_600_levels_is_a_message():
    at = open_lab()
    run(at.radio(key="doc_source").set_value("paste"))
    run(at.text_area(key="paste_text").set_value(DEEP.decode()))
    errors = [unescape(e.value) for e in at.error]
    assert any(e.startswith("pasted text: JSON nested more than 100 levels deep") for e in errors), errors


def test_lab_load_uploads_turns_any_loader_failure_into_a_message(monkeypatch):
    from contextlab.ui import loading

    def broken(data: bytes, filename: str) -> list[object]:
        raise RuntimeError("the reader broke")

    monkeypatch.setattr(loading, "load_bytes", broken)
    docs, errors = loading.load_uploads([("odd-one.jsonl", b'{"content": "a unique upload 7f3a"}\n')])
    assert docs == []
    assert errors == [
        "odd-one.jsonl: could not be read (the reader broke); check the file, or save it as UTF-8 text, JSON or CSV"
    ]


def test_lab_upload_of_a_sample_file_keeps_its_query_and_marks_its_answer():
    from pathlib import Path

    import contextlab
    from contextlab.lab.samples import load_sample_set
    from tests.ui.conftest import switch_view, table

    data = (Path(contextlab.__file__).parent / "data" / "sample_data" / "support_faq.json").read_bytes()
    expected = load_sample_set("support_faq")
    at = open_lab()
    run(at.radio(key="doc_source").set_value("upload"))
    run(at.file_uploader(key="upload_files").set_value([("support_faq.json", data, "application/json")]))
    assert at.text_area(key="cfg_query").value == expected.query
    switch_view(at, "final")
    citations = table(at, "citation")
    marked = citations[citations["doc"].str.contains("★")]
    assert list(marked["source"]) == [expected.answer_source]
