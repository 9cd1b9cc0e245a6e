from __future__ import annotations

import pytest

from contextlab import PromptRequest
from contextlab.lab.config import PLACEMENTS, LabConfig
from contextlab.types import Document


def test_config_json_round_trip():
    config = LabConfig(query="refunds", max_context_tokens=700, dedup_threshold=0.6, seed_compatible=True)
    assert LabConfig.from_json(config.to_json()) == config


def test_config_query_params_round_trip_only_non_defaults():
    config = LabConfig(max_context_tokens=300, placement="relevance", tokenizer="heuristic")
    params = config.to_query_params()
    assert params == {"max_context_tokens": "300", "placement": "relevance", "tokenizer": "heuristic"}
    assert LabConfig.from_query_params(params) == (config, [])


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_config_every_placement_round_trips_and_reaches_the_manager(placement):
    config = LabConfig(placement=placement)
    assert LabConfig.from_json(config.to_json()) == config
    assert LabConfig.from_query_params(config.to_query_params()) == (config, [])
    assert config.make_manager().placement == placement


@pytest.mark.parametrize(("flag", "placement"), [(False, "relevance"), (True, "lost_in_the_middle")])
def test_config_reads_the_older_use_lost_in_middle_switch(flag, placement):
    assert LabConfig.from_dict({"use_lost_in_middle": flag}).placement == placement
    config, warnings = LabConfig.from_query_params({"use_lost_in_middle": str(flag).lower()})
    assert (config.placement, warnings) == (placement, [])
    assert LabConfig(placement=placement).use_lost_in_middle is flag


def test_config_bad_older_switch_in_a_link_is_a_warning():
    config, warnings = LabConfig.from_query_params({"use_lost_in_middle": "maybe"})
    assert config == LabConfig() and "use_lost_in_middle" in warnings[0]


def test_config_build_uses_its_query_and_budget():
    docs = [Document(f"document {i} explains refunds and how long they take", 0.9 - i / 10, f"d{i}")
            for i in range(6)]
    config = LabConfig(query="refunds", max_context_tokens=40, tokenizer="heuristic", placement="reversed")
    expected = config.make_manager().build(PromptRequest("refunds", docs, max_context_tokens=40))
    assert config.build(docs).context_block == expected.context_block


def test_config_bad_query_params_fall_back_with_warning():
    config, warnings = LabConfig.from_query_params({"max_context_tokens": "lots", "dedup_threshold": "2",
                                                    "min_doc_tokens": "3"})
    assert config == LabConfig(min_doc_tokens=3)
    assert len(warnings) == 2 and "max_context_tokens" in warnings[0] and "dedup_threshold" in warnings[1]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"max_context_tokens": -5}, "max_context_tokens must be a whole number >= 0"),
        ({"budget": -5}, "max_context_tokens must be a whole number >= 0"),  # an older export
        ({"dedup_threshold": 0}, r"dedup_threshold must be in \(0, 1\]"),
        ({"tokenizer": "bpe"}, "unknown tokenizer 'bpe'"),
        ({"placement": "middle"}, "unknown placement 'middle'; choose one of: lost_in_the_middle"),
        ({"use_lost_in_middle": "no"}, "use_lost_in_middle must be True or False"),
        ({"colour": "red"}, "unknown configuration field"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_config_bad_values_raise(data, match):
    with pytest.raises(ValueError, match=match):
        LabConfig.from_dict(data)


def test_config_bad_json_raises():
    with pytest.raises(ValueError, match="not valid JSON"):
        LabConfig.from_json("{nope")


@pytest.mark.parametrize("placement", ["lost_in_the_middle", "reversed"])
def test_config_code_snippet_reproduces_result(placement):
    docs = [Document(f"document number {i} talks about refunds and plans in detail", 0.9 - i / 20, f"d{i}")
            for i in range(8)]
    config = LabConfig(query="refunds", max_context_tokens=60, dedup_threshold=0.7, tokenizer="heuristic",
                       placement=placement)
    snippet = config.code_snippet(documents_expr="DOCS")
    namespace = {"DOCS": docs, "print": lambda *a: None}
    exec(snippet.replace("from contextlab.loaders import load_file\n", ""), namespace)
    expected = config.make_manager().build(PromptRequest("refunds", docs, max_context_tokens=60))
    assert namespace["result"].context_block == expected.context_block
    assert ("placement=" in snippet) is (placement != "lost_in_the_middle")


def test_config_reads_links_and_exports_of_earlier_versions():
    # Earlier versions wrote the budget as ``budget``; their links and files still open, silently.
    assert LabConfig.from_query_params({"budget": "300"}) == (LabConfig(max_context_tokens=300), [])
    assert LabConfig.from_dict({"contextlab_config": 1, "budget": 300}) == LabConfig(max_context_tokens=300)
    config, warnings = LabConfig.from_query_params({"budget": "lots"})
    assert config == LabConfig() and warnings[0].startswith("ignored URL parameter budget='lots'")
    # New links and files use the library's name.
    assert LabConfig(max_context_tokens=300).to_query_params() == {"max_context_tokens": "300"}
    assert '"max_context_tokens": 300' in LabConfig(max_context_tokens=300).to_json()


def test_config_budget_keyword_and_attribute_are_deprecated_aliases():
    with pytest.warns(DeprecationWarning, match="LabConfig: 'budget' is deprecated; use 'max_context_tokens'"):
        config = LabConfig(budget=300)
    with pytest.warns(DeprecationWarning, match="'budget' is deprecated"):
        assert config.budget == 300
    with pytest.warns(DeprecationWarning):
        assert config.with_changes(budget=500).max_context_tokens == 500
    with pytest.raises(ValueError, match=r"^max_context_tokens is given twice, also as its older name budget "
                                         r"\(LabConfig\); give max_context_tokens alone$"):
        LabConfig(budget=300, max_context_tokens=400)


def test_config_default_budget_is_the_engines():
    assert LabConfig().max_context_tokens == 2048 == PromptRequest("q").max_context_tokens


def test_config_every_default_budget_is_the_settings_one():
    from contextlab import ContextConfig, ContextManager
    from contextlab.evaluation.grid import expand_grid
    from contextlab.integrations._common import engine_config
    from contextlab.settings import DEFAULT_MAX_CONTEXT_TOKENS, EngineSettings

    assert DEFAULT_MAX_CONTEXT_TOKENS == 2048
    assert (EngineSettings().max_context_tokens, ContextConfig().max_context_tokens,
            engine_config().max_context_tokens, expand_grid({})[0].config.max_context_tokens) == (2048,) * 4
    assert ContextManager().tokenizer.name == EngineSettings().tokenizer == ContextConfig().tokenizer == "cl100k_base"


def test_config_link_whose_older_switch_contradicts_its_placement_is_reported():
    config, warnings = LabConfig.from_query_params({"use_lost_in_middle": "false", "placement": "reversed"})
    assert config.placement == "reversed"
    assert warnings == ["ignored URL parameter use_lost_in_middle='false': placement='reversed' contradicts "
                        "use_lost_in_middle=False (which means placement='relevance'); give placement alone "
                        "(use_lost_in_middle is the older switch)"]
    assert LabConfig.from_query_params({"use_lost_in_middle": "false", "placement": "relevance"}) == (
        LabConfig(placement="relevance"), [])


def test_config_curve_placement_builds_wherever_settings_are_read():
    # One place (ContextManager.from_settings) supplies the published curve "curve" follows by default.
    from contextlab.curves.published import position_curve
    from contextlab.integrations._common import ContextLabStep
    from contextlab.manager import ContextManager
    from contextlab.settings import DEFAULT_CURVE_MODEL, EngineSettings

    published = position_curve(DEFAULT_CURVE_MODEL)
    assert DEFAULT_CURVE_MODEL == "GPT-3.5-Turbo"
    assert ContextManager.from_settings(EngineSettings(placement="curve")).position_curve == published
    assert LabConfig(placement="curve").make_manager().position_curve == published
    assert ContextLabStep("test", placement="curve").manager.position_curve == published
    assert ContextManager.from_settings(EngineSettings()).position_curve is None


def test_config_settings_own_measure_score_label_and_memory_and_reach_the_manager():
    from contextlab.manager import ContextManager
    from contextlab.settings import EngineSettings

    settings = EngineSettings(dedup_measure="shingle_jaccard", score_label="bm25", max_memory_messages=3)
    manager = ContextManager.from_settings(settings)
    assert (manager.dedup_measure, manager.score_label, manager.max_memory_messages) == ("shingle_jaccard", "bm25", 3)
    default = ContextManager.from_settings(EngineSettings())
    assert (default.dedup_measure, default.score_label, default.max_memory_messages) == ("word_edit", "relevance", 10)
    # Seed-compatible mode fixes seed 000's measure, as it fixes its tokenizer; the label and memory stay.
    seed = ContextManager.from_settings(EngineSettings(seed_compatible=True, score_label="bm25", max_memory_messages=3))
    assert (seed.dedup_measure, seed.score_label, seed.max_memory_messages) == ("shingle_jaccard", "bm25", 3)
    assert "(bm25: 0.50)" in manager.build(PromptRequest("q", [Document("refunds take five to ten working days", 0.5)])).context_block


@pytest.mark.parametrize(("data", "match"), [
    ({"dedup_measure": "cosine"}, "unknown dedup_measure 'cosine'; choose one of: word_edit, shingle_jaccard"),
    ({"score_label": " "}, "score_label must name the score"),
    ({"max_memory_messages": -1}, "max_memory_messages must be a whole number >= 0"),
])
def test_config_bad_measure_score_label_or_memory_raises(data, match):
    from contextlab.settings import EngineSettings

    with pytest.raises(ValueError, match=match):
        EngineSettings.from_dict(data)
