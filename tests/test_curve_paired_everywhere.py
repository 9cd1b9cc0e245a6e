"""A measured curve's per-question outcomes travel with it: every test read off it is paired (issue 27, point 4).

The bundled curve ships its outcomes; ``eval --curve`` and the lab load a curve with the outcomes
beside it (the lab: uploaded with it), refuse outcomes from another run, and a placement verdict
calls a move a help or a harm only when the test of the measured positions it reads resolves them.
"""

from __future__ import annotations

import argparse
from importlib import resources

import pytest

from contextlab.curves.curve_file import load_curve_file
from contextlab.curves.evidence import curve_evidence, position_effect
from contextlab.curves.outcomes import load_measured_curve, outcomes_csv, parse_measured_curve
from contextlab.errors import LoadError
from contextlab.evaluation.curve import CurveAnswer
from contextlab.lab.curve_views import measured_points, move_undecided

BUNDLED = resources.files("contextlab").joinpath("data", "gemma3_270m_measured.csv")


def _curve_text(acc: dict[int, float], n: int, model: str = "m") -> str:
    rows = [f"{model},5,{p},{a},position,{n},0.0,100.0" for p, a in acc.items()]
    return "model,total_docs,position,accuracy,kind,questions,accuracy_low,accuracy_high\n" + "\n".join(rows) + "\n"


def _outcomes_text(marks: dict[int, list[bool]]) -> str:
    rows = [CurveAnswer(f"q{i}", "position", 5, p, "a", m) for p, ms in marks.items() for i, m in enumerate(ms)]
    return outcomes_csv(rows)


def test_the_bundled_curve_loads_with_its_outcomes_and_reads_paired():
    data = load_measured_curve(BUNDLED)
    evidence = curve_evidence(data, data.models()[0])
    assert evidence.paired and evidence.questions == 223
    # the unpaired reading of the same points cannot tell positions 1 and 3 apart; the paired one can
    unpaired = curve_evidence(load_curve_file(BUNDLED), data.models()[0])
    assert not unpaired.paired and not unpaired.difference(1, 3).resolved
    assert evidence.difference(1, 3).resolved and evidence.difference(1, 3).p_value == pytest.approx(0.049, abs=5e-4)
    # the lab's points are the file's numbers; its band the exact counts' intervals, as the file writes them
    shown = measured_points(data)
    assert shown.points == [(1, 10.3), (3, 14.3), (5, 25.6)]
    assert [round(v, 1) for v in shown.band[0]] == [7.0, 10.4, 20.3]


def test_outcomes_from_another_run_are_refused_naming_what_differs():
    curve = _curve_text({1: 50.0, 3: 25.0}, 4)
    mine = _outcomes_text({1: [True, True, False, False], 3: [True, False, False, False]})
    assert curve_evidence(parse_measured_curve(curve, mine), "m").paired
    other = _outcomes_text({1: [True, False, False, False], 3: [True, False, False, False]})
    with pytest.raises(
        LoadError,
        match=r"outcomes give 25\.0% at position 1 of 5, the curve 50\.0%; they are "
        r"from another run",
    ):
        parse_measured_curve(curve, other, name="curve file 'c.csv'")
    fewer = _outcomes_text({1: [True, False], 3: [False, False]})
    with pytest.raises(LoadError, match="its outcomes hold 2 questions, the curve says 4"):
        parse_measured_curve(curve, fewer)


def test_eval_curve_loads_the_outcomes_beside_the_file(tmp_path):
    from contextlab.cli.evaluate import run_options

    path = tmp_path / "curve.csv"
    path.write_text(BUNDLED.read_text())
    from contextlab.loaders.reading import DEFAULT_MAX_BYTES

    args = argparse.Namespace(
        top_k=5,
        limit=10,
        curve_model="GPT-3.5-Turbo",
        baseline=None,
        blocks=False,
        workers=None,
        scheduler=None,
        store=None,
        max_bytes=DEFAULT_MAX_BYTES,
        curve=str(path),
    )
    assert run_options(args).curves.outcomes is None  # no outcomes beside it: the tests stay unpaired
    (tmp_path / "curve.questions.csv").write_text(
        BUNDLED.parent.joinpath("gemma3_270m_measured.questions.csv").read_text()
    )
    assert run_options(args).curves.outcomes is not None


def test_lab_upload_reads_the_newest_curve_with_its_own_outcomes_and_says_what_is_missing():
    from contextlab.ui.curve_store import pick_curve_files

    curve, outcomes = (
        _curve_text({1: 50.0, 3: 25.0}, 4),
        _outcomes_text({1: [True] * 2 + [False] * 2, 3: [True] + [False] * 3}),
    )
    assert pick_curve_files([("c.questions.csv", outcomes), ("c.csv", curve)]) == ("c.csv", curve, outcomes)
    assert pick_curve_files([("c.csv", curve)]) == ("c.csv", curve, None)
    # the upload keeps every file given: the newest curve is read, with the outcomes named after it
    newer = _curve_text({1: 25.0, 3: 25.0}, 4)
    files = [
        ("d.csv", newer),
        ("c.csv", curve),
        ("c.questions.csv", outcomes),
        ("x.csv", outcomes.replace("a\n", "b\n")),
    ]
    assert pick_curve_files(files) == ("c.csv", curve, outcomes)
    assert pick_curve_files(files[:1] + files[2:]) == ("d.csv", newer, files[3][1])  # none named after it: the newest
    with pytest.raises(LoadError, match="only an outcomes file was given"):
        pick_curve_files([("c.questions.csv", outcomes)])


def test_a_move_is_called_a_help_only_when_the_test_of_the_positions_it_reads_resolves_them():
    # positions 1 and 5 told apart (30 of 40 questions gained), 1 and 3 not (2 of 40)
    first = [False] * 40
    third = [True] * 2 + [False] * 38
    last = [True] * 30 + [False] * 10
    evidence = position_effect(outcomes={1: first, 3: third, 5: last}, total_docs=5)
    # a block of 21: pos 1 reads measured 1, pos 21 reads 5, pos 9 reads 3 (depth 0.4 -> nearest 0.5)
    assert move_undecided(evidence, 21, 1, 21) is None
    said = move_undecided(evidence, 21, 1, 9)
    assert said.startswith("positions 1 and 3 differ by +5.0") and "not told apart on 40 questions" in said
    assert move_undecided(evidence, 21, 2, 3) == (
        "both positions read off the curve nearest its measured pos 1, and one measured position cannot tell two apart"
    )
    assert move_undecided(evidence, 21, 4, 4) is None  # no move: nothing to tell apart
