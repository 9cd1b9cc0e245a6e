"""Capture files and span exports: written, streamed, and refused with one line naming the record."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone

import pytest

from contextlab import (
    ContextManager,
    Document,
    InvalidInputError,
    LoadError,
    PromptRequest,
)
from contextlab.lab.config import LabConfig
from contextlab.runs.captures import (
    CAPTURE_VERSION,
    append_run,
    capture_record,
    iter_runs,
    read_run,
    runs_from_bytes,
)
from contextlab.settings import EngineSettings

DOCS = [
    Document(
        "Refunds are prorated after thirty days for annual plans.",
        score=0.9,
        source="a.md",
        metadata={"team": "billing"},
    ),
    Document("Shipping takes three to five business days in Europe.", score=0.4, source="b.md"),
]


def _record(query="annual refunds", **extra):
    cfg = LabConfig(query=query, max_context_tokens=200, placement="relevance")
    result = cfg.build(DOCS)
    return capture_record(
        query,
        DOCS,
        cfg.to_dict(),
        result,
        framework="test",
        time=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
        **extra,
    )


def _span(kind="RETRIEVER", **attrs):
    return {
        "name": "retrieve",
        "context": {"trace_id": "0x1", "span_id": "0x2"},
        "start_time": "2026-01-02T03:04:05Z",
        "attributes": {"openinference.span.kind": kind, **attrs},
    }


def test_captures_round_trip_a_run(tmp_path):
    path = tmp_path / "runs.jsonl"
    append_run(path, _record(gold_sources=["a.md"], answers=["prorated"]))
    append_run(path, _record("shipping time"))
    first, second = iter_runs(path)
    assert (first.number, first.where, first.query, first.time) == (
        1,
        "line 1",
        "annual refunds",
        "2026-01-02T03:04:05Z",
    )
    assert first.documents == DOCS and first.framework == "test"
    assert first.config() == EngineSettings(max_context_tokens=200, placement="relevance")
    assert LabConfig.from_run(first) == LabConfig(query="annual refunds", max_context_tokens=200, placement="relevance")
    assert first.gold_sources == ("a.md",) and first.answers == ("prorated",)
    assert second.gold_sources == () and second.query == "shipping time"
    assert first.build().context_block == first.result["context_block"]
    assert first.label == (
        f"#1 · 2 docs, {len(first.result['included_docs'])} kept · 'annual refunds' · 2026-01-02 03:04:05"
    )


def test_captures_file_with_gold_is_an_evaluation_set(tmp_path):
    from contextlab.evaluation import load_eval_set

    path = tmp_path / "runs.jsonl"
    append_run(path, _record(gold_sources=["a.md"], answers=["prorated"]))
    append_run(path, _record("shipping time", answers=["three to five"]))
    questions = load_eval_set(path).questions
    assert [(q.query, set(q.gold_sources), q.answers) for q in questions] == [
        ("annual refunds", {"a.md"}, ("prorated",)),
        ("shipping time", set(), ("three to five",)),
    ]
    assert [list(q.documents) for q in questions] == [DOCS, DOCS]


def test_captures_line_holds_json_safe_metadata(tmp_path):
    doc = Document("text with a date in its metadata", metadata={"when": datetime(2026, 5, 1)})
    record = capture_record("q", [doc], {}, None)
    append_run(tmp_path / "r.jsonl", record)
    line = (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    assert line.count("\n") == 1 and json.loads(line)["contextlab_capture"] == CAPTURE_VERSION
    (run,) = iter_runs(tmp_path / "r.jsonl")
    assert run.documents[0].metadata == {"when": "2026-05-01 00:00:00"} and run.result is None


def test_captures_are_streamed_line_by_line(tmp_path):
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(_record("first")) + "\n")
        fh.write("this line is not JSON\n")
    runs = iter_runs(path)
    # The first run arrives before the bad second line is read: nothing is loaded up front.
    assert next(runs).query == "first"
    with pytest.raises(LoadError, match=r"^big\.jsonl: line 2: not valid JSON"):
        next(runs)


def test_captures_read_run_by_number(tmp_path):
    path = tmp_path / "runs.jsonl"
    for q in ("one", "two", "three"):
        append_run(path, _record(q))
    assert read_run(path, 3).query == "three"
    with pytest.raises(InvalidInputError, match="has 3 run\\(s\\); choose a run number from 1 to 3"):
        read_run(path, 4)
    with pytest.raises(InvalidInputError, match="run number must be a whole number >= 1"):
        read_run(path, 0)


@pytest.mark.parametrize(
    "text, match",
    [
        ("", r"^x\.jsonl: the file is empty"),
        (
            '{"documents": [{"text": "a"}]}\n',
            r"^x\.jsonl: line 1: neither a contextlab capture run nor "
            r"an OpenTelemetry span \(fields: documents\)",
        ),
        ("[1, 2]\n", r"^x\.jsonl: line 1, item 0: expected a JSON object, got int"),
        ('{"contextlab_capture": 1, "query": 3, "documents": []}\n', r"line 1: 'query' must be text"),
        ('{"contextlab_capture": 1, "query": "q", "documents": {}}\n', r"line 1: 'documents' must be a list"),
        (
            '{"contextlab_capture": 1, "documents": [{"content": 5}]}\n',
            r"line 1: documents\[0\]: 'content' must be text",
        ),
        (
            '{"contextlab_capture": 1, "documents": [{"content": "a", "colour": 1}]}\n',
            r"line 1: documents\[0\]: unknown field\(s\) colour",
        ),
        (
            '{"contextlab_capture": 1, "documents": [{"content": "a", "score": "high"}]}\n',
            r"line 1: documents\[0\]\.score must be a number",
        ),
        (
            '{"contextlab_capture": 1, "documents": [], "settings": {"max_context_tokens": -4}}\n',
            r"line 1: settings: max_context_tokens must be a whole number",
        ),
        (
            '{"contextlab_capture": 1, "documents": [], "settings": {"budget": 40}}\n',
            r"line 1: settings: unknown capture settings field\(s\): budget",
        ),
        (
            '{"contextlab_capture": 1, "documents": [], "gold_sources": [1]}\n',
            r"line 1: 'gold_sources' must be a list of text",
        ),
        (
            '{\n  "name": "llm",\n  "context": {},\n  "attributes": {"openinference.span.kind": "LLM"}\n}\n',
            r"^x\.jsonl: no runs found \(1 span\(s\), none a RETRIEVER span\)",
        ),
        ('{\n  "name": "x",\n  "attributes": \n', r"^x\.jsonl: record 1 \(line 4\): not valid JSON"),
    ],
)
def test_captures_refuse_with_one_line_naming_the_record(tmp_path, text, match):
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoadError, match=match) as info:
        list(iter_runs(path))
    assert "\n" not in str(info.value)


def test_captures_refuse_bytes_that_are_not_text(tmp_path):
    with pytest.raises(LoadError, match=r"^r\.json: not UTF-8 text"):
        runs_from_bytes(b"\xff\xfe{not text", "r.json")


def test_captures_refuse_a_whole_file_export_over_the_limit():
    data = b"[\n" + b" " * 200 + b"]"
    with pytest.raises(LoadError, match="one run or span per line"):
        runs_from_bytes(data, "big.json", max_bytes=100)


def test_captures_read_a_span_with_scores_ids_and_json_input():
    span = _span(
        **{
            "input.value": json.dumps({"query": "refund window"}),
            "input.mime_type": "application/json",
            "retrieval.documents.1.document.content": "second",
            "retrieval.documents.1.document.score": "0.25",
            "retrieval.documents.0.document.content": "first",
            "retrieval.documents.0.document.score": 0.75,
            "retrieval.documents.0.document.id": "doc-1",
            "retrieval.documents.0.document.metadata": json.dumps({"url": "https://x/1", "lang": "en"}),
        }
    )
    (run,) = runs_from_bytes(json.dumps(span).encode(), "s.json")
    assert run.query == "refund window" and run.ids == {"trace_id": "0x1", "span_id": "0x2"}
    assert run.documents == [
        Document("first", score=0.75, source="https://x/1", metadata={"lang": "en", "id": "doc-1"}),
        Document("second", score=0.25),
    ]
    assert run.time == "2026-01-02T03:04:05Z" and run.settings is None and run.config().max_context_tokens == 2048


def test_captures_read_nested_attributes_and_skip_other_spans():
    nested = {
        "name": "retriever",
        "context": {},
        "attributes": {
            "openinference": {"span": {"kind": "RETRIEVER"}},
            "input": {"value": "sso"},
            "retrieval": {"documents": [{"document": {"content": "SAML and OIDC", "id": 7}}]},
        },
    }
    data = json.dumps([_span("LLM"), nested, _span("CHAIN")]).encode()
    (run,) = runs_from_bytes(data, "phoenix.json")
    assert run.number == 1 and run.where == "line 1, item 1" and run.query == "sso"
    assert run.documents == [Document("SAML and OIDC", source="7", metadata={"id": "7", "score_missing": True})]


@pytest.mark.parametrize(
    "attrs, match",
    [
        ({"retrieval.documents.0.document.score": 0.5}, r"retrieval\.documents\.0\.document\.content must be text"),
        (
            {"retrieval.documents.0.document.content": "a", "retrieval.documents.0.document.score": "NaN"},
            r"retrieval\.documents\.0\.document\.score must be a finite number",
        ),
    ],
)
def test_captures_refuse_a_bad_span_document(attrs, match):
    with pytest.raises(LoadError, match=r"^s\.json: line 1: " + match):
        runs_from_bytes(json.dumps(_span(**attrs)).encode(), "s.json")


def test_captures_read_otlp_attributes_of_every_type():
    otlp = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "AQ==",
                                "spanId": "Ag==",
                                "name": "r",
                                "startTimeUnixNano": "1767323045000000000",
                                "attributes": [
                                    {"key": "openinference.span.kind", "value": {"stringValue": "RETRIEVER"}},
                                    {"key": "input.value", "value": {"stringValue": "q"}},
                                    {"key": "retrieval.documents.0.document.content", "value": {"stringValue": "text"}},
                                    {"key": "retrieval.documents.0.document.score", "value": {"intValue": "2"}},
                                    {
                                        "key": "retrieval.documents.0.document.metadata",
                                        "value": {
                                            "kvlistValue": {
                                                "values": [
                                                    {
                                                        "key": "tags",
                                                        "value": {
                                                            "arrayValue": {
                                                                "values": [{"stringValue": "a"}, {"boolValue": True}]
                                                            }
                                                        },
                                                    }
                                                ]
                                            }
                                        },
                                    },
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    }
    (run,) = runs_from_bytes(json.dumps(otlp).encode(), "otlp.json")
    assert run.time == "2026-01-02T03:04:05Z" and run.ids == {"trace_id": "AQ==", "span_id": "Ag=="}
    assert run.documents == [Document("text", score=2.0, metadata={"tags": ["a", True]})]
    assert run.where == "line 1, span Ag=="


def test_captures_a_run_builds_like_the_engine():
    (run,) = runs_from_bytes(json.dumps(_record()).encode(), "one.jsonl")
    direct = ContextManager(placement="relevance").build(PromptRequest("annual refunds", DOCS, max_context_tokens=200))
    assert run.build().context_block == direct.context_block


# -- the command ---------------------------------------------------------------------------


def _two_runs(tmp_path):
    path = tmp_path / "runs.jsonl"
    append_run(path, _record("annual refunds"))
    append_run(path, _record("shipping in Europe"))
    return path


def test_captures_cli_build_run_uses_the_runs_query_and_settings(tmp_path, capsys):
    from contextlab import cli

    path = _two_runs(tmp_path)
    assert cli.main(["build", "--run", "2", str(path)]) == 0
    assert capsys.readouterr().out == read_run(path, 2).build().context_block + "\n"


def test_captures_cli_build_run_options_override_the_recorded_settings(tmp_path, capsys):
    from contextlab import cli

    path = _two_runs(tmp_path)
    assert cli.main(["build", "--run", "1", str(path), "--budget", "40", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = read_run(path, 1)
    expected = LabConfig.from_run(run).with_changes(max_context_tokens=40).build(run.documents)
    assert out["tokens_budget"] == 40 and out["context_block"] == expected.context_block
    assert run.config().max_context_tokens == 200 and run.config().placement == "relevance"


def test_captures_cli_build_run_explicit_default_values_still_override(tmp_path, capsys):
    """``--budget 2048`` is given even though 2048 is the option's default (it was ignored)."""
    from contextlab import cli

    path = _two_runs(tmp_path)
    assert read_run(path, 1).config().max_context_tokens == 200
    assert (
        cli.main(["build", "--run", "1", str(path), "--budget", "2048", "--threshold", "0.85", "--format", "json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["tokens_budget"] == 2048


def test_captures_cli_build_run_errors_are_one_line(tmp_path, capsys):
    from contextlab import cli

    path = _two_runs(tmp_path)
    assert cli.main(["build", "--run", "3", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == "contextlab: error: runs.jsonl has 2 run(s); choose a run number from 1 to 2\n"
    (tmp_path / "docs.json").write_text('[{"content": "a"}]', encoding="utf-8")
    assert cli.main(["build", "--run", "1", str(tmp_path / "docs.json")]) == 1
    assert "docs.json: line 1, item 0: neither a contextlab capture run" in capsys.readouterr().err


def test_captures_cli_lab_runs_opens_the_lab_on_the_file(tmp_path, monkeypatch):
    from contextlab import cli
    from contextlab.runs.captures import LAB_RUNS_ENV

    path = _two_runs(tmp_path)
    app = tmp_path / "streamlit_app.py"
    app.write_text("", encoding="utf-8")
    calls = []
    monkeypatch.setenv(LAB_RUNS_ENV, "")  # restored after the test: the command sets it
    from contextlab.cli import lab as cli_lab

    monkeypatch.setattr(cli_lab, "lab_app_path", lambda: app)
    monkeypatch.setattr(cli_lab.subprocess, "call", lambda cmd: calls.append(cmd) or 0)
    monkeypatch.setattr(cli.os, "execv", lambda exe, cmd: calls.append(cmd))
    assert cli.main(["lab", "--runs", str(path), "--server.port", "8599"]) == 0
    # The lab's own defaults (127.0.0.1, no usage statistics) come first; the user's options after them.
    assert calls == [
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(app),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            "--runner.postScriptGC",
            "false",
            "--browser.serverAddress",
            "localhost",
            "--server.port",
            "8599",
        ]
    ]
    assert os.environ[LAB_RUNS_ENV] == str(path.resolve())


def test_captures_cli_lab_runs_refuses_a_foreign_file_before_starting(tmp_path, monkeypatch, capsys):
    from contextlab import cli

    app = tmp_path / "streamlit_app.py"
    app.write_text("", encoding="utf-8")
    from contextlab.cli import lab as cli_lab

    monkeypatch.setattr(cli_lab, "lab_app_path", lambda: app)
    monkeypatch.setattr(cli.os, "execv", lambda exe, cmd: pytest.fail("the lab started"))
    (tmp_path / "notes.jsonl").write_text('{"text": "hello"}\n', encoding="utf-8")
    assert cli.main(["lab", "--runs", str(tmp_path / "notes.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("contextlab: error: notes.jsonl: line 1: neither") and err.count("\n") == 1


def test_captures_read_spans_dataframe_records():
    # The shape of Phoenix's spans dataframe written by pandas' to_json(orient="records", lines=True).
    rows = [
        {"name": "llm", "span_kind": "LLM", "start_time": 1767323045000, "attributes.input.value": "hi"},
        {
            "name": "retriever",
            "span_kind": "RETRIEVER",
            "start_time": 1767323045000,
            "context.span_id": "ab12",
            "context.trace_id": "cd34",
            "attributes.input.value": "refund window",
            "attributes.retrieval.documents": [
                {
                    "document.content": "Refunds within 30 days.",
                    "document.score": 0.8,
                    "document.metadata": {"source": "refunds.md"},
                },
                {"document.content": "Shipping is free.", "document.id": "d2"},
            ],
        },
    ]
    data = "\n".join(json.dumps(r) for r in rows).encode()
    (run,) = runs_from_bytes(data, "phoenix.jsonl")
    assert (run.where, run.query, run.time) == ("line 2", "refund window", "2026-01-02T03:04:05Z")
    assert run.ids == {"trace_id": "cd34", "span_id": "ab12"}
    assert run.documents == [
        Document("Refunds within 30 days.", score=0.8, source="refunds.md"),
        Document("Shipping is free.", source="d2", metadata={"id": "d2", "score_missing": True}),
    ]
