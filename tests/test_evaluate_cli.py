"""`contextlab eval`: the issue's acceptance run, bad input as one line, and the same rows on Dask."""

from __future__ import annotations

import contextlib
import csv
import json
import re

import pytest

from contextlab.cli import main
from contextlab.errors import InvalidInputError
from contextlab.evaluation import METRIC_COLUMNS, results_csv


def _rows(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
def test_evaluate_cli_writes_the_librarys_rows_and_summary(tmp_path, capsys, bundled_run300):
    # The CLI on 30 questions gives the library's rows for them (the 300-question acceptance
    # numbers are checked on the shared run in tests/test_evaluate_bundled.py).
    out, summary = tmp_path / "r.csv", tmp_path / "s.json"
    code = main(["eval", "--limit", "30", "--grid", "budget=256,1024", "--out", str(out), "--summary", str(summary)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows = _rows(out)
    assert len(rows) == 60
    assert list(rows[0]) == ["config", "query_id", "query", "max_context_tokens", *METRIC_COLUMNS]
    library = {(r.query_id, str(r.settings["max_context_tokens"])): r for r in bundled_run300.rows}
    for row in rows:
        expected = library[(row["query_id"], row["max_context_tokens"])]
        assert (int(row["gold_in_block"]), int(row["tokens_used"])) == (
            int(expected.metrics.gold_in_block),
            expected.metrics.tokens_used,
        )
    assert "max_context_tokens=1024" in captured.out and "Liu et al." in captured.out
    assert "wrote 60 rows" in captured.err
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["questions"] == 30
    assert [c["config"] for c in data["configs"]] == ["max_context_tokens=256", "max_context_tokens=1024"]


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--grid", "budgte=1"], "unknown grid key 'budgte'; valid keys: max_context_tokens, dedup_threshold"),
        (["--grid", "placement=zigzag"], "placement"),
        (["--curve-model", "gpt-9"], "unknown model 'gpt-9'"),
        (["--model", "gemma"], "--model names the model at --endpoint that answers; give --endpoint too"),
        (["missing.jsonl"], "does not exist"),
        (["--scheduler", "tcp://127.0.0.1:9", "--limit", "2"], "cannot reach the Dask scheduler"),
        (["--scheduler", "notaurl", "--limit", "2"], "is not a Dask scheduler address"),
        (["--scheduler", "http://127.0.0.1:8599", "--limit", "2"], "must be tcp:// or tls://"),
        (["--store", "nope.db", "--limit", "2"], "the bundled set retrieves from its own passages"),
    ],
)
def test_evaluate_cli_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, argv, match):
    out = tmp_path / "r.csv"
    code = main(["eval", "--out", str(out), *argv])
    err = capsys.readouterr().err
    assert code != 0
    assert match in err and err.count("\n") == 1, err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_evaluate_cli_user_set_without_labels_is_refused(tmp_path, capsys):
    evalset = tmp_path / "set.jsonl"
    evalset.write_text(json.dumps({"query": "q", "documents": ["some text"]}) + "\n", encoding="utf-8")
    code = main(["eval", str(evalset), "--out", str(tmp_path / "r.csv")])
    err = capsys.readouterr().err
    assert code == 1 and "no question has gold documents or answers" in err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.slow
def test_evaluate_cli_writes_the_rows_dask_computes(tmp_path, capsys, dask_run40):
    # The suite's one Dask run (tests/conftest.py) written as the CLI writes a serial run.
    serial = tmp_path / "serial.csv"
    grid = ["--grid", "budget=256,1024", "placement=lost_in_the_middle,reversed"]  # one --grid, two keys
    assert main(["eval", "--limit", "40", *grid, "--out", str(serial)]) == 0
    capsys.readouterr()
    assert len(_rows(serial)) == 160
    assert serial.read_text(encoding="utf-8") == results_csv(dask_run40)


def test_evaluate_cli_workers_reach_the_dask_run(tmp_path, capsys, monkeypatch):
    from contextlab.evaluation import cluster

    def dask_chunks(evalset, configs, options, **kwargs):
        raise InvalidInputError(f"dask run with workers={options.workers}")

    monkeypatch.setattr(cluster, "dask_chunks", dask_chunks)
    code = main(["eval", "--limit", "2", "--workers", "3", "--out", str(tmp_path / "r.csv")])
    assert code == 1 and "dask run with workers=3" in capsys.readouterr().err


@pytest.mark.slow
def test_evaluate_cli_bad_scheduler_leaves_no_client_behind():
    # A half-built dask Client spent 10 s closing itself in its finaliser, then printed a
    # traceback after the one-line error; the address is now checked before a Client exists.
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "contextlab.cli",
            "eval",
            "--limit",
            "2",
            "--scheduler",
            "notaurl",
            "--out",
            "never.csv",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_evaluate_cli_store_unused_by_a_set_with_documents_is_refused(tmp_path, capsys):
    evalset = tmp_path / "set.jsonl"
    evalset.write_text(
        json.dumps({"query": "q", "documents": ["some text"], "answers": ["text"]}) + "\n", encoding="utf-8"
    )
    code = main(["eval", str(evalset), "--store", str(tmp_path / "kb.db"), "--out", str(tmp_path / "r.csv")])
    err = capsys.readouterr().err
    assert code == 1 and "would not be used" in err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.slow
def test_evaluate_cli_baseline_prints_paired_differences_and_compare_of_itself_is_zero(tmp_path, capsys):
    out, summary = tmp_path / "r.csv", tmp_path / "s.json"
    code = main(
        [
            "eval",
            "--limit",
            "10",
            "--grid",
            "budget=128,1024",
            "--baseline",
            "budget=1024",
            "--out",
            str(out),
            "--summary",
            str(summary),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "baseline: max_context_tokens=1024" in captured.out and "d gold in block vs base" in captured.out
    small = next(line for line in captured.out.splitlines() if line.startswith("max_context_tokens=128 "))
    assert re.search(r"[-+]\d+\.\d \[[-+ ]\d+\.\d, [-+ ]\d+\.\d\]\s+\d", small), small
    assert "Recommendation. On gold in block (no model answered): " in captured.out
    assert "gold in block gained per extra 100 tokens: 128->1024: " in captured.out
    code = main(["compare", str(summary), str(summary)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Paired over 10 questions" in captured.out
    for line in captured.out.splitlines()[5:]:
        assert line.count("+0.0 [") == 3, line


@pytest.mark.parametrize(
    "argv, match, exit_code",
    [
        (
            ["eval", "--limit", "2", "--baseline", "budget=999"],
            "--baseline 'max_context_tokens=999' matches no configuration",
            1,
        ),
        (["eval", "a.jsonl", "b.jsonl"], "unrecognized arguments: b.jsonl", 2),
        (["compare", "only.json"], "contextlab compare: error: the following arguments are required: B.json", 2),
        (["compare", "nope.json", "nope.json"], "nope.json: cannot be read", 1),
        (["eval", "compare", "a.json", "b.json"], "unrecognized arguments: a.json b.json", 2),  # compare is a command
    ],
)
def test_evaluate_cli_baseline_and_compare_errors_are_one_line(tmp_path, capsys, argv, match, exit_code):
    extra = ["--out", str(tmp_path / "r.csv")] if argv[0] == "eval" else []
    with pytest.raises(SystemExit) if exit_code == 2 else contextlib.nullcontext() as usage:
        code = main([*argv, *extra])
    code = usage.value.code if exit_code == 2 else code
    err = capsys.readouterr().err
    assert code == exit_code and match in err and err.count("\n") == 1, err


def test_evaluate_cli_grid_budget_is_the_command_lines_spelling_without_a_warning(tmp_path, recwarn):
    """``--grid budget=`` is how the command spells ``max_context_tokens`` (one table in cli/)."""
    out = tmp_path / "r.csv"
    assert main(["eval", "--limit", "2", "--grid", "budget=256,512", "--out", str(out)]) == 0
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert sorted({r["max_context_tokens"] for r in rows}) == ["256", "512"]
