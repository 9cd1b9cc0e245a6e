"""One vocabulary: every flag, grid key and file column is a field of EngineSettings or a named run option.

The library's names (``contextlab.settings``) are the only names in files; the command line's
short spellings (``--budget``) are spellings of the same flag, listed in ``cli/flags.py`` and
nowhere else. These tests walk every parser and every file the package writes.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from dataclasses import fields

import pytest

from contextlab.cli import build_parser
from contextlab.cli.flags import FLAGS, GRID_KEYS, RUN_OPTIONS, SETTING_FLAGS, SHORT_SPELLINGS, describe
from contextlab.errors import InvalidInputError
from contextlab.lab.config import LabConfig
from contextlab.settings import BLOCK_SETTINGS, SETTING_NAMES, EngineSettings
from contextlab.types import FATES, Document

FIELDS = {f.name for f in fields(EngineSettings)}
#: The names users type on the command line that are not the library's: they must never reach a file.
SHORT_NAMES = {s.lstrip("-").replace("-", "_") for spellings in SHORT_SPELLINGS.values() for s in spellings} - {
    "b",
    "t",
}


def _parsers(parser: argparse.ArgumentParser, prog: str = "contextlab"):
    """Yield (command, parser) for every command and sub-command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{prog} {name}", sub
                yield from _parsers(sub, f"{prog} {name}")


def _options():
    """Yield (command, action) for every option (not positional, not --help/--version) of every command."""
    for command, parser in _parsers(build_parser()):
        for action in parser._actions:
            if action.option_strings and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                yield command, action


def test_vocabulary_every_setting_of_a_block_has_its_flag_named_after_its_field():
    assert set(SETTING_FLAGS) == set(BLOCK_SETTINGS) == FIELDS - {"max_memory_messages"}
    assert {name: spellings[0] for name, spellings in SETTING_FLAGS.items()} == {
        "max_context_tokens": "--max-context-tokens",
        "dedup_threshold": "--dedup-threshold",
        "min_doc_tokens": "--min-doc-tokens",
        "placement": "--placement",
        "summarize_overflow": "--summarize-overflow",
        "seed_compatible": "--seed-compatible",
        "tokenizer": "--tokenizer",
        "budget_before_reorder": "--budget-before-reorder",
        "budget_includes_headers": "--budget-includes-headers",
        "dedup_measure": "--dedup-measure",
        "score_label": "--score-label",
    }
    assert SETTING_FLAGS["max_context_tokens"] == ("--max-context-tokens", "--budget", "-b")
    assert not set(SETTING_FLAGS) & set(RUN_OPTIONS)  # a run option is never a setting's other name


def test_vocabulary_every_flag_of_every_command_is_in_the_one_table():
    seen = set()
    for command, action in _options():
        assert action.dest in FIELDS or action.dest in RUN_OPTIONS, f"{command}: {action.option_strings}"
        table = SETTING_FLAGS.get(action.dest) or RUN_OPTIONS[action.dest]
        # BooleanOptionalAction adds the --no- forms of each spelling; nothing else may differ.
        typed = [s for s in action.option_strings if not (s.startswith("--no-") and f"--{s[5:]}" in table)]
        assert typed == list(table), f"{command} {action.dest}: {action.option_strings} vs {table}"
        seen.add(action.dest)
    assert set(SETTING_FLAGS) <= seen  # build and sweep take every setting
    assert not set(RUN_OPTIONS) - seen, "a run option no command has"


def test_vocabulary_every_command_writes_its_file_with_out():
    outs = {command for command, action in _options() if action.dest == "out"}
    assert outs == {"contextlab build", "contextlab sweep", "contextlab eval", "contextlab curve", "contextlab chunk"}
    assert not [a for _, a in _options() if "--output" in a.option_strings]


def test_vocabulary_grid_keys_are_fields_and_the_short_spellings():
    from contextlab.evaluation.grid import GRID_KEYS as LIBRARY_GRID_KEYS

    assert set(LIBRARY_GRID_KEYS) == set(BLOCK_SETTINGS)
    assert set(GRID_KEYS.values()) == set(LIBRARY_GRID_KEYS)
    assert {k: v for k, v in GRID_KEYS.items() if k != v} == {
        "budget": "max_context_tokens",
        "threshold": "dedup_threshold",
        "min_tokens": "min_doc_tokens",
        "summarize": "summarize_overflow",
    }


def test_vocabulary_errors_name_the_flag_of_the_field():
    assert FLAGS["max_context_tokens"] == "--max-context-tokens" and FLAGS["out"] == "--out"
    exc = InvalidInputError("max_context_tokens must be a whole number >= 0, got -1", field="max_context_tokens")
    assert describe(exc) == "--max-context-tokens must be a whole number >= 0, got -1"


def test_vocabulary_sweep_columns_are_fields_fates_and_result_names():
    from contextlab.lab.sweep import SWEEP_COLUMNS, run_sweep, write_csv

    assert (
        "dedup_threshold",
        "max_context_tokens",
        *FATES,
        "in_block",
        "tokens_used",
        "utilization_pct",
    ) == SWEEP_COLUMNS
    rows = run_sweep(
        [Document("refunds take five days to reach a card", 0.9)], LabConfig(tokenizer="heuristic"), [0.9], [50]
    )
    buffer = io.StringIO()
    write_csv(rows, buffer)
    assert next(csv.reader(io.StringIO(buffer.getvalue()))) == list(SWEEP_COLUMNS)
    assert not set(SWEEP_COLUMNS) & SHORT_NAMES


def test_vocabulary_results_csv_and_summary_use_field_names(tmp_path):
    from contextlab.evaluation import RunOptions, evaluate_to_files
    from contextlab.evaluation.metrics import METRIC_COLUMNS

    out, summary = tmp_path / "r.csv", tmp_path / "s.json"
    evaluate_to_files(
        None, out, summary, grid=["max_context_tokens=256", "placement=relevance,reversed"], options=RunOptions(limit=2)
    )
    header = next(csv.reader(out.open(encoding="utf-8")))
    assert header == ["config", "query_id", "query", "max_context_tokens", "placement", *METRIC_COLUMNS]
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert set(data["grid"]) == {"max_context_tokens", "placement"}
    assert set(data["settings"]) == FIELDS - set(data["grid"])
    assert "configurations" not in data and len(data["configs"]) == 2
    assert data["curve_model"] == "GPT-3.5-Turbo" and "model" not in data  # RunOptions.curve_model, --curve-model
    assert not (set(header) | set(data)) & SHORT_NAMES


def test_vocabulary_exports_links_and_captures_use_field_names():
    from contextlab.integrations._common import ContextLabStep
    from contextlab.runs.captures import capture_record

    config = LabConfig(
        max_context_tokens=300,
        dedup_threshold=0.6,
        min_doc_tokens=1,
        summarize_overflow=True,
        score_label="bm25",
        max_memory_messages=2,
        query="q",
    )
    assert set(json.loads(config.to_json())) == {"contextlab_config", "query", *SETTING_NAMES}
    assert set(config.to_query_params()) == {
        "max_context_tokens",
        "dedup_threshold",
        "min_doc_tokens",
        "summarize_overflow",
        "score_label",
        "max_memory_messages",
        "query",
    }
    step = ContextLabStep("test", max_context_tokens=300)
    record = capture_record("q", [], step.config.to_dict(), None)
    assert set(record["settings"]) == FIELDS


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_vocabulary_every_setting_reaches_the_manager_from_settings(name):
    from contextlab.manager import ContextManager

    changed = {
        "max_context_tokens": 99,
        "dedup_threshold": 0.5,
        "min_doc_tokens": 1,
        "placement": "reversed",
        "summarize_overflow": True,
        "seed_compatible": True,
        "tokenizer": "heuristic",
        "budget_before_reorder": False,
        "budget_includes_headers": False,
        "dedup_measure": "shingle_jaccard",
        "score_label": "bm25",
        "max_memory_messages": 3,
    }[name]
    manager = ContextManager.from_settings(EngineSettings(**{name: changed}))
    default = ContextManager.from_settings(EngineSettings())
    if name == "max_context_tokens":  # the budget is the request's, not the manager's
        assert LabConfig(max_context_tokens=changed).build([Document("a b c d e f", 0.5)]).tokens_budget == changed
    elif name == "seed_compatible":
        assert manager.is_seed_mode and not default.is_seed_mode
    else:
        value = getattr(manager, name)
        assert (
            (value.name if name == "tokenizer" else value)
            == changed
            != (default.tokenizer.name if name == "tokenizer" else getattr(default, name))
        )
