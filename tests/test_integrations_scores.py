"""Framework documents without a score: the retriever's own score is used where it left one, and
re-scoring by BM25 is said in the metadata and the capture (issue 18, point 13)."""

from __future__ import annotations

import json

import pytest

from contextlab.integrations._common import ContextLabStep, engine_document

TEXTS = [
    ("plans.md", "The annual plan renews every year."),
    ("refunds.md", "Refunds for an annual plan are prorated; ask billing for a refund."),
    ("sso.md", "Single sign-on is on the enterprise plan."),
]


def test_engine_document_takes_the_score_a_retriever_left_in_metadata():
    doc = engine_document("text", score=None, metadata={"relevance_score": 0.42}, where="documents[0]")
    assert doc.score == 0.42 and doc.metadata == {"relevance_score": 0.42, "score_source": "metadata.relevance_score"}
    with pytest.raises(ValueError, match=r"documents\[0\]\.metadata\['score'\] must be a finite number"):
        engine_document("text", score=None, metadata={"score": "high"}, where="documents[0]")


def test_step_says_it_rescored_and_keeps_the_retriever_rank(tmp_path):
    capture = tmp_path / "runs.jsonl"
    step = ContextLabStep("langchain", capture_to=str(capture), max_context_tokens=500)
    docs = [engine_document(t, score=None, metadata={"source": s}) for s, t in TEXTS]
    outcome = step.run("annual plan refund", docs)
    by_source = {outcome.documents[k.input_index].source: k.info for k in outcome.kept}
    assert by_source["refunds.md"]["score_source"] == "bm25"
    assert by_source["refunds.md"]["retriever_rank"] == 2
    assert outcome.result.notes == [
        "3 document(s) had no score and were scored against the query (BM25, 0-1); the "
        "retriever's order was replaced by BM25's (metadata contextlab.retriever_rank keeps it)"
    ]
    record = json.loads(capture.read_text(encoding="utf-8"))
    assert record["result"]["notes"] == outcome.result.notes


def test_step_with_retriever_scores_has_no_note():
    step = ContextLabStep("langchain", max_context_tokens=500)
    docs = [engine_document(t, score=1.0 - i / 10, metadata={"source": s}) for i, (s, t) in enumerate(TEXTS)]
    outcome = step.run("annual plan refund", docs)
    assert outcome.result.notes == []
    assert all("score_source" not in k.info for k in outcome.kept)


@pytest.mark.integration
def test_llama_index_node_without_score_uses_its_metadata_score():
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import NodeWithScore, TextNode

    from contextlab.integrations.llama_index import ContextLabPostprocessor

    nodes = [
        NodeWithScore(node=TextNode(text=t, id_=s, metadata={"score": 0.9 - i / 10}), score=None)
        for i, (s, t) in enumerate(TEXTS)
    ]
    out = ContextLabPostprocessor(max_context_tokens=500).postprocess_nodes(nodes, query_str="annual plan refund")
    assert [n.node.node_id for n in out] == ["plans.md", "refunds.md", "sso.md"]
    assert [n.score for n in out] == [0.9, 0.8, 0.7]
    assert all(n.node.metadata["contextlab"]["score_source"] == "metadata.score" for n in out)
