"""An error that quotes a bad value quotes a short, safe form of it: a 5,000-character value
never makes an error line of 5,000 characters."""

from __future__ import annotations

import json

import pytest

from contextlab.cli import main
from contextlab.errors import InvalidInputError
from contextlab.evaluation.curve import parse_positions

_HUGE = "9" * 5000


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


@pytest.mark.parametrize(
    "argv, shown",
    [
        (["build", "-", "--threshold", _HUGE], "expected a number from 0.01 to 1, got '9999999999"),
        (["build", "-", "--threshold", "x" + _HUGE], "expected a number from 0.01 to 1, got 'x999999999"),
        (["curve", "--out", "c.csv", "--discordance", _HUGE], "expected a share of questions in (0, 1]"),
        (["curve", "--out", "c.csv", "--detect", _HUGE], "expected a difference in points from 0 to 100"),
    ],
)
def test_cli_usage_error_quotes_a_long_value_shortened(argv, shown, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    line = _error_line(capsys)
    assert shown in line
    assert "...999999999999999999' (5,00" in line  # the length is said, the value is not repeated
    assert len(line) < 400


def test_parse_positions_quotes_a_long_list_shortened():
    with pytest.raises(InvalidInputError) as caught:
        parse_positions("1," + _HUGE, 10)
    assert str(caught.value) == (
        "positions must be whole numbers such as 1,5,10; got '1,999999999999999...999999999999999999' "
        "(5,002 characters)"
    )
    with pytest.raises(InvalidInputError) as caught:
        parse_positions("1," + "3," * 2000 + "11", 10)
    assert str(caught.value) == (
        "positions must lie between 1 and documents=10; got '1,3,3,3,3,3,3,3,3...3,3,3,3,3,3,3,3,11' (4,004 characters)"
    )


def test_cli_curve_positions_error_is_one_short_line(tmp_path, capsys):
    path = tmp_path / "set.jsonl"
    docs = [{"content": "Paris is the capital.", "source": "paris"}, {"content": "Rome.", "source": "rome"}]
    line = {"id": "a", "query": "q?", "documents": docs, "gold_sources": ["paris"], "answers": ["Paris"]}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    argv = ["curve", str(path), "--positions", "1," + "3," * 2000 + "11", "--endpoint", "http://127.0.0.1:9"]
    code = main([*argv, "--out", str(tmp_path / "c.csv"), "--yes"])
    assert code == 1
    err = _error_line(capsys)
    assert err.startswith("contextlab: error: --positions must lie between 1 and documents=10; got '1,3,3,3")
    assert len(err) < 200


def test_cli_eval_quotes_a_long_scheduler_address_shortened(tmp_path, capsys):
    pytest.importorskip("distributed")
    path = tmp_path / "set.jsonl"
    docs = [{"content": "Paris is the capital.", "source": "paris"}, {"content": "Rome.", "source": "rome"}]
    line = {"id": "a", "query": "q?", "documents": docs, "gold_sources": ["paris"], "answers": ["Paris"]}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    argv = ["eval", str(path), "--out", str(tmp_path / "r.csv"), "--scheduler", "tcp://h:" + _HUGE]
    assert main(argv) == 1
    err = _error_line(capsys)
    assert err.startswith("contextlab: error: --scheduler 'tcp://h:999999999...999999999999999999' (5,008 characters)")
    assert len(err) < 400
