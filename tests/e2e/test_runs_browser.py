"""Pipeline runs in a real browser: a capture file and an OpenInference export open in every view.

The capture file is written by the LangChain and LlamaIndex components themselves; the export
holds the spans the OpenInference instrumentor recorded around a real LangChain retriever. The
lab starts as ``contextlab lab --runs FILE`` starts it (the file in ``CONTEXTLAB_RUNS``); the
export comes in through the sidebar's upload. Needs /usr/bin/chromium, like the other
browser test. The run-list picture goes to artifacts/runs.png (untracked);
``CONTEXTLAB_SCREENSHOTS=docs/screenshots`` makes it the README's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contextlab.lab.samples import load_sample_set
from contextlab.runs.captures import LAB_RUNS_ENV, iter_runs
from contextlab.ui.views import DEFAULT_VIEW, VIEWS

from .lab_server import ROOT, lab_page, screenshot_dir, wait_for_app

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "artifacts"
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def _capture(path: Path) -> None:
    """Write two runs to ``path`` through the real components: LangChain, then LlamaIndex."""
    from langchain_core.documents import Document as LangChainDocument
    from llama_index.core.schema import NodeWithScore, TextNode

    from contextlab.integrations.langchain import ContextLabCompressor
    from contextlab.integrations.llama_index import ContextLabPostprocessor

    faq = load_sample_set("support_faq")
    docs = [
        LangChainDocument(d.content, metadata={"source": d.source, "relevance_score": d.score}) for d in faq.documents
    ]
    ContextLabCompressor(max_context_tokens=600, capture_to=path).compress_documents(docs, faq.query)
    incidents = load_sample_set("eng_postmortems")
    nodes = [
        NodeWithScore(node=TextNode(text=d.content, metadata={"source": d.source}), score=d.score)
        for d in incidents.documents
    ]
    ContextLabPostprocessor(max_context_tokens=400, dedup_threshold=0.7, capture_to=path).postprocess_nodes(
        nodes, query_str=incidents.query
    )


def _openinference_export(path: Path) -> None:
    """Write the spans of two traced LangChain retrievals, as the SDK's console exporter does."""
    from langchain_core.documents import Document as LangChainDocument
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
        InMemorySpanExporter,
    )

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
        store.add_documents(
            [
                LangChainDocument(d.content, metadata={"source": d.source})
                for d in load_sample_set("support_faq").documents
            ]
        )
        retriever = store.as_retriever(search_kwargs={"k": 12})
        for query in ("how do I get a refund on an annual plan", "can I pay by invoice"):
            retriever.invoke(query)
    finally:
        instrumentor.uninstrument()
    path.write_text("\n".join(s.to_json() for s in exporter.get_finished_spans()), encoding="utf-8")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("runs")
    capture, spans = folder / "capture.jsonl", folder / "spans.json"
    _capture(capture)
    _openinference_export(spans)
    assert [r.framework for r in iter_runs(capture)] == ["langchain", "llama_index"]
    assert len(list(iter_runs(spans))) == 2
    return {"capture": capture, "spans": spans}


@pytest.fixture(scope="module")
def page(files):
    ARTIFACTS.mkdir(exist_ok=True)
    # what `contextlab lab --runs FILE` sets
    with lab_page(height=1000, env={LAB_RUNS_ENV: str(files["capture"])}) as page:
        yield page


def _body(page) -> str:
    return page.locator("body").inner_text()


def _switch_view(page, key: str, label: str) -> None:
    """Click a view on the switch and wait until the lab has drawn it (the URL names it first)."""
    page.get_by_role("radio", name=label, exact=True).click()
    wanted = "" if key == DEFAULT_VIEW else f"view={key}"
    page.wait_for_function(
        "w => w ? location.search.includes(w) : !location.search.includes('view=')", arg=wanted, timeout=60_000
    )
    wait_for_app(page)


def _no_errors(page) -> None:
    shown = [e.inner_text() for e in page.locator(ERRORS).all()]
    assert not shown, shown


@pytest.mark.parametrize("view", list(VIEWS))
def test_runs_browser_capture_file_opens_in_every_view(page, view):
    page.goto(f"{page.base_url}/?view={view}")
    wait_for_app(page)
    body = _body(page)
    assert "Run #1 of capture.jsonl" in body
    assert "captured run line 1 · langchain" in body
    _no_errors(page)


def test_runs_browser_picking_a_run_brings_its_documents_query_and_settings(page):
    page.goto(f"{page.base_url}/")
    wait_for_app(page)
    assert "2 run(s) in capture.jsonl" in _body(page)
    page.get_by_role("combobox", name="Run", exact=True).click()
    page.get_by_role("option", name="#2").click()
    page.get_by_text("Run #2 of capture.jsonl").wait_for(timeout=60_000)  # the rerun has begun
    wait_for_app(page)
    incidents = load_sample_set("eng_postmortems")
    body = _body(page)
    assert f"Run #2 of capture.jsonl · {len(incidents.documents)} documents" in body
    assert "captured run line 2 · llama_index" in body
    assert page.get_by_role("textbox", name="Query", exact=True).input_value() == incidents.query
    _no_errors(page)
    page.get_by_role("combobox", name="Run", exact=True).click()  # the list: time, query, counts
    page.get_by_role("option", name="#1").wait_for()
    shot = screenshot_dir() / "runs.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot))
    page.keyboard.press("Escape")


def test_runs_browser_openinference_export_uploads_and_opens_in_every_view(page, files):
    page.goto(f"{page.base_url}/")
    wait_for_app(page)
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Capture file or span export")
    uploader.locator('input[type="file"]').set_input_files(str(files["spans"]))
    page.get_by_text("Run #1 of spans.json").wait_for(timeout=60_000)
    wait_for_app(page)
    assert (
        page.get_by_role("textbox", name="Query", exact=True).input_value() == "how do I get a refund on an annual plan"
    )
    for key, (label, _) in VIEWS.items():
        _switch_view(page, key, label)
        body = _body(page)
        assert "Run #1 of spans.json · 12 documents" in body, key
        assert "OpenInference span" in body, key
        _no_errors(page)
    _switch_view(page, DEFAULT_VIEW, VIEWS[DEFAULT_VIEW][0])
    page.screenshot(path=str(ARTIFACTS / "e2e_runs_openinference.png"))
