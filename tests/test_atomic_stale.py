"""A temporary file a killed run left beside its output is cleaned by the next write (issue 18, point 12)."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

from contextlab.atomic import StagedFile


def _die_while_writing(path: str) -> None:
    staged = StagedFile(path)
    staged.write("half a file")
    staged.close()
    os.kill(os.getpid(), signal.SIGKILL)


def test_staged_file_removes_the_temporary_file_of_a_killed_writer(tmp_path: Path):
    out = tmp_path / "r.csv"
    proc = multiprocessing.get_context("fork").Process(target=_die_while_writing, args=(str(out),))
    proc.start()
    proc.join(timeout=30)
    assert proc.exitcode == -signal.SIGKILL
    [left] = tmp_path.glob(".r.csv.*.tmp")
    with StagedFile(out) as staged:
        assert not left.exists()
        staged.write("whole file\n")
        staged.commit()
    assert out.read_text() == "whole file\n"
    assert list(tmp_path.glob(".r.csv.*.tmp")) == []


def test_staged_file_leaves_a_live_writer_s_temporary_file_alone(tmp_path: Path):
    out = tmp_path / "r.csv"
    with StagedFile(out) as first, StagedFile(out) as second:
        assert first.temp.exists() and second.temp.exists()
    assert list(tmp_path.glob(".r.csv.*.tmp")) == []


def test_staged_file_writes_beside_a_stray_file_whose_pid_is_no_number(tmp_path: Path):
    # "²".isdigit() is True and int("²") fails: such a name is not a writer's, and must not stop a write.
    stray = tmp_path / ".out.csv.\u00b2.tmp"
    stray.write_text("someone else's")
    with StagedFile(tmp_path / "out.csv") as staged:
        staged.write("a,b\n")
        staged.commit()
    assert (tmp_path / "out.csv").read_text() == "a,b\n"
    assert stray.read_text() == "someone else's"
