"""The `contextlab` command: `cli.main([...])` in-process, plus a few real-subprocess smoke tests."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contextlab import cli
from contextlab.cli import lab as cli_lab
from contextlab.lab.sweep import SWEEP_COLUMNS
from contextlab.manager import ContextManager
from contextlab.types import Document, PromptRequest

REPO = Path(__file__).resolve().parent.parent

DOCS = [
    {
        "content": "Refunds are processed within five business days after we receive the returned item.",
        "score": 0.92,
        "source": "refunds.md",
    },
    {
        "content": "Refunds are processed within five business days after we receive the returned item!",
        "score": 0.90,
        "source": "faq.md",
    },
    {
        "content": "Shipping is free for orders over fifty dollars in the continental United States.",
        "score": 0.41,
        "source": "shipping.md",
    },
    {
        "content": "To start a return, open your order history and click the return button next to it.",
        "score": 0.77,
        "source": "returns.md",
    },
    {
        "content": "Gift cards cannot be refunded or exchanged for cash except where required by law.",
        "score": 0.63,
        "source": "giftcards.md",
    },
]


def run_process(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the command as a real subprocess (the smoke tests: entry point, pipes, exit codes)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "contextlab.cli", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def run(capsys, monkeypatch):
    """Return a runner of ``cli.main`` in this process, with what a subprocess would give back."""

    def run_main(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(cwd)
        data = (stdin or "").encode("utf-8")
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        capsys.readouterr()
        try:
            code = cli.main(list(args))
        except SystemExit as exc:  # --help, --version and usage errors exit through argparse
            code = exc.code if isinstance(exc.code, int) else 0
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run_main


def assert_one_line_error(proc: subprocess.CompletedProcess[str], pattern: str) -> None:
    import re

    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("contextlab: error: ")
    assert re.search(pattern, lines[0]), lines[0]


@pytest.fixture
def docs_file(tmp_path: Path) -> Path:
    path = tmp_path / "docs.json"
    path.write_text(json.dumps(DOCS), encoding="utf-8")
    return path


def documents() -> list[Document]:
    return [Document(d["content"], score=d["score"], source=d["source"]) for d in DOCS]


# -- help ----------------------------------------------------------------------------------


def _parser_commands(parser: argparse.ArgumentParser | None = None, prefix: tuple[str, ...] = ()) -> list[list[str]]:
    """Return every command the parser knows (``model serve`` and other sub-commands included)."""
    parser = parser or cli.build_parser()
    found: list[list[str]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [[*prefix, name], *_parser_commands(sub, (*prefix, name))]
    return found


#: Read from the parser, so a new command is covered the day it is added.
COMMANDS = _parser_commands()


def test_cli_command_list_comes_from_the_parser():
    assert {"build", "sweep", "eval", "index", "remove", "search", "lab"} <= {c[0] for c in COMMANDS}


@pytest.mark.parametrize("command", [[], *COMMANDS], ids=lambda c: " ".join(c) or "contextlab")
def test_cli_help_on_every_command(run, tmp_path: Path, command: list[str]):
    proc = run(*command, "--help", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"usage: contextlab {' '.join(command)}".rstrip())
    assert "Traceback" not in proc.stderr


def test_cli_help_lists_every_command(run, tmp_path: Path):
    out = run("--help", cwd=tmp_path).stdout
    for command in {c[0] for c in COMMANDS}:
        assert command in out


def test_cli_without_command_prints_usage_and_fails(run, tmp_path: Path):
    proc = run(cwd=tmp_path)
    assert proc.returncode == 2 and "usage: contextlab" in proc.stderr


def test_cli_version(tmp_path: Path):
    proc = run_process("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("contextlab ")


# -- build ---------------------------------------------------------------------------------


def test_cli_build_prints_the_library_block(tmp_path: Path, docs_file: Path):
    proc = run_process("build", str(docs_file), "--query", "refunds", "--budget", "120", cwd=tmp_path)
    expected = ContextManager().build(PromptRequest(query="refunds", documents=documents(), max_context_tokens=120))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected.context_block + "\n"
    assert proc.stderr == ""


def test_cli_build_seed_compatible_matches_seed_manager(run, tmp_path: Path, docs_file: Path):
    proc = run(
        "build",
        str(docs_file),
        "-q",
        "refunds",
        "--budget",
        "60",
        "--seed-compatible",
        "--threshold",
        "0.7",
        "--min-tokens",
        "3",
        cwd=tmp_path,
    )
    expected = ContextManager.seed_compatible(dedup_threshold=0.7, min_doc_tokens=3).build(
        PromptRequest(query="refunds", documents=documents(), max_context_tokens=60)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected.context_block + "\n"


def test_cli_build_json_is_the_whole_result(run, tmp_path: Path, docs_file: Path):
    proc = run(
        "build",
        str(docs_file),
        "-q",
        "refunds",
        "--budget",
        "80",
        "--format",
        "json",
        "--tokenizer",
        "heuristic",
        cwd=tmp_path,
    )
    data = json.loads(proc.stdout)
    expected = (
        ContextManager(tokenizer="heuristic")
        .build(PromptRequest(query="refunds", documents=documents(), max_context_tokens=80))
        .to_dict()
    )
    data.pop("timings_ms")
    expected.pop("timings_ms")
    assert data == expected
    assert len(data["trace"]) == 5 and data["tokenizer"] == "heuristic"


def test_cli_build_options_reach_the_engine(run, tmp_path: Path, docs_file: Path):
    def build(*extra: str) -> dict:
        proc = run("build", str(docs_file), "-q", "refunds", "-f", "json", *extra, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    assert build("--threshold", "0.7")["duplicates_removed"] == 1
    assert build("--threshold", "1.0")["duplicates_removed"] == 0
    in_order = build("--placement", "relevance", "--threshold", "1.0")["included_docs"]
    assert [d["score"] for d in in_order] == sorted((d["score"] for d in in_order), reverse=True)
    assert {t["fate"] for t in build("--min-tokens", "1000")["trace"]} == {"filtered"}
    assert "summarized" in {t["fate"] for t in build("--summarize", "--budget", "60")["trace"]}
    # every setting has its flag, the field's name; the short spellings are the same flag
    assert build("--max-context-tokens", "60")["tokens_budget"] == build("--budget", "60")["tokens_budget"] == 60
    assert build("--summarize-overflow", "--budget", "60")["trace"] == build("--summarize", "--budget", "60")["trace"]
    assert "(score: 0." in build("--score-label", "score")["context_block"]
    assert build("--dedup-measure", "shingle_jaccard", "--threshold", "0.7")["duplicates_removed"] == 1
    no_headers = build("--no-budget-includes-headers", "--budget", "60", "--tokenizer", "heuristic")
    assert no_headers["tokens_used"] > 60  # headers are not counted toward the budget any more


def test_cli_build_scores_unscored_documents_against_the_query(run, tmp_path: Path):
    path = tmp_path / "plain.txt"
    path.write_text(
        "Cats purr when they are content and calm.\n\n"
        "The stock market closed higher on Friday afternoon.\n\n"
        "Cats sleep for up to sixteen hours every day.\n",
        encoding="utf-8",
    )
    proc = run(
        "build",
        str(path),
        "-q",
        "why do cats purr",
        "-f",
        "json",
        "--budget",
        "500",
        "--placement",
        "relevance",
        cwd=tmp_path,
    )
    data = json.loads(proc.stdout)
    scores = {d["content"][:6]: d["score"] for d in data["included_docs"]}
    assert scores["Cats p"] == 0.462107 and scores["The st"] == 0.0 and 0 < scores["Cats s"] < 0.462107
    assert all(d["metadata"]["score_source"] == "bm25" for d in data["included_docs"])
    assert proc.stderr == (
        "contextlab: note: 3 document(s) had no score and were scored against the query (BM25, 0-1)\n"
    )


def test_cli_build_keeps_given_scores_and_says_how_many_were_scored(run, tmp_path: Path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"text": "Refunds take five business days to reach your card.", "score": 0.5}\n'
        '{"text": "Refunds for gift cards are not possible at all."}\n'
        '{"text": "Shipping is free over fifty dollars in most states.", "score": 0.25}\n',
        encoding="utf-8",
    )
    proc = run("build", str(path), "-q", "refunds", "-f", "json", "--placement", "relevance", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    scores = {t["input_index"]: t["score"] for t in json.loads(proc.stdout)["trace"]}
    assert scores[0] == 0.5 and scores[2] == 0.25  # given scores are never overwritten
    assert 0 < scores[1] <= 1
    note = proc.stderr.strip().splitlines()
    assert len(note) == 1 and note[0].startswith("contextlab: note: 1 of 3 documents had no score")
    assert "do not compare directly" in note[0]


def test_cli_build_reads_stdin(tmp_path: Path):
    text = "alpha beta gamma delta epsilon zeta\n---\neta theta iota kappa lambda mu\n"
    proc = run_process("build", "-", "-q", "alpha", "--tokenizer", "heuristic", cwd=tmp_path, stdin=text)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("--- Source [1] --- (relevance: 0.45)\nalpha beta gamma delta epsilon zeta\n")
    assert "eta theta iota kappa lambda mu" in proc.stdout


def test_cli_build_reads_stdin_json_with_input_format(run, tmp_path: Path):
    proc = run(
        "build",
        "-",
        "--input-format",
        "json",
        "-q",
        "x",
        "--tokenizer",
        "heuristic",
        cwd=tmp_path,
        stdin=json.dumps(DOCS),
    )
    assert proc.returncode == 0 and "refunds.md" in proc.stdout


def test_cli_build_unscored_without_query_is_clear_error(run, tmp_path: Path):
    path = tmp_path / "p.txt"
    path.write_text("one two three four five six\n", encoding="utf-8")
    assert_one_line_error(run("build", str(path), cwd=tmp_path), r"p\.txt has documents without a score; pass --query")


@pytest.mark.parametrize(
    "content,name,pattern",
    [
        ('[{"content": "a"', "bad.json", r"bad\.json: line 1, column \d+: invalid JSON .*truncated"),
        ('{"text": "a"}\n{"text": 1}\n', "bad.jsonl", r"bad\.jsonl: line 2: field 'text' must be text"),
        ("title\nx\n", "bad.csv", r"bad\.csv: no text column"),
        ("x", "bad.pdf", r"bad\.pdf: unsupported file type"),
    ],
)
def test_cli_build_bad_input_is_one_line_error(run, tmp_path: Path, content: str, name: str, pattern: str):
    (tmp_path / name).write_text(content, encoding="utf-8")
    assert_one_line_error(run("build", name, "-q", "x", cwd=tmp_path), pattern)


def test_cli_build_binary_file_is_one_line_error(run, tmp_path: Path):
    (tmp_path / "img.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert_one_line_error(run("build", "img.txt", "-q", "x", cwd=tmp_path), r"looks like a binary file")


def test_cli_build_missing_file_is_one_line_error(run, tmp_path: Path):
    assert_one_line_error(run("build", "nope.json", "-q", "x", cwd=tmp_path), r"nope\.json: No such file or directory")


@pytest.mark.parametrize(
    "args,message",
    [
        (["--budget", "-5"], "expected a whole number from 0 to 1,000,000,000, got '-5'"),
        (["--budget", "lots"], "expected a whole number from 0 to 1,000,000,000, got 'lots'"),
        (["--threshold", "1.5"], "expected a number in (0, 1], got '1.5'"),
        (["--tokenizer", "gpt2"], "invalid choice: 'gpt2'"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_cli_build_bad_options_are_usage_errors(run, tmp_path: Path, docs_file: Path, args, message):
    proc = run("build", str(docs_file), "-q", "x", *args, cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--max-documents", "3"], "--max-documents"),
        (["--max-bytes", "100"], "--max-bytes"),
    ],
)
def test_cli_limit_messages_name_the_flag(run, tmp_path: Path, docs_file: Path, args, flag):
    proc = run("build", "docs.json", "-q", "refunds", *args, cwd=tmp_path)
    assert_one_line_error(proc, rf"raise the limit \({flag} N\)$")
    assert "max_" not in proc.stderr and "Python" not in proc.stderr


HUGE = "9" * 23


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["search", "kb.db", "refund", "-k", HUGE], "--top-k/-k"),
        (["search", "kb.db", "refund", "-k", "9" * 400], "--top-k/-k"),
        (["eval", "--limit", "5", "--top-k", HUGE, "--out", "t.csv"], "--top-k/-k"),
        (["eval", "--limit", HUGE, "--out", "t.csv"], "--limit/-n"),
        (["eval", "--workers", "100000", "--out", "t.csv"], "--workers"),
        (["build", "docs.json", "--budget", HUGE], "--max-context-tokens/--budget/-b"),
        (["build", "docs.json", "--min-tokens", HUGE], "--min-doc-tokens/--min-tokens"),
        (["build", "docs.json", "--max-bytes", "9" * 19], "--max-bytes"),
        (["sweep", "docs.json", "--max-builds", HUGE], "--max-builds"),
    ],
)
def test_cli_huge_whole_numbers_are_one_line_usage_errors(run, tmp_path: Path, docs_file: Path, args, flag):
    proc = run(*args, cwd=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr
    assert f"argument {flag}: expected a whole number from " in lines[0]
    assert len(lines[0]) < 200  # a 400-digit value is not echoed back
    assert not (tmp_path / "t.csv").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-0.1", "1.5", "1e400", "lots"])
def test_cli_search_min_score_must_be_a_number_from_0_to_1(run, tmp_path: Path, value: str):
    proc = run("search", "kb.db", "refund", f"--min-score={value}", cwd=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1
    assert f"argument --min-score: expected a number from 0 to 1, got '{value}'" in lines[0]


@pytest.mark.parametrize("command", [["build"], ["index", "kb.db"], ["build", "--input-format", "json"]])
def test_cli_folder_input_says_it_is_a_folder(run, tmp_path: Path, command):
    (tmp_path / "notes").mkdir()
    proc = run(*command, "notes", cwd=tmp_path)
    assert_one_line_error(
        proc,
        r"notes: is a folder, not a documents file; folders are not read: "
        r"give the files in it instead \(e\.g\. notes/\*\.md\)$",
    )
    assert not (tmp_path / "kb.db").exists()


def test_cli_overflow_from_input_is_one_line_but_bugs_keep_their_traceback(
    run, tmp_path: Path, docs_file: Path, monkeypatch
):
    def overflow(args):
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_handler(parser(), overflow))
    proc = run("build", "docs.json", cwd=tmp_path)
    assert_one_line_error(proc, r"^contextlab: error: OverflowError: Python int too large")

    def bug(args):
        raise TypeError("a programming error")

    monkeypatch.setattr(cli, "build_parser", lambda: _with_handler(parser(), bug))
    with pytest.raises(TypeError):
        run("build", "docs.json", cwd=tmp_path)


def _with_handler(parser, handler):
    """Return ``parser`` with every command's handler replaced (to raise from inside ``main``)."""
    for action in parser._subparsers._group_actions:
        for sub in action.choices.values():
            sub.set_defaults(handler=handler)
    return parser


@pytest.mark.slow
def test_cli_inputs_over_50000_documents_build_with_a_raised_limit(run, tmp_path: Path):
    path = tmp_path / "big.jsonl"
    path.write_text(
        "".join(json.dumps({"text": f"document {i} says little", "score": 0.5}) + "\n" for i in range(50_001)),
        encoding="utf-8",
    )
    refused = run("build", "big.jsonl", "--tokenizer", "heuristic", "-b", "20", cwd=tmp_path)
    assert_one_line_error(refused, r"more than 50,000 documents.*--max-documents N")
    proc = run(
        "build",
        "big.jsonl",
        "--tokenizer",
        "heuristic",
        "-b",
        "20",
        "-f",
        "json",
        "--max-documents",
        "60000",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["trace"]) == 50_001


# -- sweep ---------------------------------------------------------------------------------


def test_cli_sweep_writes_csv_grid_to_stdout(run, tmp_path: Path, docs_file: Path):
    proc = run(
        "sweep",
        str(docs_file),
        "-q",
        "refunds",
        "--threshold",
        "0.5:1.0:0.25",
        "--budget",
        "40:120:40",
        "--tokenizer",
        "heuristic",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert list(rows[0]) == list(SWEEP_COLUMNS)
    assert list(rows[0]) == [
        "dedup_threshold",
        "max_context_tokens",
        "filtered",
        "duplicate",
        "excluded",
        "truncated",
        "summarized",
        "included",
        "in_block",
        "tokens_used",
        "utilization_pct",
    ]
    assert [(r["dedup_threshold"], r["max_context_tokens"]) for r in rows] == [
        (t, b) for t in ("0.5", "0.75", "1.0") for b in ("40", "80", "120")
    ]
    dups = {r["dedup_threshold"]: int(r["duplicate"]) for r in rows}
    assert dups["0.5"] == 1 and dups["1.0"] == 0
    assert all(int(r["tokens_used"]) <= int(r["max_context_tokens"]) for r in rows)


def test_cli_sweep_output_file_and_html(run, tmp_path: Path, docs_file: Path):
    proc = run(
        "sweep",
        str(docs_file),
        "-q",
        "refunds",
        "--threshold",
        "0.8,0.9",
        "--budget",
        "100",
        "--out",
        "out.csv",
        "--html",
        "chart.html",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "wrote 2 rows to out.csv" in proc.stderr and "wrote chart to chart.html" in proc.stderr
    assert len(list(csv.DictReader((tmp_path / "out.csv").open()))) == 2
    html = (tmp_path / "chart.html").read_text(encoding="utf-8")
    assert "Plotly.newPlot" in html and "Parameter sweep" in html


@pytest.mark.parametrize(
    ("targets", "pattern"),
    [
        (
            ["-o", "s.csv", "--html", "/nonexistent/x.html"],
            r"--html '/nonexistent/x\.html': folder '/nonexistent' does not exist",
        ),
        (["-o", "/nonexistent/s.csv", "--html", "c.html"], r"--out '/nonexistent/s\.csv': folder"),
        (["-o", "s.csv", "--html", "."], r"--html '\.' is a folder"),
    ],
)
def test_cli_sweep_checks_every_output_before_writing_any(run, tmp_path: Path, docs_file: Path, targets, pattern):
    (tmp_path / "s.csv").write_text("old\n", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = run("sweep", "docs.json", "-q", "refunds", "-t", "0.9", "-b", "100", *targets, cwd=tmp_path)
    assert_one_line_error(proc, pattern)
    assert (tmp_path / "s.csv").read_text(encoding="utf-8") == "old\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing new, no temp file


def test_cli_outputs_write_all_or_nothing(tmp_path: Path):
    from contextlab.atomic import write_files as write_all

    (tmp_path / "a.csv").write_text("old", encoding="utf-8")
    with pytest.raises(OSError):
        write_all({str(tmp_path / "a.csv"): "new", str(tmp_path / "gone" / "b.html"): "chart"})
    assert [p.name for p in tmp_path.iterdir()] == ["a.csv"]
    assert (tmp_path / "a.csv").read_text(encoding="utf-8") == "old"
    write_all({str(tmp_path / "a.csv"): "new", str(tmp_path / "b.html"): "chart"})
    assert (tmp_path / "a.csv").read_text(encoding="utf-8") == "new"
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "b.html").stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


@pytest.mark.parametrize(
    "args,pattern",
    [
        (["--threshold", "0.5:1.0"], r"--dedup-threshold '0\.5:1\.0': write a range as start:stop:step"),
        (["--threshold", "0.5:1.5:0.5"], r"1\.5 is outside \(0, 1\]"),
        (["--budget", "100:50:10"], r"--max-context-tokens '100:50:10': stop is below start"),
        (["--budget", "1:10:0"], r"the step must be > 0"),
        (["--budget", "a,b"], r"'a' is not a whole number"),
        (["--budget", "0:100000000:1"], r"use a larger step or raise the limit \(--max-builds N\)$"),
        (
            ["--max-builds", "1"],
            r"--dedup-threshold '0\.5:1\.0:0\.05' has 11 values, over the limit of 1 builds; "
            r"use a larger step or raise the limit \(--max-builds N\)$",
        ),
        (["-t", "0.5,0.6", "-b", "1,2", "--max-builds", "3"], r"the grid has 4 builds.*\(--max-builds N\)$"),
    ],
)
def test_cli_sweep_bad_ranges_are_one_line_errors(run, tmp_path: Path, docs_file: Path, args, pattern):
    assert_one_line_error(run("sweep", str(docs_file), "-q", "x", *args, cwd=tmp_path), pattern)


# -- index / search ------------------------------------------------------------------------


def test_cli_index_then_search(run, tmp_path: Path, docs_file: Path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Warranty\nThe warranty covers defects for two years.\n", encoding="utf-8")
    proc = run("index", "kb.db", str(docs_file), str(notes), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{docs_file}: 5 added, 0 replaced, 0 unchanged, 0 removed",
        f"{notes}: 1 added, 0 replaced, 0 unchanged, 0 removed",
        "kb.db holds 6 document(s)",
    ]
    again = run("index", "kb.db", str(docs_file), cwd=tmp_path)
    assert again.stdout.splitlines() == [
        f"{docs_file}: 0 added, 0 replaced, 5 unchanged, 0 removed",
        "kb.db holds 6 document(s)",
    ]  # replaced, not doubled

    found = run("search", "kb.db", "warranty defects", cwd=tmp_path)
    assert found.returncode == 0
    assert found.stdout.splitlines() == ["  1  0.618  notes.md  # Warranty The warranty covers defects for two years."]


def test_cli_reindexing_an_edited_file_replaces_it(run, tmp_path: Path):
    notes = tmp_path / "notes.md"
    notes.write_text(
        "# Refunds\nRefunds take 30 days.\n\n# Shipping\nShipping is free.\n\n# Returns\nReturns need a receipt.\n",
        encoding="utf-8",
    )
    assert run("index", "kb.db", "notes.md", cwd=tmp_path).returncode == 0
    notes.write_text("# Refunds\nRefunds take 5 days.\n\n# Shipping\nShipping is free.\n", encoding="utf-8")
    proc = run("index", "kb.db", "notes.md", cwd=tmp_path)
    assert proc.stdout.splitlines() == [
        "notes.md: 0 added, 1 replaced, 1 unchanged, 1 removed",
        "kb.db holds 2 document(s)",
    ]
    hits = json.loads(run("search", "kb.db", "refunds days", "-f", "json", cwd=tmp_path).stdout)
    assert [h["content"] for h in hits] == ["# Refunds\nRefunds take 5 days."]
    # The same file named another way, from another folder, is the same identity.
    sub = tmp_path / "sub"
    sub.mkdir()
    again = run("index", "../kb.db", str(notes), cwd=sub)
    assert again.stdout.splitlines()[-1] == "../kb.db holds 2 document(s)"


def test_cli_index_from_stdin_twice_keeps_both_batches(run, tmp_path: Path):
    apples = json.dumps({"content": "Apples are picked in autumn and kept cold."}) + "\n"
    pears = json.dumps({"content": "Pears ripen off the tree at room temperature."}) + "\n"
    assert run("index", "st.db", "-", cwd=tmp_path, stdin=apples).returncode == 0
    second = run("index", "st.db", "-", cwd=tmp_path, stdin=pears)
    assert second.returncode == 0 and "stdin: 1 added, 0 replaced" in second.stdout
    assert "holds 2 document(s)" in second.stdout
    assert "Apples" in run("search", "st.db", "apples", cwd=tmp_path).stdout
    # The same stdin batch again changes nothing; a document with a source is known by it.
    assert "0 added, 0 replaced, 1 unchanged" in run("index", "st.db", "-", cwd=tmp_path, stdin=apples).stdout


def test_cli_same_sources_from_two_files_are_stored_once(run, tmp_path: Path, docs_file: Path):
    copy = tmp_path / "copy.jsonl"
    copy.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    assert run("index", "kb.db", str(docs_file), cwd=tmp_path).returncode == 0
    proc = run("index", "kb.db", str(copy), cwd=tmp_path)
    assert f"0 added, 0 replaced, {len(DOCS)} unchanged" in proc.stdout
    assert f"holds {len(DOCS)} document(s)" in proc.stdout
    hits = json.loads(run("search", "kb.db", "shipping", "-f", "json", cwd=tmp_path).stdout)
    assert [h["source"] for h in hits] == ["shipping.md"]


def test_cli_remove_deletes_a_files_documents(run, tmp_path: Path, docs_file: Path):
    notes = tmp_path / "notes.md"
    notes.write_text("The warranty covers defects for two years.\n", encoding="utf-8")
    run("index", "kb.db", "docs.json", "notes.md", cwd=tmp_path)
    proc = run("remove", "kb.db", "./docs.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["removed 5 document(s) from ./docs.json", "kb.db holds 1 document(s)"]
    assert_one_line_error(run("remove", "kb.db", "nope.md", cwd=tmp_path), r"nothing in kb\.db came from 'nope\.md'")


def test_cli_search_contractions_find_what_a_person_meant(run, tmp_path: Path):
    docs = [{"text": "Refund policy: a refund goes back to the original card within 14 days.", "source": "refund.md"}]
    docs += [
        {
            "text": f"Postmortem {i}: the service's latency spiked and the team's pager didn't "
            "fire; I'm sure it's the cache's eviction.",
            "source": f"pm{i}.md",
        }
        for i in range(5)
    ]
    (tmp_path / "kb.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    run("index", "kb.db", "kb.jsonl", cwd=tmp_path)
    for query in ("refund's", "what's the refund policy", "I'm asking for a refund"):
        hits = json.loads(run("search", "kb.db", query, "-f", "json", cwd=tmp_path).stdout)
        assert [h["source"] for h in hits] == ["refund.md"], query


def test_cli_search_json_and_top_k(run, tmp_path: Path, docs_file: Path):
    run("index", "kb.db", str(docs_file), cwd=tmp_path)
    proc = run("search", "kb.db", 'refund* "AND (', "--top-k", "2", "--format", "json", cwd=tmp_path)
    hits = json.loads(proc.stdout)
    assert [h["rank"] for h in hits] == [1, 2]
    assert all(0 <= h["score"] <= 1 and "refund" in h["content"].lower() for h in hits)


def test_cli_search_no_match_says_so(run, tmp_path: Path, docs_file: Path):
    run("index", "kb.db", str(docs_file), cwd=tmp_path)
    proc = run("search", "kb.db", "zeppelin", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    assert "no document matches 'zeppelin'" in proc.stderr


def test_cli_search_missing_store_is_one_line_error(run, tmp_path: Path):
    assert_one_line_error(
        run("search", "none.db", "x", cwd=tmp_path),
        r"no store at 'none\.db'; create one with `contextlab index none\.db FILE\.\.\.`",
    )
    assert not (tmp_path / "none.db").exists()


def test_cli_index_bad_file_leaves_store_untouched(run, tmp_path: Path, docs_file: Path):
    (tmp_path / "bad.jsonl").write_text('{"text": "ok"}\n{oops}\n', encoding="utf-8")
    proc = run("index", "kb.db", str(docs_file), "bad.jsonl", cwd=tmp_path)
    assert_one_line_error(proc, r"bad\.jsonl: line 2, column 2: invalid JSON")
    assert not (tmp_path / "kb.db").exists()


def test_cli_index_into_non_store_is_one_line_error(run, tmp_path: Path, docs_file: Path):
    (tmp_path / "x.db").write_text("not a database at all" * 50, encoding="utf-8")
    assert_one_line_error(
        run("index", "x.db", str(docs_file), cwd=tmp_path),
        r"cannot open store 'x\.db': the file is not a SQLite database",
    )


def test_cli_search_on_a_missing_store_creates_nothing(run, tmp_path: Path):
    proc = run("search", "kb.db", "refunds", cwd=tmp_path)
    assert_one_line_error(proc, r"no store at 'kb\.db'")
    assert list(tmp_path.iterdir()) == []


def test_cli_search_never_changes_the_store_or_its_folder(run, tmp_path: Path, docs_file: Path):
    run("index", "kb.db", "docs.json", cwd=tmp_path)
    store = tmp_path / "kb.db"
    os.utime(store, (1_000_000_000, 1_000_000_000))
    before = {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.iterdir()}
    assert run("search", "kb.db", "refunds", cwd=tmp_path).returncode == 0
    assert {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.iterdir()} == before


def test_cli_damaged_store_is_one_line_and_exit_1(run, tmp_path: Path, docs_file: Path):
    run("index", "kb.db", "docs.json", cwd=tmp_path)
    store = tmp_path / "kb.db"
    data = bytearray(store.read_bytes())
    data[100:] = b"\xee" * (len(data) - 100)  # the header survives, every page is garbage
    store.write_bytes(bytes(data))
    for args in (["search", "kb.db", "refunds"], ["index", "kb.db", "docs.json"]):
        assert_one_line_error(run(*args, cwd=tmp_path), r"store 'kb\.db'.*(damaged|not a SQLite database)")


def _drop_to_nobody() -> None:
    os.setgid(65534)
    os.setuid(65534)


def _run_unprivileged(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the command as a user the test's chmods apply to (root ignores them: drop to nobody)."""
    import sysconfig

    drop = _drop_to_nobody if hasattr(os, "geteuid") and os.geteuid() == 0 else None
    # This environment's packages, for an interpreter outside it that nobody may run.
    needed = [REPO, Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["platlib"])]
    closed = [str(p) for p in needed if drop and not all(d.stat().st_mode & 0o001 for d in (p, *p.parents))]
    if closed:  # e.g. a clone under `mktemp -d` (mode 0700): the unprivileged user cannot read the code
        pytest.skip(f"{closed[0]} is in a folder closed to other users, so the command cannot run unprivileged")
    path = os.pathsep.join(map(str, needed))
    env = {**os.environ, "PYTHONPATH": path, "HOME": str(cwd)}
    for python in (sys.executable, os.path.realpath(sys.executable), "/usr/bin/python3"):
        try:
            return subprocess.run(
                [python, "-m", "contextlab.cli", *args],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                preexec_fn=drop,
            )
        except PermissionError:
            continue  # e.g. a Python under /root, closed to nobody
    pytest.skip("no Python interpreter the unprivileged user may run")


@pytest.mark.parametrize("locked", ["file", "folder"])
def test_cli_read_only_store_can_be_searched_and_refuses_writes(run, locked: str, docs_file: Path):
    import shutil
    import tempfile

    # Not under pytest's tmp_path: its parents are closed to the unprivileged user.
    where = Path(tempfile.mkdtemp(prefix="contextlab-ro-"))
    try:
        shutil.copy(docs_file, where / "docs.json")
        assert run("index", "kb.db", "docs.json", cwd=where).returncode == 0
        (where / "kb.db").chmod(0o444 if locked == "file" else 0o666)
        (where / "docs.json").chmod(0o444)
        where.chmod(0o555 if locked == "folder" else 0o777)
        found = _run_unprivileged("search", "kb.db", "refunds", cwd=where)
        assert found.returncode == 0, found.stderr
        assert "refunds.md" in found.stdout
        refused = _run_unprivileged("index", "kb.db", "docs.json", cwd=where)
        reason = "its folder is read-only" if locked == "folder" else "the file is read-only"
        assert_one_line_error(refused, rf"cannot write to store 'kb\.db': {reason}")
        assert sorted(p.name for p in where.iterdir()) == ["docs.json", "kb.db"]
    finally:
        where.chmod(0o755)
        shutil.rmtree(where)


# -- lab -----------------------------------------------------------------------------------


def test_cli_lab_missing_script_is_clear_error(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setattr(cli_lab, "lab_app_path", lambda: tmp_path / "ui" / "streamlit_app.py")
    assert cli.main(["lab"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("contextlab: error: the lab's script is missing") and err.count("\n") == 1


def test_cli_lab_runs_streamlit_with_passthrough_args(tmp_path: Path, monkeypatch):
    app = tmp_path / "streamlit_app.py"
    app.write_text("", encoding="utf-8")
    calls: list[list[str]] = []
    monkeypatch.setattr(cli_lab, "lab_app_path", lambda: app)
    monkeypatch.setattr(cli_lab.subprocess, "call", lambda cmd: calls.append(cmd) or 0)
    monkeypatch.setattr(cli.os, "execv", lambda path, cmd: calls.append(cmd))  # POSIX: the lab replaces the process
    assert cli.main(["lab", "--server.port", "8502", "--server.headless", "true"]) == 0
    assert calls == [
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(app),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--runner.postScriptGC",
            "false",
            "--browser.serverAddress",
            "localhost",
            "--server.port",
            "8502",
            "--server.headless",
            "true",
        ]
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--server.port", "abc"], "--server.port expects a port number from 1 to 65535, got 'abc'"),
        (["--server.port=70000"], "--server.port expects a port number from 1 to 65535, got '70000'"),
        (["--server.port", "0"], "--server.port expects a port number from 1 to 65535, got '0'"),
        (
            ["--server.port", "9" * 400],
            "--server.port expects a port number from 1 to 65535, got "
            "'99999999999999999...999999999999999999' (400 characters)",
        ),
        (["--server.headless", "maybe"], "--server.headless expects true or false, got 'maybe'"),
        (["--server.port"], "--server.port needs a value"),
        (["--server.port", "--server.headless", "true"], "--server.port needs a value"),
    ],
)
def test_cli_lab_bad_streamlit_options_are_one_line_usage_errors(run, tmp_path: Path, monkeypatch, args, message):
    calls: list[list[str]] = []
    monkeypatch.setattr(cli.os, "execv", lambda path, cmd: calls.append(cmd))
    monkeypatch.setattr(cli_lab.subprocess, "call", lambda cmd: calls.append(cmd) or 0)
    proc = run("lab", *args, cwd=tmp_path)
    assert proc.returncode == 2 and calls == []
    assert proc.stderr == f"contextlab lab: error: {message} (see `contextlab lab --help`)\n"


def test_cli_lab_runs_from_stdin_is_refused_in_one_line(run, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(cli.os, "execv", lambda path, cmd: pytest.fail("the lab must not start"))
    assert_one_line_error(
        run("lab", "--runs", "-", cwd=tmp_path), r"--runs reads a capture file or span export by name, not stdin"
    )


def test_cli_lab_app_path_points_into_the_package():
    import contextlab

    assert cli.lab_app_path() == Path(contextlab.__file__).parent / "ui" / "streamlit_app.py"


# -- imports -------------------------------------------------------------------------------


def test_cli_import_does_not_pull_in_streamlit_or_plotly(tmp_path: Path):
    code = (
        "import sys, contextlab.cli, contextlab.loaders, contextlab.retrieval, contextlab.events; "
        "print(sorted(m for m in ('streamlit', 'plotly') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert proc.stdout.strip() == "[]", proc.stderr


@pytest.mark.slow
def test_cli_sweep_html_never_imports_the_lab(tmp_path: Path, docs_file: Path):
    code = (
        "import sys; from contextlab import cli; "
        f"code = cli.main(['sweep', {str(docs_file)!r}, '-q', 'refunds', '-t', '0.9', '-b', '100', "
        f"'-o', {str(tmp_path / 'o.csv')!r}, '--html', {str(tmp_path / 'c.html')!r}]); "
        "print(code, sorted(m for m in sys.modules if m.startswith('contextlab.ui')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert proc.stdout.strip() == "0 []", proc.stderr
    assert "Plotly.newPlot" in (tmp_path / "c.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (
            ("build", "docs.json", "--budget", "-5"),
            r"^contextlab build: error: argument --max-context-tokens/--budget/-b: "
            r"expected a whole number from 0 to 1,000,000,000, got '-5'",
        ),
        (
            ("build", "docs.json", "--threshold", "1.5"),
            r"^contextlab build: error: argument --dedup-threshold/--threshold/-t",
        ),
        (("build",), r"^contextlab build: error: the following arguments are required: FILE"),
        (("frobnicate",), r"^contextlab: error: argument COMMAND: invalid choice: 'frobnicate'"),
    ],
)
def test_cli_usage_error_is_one_line(run, args, pattern, tmp_path):
    import re

    proc = run(*args, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(pattern, lines[0]), proc.stderr


def test_cli_build_says_when_nothing_made_it_in(run, tmp_path: Path):
    proc = run("build", "-", "-q", "x", "--input-format", "txt", cwd=tmp_path, stdin="a\n\nb\n")
    assert proc.returncode == 0 and proc.stdout == "\n"
    assert proc.stderr.strip().splitlines()[-1] == (
        "contextlab: note: no document made it into the block "
        "(2 too short for --min-tokens, 0 duplicate(s), 0 over the budget of 2048)"
    )


def test_cli_huge_max_bytes_reads_stdin_and_files_in_bounded_chunks(run, tmp_path: Path):
    # A limit far above the machine's memory must not be allocated up front.
    huge = str(10**18)
    proc = run(
        "build", "-", "-q", "alpha", "--max-bytes", huge, "--input-format", "json", cwd=tmp_path, stdin=json.dumps(DOCS)
    )
    assert proc.returncode == 0, proc.stderr
    assert "--- Source [1]" in proc.stdout
    path = tmp_path / "docs.data"
    path.write_text(json.dumps(DOCS), encoding="utf-8")
    proc = run("build", str(path), "-q", "alpha", "--max-bytes", huge, "--input-format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "--- Source [1]" in proc.stdout
