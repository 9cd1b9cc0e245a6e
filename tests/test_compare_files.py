"""`contextlab compare` on damaged and hostile files: every fault is one line naming the file and the field.

Each test injects a fault into a real run's files (a summary with keys of the wrong type, a
results path that leads outside the summary's folder, a results CSV edited after the run, a
label holding a newline) and checks that compare refuses it, or says what it did instead,
in one line; nothing outside the summary's folder is ever opened.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from contextlab.cli import main
from contextlab.errors import LoadError
from contextlab.evaluation import load_eval_set, run_evaluation, write_results
from contextlab.evaluation.compare import compare_runs, compare_table
from contextlab.evaluation.saved_runs import load_run

ANSWER = "The keeper of Skerry Point light in the long winter of that year was a man called Tobias Wren."


def _filler(i: int) -> str:
    return " ".join(f"w{i}x{j}" for j in range(12)) + "."


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    """Return a folder holding a real run's ``r.csv`` and ``s.json`` (4 questions, 2 budgets)."""
    folder = tmp_path_factory.mktemp("run")
    records = [
        {
            "id": f"q{i}",
            "query": f"who kept skerry point light {i}",
            "answers": ["Tobias Wren"],
            "gold_sources": ["gold"],
            "documents": [
                {"content": ANSWER, "source": "gold", "score": 0.9},
                *({"content": _filler(j), "source": f"d{j}", "score": 0.5} for j in range(4)),
            ],
        }
        for i in range(4)
    ]
    (folder / "set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = run_evaluation(load_eval_set(str(folder / "set.jsonl")), ["max_context_tokens=30,400"])
    write_results(result, folder / "r.csv", folder / "s.json")
    return folder


@pytest.fixture
def run(run_folder, tmp_path) -> Path:
    """Return the summary of a fresh copy of the run, to damage."""
    for name in ("r.csv", "s.json"):
        shutil.copy(run_folder / name, tmp_path / name)
    return tmp_path / "s.json"


def _edit(summary: Path, change) -> Path:
    data = json.loads(summary.read_text(encoding="utf-8"))
    change(data)
    summary.write_text(json.dumps(data), encoding="utf-8")
    return summary


def _set(path: list, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["configs"], "all of them", r"s\.json: configs is 'all of them', not a list of configurations"),
        (["configs"], [], r"s\.json: configs is \[\], not a list of configurations"),
        (["configs", 0], 7, r"s\.json: configs\[0\] is int 7, not an object"),
        (["configs", 1, "config"], 5, r"s\.json: configs\[1\]\.config is 5, not a configuration's label"),
        (["configs", 0, "gold_in_block"], "high", r"s\.json: configs\[0\]\.gold_in_block is 'high', not a number"),
        (["configs", 0, "tokens_used_low"], True, r"s\.json: configs\[0\]\.tokens_used_low is True, not a number"),
        (["results_csv"], "r.csv", r"s\.json: results_csv is 'r\.csv', not \{path, sha256\}"),
        (["questions"], -3, r"s\.json: questions is -3, not a count"),
        (["evalset"], ["x"], r"s\.json: evalset is \['x'\], not text"),
        (
            ["configs", 0, "tokens_used_low"],
            1e308,
            r"s\.json: configs\[0\]: tokens_used_low 1e\+308 is above "
            r"tokens_used_high \d+(\.\d+)?, not an interval",
        ),
        (
            ["results_csv", "path"],
            "r.csv\x00",
            r"s\.json: results_csv\.path 'r\.csv\\x00' holds a NUL, not a file name",
        ),
    ],
)
def test_compare_summary_with_a_key_of_the_wrong_type_is_one_line(run, path, value, message):
    """Injects a fault: one key of the summary holds a value of the wrong type."""
    _edit(run, _set(path, value))
    with pytest.raises(LoadError, match=message) as err:
        compare_runs(run, run)
    assert "\n" not in str(err.value)


def test_compare_summary_with_nan_or_a_repeated_label_is_refused(run):
    """Injects a fault: a NaN number (JSON does not allow it), then one label given twice."""
    text = run.read_text(encoding="utf-8")
    run.write_text(text.replace('"gold_in_block": 1.0', '"gold_in_block": NaN', 1), encoding="utf-8")
    with pytest.raises(LoadError, match=r"s\.json: not a summary of a contextlab eval run \(NaN is not a number"):
        load_run(run)
    run.write_text(text, encoding="utf-8")
    _edit(run, lambda d: d["configs"].append(dict(d["configs"][0])))
    with pytest.raises(LoadError, match="configuration 'max_context_tokens=30' appears more than once"):
        load_run(run)


@pytest.mark.parametrize("where", ["/etc/passwd", "../outside.csv", "sub/../../outside.csv"])
def test_compare_results_path_outside_the_summarys_folder_is_refused(run, where):
    """Injects a fault: the summary names a results file outside its own folder; it is never opened."""
    (run.parent.parent / "outside.csv").write_text("config,query_id\n", encoding="utf-8")
    _edit(run, _set(["results_csv", "path"], where))
    with pytest.raises(
        LoadError,
        match=r"results_csv\.path .* leads outside the summary's folder; contextlab compare "
        r"reads only the results CSV beside its summary",
    ):
        load_run(run)


def test_compare_results_link_leading_outside_is_refused(run, tmp_path_factory):
    """Injects a fault: the results path is a symbolic link, inside the folder, to a file outside it."""
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.csv"
    outside.write_text("config,query_id\n", encoding="utf-8")
    (run.parent / "link.csv").symlink_to(outside)
    _edit(run, _set(["results_csv", "path"], "link.csv"))
    with pytest.raises(LoadError, match="leads outside the summary's folder"):
        load_run(run)


def test_compare_edited_results_are_not_paired_and_the_table_says_why(run):
    """Injects a fault: the results CSV was edited after the run (its SHA-256 no longer matches)."""
    csv_path = run.parent / "r.csv"
    text = csv_path.read_text(encoding="utf-8")
    csv_path.write_text(text.replace(",1,1,", ",0,0,", 1), encoding="utf-8")
    loaded = load_run(run)
    assert loaded.rows is None
    assert loaded.why == (
        "r.csv differs from the SHA-256 its summary recorded (changed after the run), so its rows are not used"
    )
    table = compare_table(compare_runs(run, run))
    assert (
        "Unpaired: A: r.csv differs from the SHA-256 its summary recorded (changed after the run), so its "
        "rows are not used; differences of the means, intervals unpaired."
    ) in table.splitlines()


def test_compare_results_cell_that_is_not_a_number_names_the_line(run):
    """Injects a fault: a yes/no cell holds 'nan'; the SHA-256 is updated so the rows are read."""
    csv_path = run.parent / "r.csv"
    lines = csv_path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    cells = lines[2].rstrip("\n").split(",")
    cells[header.index("gold_in_block")] = "nan"
    lines[2] = ",".join(cells) + "\n"
    csv_path.write_text("".join(lines), encoding="utf-8")
    _edit(run, _set(["results_csv", "sha256"], hashlib.sha256(csv_path.read_bytes()).hexdigest()))
    with pytest.raises(LoadError, match=r"r\.csv line 3: gold_in_block is 'nan', not 0 or 1"):
        load_run(run)


def test_compare_label_with_a_newline_prints_as_one_line(run, capsys):
    """Injects a fault: a set name and a label hold a newline and a forged verdict."""
    forged = "max_context_tokens=30\nB is +99.0 better"

    def change(data):
        data["configs"][0]["config"] = forged
        data["evalset"] = "nq\nB is +99.0 better"
        data["results_csv"] = None

    _edit(run, change)
    assert main(["compare", str(run), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("B is") for line in lines)
    assert lines[0].endswith("(nq\\nB is +99.0 better, 4 questions, " + json.loads(run.read_text())["created"] + ")")
    assert any(line.startswith("max_context_tokens=30\\nB is +99.0 better  ") for line in lines)


def test_compare_huge_strings_in_a_summary_print_as_short_lines(run, capsys):
    """Injects a fault: a 1,000,000-character date and label (once printed whole: a 1 MB line per string)."""

    def change(data):
        data["created"] = "x" * 1_000_000
        data["configs"][0]["config"] = "y" * 1_000_000
        data["results_csv"] = None

    _edit(run, change)
    assert main(["compare", str(run), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(", 4 questions, " + "x" * 200 + "...)")
    assert max(len(line) for line in lines) < 1_000


def test_compare_cli_damaged_summary_is_one_line_and_exit_1(run, capsys):
    """Injects a fault: a configuration entry that is a number; the command says so in one line."""
    _edit(run, _set(["configs", 0], 7))
    assert main(["compare", str(run), str(run)]) == 1
    err = capsys.readouterr().err
    assert err == f"contextlab: error: {run}: configs[0] is int 7, not an object\n"


def test_compare_untouched_run_still_pairs(run):
    """The same run against itself, files as written: paired, and every difference zero."""
    same = compare_runs(run, run)
    assert same.matched_questions == 4
    assert {d.difference for c in same.configs for d in c.metrics.values()} == {0.0}
