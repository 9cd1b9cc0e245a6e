"""What the three components share: settings, field mapping, capture paths, and lazy imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from contextlab import Document, InvalidInputError
from contextlab.integrations._common import (
    SETTING_NAMES,
    ContextLabStep,
    engine_config,
    engine_document,
)
from contextlab.lab.config import LabConfig
from contextlab.settings import EngineSettings

FRAMEWORKS = (
    "langchain",
    "langchain_core",
    "langchain_classic",
    "llama_index",
    "haystack",
    "opentelemetry",
    "openinference",
    "pydantic",
)


def test_integrations_import_contextlab_loads_no_framework():
    code = (
        "import sys, contextlab, contextlab.runs.captures, contextlab.integrations, "
        "contextlab.integrations._common, contextlab.runs.openinference; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({FRAMEWORKS!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_integrations_settings_name_every_engine_setting():
    for name in (
        "max_context_tokens",
        "dedup_threshold",
        "min_doc_tokens",
        "use_lost_in_middle",
        "tokenizer",
        "summarize_overflow",
        "placement",
        "seed_compatible",
    ):
        assert name in SETTING_NAMES
    assert "budget" not in SETTING_NAMES and "query" not in SETTING_NAMES


def test_integrations_engine_config_from_keywords():
    cfg = engine_config(
        max_context_tokens=700, dedup_threshold=0.5, min_doc_tokens=0, use_lost_in_middle=False, tokenizer="heuristic"
    )
    assert (cfg.max_context_tokens, cfg.dedup_threshold, cfg.min_doc_tokens, cfg.placement, cfg.tokenizer) == (
        700,
        0.5,
        0,
        "relevance",
        "heuristic",
    )
    assert isinstance(cfg, EngineSettings)


@pytest.mark.parametrize("form", ["object", "json", "dict", "bytes"])
def test_integrations_engine_config_from_the_labs_export(form):
    lab = LabConfig(query="ignored here", max_context_tokens=321, dedup_threshold=0.7, placement="reversed")
    given = {"object": lab, "json": lab.to_json(), "dict": json.loads(lab.to_json()), "bytes": lab.to_json().encode()}[
        form
    ]
    cfg = engine_config(given, min_doc_tokens=1)
    assert (cfg.max_context_tokens, cfg.dedup_threshold, cfg.placement, cfg.min_doc_tokens) == (321, 0.7, "reversed", 1)


def test_integrations_engine_config_takes_no_older_name():
    # The seed's use_lost_in_middle is a keyword (as ContextManager takes it); no file name, no alias.
    with pytest.raises(InvalidInputError, match="unknown setting.*budget"):
        engine_config(budget=10)
    with pytest.raises(InvalidInputError, match=r"unknown configuration field\(s\): budget, use_lost_in_middle"):
        engine_config({"budget": 90, "use_lost_in_middle": False})


@pytest.mark.parametrize(
    "config, settings, match",
    [
        (None, {"budget_tokens": 10}, "unknown setting.*max_context_tokens"),
        (None, {"max_context_tokens": 1.5}, "max_context_tokens must be a whole number"),
        (None, {"use_lost_in_middle": "yes"}, "use_lost_in_middle must be True or False"),
        (None, {"use_lost_in_middle": True, "placement": "relevance"}, "^placement='relevance' contradicts"),
        (None, {"use_lost_in_middle": False, "placement": "reversed"}, "^placement='reversed' contradicts"),
        (None, {"tokenizer": "gpt2"}, "unknown tokenizer"),
        ("{not json", {}, "not valid JSON"),
        ({"budget": 10, "colour": "red"}, {}, "unknown configuration field"),
        ([1, 2], {}, "config must be"),
    ],
)
def test_integrations_engine_config_rejects(config, settings, match):
    with pytest.raises(InvalidInputError, match=match):
        engine_config(config, **settings)


def test_integrations_engine_document_maps_fields_without_sharing_them():
    meta = {"file_name": "a.md", "page": 3, "contextlab": {"citation": 9}}
    doc = engine_document("text", score=0.4, metadata=meta, doc_id="n1")
    assert doc == Document("text", score=0.4, source="a.md", metadata={"file_name": "a.md", "page": 3, "id": "n1"})
    doc.metadata["page"] = 4
    assert meta["page"] == 3 and meta["contextlab"] == {"citation": 9}


def test_integrations_engine_document_without_score_or_source():
    doc = engine_document("text", score=None, metadata=None, doc_id="node-7")
    assert doc.source == "node-7" and doc.score == 1.0
    assert doc.metadata == {"id": "node-7", "score_missing": True}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"content": None, "score": 1.0, "metadata": {}}, r"doc\.content must be text"),
        ({"content": "x", "score": float("inf"), "metadata": {}}, r"doc\.score must be a finite number"),
        ({"content": "x", "score": True, "metadata": {}}, r"doc\.score"),
        ({"content": "x", "score": 1.0, "metadata": ["a"]}, r"doc\.metadata must be a dict"),
    ],
)
def test_integrations_engine_document_rejects(kwargs, match):
    content = kwargs.pop("content")
    with pytest.raises(InvalidInputError, match=match):
        engine_document(content, where="doc", **kwargs)


def test_integrations_step_scores_only_when_a_document_lacks_a_score():
    step = ContextLabStep("test", max_context_tokens=400, min_doc_tokens=0)
    given = [Document("solar panels on the roof", score=0.3), Document("wind farms", score=0.9)]
    outcome = step.run("solar panels", given)
    assert [d.score for d in outcome.documents] == [0.3, 0.9]
    mixed = [given[0], Document("wind farms", metadata={"score_missing": True})]
    outcome = step.run("solar panels", mixed)
    # Only the unscored one is scored (BM25; it shares no query word); a given score is kept.
    assert [d.metadata.get("score_source") for d in outcome.documents] == [None, "bm25"]
    assert [d.score for d in outcome.documents] == [0.3, 0.0]
    assert [k.info["citation"] for k in outcome.kept] == [1, 2]


def test_integrations_step_unscored_documents_need_a_query():
    step = ContextLabStep("test")
    with pytest.raises(InvalidInputError, match="query has no words"):
        step.run("", [Document("some text here", metadata={"score_missing": True})])
