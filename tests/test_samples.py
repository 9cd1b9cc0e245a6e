"""Tests for contextlab.lab.samples: every shipped set loads and exercises each pipeline stage."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from contextlab.errors import InvalidInputError
from contextlab.lab.samples import SAMPLE_DATA_DIR, SampleSet, list_sample_sets, load_sample_set
from contextlab.types import Document, Message

SETS = list_sample_sets()
SET_IDS = [s.name for s in SETS]


def _shingles(text: str, k: int = 5) -> set[tuple[str, ...]]:
    # Independent of the engine on purpose: the test checks the data, not dedup.py.
    words = text.lower().split()
    if len(words) < k:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + k]) for i in range(len(words) - k + 1)}


def _jaccard(a: str, b: str) -> float:
    sa, sb = _shingles(a), _shingles(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def _normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower())


def test_list_sample_sets_finds_at_least_three_sorted_sets():
    assert len(SETS) >= 3
    assert sorted(SET_IDS) == SET_IDS
    assert {"support_faq", "eng_postmortems", "clinical_abstracts"} <= set(SET_IDS)


@pytest.mark.parametrize("sample", SETS, ids=SET_IDS)
def test_sample_set_fields_are_typed(sample: SampleSet):
    assert sample.title and sample.description and sample.query and sample.system_prompt
    assert sample.path is not None and sample.path.stem == sample.name
    assert all(isinstance(d, Document) for d in sample.documents)
    assert all(isinstance(m, Message) for m in sample.conversation)


@pytest.mark.parametrize("sample", SETS, ids=SET_IDS)
def test_sample_set_sizes_in_range(sample: SampleSet):
    assert 20 <= len(sample.documents) <= 60
    words = [len(d.content.split()) for d in sample.documents]
    short = [n for n in words if n < 5]
    assert 1 <= len(short) <= 5, "a few very short snippets for the min-token filter"
    assert all(40 <= n <= 200 for n in words if n >= 5)
    assert 6 <= len(sample.conversation) <= 12


@pytest.mark.parametrize("sample", SETS, ids=SET_IDS)
def test_sample_set_scores_timestamps_and_sources_spread(sample: SampleSet):
    scores = [d.score for d in sample.documents]
    assert min(scores) <= 0.4 and max(scores) >= 0.9
    assert all(0.2 <= s <= 0.98 for s in scores)
    assert len(set(scores)) < len(scores), "some scores tie"
    stamps = [d.timestamp for d in sample.documents]
    assert all(t is not None for t in stamps)
    assert max(stamps) - min(stamps) >= 14 * 86400, "timestamps span weeks"
    assert all(d.source for d in sample.documents)


@pytest.mark.parametrize("sample", SETS, ids=SET_IDS)
def test_sample_set_has_exact_duplicate_pair(sample: SampleSet):
    docs = sample.documents
    pairs = [
        (i, j)
        for i, j in itertools.combinations(range(len(docs)), 2)
        if _normalised(docs[i].content) == _normalised(docs[j].content)
    ]
    assert pairs
    # exact duplicates differ in case or whitespace, so they are not byte-identical
    assert all(docs[i].content != docs[j].content for i, j in pairs)


@pytest.mark.parametrize("sample", SETS, ids=SET_IDS)
def test_sample_set_has_near_duplicate_pair(sample: SampleSet):
    docs = [d.content for d in sample.documents if len(d.content.split()) >= 5]
    sims = [_jaccard(a, b) for a, b in itertools.combinations(docs, 2) if _normalised(a) != _normalised(b)]
    assert any(0.6 <= s < 1.0 for s in sims)
    # and a spread of them, so the threshold slider has something to show
    assert sum(1 for s in sims if 0.5 <= s < 1.0) >= 3


@pytest.mark.parametrize("sample", SETS, ids=SET_IDS)
def test_sample_set_conversation_has_system_message(sample: SampleSet):
    roles = [m.role for m in sample.conversation]
    assert "system" in roles
    assert {"user", "assistant"} <= set(roles)


@pytest.mark.parametrize("sample", SETS, ids=SET_IDS)
def test_sample_set_answer_source_is_a_document(sample: SampleSet):
    assert sample.answer_source
    assert len(sample.answer_indices()) == 1


def test_sample_eng_postmortems_answer_is_second_most_relevant():
    sample = load_sample_set("eng_postmortems")
    ranked = sorted(sample.documents, key=lambda d: -d.score)
    assert ranked[1].source == sample.answer_source


def test_load_sample_set_accepts_a_path():
    sample = load_sample_set(SAMPLE_DATA_DIR / "support_faq.json")
    assert sample.name == "support_faq"


def test_sample_sets_are_package_data_read_through_importlib_resources():
    # A wheel carries only what is inside the package: the sets must live there, and the
    # checkout's top-level sample_data must be the same folder (README commands use it).
    from importlib.resources import files

    import contextlab

    package_dir = Path(contextlab.__file__).resolve().parent
    assert SAMPLE_DATA_DIR.resolve() == package_dir / "data" / "sample_data"
    bundled = sorted(
        p.name for p in (files("contextlab") / "data" / "sample_data").iterdir() if p.name.endswith(".json")
    )
    assert bundled == sorted(f"{name}.json" for name in SET_IDS)
    checkout_link = package_dir.parent / "sample_data"
    if checkout_link.exists():  # absent when the tests run against an installed package
        assert checkout_link.resolve() == SAMPLE_DATA_DIR.resolve()
    assert load_sample_set("support_faq").path == SAMPLE_DATA_DIR / "support_faq.json"


def test_load_sample_set_unknown_name_lists_known_sets():
    with pytest.raises(InvalidInputError, match=r"unknown sample set 'nope'.*support_faq"):
        load_sample_set("nope")


def test_load_sample_set_missing_path_raises():
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_sample_set(Path("/nonexistent/set.json"))


def test_load_sample_set_invalid_json_raises(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",', encoding="utf-8")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        load_sample_set(bad)


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"query": 3}, r"field 'query' must be a string"),
        ({"documents": {}}, r"'documents' must be a list"),
        ({"documents": [{"content": 5}]}, r"documents\[0\]\.content must be a string"),
        ({"documents": [{"content": "x", "score": "high"}]}, r"documents\[0\]\.score"),
        ({"conversation": [{"role": "user"}]}, r"conversation\[0\]"),
    ],
)
def test_load_sample_set_malformed_fields_raise(tmp_path: Path, patch: dict, message: str):
    raw = {"name": "t", "title": "T", "description": "d", "query": "q", "documents": [], "conversation": []}
    raw.update(patch)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(InvalidInputError, match=message):
        load_sample_set(path)


def _answer_trace(name: str, manager, budget: int):
    from contextlab.types import PromptRequest

    sample = load_sample_set(name)
    result = manager.build(PromptRequest(query=sample.query, documents=sample.documents, max_context_tokens=budget))
    (entry,) = [t for t in result.trace if t.source == sample.answer_source]
    return entry, result


@pytest.mark.parametrize("budget", [700, 1024, 2048])
def test_sample_eng_postmortems_seed_cuts_answer_default_keeps_it(budget: int):
    from contextlab.manager import ContextManager

    seed_entry, _ = _answer_trace("eng_postmortems", ContextManager.seed_compatible(), budget)
    default_entry, result = _answer_trace("eng_postmortems", ContextManager(), budget)
    assert seed_entry.fate == "excluded"
    assert default_entry.fate == "included"
    assert default_entry.position == len(result.included_docs)  # rank 2 is placed last


def test_sample_clinical_abstracts_answer_lands_mid_block():
    from contextlab.manager import ContextManager

    entry, result = _answer_trace("clinical_abstracts", ContextManager.seed_compatible(), 2048)
    n = len(result.included_docs)
    assert n >= 20
    assert entry.fate == "included" and 3 <= entry.position <= n - 2


def test_sample_support_faq_low_threshold_drops_stale_policy_copy():
    from contextlab.manager import ContextManager

    sample = load_sample_set("support_faq")
    stale = next(i for i, d in enumerate(sample.documents) if d.source.startswith("help-center/archive/2024/refunds"))
    current = sample.answer_indices()[0]
    _, at_default = _answer_trace("support_faq", ContextManager(), 1024)
    _, at_half = _answer_trace("support_faq", ContextManager(dedup_threshold=0.5), 1024)
    assert stale not in {p.dropped_index for p in at_default.duplicate_pairs}
    assert (current, stale) in {(p.kept_index, p.dropped_index) for p in at_half.duplicate_pairs}
