from __future__ import annotations

import pytest

from contextlab import PromptRequest
from contextlab.lab.config import LabConfig
from contextlab.stages.reorder import PLACEMENTS
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


def test_config_seed_switch_is_not_a_setting_of_files_or_links():
    # use_lost_in_middle is a keyword of ContextManager (seed 000's API), not a name files or links use.
    with pytest.raises(ValueError, match="unknown configuration field.*use_lost_in_middle"):
        LabConfig.from_dict({"use_lost_in_middle": False})
    assert LabConfig.from_query_params({"use_lost_in_middle": "false"}) == (LabConfig(), [])


def test_config_build_uses_its_query_and_budget():
    docs = [Document(f"document {i} explains refunds and how long they take", 0.9 - i / 10, f"d{i}") for i in range(6)]
    config = LabConfig(query="refunds", max_context_tokens=40, tokenizer="heuristic", placement="reversed")
    expected = config.make_manager().build(PromptRequest("refunds", docs, max_context_tokens=40))
    assert config.build(docs).context_block == expected.context_block


def test_config_bad_query_params_fall_back_with_warning():
    config, warnings = LabConfig.from_query_params(
        {"max_context_tokens": "lots", "dedup_threshold": "2", "min_doc_tokens": "3"}
    )
    assert config == LabConfig(min_doc_tokens=3)
    assert len(warnings) == 2 and "max_context_tokens" in warnings[0] and "dedup_threshold" in warnings[1]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"max_context_tokens": -5}, "max_context_tokens must be a whole number >= 0"),
        ({"budget": 300}, r"unknown configuration field\(s\): budget; known fields are: max_context_tokens"),
        ({"dedup_threshold": 0}, r"dedup_threshold must be a number from 0\.01 to 1 \(1 removes only copies\), got 0"),
        ({"dedup_threshold": 0.005}, r"dedup_threshold must be a number from 0\.01 to 1 .*, got 0\.005"),
        ({"max_context_tokens": 10_000_001}, "max_context_tokens must be a whole number <= 10,000,000"),
        ({"tokenizer": "bpe"}, "unknown tokenizer 'bpe'"),
        ({"placement": "middle"}, "unknown placement 'middle'; choose one of: lost_in_the_middle"),
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
    docs = [
        Document(f"document number {i} talks about refunds and plans in detail", 0.9 - i / 20, f"d{i}")
        for i in range(8)
    ]
    config = LabConfig(
        query="refunds", max_context_tokens=60, dedup_threshold=0.7, tokenizer="heuristic", placement=placement
    )
    snippet = config.code_snippet(documents_expr="DOCS")
    namespace = {"DOCS": docs, "print": lambda *a: None}
    exec(snippet.replace("from contextlab.loaders import load_file\n", ""), namespace)
    expected = config.make_manager().build(PromptRequest("refunds", docs, max_context_tokens=60))
    assert namespace["result"].context_block == expected.context_block
    assert ("placement=" in snippet) is (placement != "lost_in_the_middle")


def test_config_has_no_alias_for_older_names():
    # A 0.x package: the budget is max_context_tokens in code, files and links, and nowhere ``budget``.
    with pytest.raises(TypeError, match="budget"):
        LabConfig(budget=300)
    with pytest.raises(TypeError, match="budget"):
        LabConfig().with_changes(budget=300)
    assert not hasattr(LabConfig(), "budget")
    assert LabConfig.from_query_params({"budget": "300"}) == (LabConfig(), [])
    assert LabConfig(max_context_tokens=300).to_query_params() == {"max_context_tokens": "300"}
    assert '"max_context_tokens": 300' in LabConfig(max_context_tokens=300).to_json()


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        (
            "max_context_tokens=700&dedup_threshold=0.6&tokenizer=heuristic&view=budget",
            LabConfig(max_context_tokens=700, dedup_threshold=0.6, tokenizer="heuristic"),
        ),
        ("seed_compatible=true&max_context_tokens=700", LabConfig(seed_compatible=True, max_context_tokens=700)),
        (
            "summarize_overflow=true&max_context_tokens=1500&dedup_threshold=0.3&sample=support_faq",
            LabConfig(summarize_overflow=True, max_context_tokens=1500, dedup_threshold=0.3),
        ),
        (
            "placement=curve&min_doc_tokens=0&budget_before_reorder=false&budget_includes_headers=false&query=why+refunds",
            LabConfig(
                placement="curve",
                min_doc_tokens=0,
                budget_before_reorder=False,
                budget_includes_headers=False,
                query="why refunds",
            ),
        ),
        ("scenario=faq_copies&dedup_threshold=0.95&present=1", LabConfig(dedup_threshold=0.95)),
    ],
)
def test_config_share_links_this_version_wrote_keep_loading(link, expected):
    # Links as this version's lab writes them (ui.share.url_params: the library's names, defaults left out).
    from urllib.parse import parse_qs

    assert LabConfig.from_query_params(parse_qs(link)) == (expected, [])
    assert {k: v for k, v in expected.to_query_params().items()} == {
        k: v[-1] for k, v in parse_qs(link).items() if k in LabConfig.__dataclass_fields__
    }


def test_config_default_budget_is_the_engines():
    from contextlab import ContextManager

    # A request that states no budget builds at the manager's, which is the settings' (2048 by default).
    assert PromptRequest("q").max_context_tokens is None
    assert LabConfig().max_context_tokens == 2048 == ContextManager().max_context_tokens
    docs = [Document("refunds take five to ten working days " * 400, 0.9, "long")]
    assert ContextManager().build(PromptRequest("refunds", docs)).tokens_budget == 2048


def test_config_lab_export_builds_in_the_library_at_its_budget():
    from contextlab import ContextManager
    from contextlab.settings import EngineSettings

    # What the lab's "Download configuration (JSON)" writes: the settings, its marker and its query.
    exported = LabConfig(query="refunds", max_context_tokens=1200, dedup_threshold=0.7).to_json()
    assert '"query": "refunds"' in exported and '"contextlab_config": 1' in exported
    settings = EngineSettings.from_json(exported)
    assert settings == EngineSettings(max_context_tokens=1200, dedup_threshold=0.7)
    docs = [Document(" ".join(f"refund{i}rule{j}" for j in range(150)), 0.9 - i / 10) for i in range(6)]
    result = ContextManager.from_settings(settings).build(PromptRequest("refunds", docs))
    assert result.tokens_budget == 1200
    assert 1000 < result.tokens_used <= 1200
    # A request's own budget still wins over the manager's.
    assert ContextManager.from_settings(settings).build(PromptRequest("refunds", docs, [], 300)).tokens_budget == 300


def test_config_query_outside_an_export_is_still_an_unknown_field():
    from contextlab.settings import EngineSettings

    with pytest.raises(ValueError, match=r"unknown configuration field\(s\): query"):
        EngineSettings.from_dict({"query": "refunds", "max_context_tokens": 1200})


def test_config_every_default_budget_is_the_settings_one():
    from contextlab import ContextConfig, ContextManager
    from contextlab.evaluation.grid import expand_grid
    from contextlab.integrations._common import engine_config
    from contextlab.settings import DEFAULT_MAX_CONTEXT_TOKENS, EngineSettings

    assert DEFAULT_MAX_CONTEXT_TOKENS == 2048
    assert (
        EngineSettings().max_context_tokens,
        ContextConfig().max_context_tokens,
        engine_config().max_context_tokens,
        expand_grid({})[0].config.max_context_tokens,
    ) == (2048,) * 4
    assert ContextManager().tokenizer.name == EngineSettings().tokenizer == ContextConfig().tokenizer == "cl100k_base"


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
    assert (
        "(bm25: 0.50)"
        in manager.build(PromptRequest("q", [Document("refunds take five to ten working days", 0.5)])).context_block
    )


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"dedup_measure": "cosine"}, "unknown dedup_measure 'cosine'; choose one of: word_edit, shingle_jaccard"),
        ({"score_label": " "}, "score_label must name the score"),
        ({"max_memory_messages": -1}, "max_memory_messages must be a whole number >= 0"),
    ],
)
def test_config_bad_measure_score_label_or_memory_raises(data, match):
    from contextlab.settings import EngineSettings

    with pytest.raises(ValueError, match=match):
        EngineSettings.from_dict(data)


@pytest.mark.parametrize(
    ("name", "raw", "warning"),
    [
        ("dedup_threshold", "0.005", "ignored URL parameter dedup_threshold='0.005': a number from 0.01 to 1"),
        ("dedup_threshold", "nan", "ignored URL parameter dedup_threshold='nan': a number from 0.01 to 1"),
        ("dedup_threshold", "1" * 5000, "a number from 0.01 to 1"),
        (
            "max_context_tokens",
            "\u00b2",
            "ignored URL parameter max_context_tokens='\u00b2': a whole number from 0 to 10,000,000",
        ),
        (
            "max_context_tokens",
            "1" * 5000,
            "ignored URL parameter max_context_tokens='11111111111111111...111111111111111111' (5,000 characters): "
            "a whole number from 0 to 10,000,000",
        ),
        ("max_context_tokens", "10000001", "a whole number from 0 to 10,000,000"),
        ("min_doc_tokens", "\u0663", "ignored URL parameter min_doc_tokens='\u0663': a whole number from 0 to 100,000"),
        ("max_memory_messages", "-1", "a whole number from 0 to 100,000"),
        (
            "placement",
            "x" * 300,
            "ignored URL parameter placement='xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx' (300 characters)",
        ),
    ],
)
def test_config_share_link_bad_values_fall_back_with_a_short_warning(name, raw, warning):
    # The bad value falls back to its default; the rest of the link still applies.
    config, warnings = LabConfig.from_query_params({name: raw, "query": "refunds"})
    assert getattr(config, name) == getattr(LabConfig(), name)
    assert config.query == "refunds"
    [said] = warnings
    assert warning in said and len(said) < 250


@pytest.mark.parametrize(
    ("name", "raw", "value"),
    [
        ("dedup_threshold", "0.01", 0.01),
        ("dedup_threshold", "1", 1.0),
        ("max_context_tokens", "0", 0),
        ("max_context_tokens", "10000000", 10_000_000),
        ("min_doc_tokens", "100000", 100_000),
        ("max_memory_messages", "0", 0),
    ],
)
def test_config_share_link_takes_each_end_of_the_settings_range(name, raw, value):
    config, warnings = LabConfig.from_query_params({name: raw})
    assert (getattr(config, name), warnings) == (value, [])
