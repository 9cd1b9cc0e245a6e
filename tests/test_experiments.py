"""Context experiments against a FAKE model whose effect is known (tests/fake_model.py).

The fake answers from the first matching sentence of the documents it sees, sees only the last
``reach`` characters of them, and refuses when nothing matches: so each experiment must find the
effect that is there (a long context hides an early answer; a look-alike placed first misleads;
order flips answers; a removed answer is refused) and report none where none is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contextlab.errors import InvalidInputError
from contextlab.evaluation.curve_design import look_schedule
from contextlab.evaluation.experiments import (
    ExperimentResult,
    ExperimentSettings,
    check_window,
    experiment_csv,
    is_refusal,
    plan_experiment,
    run_experiment,
    run_experiment_until_resolved,
)
from contextlab.evaluation.experiments.contexts import read_filler
from contextlab.evaluation.sets import load_eval_set
from contextlab.models import ModelClient
from contextlab.tokenizers import get_tokenizer
from tests.fake_model import fake_model

QUESTIONS = 12


def _write_set(path: Path, *, misleading: bool) -> Path:
    """Write 12 questions: the gold sentence, then two look-alikes (``misleading``) or two neutral notes."""
    lines = []
    for k in range(1, QUESTIONS + 1):
        others = (
            [f"The code of item {k} is BOGUS{k}.", f"The code of item {k} is WRONG{k}."]
            if misleading
            else [f"Item {k} ships in a blue box.", f"Item {k} weighs two kilograms."]
        )
        docs = [{"source": f"item{k}", "content": f"The code of item {k} is ZXQ{k}."}]
        docs += [{"source": f"other{k}-{i}", "content": text} for i, text in enumerate(others)]
        lines.append(
            json.dumps(
                {
                    "id": f"q{k}",
                    "query": f"What is the code of item {k}?",
                    "answers": [f"ZXQ{k}"],
                    "gold_sources": [f"item{k}"],
                    "documents": docs,
                }
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _filler(path: Path, passages: int = 60) -> Path:
    text = "\n\n".join(
        f"Passage {i} tells of the weather in a small town by the sea, where the wind blows from the west "
        "most days and the boats stay in the harbour until the rain stops in the late afternoon."
        for i in range(passages)
    )
    path.write_text(text, encoding="utf-8")
    return path


def _run(
    tmp_path: Path, settings: ExperimentSettings, *, misleading: bool, reach: int = 1_000_000, refuse: bool = True
) -> ExperimentResult:
    evalset = load_eval_set(_write_set(tmp_path / f"set-{misleading}.jsonl", misleading=misleading))
    filler = read_filler(_filler(tmp_path / "filler.txt"))
    plan = plan_experiment(settings, evalset, tokenizer=get_tokenizer("cl100k_base"), filler=filler)
    with fake_model(reach=reach, refuse=refuse) as server:
        return run_experiment(plan, ModelClient(server.url, api="completions"), concurrency=4)


def test_experiments_length_finds_an_early_answer_lost_in_a_long_context(tmp_path: Path) -> None:
    settings = ExperimentSettings(kind="length", lengths=(100, 600), position=1, limit=QUESTIONS)
    result = _run(tmp_path, settings, misleading=False, reach=600)
    evidence = result.evidence()
    assert [p.rate for p in evidence.points] == [100.0, 0.0]
    assert evidence.differences[0].resolved
    assert evidence.lines()[0] == "the levels change accuracy: told apart on 12 questions"
    csv = experiment_csv(result, "fake")
    assert "model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high,context_tokens" in csv
    assert "fake,,1,100.0,length,12,75.7,100.0,100" in csv
    assert "fake,,1,0.0,length,12,0.0,24.3,600" in csv


def test_experiments_length_reports_nothing_when_the_answer_stays_in_reach(tmp_path: Path) -> None:
    settings = ExperimentSettings(kind="length", lengths=(100, 600), position=30, limit=QUESTIONS)
    evidence = _run(tmp_path, settings, misleading=False, reach=600).evidence()
    assert [p.rate for p in evidence.points] == [100.0, 100.0]
    assert not evidence.shows_effect
    assert evidence.lines()[0] == "no change in accuracy shown: cannot tell on 12 questions"
    assert evidence.lines()[1].endswith("cannot tell on 12 questions; no difference was seen")


def test_experiments_related_distractors_mislead_and_random_ones_do_not(tmp_path: Path) -> None:
    related = ExperimentSettings(kind="distractors", distractors=(0, 2), distractor_kind="related", limit=QUESTIONS)
    evidence = _run(tmp_path, related, misleading=True).evidence()
    assert evidence.points[0].rate == 100.0
    assert evidence.points[1].rate < 50.0
    assert evidence.differences[0].resolved
    unrelated = ExperimentSettings(kind="distractors", distractors=(0, 2), distractor_kind="random", limit=QUESTIONS)
    evidence = _run(tmp_path, unrelated, misleading=True).evidence()
    assert [p.rate for p in evidence.points] == [100.0, 100.0]
    assert not evidence.shows_effect


def test_experiments_orders_flip_answers_only_when_a_look_alike_can_come_first(tmp_path: Path) -> None:
    settings = ExperimentSettings(kind="orders", orders=4, documents=3, limit=QUESTIONS)
    flipping = _run(tmp_path, settings, misleading=True)
    assert flipping.flip_rate() > 50.0
    assert "flip_rate: % of questions right in some orders and wrong in others" in experiment_csv(flipping)
    steady = _run(tmp_path, settings, misleading=False)
    assert steady.flip_rate() == 0.0
    assert [p.rate for p in steady.evidence().points] == [100.0, 100.0, 100.0, 100.0]
    assert not steady.evidence().shows_effect


def test_experiments_abstain_finds_refusals_when_the_answer_is_removed(tmp_path: Path) -> None:
    settings = ExperimentSettings(kind="abstain", documents=3, limit=QUESTIONS)
    refusing = _run(tmp_path, settings, misleading=False, refuse=True)
    assert [p.rate for p in refusing.evidence().points] == [0.0, 100.0]
    assert refusing.evidence().differences[0].resolved
    assert (refusing.rate(0, "made_up"), refusing.rate(0, "abstained")) == (0.0, 100.0)
    inventing = _run(tmp_path, settings, misleading=False, refuse=False)
    assert [p.rate for p in inventing.evidence().points] == [0.0, 0.0]
    assert not inventing.evidence().shows_effect
    assert (inventing.rate(0, "made_up"), inventing.rate(0, "abstained")) == (100.0, 0.0)
    assert '"i don\'t know"' in experiment_csv(inventing)


def test_experiments_until_resolved_stops_at_the_first_look_that_resolves(tmp_path: Path) -> None:
    settings = ExperimentSettings(kind="length", lengths=(100, 600), position=1, limit=QUESTIONS)
    evalset = load_eval_set(_write_set(tmp_path / "set.jsonl", misleading=False))
    filler = read_filler(_filler(tmp_path / "filler.txt"))
    plan = plan_experiment(settings, evalset, tokenizer=get_tokenizer("cl100k_base"), filler=filler)
    schedule = look_schedule(4, QUESTIONS, 2)
    with fake_model(reach=600) as server:
        result, looks = run_experiment_until_resolved(plan, ModelClient(server.url, api="completions"), schedule)
    assert [look.questions for look in looks] == [4, 8]
    assert [look.resolved for look in looks] == [False, True]
    assert len(result.plan.questions) == 8


def test_experiments_check_window_names_the_level_and_the_window(tmp_path: Path) -> None:
    settings = ExperimentSettings(kind="length", lengths=(100, 600), limit=2)
    evalset = load_eval_set(_write_set(tmp_path / "set.jsonl", misleading=False))
    filler = read_filler(_filler(tmp_path / "filler.txt"))
    plan = plan_experiment(settings, evalset, tokenizer=get_tokenizer("cl100k_base"), filler=filler)
    check_window(plan, 4096, 32)
    with pytest.raises(InvalidInputError, match=r"lengths: 600 tokens needs prompts of up to .* reads 512 a request"):
        check_window(plan, 512, 32, endpoint="http://127.0.0.1:1/v1")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kind": "orders", "orders": 1}, "orders must be"),
        ({"kind": "length", "lengths": (0, 500)}, "lengths must be"),
        ({"kind": "distractors", "distractors": (-1, 2)}, "distractors must be"),
        ({"kind": "sideways"}, "kind"),
    ],
)
def test_experiments_settings_refuse_bad_levels(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        ExperimentSettings(**options)


def test_experiments_refuse_a_filler_too_small_and_a_set_without_look_alikes(tmp_path: Path) -> None:
    evalset = load_eval_set(_write_set(tmp_path / "set.jsonl", misleading=False))
    tokenizer = get_tokenizer("cl100k_base")
    small = read_filler(_filler(tmp_path / "filler.txt", passages=2))
    with pytest.raises(InvalidInputError, match="filler holds about .* fewer than the longest length 5,000"):
        plan_experiment(ExperimentSettings(kind="length", lengths=(5000,)), evalset, tokenizer=tokenizer, filler=small)
    with pytest.raises(InvalidInputError, match="12 of 12 questions of .* have fewer than 4 documents"):
        plan_experiment(ExperimentSettings(kind="distractors", distractors=(0, 4)), evalset, tokenizer=tokenizer)


@pytest.mark.parametrize(
    ("answer", "refused"),
    [("I don't know.", True), ("", True), ("The search results do not contain it", True), ("Paris", False)],
)
def test_experiments_is_refusal(answer: str, refused: bool) -> None:
    assert is_refusal(answer) is refused


def test_experiments_refuse_levels_no_question_can_be_asked_at(tmp_path: Path) -> None:
    evalset = load_eval_set(_write_set(tmp_path / "set.jsonl", misleading=False))
    filler = read_filler(_filler(tmp_path / "filler.txt"))
    settings = ExperimentSettings(kind="length", lengths=(5, 600))
    with pytest.raises(InvalidInputError, match="no question of .* can be asked at every level .*longer than 5 tokens"):
        plan_experiment(settings, evalset, tokenizer=get_tokenizer("cl100k_base"), filler=filler)


def test_experiments_level_cost_lines() -> None:
    from contextlab.evaluation.experiments import LevelCost

    assert (
        LevelCost("2000 tokens", 10, 21_500, 126.0).line()
        == "2000 tokens: 10 calls, 21,500 prompt tokens, about 2.1 minutes"
    )
    assert LevelCost("500 tokens", 1, 500, 3.0).line() == "500 tokens: 1 call, 500 prompt tokens, about 3 s"
    assert LevelCost("500 tokens", 0, 0, 0.0).line() == "500 tokens: every answer comes from the cache"
    assert LevelCost("500 tokens", 2, 900, None).line() == "500 tokens: 2 calls, 900 prompt tokens"


def test_experiments_skip_the_questions_without_enough_look_alikes_and_say_so(tmp_path: Path) -> None:
    path = _write_set(tmp_path / "set.jsonl", misleading=True)
    lines = path.read_text(encoding="utf-8").splitlines()
    short = json.loads(lines[0])
    short["documents"] = short["documents"][:2]  # the gold and one look-alike: too few for 2 distractors
    path.write_text("\n".join([json.dumps(short), *lines[1:]]) + "\n", encoding="utf-8")
    plan = plan_experiment(
        ExperimentSettings(kind="distractors", distractors=(0, 2)),
        load_eval_set(path),
        tokenizer=get_tokenizer("cl100k_base"),
    )
    assert [q.query_id for q in plan.questions] == [f"q{k}" for k in range(2, 13)]
    assert plan.skipped_note() == (
        "1 question(s) of set.jsonl skipped (first: q1: fewer than 2 related documents); 11 measured"
    )
