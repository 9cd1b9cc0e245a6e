"""Planning a curve (power before spending, looks with α split) and where its documents come from, without a model.

What the bundled model answers under these plans is tested in tests/test_curve_bundled.py.
"""

from __future__ import annotations

import json

import pytest

from contextlab.cli import main
from contextlab.curves.evidence import position_effect
from contextlab.curves.outcomes import outcomes_csv, parse_outcomes
from contextlab.errors import LoadError
from contextlab.evaluation.curve import CurveAnswer, plan_curve
from contextlab.evaluation.curve_design import _look, curve_power, look_schedule
from contextlab.evaluation.sets import parse_eval_records
from contextlab.models.pace import (
    RunPace,
    ServerTiming,
    estimate_seconds,
    remember_pace,
    server_timing,
)

# -- power before spending -------------------------------------------------------------------


def test_curve_power_states_what_n_detects_and_what_d_needs():
    # Three positions: alpha 0.05 / 3 (z = 2.394). D = 10 points at psi 0.25:
    # (2.394 * 0.5 + 0.8416 * sqrt(0.24))^2 / 0.01 = 258.99 -> 259. N = 200: sqrt(200) d = 1.197 + 0.8416
    # sqrt(0.25 - d^2) at d = 0.114.
    assert curve_power(200, 3, detect=10).lines() == [
        "200 questions per position detect a difference of 11.4 points or more (paired McNemar, 80% power, "
        "α = 0.05 split over 3 comparisons, assuming 25% of questions are answered differently at two positions)",
        "a 10-point difference needs about 259 questions per position",
    ]


def test_curve_power_says_when_the_assumed_discordance_cannot_hold_the_difference():
    lines = curve_power(30, 2, detect=30).lines()
    assert lines[0].startswith("30 questions per position detect a difference of 24.6 points or more")
    assert lines[1] == (
        "a 30-point difference cannot be shown when only 25% of questions answer differently; "
        "give a larger --discordance if you expect more"
    )
    assert curve_power(5, 2).lines()[0].startswith("5 questions per position cannot detect any difference")


# -- looks -----------------------------------------------------------------------------------


def test_look_schedule_splits_alpha_over_looks_and_tests():
    schedule = look_schedule(50, 200, 3)
    assert schedule.looks == (50, 100, 150, 200)
    assert (schedule.test_alpha, schedule.look_alpha) == (0.00625, 0.0125)
    assert schedule.describe() == (
        "looks after 50, 100, 150, 200 questions; α = 0.05 split over 4 looks x 2 "
        "test(s) (first against last, and Cochran's Q), Bonferroni: each tested at "
        "p < 0.00625, claims at α = 0.0125"
    )
    two = look_schedule(50, 120, 2)  # the last look at the maximum; one test for two positions
    assert (two.looks, two.tests) == ((50, 100, 120), 1)


def test_look_resolves_only_below_the_split_alpha():
    schedule = look_schedule(40, 160, 2)  # 4 looks, 1 test: p < 0.0125

    def ends(only_last: int) -> list[bool]:
        return [i < only_last for i in range(40)]

    # 0 against 8 discordant: p = 2 / 256 = 0.0078 < 0.0125 (resolved); 0 against 7: p = 0.0156 (not).
    shown = _look(position_effect(outcomes={1: [False] * 40, 5: ends(8)}, total_docs=5, alpha=0.0125), schedule)
    assert (shown.first_last_p, shown.resolved) == (0.0078125, True)
    held = _look(position_effect(outcomes={1: [False] * 40, 5: ends(7)}, total_docs=5, alpha=0.0125), schedule)
    assert (held.first_last_p, held.resolved) == (0.015625, False)
    assert held.describe(schedule) == "look at 40 questions: first against last p = 0.0156; not resolved at p < 0.0125"


# -- your own questions ----------------------------------------------------------------------


def _set(*records):
    return parse_eval_records([json.loads(json.dumps(r)) for r in records], name="mine.jsonl")


def test_curve_own_set_puts_the_gold_among_the_questions_other_documents():
    docs = [
        {"content": "Paris is the capital of France.", "source": "paris"},
        {"content": "Berlin is a city in Germany.", "source": "berlin"},
        {"content": "Rome is old.", "source": "rome"},
        {"content": "Madrid has a river.", "source": "madrid"},
    ]
    evalset = _set(
        {"id": "a", "query": "capital of france?", "documents": docs, "gold_sources": ["paris"], "answers": ["Paris"]}
    )
    plan = plan_curve(evalset, documents=3, positions="1,3", limit=5)
    assert [(c.kind, c.position) for c in plan.cases] == [
        ("closed_book", None),
        ("oracle", 1),
        ("position", 1),
        ("position", 3),
    ]
    first, last = plan.cases[2].prompt, plan.cases[3].prompt
    assert "Document [1](Title: paris) Paris is the capital of France.\nDocument [2](Title: berlin)" in first
    assert "Document [2](Title: rome) Rome is old.\nDocument [3](Title: paris) Paris is the capital" in last
    assert "madrid" not in first  # K - 1 = 2 others, the first two in the file's order


def test_curve_own_set_skips_and_counts_questions_it_cannot_use():
    docs = [
        {"content": "Paris is the capital.", "source": "paris"},
        {"content": "Berlin.", "source": "berlin"},
        {"content": "Paris again, in another text.", "source": "paris-2"},
    ]
    rome = {"content": "Rome.", "source": "rome"}
    evalset = _set(
        {"id": "ok", "query": "q?", "documents": [*docs, rome], "gold_sources": ["paris"], "answers": ["Paris"]},
        {"id": "few", "query": "q?", "documents": docs[:2], "gold_sources": ["paris"], "answers": ["Paris"]},
        {"id": "nogold", "query": "q?", "documents": docs[1:2], "answers": ["Lyon"]},
        {"id": "noanswer", "query": "q?", "documents": docs, "gold_sources": ["paris"]},
    )
    plan = plan_curve(evalset, documents=2, positions="1,2", limit=10)
    assert [q.query_id for q in plan.questions] == ["ok", "few"]
    assert [(s.query_id, s.reason) for s in plan.skipped] == [
        ("nogold", 'no gold document (name it in "gold_sources")'),
        ("noanswer", 'no "answers" to score the model\'s answer by'),
    ]
    # paris-2 holds the answer, so it is never a distractor: with 3 documents, "few" has 1 of 2 others.
    three = plan_curve(evalset, documents=3, positions="1,3", limit=10)
    assert [s.query_id for s in three.skipped] == ["few", "nogold", "noanswer"]
    assert three.skipped[0].reason == "only 1 other documents without an answer, 2 needed"
    assert three.skipped_note() == (
        "3 question(s) of mine.jsonl skipped (first: few: only 1 other documents "
        "without an answer, 2 needed); 1 measured"
    )


def test_curve_own_set_with_a_store_takes_its_nearest_passages_without_the_answer(tmp_path):
    from contextlab.retrieval import SQLiteBackend
    from contextlab.types import Document

    store = tmp_path / "store.db"
    with SQLiteBackend(str(store)) as backend:
        backend.add(
            [
                Document("The Eiffel Tower stands in Paris, France.", source="eiffel"),
                Document("The tower of Pisa leans in Italy.", source="pisa"),
                Document("Tower Bridge crosses the Thames in London.", source="bridge"),
                Document("Paris tower guides say Paris welcomes tourists.", source="guide"),
            ],
            ids=["eiffel", "pisa", "bridge", "guide"],
        )
    evalset = parse_eval_records(
        [{"id": "t", "query": "which city has the eiffel tower", "gold_sources": ["eiffel"], "answers": ["Paris"]}],
        name="mine.jsonl",
        store=str(store),
    )
    plan = plan_curve(evalset, documents=3, positions="1,3", limit=1)
    first = plan.cases[2].prompt
    assert "Document [1](Title: eiffel) The Eiffel Tower stands in Paris, France." in first
    # the other two: the store's nearest passages that are not gold and do not say "Paris"
    assert "guide" not in first and "(Title: pisa)" in first and "(Title: bridge)" in first


@pytest.mark.slow
def test_curve_bundled_plan_skips_questions_without_enough_distractors():
    plan = plan_curve(documents=5, positions="1,5", limit=170)
    assert [s.query_id for s in plan.skipped] == ["nq-166"]
    assert len(plan.questions) == 170 and plan.questions[-1].query_id == "nq-170"


def test_curve_sending_order_keeps_prompts_with_one_prefix_together():
    plan = plan_curve(documents=2, positions="1,2", limit=2, shots=1)
    kinds = {c.prompt: c.kind for c in plan.cases}
    assert [kinds[p] for p in plan.sending_order()] == ["oracle", "position", "position"] * 2 + ["closed_book"] * 2


# -- the outcomes file -----------------------------------------------------------------------


def test_curve_outcomes_round_trip_and_refuse_unpaired_files():
    rows = [
        CurveAnswer(q, "position", 3, p, "x", bool(c))
        for p, marks in ((1, (1, 0)), (3, (1, 1)))
        for q, c in zip(("a", "b"), marks, strict=False)
    ]
    text = outcomes_csv(rows)
    assert parse_outcomes(text).by_position() == {1: [True, False], 3: [True, True]}
    with pytest.raises(LoadError, match="position 3 of 3 has 1 questions, not the 2 of the others"):
        parse_outcomes("\n".join(text.splitlines()[:-1]) + "\n")
    with pytest.raises(LoadError, match="line 2: needs a query_id and correct 0 or 1"):
        parse_outcomes("query_id,kind,total_docs,position,correct\na,position,3,1,yes\n")
    with pytest.raises(LoadError, match="given twice"):
        parse_outcomes("query_id,kind,total_docs,position,correct\na,position,3,1,1\na,position,3,1,0\n")


# -- pace ------------------------------------------------------------------------------------


def test_pace_reads_llama_cpp_timings_and_ignores_nonsense():
    body = {"timings": {"cache_n": 300, "prompt_n": 100, "prompt_ms": 500.0, "predicted_ms": 250.0}}
    assert server_timing(body) == ServerTiming(100, 300, 500.0, 250.0)
    assert server_timing({"timings": {"prompt_n": -1, "prompt_ms": 5}}) is None
    assert server_timing({"timings": "fast"}) is None
    assert server_timing({}) is None


def test_pace_lines_say_rate_cached_share_and_wall_against_server_time():
    # 4 calls of 400 prompt tokens in 10 s at concurrency 2; the server: 750 ms a call, 300 of 400 cached.
    timing = ServerTiming(100, 300, 500.0, 250.0)
    pace = RunPace(calls=4, wall_s=10.0, concurrency=2, prompt_tokens=1600, completion_tokens=20, timings=(timing,) * 4)
    assert pace.lines() == [
        "4 calls in 10.0 s at concurrency 2: 160 prompt tokens/s, 2.50 s per call",
        "the server served 75% of prompt tokens from its cache",
        "wall 10.0 s against the server's own 1.5 s (its per-request times over 2 in flight): 6.67x",
    ]


def test_pace_is_remembered_for_the_next_estimate():
    from contextlab.models.cache import ResponseCache

    cache = ResponseCache(":memory:")
    assert estimate_seconds(cache, "http://h/v1", "m", 1000) is None
    remember_pace(cache, "http://h/v1", "m", RunPace(4, 10.0, 2, 1600, 20))
    seconds, basis = estimate_seconds(cache, "http://h/v1", "m", 3200)
    assert seconds == 20.0
    assert basis == "at the 160 prompt tokens/s measured over the last 4 calls to this endpoint (concurrency 2)"


# -- the command's arguments -----------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-questions", "50"], "--max-questions goes with --until-resolved"),
        (["--until-resolved"], "--until-resolved needs --max-questions N"),
        (["--until-resolved", "--max-questions", "5", "--limit", "10"], "--max-questions 5 is below the first batch"),
        (["--store", "x.db"], "--store goes with your own SET.jsonl"),
    ],
)
def test_curve_cli_bad_combinations_are_one_line(args, message, tmp_path, capsys):
    code = main(["curve", "--endpoint", "http://127.0.0.1:9/v1", *args, "--out", str(tmp_path / "c.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"contextlab curve: error: {message}")
    assert not (tmp_path / "c.csv").exists()


def test_curve_cli_bad_detect_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["curve", "--endpoint", "http://127.0.0.1:9/v1", "--detect", "0", "--out", str(tmp_path / "c.csv")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "expected a difference in points from 0 to 100" in err
