"""Curve files checked at the door: a damaged file is refused in one line naming the file, the line and the value.

Each test injects a fault into a curve file (`eval --curve`, and the text both of the lab's
uploads hand to the same parser): a NaN, infinite, negative or >100 accuracy, a point given
twice, a document count of 0 or 1e20, a position beyond the count, an interval that does not
hold its accuracy, a model name with a newline, a file far too large. A UTF-8 byte-order mark
(Excel's CSV) is not a fault and is read.
"""

from __future__ import annotations

import time

import pytest

from contextlab.cli import main
from contextlab.curves.curve_file import MAX_CURVE_BYTES, load_curve_file, parse_position_csv
from contextlab.errors import LoadError

HEADER = "model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high"
GOOD = [
    "Tiny,3,1,50.0,position,4,15.0,85.0",
    "Tiny,3,3,75.0,position,4,30.1,95.4",
    "Tiny,,,25.0,closed_book,4,4.6,69.9",
    "Tiny,,,100.0,oracle,4,51.0,100.0",
]


def _file(tmp_path, rows: list[str], *, comment: str = "# a measured curve\n", prefix: str = ""):
    path = tmp_path / "curve.csv"
    path.write_text(prefix + comment + HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _with(row: int, column: str, value: str) -> list[str]:
    rows = [r.split(",") for r in GOOD]
    rows[row][HEADER.split(",").index(column)] = value
    return [",".join(r) for r in rows]


def test_curve_files_a_good_file_reads_with_its_n(tmp_path):
    data = load_curve_file(_file(tmp_path, GOOD))
    assert data.curve("Tiny", 3) == [(1, 50.0), (3, 75.0)]
    assert (data.closed_book("Tiny"), data.oracle("Tiny"), data.questions) == (25.0, 100.0, 4)


def test_curve_files_utf8_byte_order_mark_is_accepted(tmp_path):
    """Injects what Excel writes: a UTF-8 byte-order mark before the header (no comment line)."""
    data = load_curve_file(_file(tmp_path, GOOD, comment="", prefix="\ufeff"))
    assert data.models() == ["Tiny"] and data.curve("Tiny", 3) == [(1, 50.0), (3, 75.0)]
    assert parse_position_csv("\ufeff" + HEADER + "\n" + GOOD[0] + "\n", name="up.csv").models() == ["Tiny"]


@pytest.mark.parametrize(
    ("row", "column", "value", "said"),
    [
        (0, "accuracy", "nan", "line 3: accuracy is 'nan', not a percentage from 0 to 100"),
        (0, "accuracy", "inf", "line 3: accuracy is 'inf', not a percentage from 0 to 100"),
        (1, "accuracy", "-5", "line 4: accuracy is '-5', not a percentage from 0 to 100"),
        (1, "accuracy", "100.5", "line 4: accuracy is '100.5', not a percentage from 0 to 100"),
        (0, "accuracy", "", "line 3: accuracy is empty, not a percentage from 0 to 100"),
        (0, "accuracy_low", "nan", "line 3: accuracy_low is 'nan', not a percentage from 0 to 100"),
        (0, "accuracy_high", "40.0", "line 3: the interval [15.0, 40.0] does not hold the accuracy 50.0"),
        (0, "total_docs", "0", "line 3: total_docs is '0', not a whole number from 1 to 1,000"),
        (0, "total_docs", "1e20", "line 3: total_docs is '1e20', not a whole number from 1 to 1,000"),
        (1, "position", "4", "line 4: position is '4', not a whole number from 1 to 3"),
        (1, "position", "0", "line 4: position is '0', not a whole number from 1 to 3"),
        (0, "questions", "-3", "line 3: questions is '-3', not a whole number from 1 to 10,000,000"),
        (2, "kind", "average", "line 5: unknown row kind 'average'; expected position, closed_book or oracle"),
        (0, "total_docs", "\u00b2", "line 3: total_docs is '\u00b2', not a whole number from 1 to 1,000"),
        (1, "position", "\u0663", "line 4: position is '\u0663', not a whole number from 1 to 3"),
        (
            0,
            "accuracy",
            '"' + "9" * 200_000 + '"',
            "line 3: a line of 200,033 characters; a curve file's lines are under 4,096",
        ),
    ],
)
def test_curve_files_bad_value_is_one_line_naming_file_line_and_value(tmp_path, row, column, value, said):
    """Injects a fault: one cell of a good curve file replaced by a value a curve cannot have."""
    with pytest.raises(LoadError) as err:
        load_curve_file(_file(tmp_path, _with(row, column, value)))
    assert str(err.value) == f"curve file 'curve.csv' {said}"
    assert err.value.field == "curve"


def test_curve_files_duplicate_position_is_refused_not_averaged(tmp_path):
    """Injects a fault: position 1 of 3 given twice (once 10, once 90): never silently averaged."""
    rows = ["Tiny,3,1,10.0,position,4,,", "Tiny,3,3,75.0,position,4,,", "Tiny,3,1,90.0,position,4,,"]
    with pytest.raises(LoadError) as err:
        load_curve_file(_file(tmp_path, rows))
    assert str(err.value) == (
        "curve file 'curve.csv' line 5: Tiny's position 1 of 3 is given twice (first on line 3); give each point once"
    )


def test_curve_files_duplicate_closed_book_is_refused(tmp_path):
    """Injects a fault: two closed-book rows for one model."""
    with pytest.raises(LoadError, match=r"line 7: Tiny's closed_book is given twice \(first on line 5\)"):
        load_curve_file(_file(tmp_path, GOOD + ["Tiny,,,30.0,closed_book,4,,"]))


def test_curve_files_model_name_with_a_newline_is_refused(tmp_path):
    """Injects a fault: a quoted model name holding a newline (a forged second line when shown)."""
    rows = ['"Tiny\nB is better",3,1,50.0,position,4,,']
    with pytest.raises(
        LoadError,
        match=r"curve file 'curve.csv' line 3: model is 'Tiny\\nB is better'; give a name "
        r"of 1 to 200 characters on one line",
    ):
        load_curve_file(_file(tmp_path, rows))


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_curve_files_windows_and_old_mac_line_endings_are_read(tmp_path, newline):
    """Injects what Windows (and classic Mac OS) editors write: CR LF, or CR alone, at every line's end."""
    path = tmp_path / "curve.csv"
    path.write_bytes(newline.join(["# a measured curve", HEADER, *GOOD, ""]).encode("utf-8"))
    data = load_curve_file(path)
    assert data.curve("Tiny", 3) == [(1, 50.0), (3, 75.0)] and data.questions == 4


def test_curve_files_trailing_empty_column_is_read(tmp_path):
    """Injects what a spreadsheet writes: one more, empty, column at the end of the header and of every row."""
    path = tmp_path / "curve.csv"
    path.write_text("\n".join([HEADER + ",", *(row + "," for row in GOOD), ""]), encoding="utf-8")
    assert load_curve_file(path).curve("Tiny", 3) == [(1, 50.0), (3, 75.0)]


def test_curve_files_header_only_is_refused_as_having_no_position_rows(tmp_path):
    """Injects a fault: the header and no row."""
    path = tmp_path / "curve.csv"
    path.write_text(HEADER + "\n", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load_curve_file(path)
    assert str(err.value) == "curve file 'curve.csv' has no position rows; `contextlab curve` writes them"


def test_curve_files_column_given_twice_is_refused(tmp_path):
    """Injects a fault: the header names accuracy twice (which cell is the accuracy?)."""
    path = tmp_path / "curve.csv"
    path.write_text(HEADER.replace("questions", "accuracy") + "\n" + GOOD[0] + "\n", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load_curve_file(path)
    assert str(err.value) == (
        "curve file 'curve.csv': the column accuracy appears more than once in the header; give each once"
    )


def test_curve_files_missing_column_says_the_format(tmp_path):
    """Injects a fault: a CSV without the kind column."""
    path = tmp_path / "curve.csv"
    path.write_text("model,total_docs,position,accuracy\nTiny,3,1,50\n", encoding="utf-8")
    with pytest.raises(
        LoadError,
        match=r"curve file 'curve.csv' is not in the curves' format "
        r"\(model,total_docs,position,accuracy,kind\): no kind column",
    ):
        load_curve_file(path)


def test_curve_files_a_million_rows_are_refused_at_once(tmp_path):
    """Injects a fault: a 1,000,000-row curve file (once 114 s and 474 MB for three questions)."""
    path = tmp_path / "huge.csv"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(HEADER + "\n")
        for i in range(1_000_000):
            fh.write(f"Tiny,1000,{i % 1000 + 1},50.0,position,4,,\n")
    start = time.monotonic()
    with pytest.raises(LoadError) as err:
        load_curve_file(path)
    assert str(err.value) == "curve file 'huge.csv' is larger than 1,024 KB; a curve file has a few dozen rows"
    # a generous bound: the file is refused after reading its first megabyte, not parsed
    assert time.monotonic() - start < 5


def test_curve_files_too_many_rows_under_the_size_limit_are_refused():
    """Injects a fault: 20,000 short rows (under the byte limit, over the row limit)."""
    text = HEADER + "\n" + "".join(f"T{i // 1000},1000,{i % 1000 + 1},1,position,,,\n" for i in range(20_000))
    assert len(text) < MAX_CURVE_BYTES
    with pytest.raises(LoadError, match=r"up\.csv holds more than 10,000 rows; a curve file has a few dozen"):
        parse_position_csv(text, name="up.csv")


def test_curve_files_text_that_is_not_utf8_is_refused(tmp_path):
    """Injects a fault: a curve file in Latin-1 with an accented model name."""
    path = tmp_path / "latin.csv"
    path.write_bytes((HEADER + "\nMod\xe8le,3,1,50,position,,,\n").encode("latin-1"))
    with pytest.raises(LoadError, match=r"curve file 'latin.csv' is not UTF-8 text"):
        load_curve_file(path)


def test_curve_files_eval_curve_refuses_a_damaged_file_in_one_line(tmp_path, capsys):
    """Injects a fault: `eval --curve` given a file whose accuracy is NaN; nothing is written."""
    path = _file(tmp_path, _with(0, "accuracy", "NaN"))
    assert main(["eval", "--curve", str(path), "--limit", "1", "--out", str(tmp_path / "r.csv")]) == 1
    assert capsys.readouterr().err == (
        "contextlab: error: --curve file 'curve.csv' line 3: accuracy is 'NaN', not a percentage from 0 to 100\n"
    )
    assert not (tmp_path / "r.csv").exists()


def test_curve_files_published_and_bundled_files_pass_the_checks():
    from importlib import resources

    from contextlab.curves.published import load_position_curves

    assert load_position_curves().doc_counts("GPT-3.5-Turbo (16K)") == [10, 20, 30]
    bundled = load_curve_file(resources.files("contextlab").joinpath("data", "gemma3_270m_measured.csv"))
    assert bundled.questions == 223 and bundled.doc_counts(bundled.models()[0]) == [5]


def test_curve_files_lab_upload_text_goes_through_the_same_checks():
    """Injects a fault: an upload's text with a duplicate point, then one with no position rows."""
    from contextlab.ui.curve_store import read_curve_text

    twice = "\ufeff" + HEADER + "\n" + GOOD[0] + "\n" + GOOD[0] + "\n"
    with pytest.raises(LoadError, match=r"^up\.csv line 3: Tiny's position 1 of 3 is given twice \(first on line 2\)"):
        read_curve_text(twice, "up.csv")
    with pytest.raises(LoadError, match=r"^up\.csv has no position rows; `contextlab curve` writes them$"):
        read_curve_text(HEADER + "\n" + GOOD[2] + "\n", "up.csv")
