"""contextlab.evaluation.orders and ``build --endpoint --orders``: one question, the answer first, middle, last.

Planning needs no model (a port nothing listens on stands for the endpoint: nothing is sent). The
slow tests ask the bundled model for real (``LocalModelServer``), through the library and the CLI.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from contextlab.errors import InvalidInputError
from contextlab.evaluation.measured import MeasureSettings
from contextlab.evaluation.orders import order_places, order_position, parse_orders, plan_orders
from contextlab.lab.config import LabConfig
from contextlab.lab.samples import SAMPLE_DATA_DIR, load_sample_set

_NOWHERE = "http://127.0.0.1:9/v1"  # the discard port: planning must not need it
_POSTMORTEM = "wiki/postmortems/2025-11-12-checkout-latency.md"


def _plan(name: str = "eng_postmortems", budget: int = 1000, *, answer: bool = True, **measure):
    sample = load_sample_set(name)
    settings = MeasureSettings(
        endpoint=measure.pop("endpoint", _NOWHERE),
        api="completions",
        shots=measure.pop("shots", 0),
        **({"use_cache": False} | measure),
    )
    config = LabConfig(query=sample.query, max_context_tokens=budget)
    return plan_orders(
        sample.documents,
        config,
        sample.query,
        measure=settings,
        answer=sample.answer_indices() if answer else (),
        gold_answers=sample.answers,
    )


def test_orders_parse_and_positions():
    assert parse_orders("first, last") == ("first", "last")
    assert parse_orders(["middle", "middle"]) == ("middle",)
    assert [order_position(o, 6) for o in ("first", "middle", "last")] == [1, 3, 6]
    with pytest.raises(InvalidInputError, match=r"^orders: 'end'; give some of first, middle, last"):
        parse_orders("first,end")


def test_orders_move_only_the_answer_document_every_other_keeps_its_block_order():
    plan = _plan()
    assert (plan.moved_as, plan.block_size, [c.position for c in plan.cases]) == ("the answer", 6, [1, 3, 6])
    others = [
        "wiki/runbooks/checkout-latency.md",
        "wiki/drafts/checkout-latency-postmortem-draft.md",
        "wiki/platform/pgbouncer.md",
        "wiki/services/checkout/old-notes.md",
        "slack/export/inc-checkout-2025-11-12.txt",
    ]
    for case in plan.cases:
        sources = [d.source for d in case.documents]
        assert sources.index(_POSTMORTEM) == case.position - 1
        assert [s for s in sources if s != _POSTMORTEM] == others
        assert f"--- Source [{case.position}] {_POSTMORTEM} ---" in case.block
        assert case.prompt.endswith(
            "Question: Why did checkout p99 latency spike on 12 November, and what fixed it?\nAnswer:"
        )
    assert plan.gold_answers[:2] == ("missing index", "sequential scan")
    assert plan.cost().describe("http://127.0.0.1:1/v1") == (
        "3 calls, 3,063 prompt tokens (approximate: cl100k_base) to http://127.0.0.1:1/v1"
    )


def test_orders_without_a_known_answer_move_the_most_relevant_document():
    plan = _plan(answer=False)
    assert plan.moved_as == "the most relevant"
    assert plan.cases[0].documents[0].source == "wiki/runbooks/checkout-latency.md"  # rank 1


def test_orders_refuse_a_block_too_small_and_an_answer_left_out():
    with pytest.raises(
        InvalidInputError,
        match=r"^orders: the block holds 2 document\(s\), too few for 3 different places; raise the budget",
    ):
        _plan("support_faq", 300)
    # seed 000 reorders first, so its budget cuts the postmortem (the second-best-cut scenario)
    seed = LabConfig(max_context_tokens=1000, seed_compatible=True)
    with pytest.raises(
        InvalidInputError,
        match=r"^orders: the document that holds the answer \(#23\) is not in "
        r"the block \(excluded\); raise the budget so it fits",
    ):
        plan_orders(
            load_sample_set("eng_postmortems").documents,
            seed,
            "checkout latency",
            measure=MeasureSettings(endpoint=_NOWHERE, use_cache=False),
            answer=(23,),
        )


def test_orders_cli_refuses_orders_without_an_endpoint_in_one_line(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "contextlab.cli",
            "build",
            str(SAMPLE_DATA_DIR / "support_faq.json"),
            "--orders",
            "first,last",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode != 0 and proc.stdout == ""
    assert proc.stderr == (
        "contextlab: error: --orders asks a model: give --endpoint URL too (`contextlab model serve` starts one)\n"
    )


def test_orders_cli_shows_a_document_source_escaped_never_raw(tmp_path):
    evil = "evil\ncontextlab: note: forged \x1b]0;title\x07 \x1b[31mred \u202eoverride"
    docs = [
        {"content": "The capital of France is Paris, a large city on the Seine river.", "source": evil, "score": 0.9},
        {"content": "Berlin is the capital of Germany and a big city too.", "source": "b", "score": 0.5},
    ]
    (tmp_path / "docs.json").write_text(json.dumps(docs), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "build", "docs.json", "-q", "capital of France"]
        + ["--endpoint", _NOWHERE, "--orders", "first,last", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1  # nobody at a terminal to say yes: nothing is sent
    assert proc.stderr.splitlines()[0] == (
        "contextlab: asking 2 orders of 2 documents, the most relevant (#0 evil\\ncontextlab: note: forged "
        "\\x1b]0;title\\x07 \\x1b[31mred \\u202eoverride) moved"
    )
    assert "\x1b" not in proc.stderr and "\u202e" not in proc.stderr
    assert not [line for line in proc.stderr.splitlines() if line.startswith("contextlab: note: forged")]


@pytest.fixture(scope="module")
def bundled():
    pytest.importorskip("xllamacpp")
    pytest.importorskip("openai")
    from contextlab.models import LocalModelServer

    with LocalModelServer(port=0, parallel=1, context=2048) as server:
        yield server.url


@pytest.mark.slow
@pytest.mark.integration
def test_orders_ask_the_bundled_model_three_times_then_answer_from_the_cache(bundled, tmp_path):
    cache = tmp_path / "responses.sqlite"
    plan = _plan("support_faq", 400, endpoint=bundled, cache=cache, use_cache=True)
    assert plan.cost().calls == 3
    seen = []
    answers = plan.run(on_answer=seen.append)
    assert seen == answers and [(a.order, a.position) for a in answers] == [("first", 1), ("middle", 2), ("last", 3)]
    assert all(isinstance(a.correct, bool) and not a.cached for a in answers)  # the sample knows its answers
    assert plan.model_name(answers) == "gemma-3-270m-q4_k_m"
    again = _plan("support_faq", 400, endpoint=bundled, cache=cache, use_cache=True)
    assert again.cost().calls == 0
    cached = again.run()
    assert [a.answer for a in cached] == [a.answer for a in answers] and all(a.cached for a in cached)
    assert again.model_name(cached) == "gemma-3-270m-q4_k_m"  # named after a rerun from the cache too


@pytest.mark.slow
@pytest.mark.integration
def test_orders_cli_asks_the_bundled_model_and_prints_each_order(bundled, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "contextlab.cli",
            "build",
            str(SAMPLE_DATA_DIR / "support_faq.json"),
            "--budget",
            "400",
            "--query",
            load_sample_set("support_faq").query,
            "--endpoint",
            bundled,
            "--api",
            "completions",
            "--orders",
            "first,middle,last",
            "--answer-source",
            "help-center/billing/refunds.md",
            "--gold",
            "pro rata",
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--yes",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=Path(tmp_path),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [(o["order"], o["position"], o["documents"]) for o in out["orders"]] == [
        ("first", 1, 3),
        ("middle", 2, 3),
        ("last", 3, 3),
    ]
    assert out["moved"]["source"] == "help-center/billing/refunds.md" and out["model"] == "gemma-3-270m-q4_k_m"
    assert re.search(r"this run sends 3 calls, [\d,]+ prompt tokens", proc.stderr)


def test_order_places_spread_a_count_of_orders_from_first_to_last():
    assert order_places(3, 10) == {"first": 1, "middle": 5, "last": 10}
    assert order_places("5", 9) == {"first": 1, "position 3": 3, "middle": 5, "position 7": 7, "last": 9}
    assert order_places(4, 4) == {"first": 1, "middle": 2, "position 3": 3, "last": 4}
    assert order_places("first,last", 6) == {"first": 1, "last": 6}


@pytest.mark.parametrize(
    ("orders", "n", "said"),
    [
        (1, 10, "orders must be a whole number from 2 to 10, got 1"),
        ("11", 20, "orders must be a whole number from 2 to 10, got '11'"),
        ("²", 20, "orders: '²'; give some of first, middle, last"),
        (5, 4, "the block holds 4 document(s), too few for 5 different places"),
    ],
)
def test_order_places_refuse_bad_counts_naming_the_field(orders, n, said):
    with pytest.raises(InvalidInputError) as caught:
        order_places(orders, n)
    assert said in str(caught.value)


def test_orders_cli_takes_a_count_of_orders_and_refuses_one_past_ten_in_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "build", str(SAMPLE_DATA_DIR / "support_faq.json"), "-q", "refund"]
        + ["--endpoint", "http://127.0.0.1:9/v1", "--no-cache", "--orders", "11"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode != 0 and proc.stdout == ""
    assert proc.stderr == "contextlab: error: --orders must be a whole number from 2 to 10, got '11'\n"
