"""ContextLabBuilder in a Haystack Pipeline: in-memory BM25 retriever -> contextlab -> PromptBuilder."""

from __future__ import annotations

import os

# Haystack reads this when imported; tests send nothing anywhere.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

import pytest  # noqa: E402
from haystack import Document as HaystackDocument  # noqa: E402
from haystack import Pipeline  # noqa: E402
from haystack.components.builders import PromptBuilder  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402

from contextlab import ContextManager, Document, InvalidInputError, PromptRequest  # noqa: E402
from contextlab.integrations.haystack import ContextLabBuilder  # noqa: E402
from contextlab.runs.captures import iter_runs  # noqa: E402

pytestmark = pytest.mark.integration

QUERY = "annual plan refund"
TEXTS = {
    "refunds.md": "Refunds for an annual plan are prorated after the first thirty days; ask "
    "billing for a refund of the unused months.",
    "refunds-faq.md": "Refunds for an annual plan are prorated after the first thirty days; ask "
    "billing for a refund of the unused months!",
    "cancel.md": "To cancel an annual plan open Settings, then Billing, then Cancel plan; a "
    "refund follows the refund policy.",
    "plans.md": "The annual plan costs ten months of the monthly price and renews every year on the day it started.",
    "shipping.md": "Shipping is free for orders over fifty dollars and takes three to five days.",
}
TEMPLATE = "Answer from the sources, citing them as [n].\n{{ context }}\nQuestion: {{ query }}"


def _pipeline(builder: ContextLabBuilder) -> Pipeline:
    store = InMemoryDocumentStore()
    store.write_documents([HaystackDocument(content=t, meta={"source": s}) for s, t in TEXTS.items()])
    pipe = Pipeline()
    pipe.add_component("retriever", InMemoryBM25Retriever(store, top_k=5))
    pipe.add_component("contextlab", builder)
    pipe.add_component("prompt", PromptBuilder(TEMPLATE, required_variables=["context", "query"]))
    pipe.connect("retriever.documents", "contextlab.documents")
    pipe.connect("contextlab.context", "prompt.context")
    return pipe


def _run(pipe: Pipeline, query: str = QUERY) -> dict:
    return pipe.run(
        {"retriever": {"query": query}, "contextlab": {"query": query}, "prompt": {"query": query}},
        include_outputs_from={"retriever", "contextlab"},
    )


def test_haystack_builder_feeds_the_block_to_the_prompt_builder():
    out = _run(_pipeline(ContextLabBuilder(max_context_tokens=160)))
    retrieved = out["retriever"]["documents"]
    block = out["contextlab"]["context"]
    docs = out["contextlab"]["documents"]

    # The same build, by the engine directly, on the retriever's own (BM25) scores.
    expected = ContextManager().build(
        PromptRequest(
            QUERY,
            [Document(d.content, score=d.score, source=d.meta["source"]) for d in retrieved],
            max_context_tokens=160,
        )
    )
    assert block == expected.context_block
    assert out["prompt"]["prompt"] == TEMPLATE.replace("{{ context }}", block).replace("{{ query }}", QUERY)
    placed = sorted((t for t in expected.trace if t.position), key=lambda t: t.position)
    assert [d.id for d in docs] == [retrieved[t.input_index].id for t in placed]
    assert [d.score for d in docs] == [retrieved[t.input_index].score for t in placed]
    assert [d.meta["contextlab"]["citation"] for d in docs] == list(range(1, len(docs) + 1))
    assert [d.meta["contextlab"]["fate"] for d in docs] == [t.fate for t in placed]
    # The near copy (one "!" apart) went as a duplicate.
    assert len({d.meta["source"] for d in docs} & {"refunds.md", "refunds-faq.md"}) == 1


def test_haystack_builder_scores_unscored_documents_and_keeps_ids():
    docs = [HaystackDocument(content=t, meta={"source": s}, id=s) for s, t in TEXTS.items()]
    out = ContextLabBuilder(max_context_tokens=500, use_lost_in_middle=False).run(docs, QUERY)
    kept = out["documents"]
    assert all(d.id == d.meta["source"] for d in kept)
    assert [d.score for d in kept] == sorted((d.score for d in kept), reverse=True)
    assert [d.id for d in kept] == ["cancel.md", "refunds.md", "plans.md", "shipping.md"]
    assert kept[0].score == 0.574023 and kept[-1].score == 0.0  # shipping.md shares no query word
    assert all(d.score is None for d in docs)  # inputs untouched


def test_haystack_builder_round_trips_through_pipeline_yaml(tmp_path):
    capture = tmp_path / "haystack.jsonl"
    pipe = _pipeline(ContextLabBuilder(max_context_tokens=160, dedup_threshold=0.7, capture_to=str(capture)))
    loaded = Pipeline.loads(pipe.dumps(), allowed_modules=["contextlab.integrations.haystack"])
    builder = loaded.get_component("contextlab")
    assert builder.step.config == pipe.get_component("contextlab").step.config
    _run(loaded)
    (run,) = iter_runs(capture)
    assert run.framework == "haystack" and run.config().dedup_threshold == 0.7


def test_haystack_builder_rejects_a_document_without_text():
    with pytest.raises(InvalidInputError, match=r"documents\[1\]\.content must be text"):
        ContextLabBuilder().run([HaystackDocument(content="a refund"), HaystackDocument(content=None)], QUERY)
