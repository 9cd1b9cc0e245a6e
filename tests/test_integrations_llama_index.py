"""ContextLabPostprocessor inside a LlamaIndex query engine over a keyword index (no model, offline)."""

from __future__ import annotations

import pytest
from llama_index.core import SimpleKeywordTableIndex
from llama_index.core.llms import MockLLM
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from contextlab import Document, InvalidInputError
from contextlab.integrations.llama_index import ContextLabPostprocessor
from contextlab.retrieval import score_documents
from contextlab.runs.captures import iter_runs

pytestmark = pytest.mark.integration

QUERY = "annual plan refund"
TEXTS = {
    "refunds.md": "Refunds for an annual plan are prorated after the first thirty days; ask "
    "billing for a refund of the unused months.",
    "refunds-old.md": "Refunds for an annual plan are prorated after the first thirty days; ask "
    "billing for a refund of the unused months.",
    "cancel.md": "To cancel an annual plan open Settings, then Billing, then Cancel plan; a "
    "refund follows the refund policy.",
    "plans.md": "The annual plan costs ten months of the monthly price and renews every year on the day it started.",
    "sso.md": "Single sign-on is available on the enterprise plan with SAML and OIDC providers.",
}


def _nodes() -> list[TextNode]:
    return [
        TextNode(text=text, id_=name, metadata={"file_name": name, "team": "support"}) for name, text in TEXTS.items()
    ]


def _query_engine(postprocessor: ContextLabPostprocessor):
    # The keyword table needs no model to build or to retrieve; MockLLM stands in for the answer.
    index = SimpleKeywordTableIndex(_nodes(), llm=MockLLM())
    engine = index.as_query_engine(retriever_mode="simple", llm=MockLLM(), node_postprocessors=[postprocessor])
    return index, engine


def test_llama_index_postprocessor_in_a_query_engine_scores_and_orders_the_block():
    index, engine = _query_engine(ContextLabPostprocessor(max_context_tokens=150))
    retrieved = index.as_retriever(retriever_mode="simple").retrieve(QUERY)
    assert all(n.score is None for n in retrieved)  # so the engine scores them (BM25)

    response = engine.query(QUERY)
    nodes = response.source_nodes
    scored = score_documents(
        [Document(n.node.get_content(), metadata={"score_missing": True}) for n in retrieved], QUERY
    )
    bm25 = {n.node.node_id: d.score for n, d in zip(retrieved, scored, strict=False)}
    assert nodes, "the block is empty"
    assert [n.node.metadata["contextlab"]["citation"] for n in nodes] == list(range(1, len(nodes) + 1))
    for n in nodes:
        assert n.score == bm25[n.node.node_id]
        assert n.node.metadata["file_name"] == n.node.node_id and n.node.metadata["team"] == "support"
        assert n.node.metadata["contextlab"]["fate"] in ("included", "truncated")
        assert "contextlab" not in n.node.get_content(metadata_mode=MetadataMode.LLM)
    # The best by BM25 (cancel.md) first, then a refund page, then plans.md; sso.md, which
    # names only "plan" (a word every page holds), is left out. The two refund pages are
    # exact copies: whichever the keyword table (a set) returned first is kept, the other
    # went as a duplicate.
    ids = [n.node.node_id for n in nodes]
    assert ids[0] == "cancel.md" and ids[2] == "plans.md" and len(ids) == 3
    assert ids[1] in ("refunds.md", "refunds-old.md")
    # The nodes in the index are untouched: the postprocessor returned copies.
    stored = index.docstore.get_node(ids[0])
    assert "contextlab" not in stored.metadata


def test_llama_index_postprocessor_keeps_given_scores_in_relevance_order():
    scores = [0.2, 0.3, 0.9, 0.6, 0.5]
    nodes = [NodeWithScore(node=n, score=s) for n, s in zip(_nodes(), scores, strict=False)]
    out = ContextLabPostprocessor(max_context_tokens=500, use_lost_in_middle=False).postprocess_nodes(
        nodes, query_str=QUERY
    )
    assert [(n.node.node_id, n.score) for n in out] == [
        ("cancel.md", 0.9),
        ("plans.md", 0.6),
        ("sso.md", 0.5),
        ("refunds-old.md", 0.3),
    ]


def test_llama_index_postprocessor_returns_truncated_text_on_a_copy():
    text = " ".join(f"annual plan refund clause {i} applies to every workspace." for i in range(60))
    node = TextNode(text=text, id_="long", metadata={"file_name": "long.md"})
    out = ContextLabPostprocessor(max_context_tokens=80).postprocess_nodes(
        [NodeWithScore(node=node, score=0.8)], query_str=QUERY
    )
    assert out[0].node.node_id == "long" and out[0].node.metadata["contextlab"]["fate"] == "truncated"
    assert out[0].node.get_content().endswith("[...]")
    assert node.get_content() == text


def test_llama_index_postprocessor_captures_the_run(tmp_path):
    capture = tmp_path / "llama.jsonl"
    _, engine = _query_engine(ContextLabPostprocessor(max_context_tokens=150, capture_to=capture))
    response = engine.query(QUERY)
    (run,) = iter_runs(capture)
    assert run.framework == "llama_index" and run.query == QUERY
    assert sorted(d.metadata["id"] for d in run.documents) == sorted(TEXTS)
    assert all(d.metadata["score_source"] == "bm25" for d in run.documents)
    assert len(run.result["included_docs"]) == len(response.source_nodes)
    assert run.config().max_context_tokens == 150


def test_llama_index_postprocessor_rejects_a_nan_score():
    nodes = [NodeWithScore(node=_nodes()[0], score=float("nan"))]
    with pytest.raises(InvalidInputError, match=r"nodes\[0\]\.score"):
        ContextLabPostprocessor().postprocess_nodes(nodes, query_str=QUERY)
