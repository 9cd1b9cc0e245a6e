"""Spans recorded for real: a LangChain retriever under the OpenInference instrumentor, exported by
the OpenTelemetry SDK (to a file, in memory, as OTLP JSON) and read back as runs."""

from __future__ import annotations

import json

import pytest
from google.protobuf.json_format import MessageToJson
from langchain_core.documents import Document as LangChainDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from contextlab.runs.captures import iter_runs, read_run, runs_from_bytes

pytestmark = pytest.mark.integration

QUERIES = ["how long do refunds take", "is shipping free"]
TEXTS = {
    "refunds.md": "Refunds reach your card within five business days after billing approves them.",
    "shipping.md": "Shipping is free for orders over fifty dollars and takes three to five days.",
    "sso.md": "Single sign-on is available on the enterprise plan with SAML and OIDC providers.",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """Return (the retriever's results per query, the finished spans, the exporter's file)."""
    exporter = InMemorySpanExporter()
    console_file = tmp_path_factory.mktemp("otel") / "console-spans.json"
    console = console_file.open("w", encoding="utf-8")
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=console)))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
        store.add_documents(
            [LangChainDocument(t, metadata={"source": s, "lang": "en"}, id=s) for s, t in TEXTS.items()]
        )
        retriever = store.as_retriever(search_kwargs={"k": 3})
        results = [retriever.invoke(q) for q in QUERIES]
    finally:
        instrumentor.uninstrument()
        console.close()
    spans = exporter.get_finished_spans()
    assert spans, "the instrumentor recorded nothing"
    return results, spans, console_file


def _check_runs(runs, results):
    assert [r.query for r in runs] == QUERIES
    for run, docs in zip(runs, results, strict=False):
        assert run.origin == "openinference" and run.time and run.ids["span_id"]
        assert [d.content for d in run.documents] == [d.page_content for d in docs]
        assert [d.source for d in run.documents] == [d.metadata["source"] for d in docs]
        assert all(d.metadata["lang"] == "en" and d.metadata["score_missing"] for d in run.documents)
        built = run.build()  # unscored: scored against the query, then built with the defaults
        assert built.included_docs and len(built.trace) == len(docs)


def test_openinference_file_export_of_a_langchain_retriever(recorded):
    results, _, path = recorded
    # The SDK's ConsoleSpanExporter writing to a file: each span's to_json(), one after another.
    _check_runs(list(iter_runs(path)), results)
    assert read_run(path, 2).query == QUERIES[1]


def test_openinference_spans_as_json_lines_and_as_an_array(recorded, tmp_path):
    results, spans, _ = recorded
    lines = [json.dumps(json.loads(s.to_json())) for s in spans]
    (tmp_path / "spans.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _check_runs(list(iter_runs(tmp_path / "spans.jsonl")), results)
    array = json.dumps([json.loads(s.to_json()) for s in spans], indent=1).encode()
    _check_runs(runs_from_bytes(array, "spans.json"), results)


def test_openinference_otlp_json_export(recorded):
    results, spans, _ = recorded
    otlp = MessageToJson(encode_spans(spans)).encode()
    _check_runs(runs_from_bytes(otlp, "otlp.json"), results)
