"""The one atomic writer (temp file beside the target, fsync, os.replace) and the one progress bar."""

from __future__ import annotations

import io
import os
import threading

import pytest

from contextlab import atomic
from contextlab.atomic import StagedFile, atomic_writer, new_file_mode, write_files, write_text
from contextlab.progress import ProgressBar


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_atomic_write_text_writes_the_whole_text_with_the_umask_mode(tmp_path):
    target = tmp_path / "out.csv"
    write_text(target, "a,b\n1,2\n")
    assert target.read_text() == "a,b\n1,2\n"
    plain = tmp_path / "plain.txt"
    plain.write_text("x")  # what open(path, "w") gives
    assert target.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777
    assert _leftovers(tmp_path) == []


def test_atomic_write_keeps_an_existing_files_mode(tmp_path):
    target = tmp_path / "private.json"
    target.write_text("old")
    target.chmod(0o600)
    write_text(target, "new")
    assert (target.read_text(), target.stat().st_mode & 0o777) == ("new", 0o600)


def test_atomic_write_files_is_all_or_nothing(tmp_path):
    first = tmp_path / "results.csv"
    first.write_text("earlier")
    with pytest.raises(FileNotFoundError):
        write_files({first: "new rows", tmp_path / "missing" / "summary.json": "{}"})
    assert first.read_text() == "earlier"
    assert _leftovers(tmp_path) == []


def test_atomic_writer_error_leaves_the_old_file(tmp_path):
    target = tmp_path / "summary.json"
    target.write_text("earlier")
    with pytest.raises(RuntimeError, match="disk full"), atomic_writer(target) as fh:
        fh.write("half a fi")
        raise RuntimeError("disk full")
    assert target.read_text() == "earlier"
    assert _leftovers(tmp_path) == []


def test_atomic_write_to_a_pipe_is_refused_and_the_pipe_stays(tmp_path):
    """Injects a fault: the target is a named pipe, as /dev/null is a device (as root, a rename replaced /dev/null)."""
    from contextlab.errors import InvalidInputError

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(InvalidInputError) as err:
        write_text(pipe, "a,b\n")
    assert str(err.value) == (
        f"{str(pipe)!r} is a device, a pipe or a socket, not a file: a file is written whole by "
        "renaming a finished copy onto its name; give a file name"
    )
    assert pipe.is_fifo() and _leftovers(tmp_path) == []


def test_atomic_staged_file_not_committed_is_removed(tmp_path):
    with StagedFile(tmp_path / "never.txt") as staged:
        staged.write("draft")
    assert list(tmp_path.iterdir()) == []


def test_atomic_never_swaps_the_umask_at_run_time(tmp_path, monkeypatch):
    # The umask is process-wide; swapping it while the lab's threads create files races.
    def forbidden(mask):
        raise AssertionError("os.umask called at run time")

    monkeypatch.setattr(os, "umask", forbidden)
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            write_text(tmp_path / f"f{i}.txt", str(i))
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(p.read_text() for p in tmp_path.iterdir()) == [str(i) for i in range(8)]
    assert new_file_mode(tmp_path / "new") == 0o666 & ~atomic.UMASK


def test_atomic_umask_is_the_processes():
    current = os.umask(0o022)
    os.umask(current)
    assert current == atomic.UMASK


def test_progress_bar_draws_in_place_and_ends_the_line():
    stream = io.StringIO()
    bar = ProgressBar(stream, width=4, label="builds", enabled=True)
    bar(1, 2)
    bar(2, 2, "3 cached")
    lines = stream.getvalue().split("\r")
    assert lines[1].startswith("[##..] 1/2 builds ")
    assert lines[2].startswith("[####] 2/2 builds ") and lines[2].endswith(" s  3 cached\n")


def test_progress_bar_is_silent_off_a_terminal():
    stream = io.StringIO()
    ProgressBar(stream)(1, 2)
    assert stream.getvalue() == ""


def test_atomic_path_gives_the_file_its_name_only_when_the_writer_finished(tmp_path):
    from contextlab.atomic import atomic_path

    target = tmp_path / "model.gguf"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_path(target) as temp:
        temp.write_bytes(b"half")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["model.gguf"]
    with atomic_path(target) as temp:
        assert temp.parent == tmp_path and temp.name.startswith(".model.gguf.")
        temp.write_bytes(b"new")
    assert target.read_bytes() == b"new" and [p.name for p in tmp_path.iterdir()] == ["model.gguf"]
