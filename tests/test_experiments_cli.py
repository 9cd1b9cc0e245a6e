"""``contextlab curve --vary KIND`` against a FAKE model with a known effect (tests/fake_model.py).

The fake refuses when no document answers, and says its window like llama.cpp: so a run must
write what it found, and bad input must be one line, exit 2, before any completion is asked for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contextlab.cli import main
from tests.fake_model import fake_model
from tests.test_experiments import _filler, _write_set


def _curve(server_url: str, tmp_path: Path, *options: str) -> list[str]:
    return [
        "curve",
        str(_write_set(tmp_path / "set.jsonl", misleading=False)),
        "--endpoint",
        server_url,
        "--api",
        "completions",
        "--cache",
        str(tmp_path / "cache.sqlite"),
        "--yes",
        "--out",
        str(tmp_path / "out.csv"),
        *options,
    ]


def test_experiments_cli_abstain_writes_the_levels_and_the_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_model() as server:
        code = main(_curve(server.url, tmp_path, "--vary", "abstain", "--documents", "3", "--limit", "12"))
        assert server.calls == 24
    out = capsys.readouterr()
    assert code == 0
    assert "answer given -> answer removed: abstained +100.0" in out.out
    assert "told apart on 12 questions" in out.out
    assert "every level fits the model's window of 4,096 tokens a request" in out.err
    written = (tmp_path / "out.csv").read_text(encoding="utf-8")
    assert (
        "model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high,answer_passage,made_up,abstained"
        in written
    )
    assert "fake,3,1,100.0,abstain,12,75.7,100.0,given,100.0,0.0" in written
    assert "fake,2,,0.0,abstain,12,0.0,24.3,removed,0.0,100.0" in written
    answers = (tmp_path / "out.questions.csv").read_text(encoding="utf-8").splitlines()
    assert answers[0] == "query_id,kind,level,correct,abstained,context_tokens,prompt_tokens,answer"
    assert answers[1:3] == ["q1,abstain,1,1,0,58,104,ZXQ1", "q1,abstain,0,0,1,38,90,I don't know"]


def test_experiments_cli_rerun_takes_every_answer_from_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ("--vary", "orders", "--orders", "2", "--documents", "3", "--limit", "4")
    with fake_model() as server:
        assert main(_curve(server.url, tmp_path, *options)) == 0
        first = server.calls
        assert main(_curve(server.url, tmp_path, *options)) == 0
        assert server.calls == first
    assert "every answer comes from the cache" in capsys.readouterr().err


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's usage errors
        return int(stop.code or 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--vary", "length", "--lengths", "0,500"), "argument --lengths: expected whole numbers >= 1"),
        (("--vary", "orders", "--orders", "1"), "argument --orders:"),
        (("--vary", "distractors", "--distractors", "-1,2"), "argument --distractors:"),
        (("--vary", "length", "--lengths", "100,600", "--window", "512"), "--lengths: 600 tokens needs prompts"),
        (("--vary", "distractors", "--distractors", "0,4"), "--distractors: 12 of 12 questions of"),
        (("--vary", "length", "--lengths", "5000", "--filler", "FILLER"), "--filler holds about"),
    ],
)
def test_experiments_cli_bad_input_is_one_line_and_exit_2_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], message: str
) -> None:
    filler = str(_filler(tmp_path / "filler.txt", passages=2))
    with fake_model(window=4096) as server:
        code = _exit_code(
            _curve(server.url, tmp_path, "--limit", "12", *(filler if o == "FILLER" else o for o in options))
        )
        assert server.calls == 0
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert code == 2
    assert len(errors) == 1
    assert message in errors[0]


def test_experiments_cli_until_resolved_says_power_and_stops_at_a_resolved_look(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filler = str(_filler(tmp_path / "filler.txt"))
    options = ("--vary", "length", "--lengths", "100,600", "--filler", filler, "--limit", "4", "--detect", "20")
    with fake_model(reach=600) as server:
        code = main(_curve(server.url, tmp_path, *options, "--until-resolved", "--max-questions", "12"))
    out = capsys.readouterr()
    assert code == 0
    assert "a 20-point difference needs about" in out.err
    assert "look at 4 questions: first against last p = 0.125; not resolved" in out.err
    assert "look at 8 questions: first against last p = 0.00781; resolved: stop" in out.err
    assert "100 tokens -> 600 tokens: accuracy -100.0" in out.out
    assert "100 tokens: 8 calls" not in out.err
    assert "100 tokens: 12 calls" in out.err
