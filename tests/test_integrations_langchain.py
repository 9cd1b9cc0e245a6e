"""ContextLabCompressor inside LangChain's ContextualCompressionRetriever, over an offline store."""

from __future__ import annotations

import asyncio

import pytest
from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document as LangChainDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore

from contextlab import ContextManager, Document, InvalidInputError, PromptRequest
from contextlab.integrations.langchain import ContextLabCompressor
from contextlab.lab.config import LabConfig
from contextlab.retrieval import score_documents
from contextlab.runs.captures import iter_runs

pytestmark = pytest.mark.integration

QUERY = "annual plan refund"
TEXTS = {
    "billing/refunds.md": "Refunds for an annual plan are prorated after the first thirty days; "
    "ask billing for a refund of the unused months.",
    "archive/refunds.md": "Refunds for an annual plan are prorated after the first thirty days; "
    "ask billing for a refund of the unused months.",
    "billing/cancel.md": "To cancel an annual plan open Settings, then Billing, then Cancel plan; "
    "a refund follows the refund policy.",
    "shipping.md": "Shipping is free for orders over fifty dollars and takes three to five business days to arrive.",
    "sso.md": "Single sign-on is available on the enterprise plan with SAML and OIDC providers for every workspace.",
}


@pytest.fixture()
def store() -> InMemoryVectorStore:
    # A fake but deterministic embedding: offline, and the documents come back without scores.
    vs = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    vs.add_documents(
        [LangChainDocument(text, metadata={"source": src, "team": "support"}, id=src) for src, text in TEXTS.items()]
    )
    return vs


def _pipeline(store: InMemoryVectorStore, compressor: ContextLabCompressor) -> ContextualCompressionRetriever:
    return ContextualCompressionRetriever(
        base_compressor=compressor, base_retriever=store.as_retriever(search_kwargs={"k": 5})
    )


def test_langchain_compressor_returns_the_engines_block_in_block_order(store):
    retrieved = store.as_retriever(search_kwargs={"k": 5}).invoke(QUERY)
    out = _pipeline(store, ContextLabCompressor(max_context_tokens=200)).invoke(QUERY)

    # The same build, by the engine directly: unscored documents scored by BM25 first.
    engine_docs = [
        Document(d.page_content, source=d.metadata["source"], metadata={"score_missing": True}) for d in retrieved
    ]
    expected = ContextManager().build(PromptRequest(QUERY, score_documents(engine_docs, QUERY), max_context_tokens=200))
    placed = sorted((t for t in expected.trace if t.position), key=lambda t: t.position)
    assert [d.id for d in out] == [retrieved[t.input_index].id for t in placed]
    assert [d.metadata["contextlab"]["citation"] for d in out] == list(range(1, len(out) + 1))
    assert [d.metadata["contextlab"]["fate"] for d in out] == [t.fate for t in placed]
    assert all(d.metadata["contextlab"]["reason"] for d in out)
    # The exact copy went as a duplicate: only one of the two refund pages is in the block.
    assert len({d.id for d in out} & {"billing/refunds.md", "archive/refunds.md"}) == 1
    for d in out:
        assert d.metadata["source"] == d.id and d.metadata["team"] == "support"


def test_langchain_compressor_reads_scores_from_metadata_and_keeps_input_intact():
    docs = [
        LangChainDocument(text, metadata={"source": src, "relevance_score": score}, id=src)
        for (src, text), score in zip(TEXTS.items(), [0.2, 0.3, 0.9, 0.5, 0.7], strict=False)
    ]
    before = [d.model_copy(deep=True) for d in docs]
    out = ContextLabCompressor(max_context_tokens=400, use_lost_in_middle=False).compress_documents(docs, QUERY)
    # Scored input is ranked by its own scores (no BM25): relevance placement is score order,
    # and archive/refunds.md (0.3) is the copy kept over billing/refunds.md (0.2).
    assert [d.id for d in out] == ["billing/cancel.md", "sso.md", "shipping.md", "archive/refunds.md"]
    assert [d.metadata["relevance_score"] for d in out] == [0.9, 0.7, 0.5, 0.3]
    assert docs == before  # the compressor copies, never edits the retriever's documents


def test_langchain_compressor_returns_the_cut_text_of_a_truncated_document():
    long_text = " ".join(f"refund rule number {i} for the annual plan applies." for i in range(60))
    docs = [LangChainDocument(long_text, metadata={"source": "long.md", "score": 0.9}, id="long")]
    out = ContextLabCompressor(max_context_tokens=80).compress_documents(docs, QUERY)
    assert len(out) == 1 and out[0].id == "long"
    assert out[0].metadata["contextlab"]["fate"] == "truncated"
    assert out[0].page_content.endswith("[...]") and len(out[0].page_content) < len(long_text)
    assert docs[0].page_content == long_text


def test_langchain_compressor_takes_the_labs_json_and_keyword_overrides():
    exported = LabConfig(max_context_tokens=300, dedup_threshold=0.6, placement="relevance").to_json()
    compressor = ContextLabCompressor(config=exported, min_doc_tokens=2)
    cfg = compressor.step.config
    assert (cfg.max_context_tokens, cfg.dedup_threshold, cfg.placement, cfg.min_doc_tokens) == (
        300,
        0.6,
        "relevance",
        2,
    )
    assert ContextLabCompressor(config={"max_context_tokens": 50}).step.config.max_context_tokens == 50


def test_langchain_compressor_captures_each_run(store, tmp_path):
    capture = tmp_path / "runs.jsonl"
    retriever = _pipeline(store, ContextLabCompressor(max_context_tokens=200, capture_to=capture))
    out = retriever.invoke(QUERY)
    asyncio.run(retriever.ainvoke("single sign-on providers"))
    runs = list(iter_runs(capture))
    assert [r.query for r in runs] == [QUERY, "single sign-on providers"]
    first = runs[0]
    assert first.framework == "langchain" and len(first.documents) == len(TEXTS)
    assert all(d.metadata.get("score_source") == "bm25" for d in first.documents)
    assert len(first.result["included_docs"]) == len(out)
    assert first.build().context_block == first.result["context_block"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"budget_tokens": 10}, "unknown setting"),
        ({"max_context_tokens": -1}, "max_context_tokens"),
        ({"dedup_threshold": 2}, "dedup_threshold"),
        ({"config": 3}, "config must be"),
        ({"capture_to": "/no/such/folder/runs.jsonl"}, "does not exist"),
    ],
)
def test_langchain_compressor_rejects_bad_settings(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        ContextLabCompressor(**kwargs)
