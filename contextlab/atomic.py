"""Writing files all or nothing: a temporary file in the same folder, fsync, then ``os.replace``.

Every file contextlab writes for a user (``results.csv``, ``summary.json``, the CLI's outputs, a
measured curve) goes through here, so a crash or a full disk never leaves half a file under the
real name, and an earlier file stays untouched until the new one is complete.

A new file gets the permissions ``open(path, "w")`` would give it: an existing file's own mode,
else ``0o666`` less the umask. The umask is read once, when this module is imported (from
``/proc/self/status`` where the kernel reports it, else by setting and restoring it while
imports run on one thread); nothing here changes the umask while the program runs, because that
is process-wide and would race with other threads (the lab's server runs several).
"""

from __future__ import annotations

import glob
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .errors import InvalidInputError
from .validation import parse_int

__all__ = [
    "StagedFile",
    "UMASK",
    "remove_stale_temps",
    "atomic_path",
    "atomic_writer",
    "check_target",
    "new_file_mode",
    "write_files",
    "write_text",
]


def _read_umask() -> int:
    """Return the process's umask without changing it (Linux reports it in /proc/self/status)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # Elsewhere the only way to read it is to set it; at import time, once, before any thread
    # of ours could be creating files.
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


#: The umask at import: new files get ``0o666 & ~UMASK``.
UMASK: int = _read_umask()


def new_file_mode(path: str | os.PathLike[str]) -> int:
    """Return the permission bits for writing ``path``: its own when it exists, else the umask's."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return 0o666 & ~UMASK


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform lets a folder be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temps(path: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files of writers of ``path`` that are no longer running; return them.

    A run killed while it wrote (``kill -9``, a crash, a power cut) cannot remove its own
    temporary file; the next write to the same path does. Only files named as ``StagedFile``
    names them, with the pid of a process that no longer exists on this machine, are removed.
    """
    target = Path(path)
    removed = []
    for temp in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        try:  # another file that happens to match (".out.csv.².tmp") is not ours to remove
            pid = parse_int(temp.name[len(target.name) + 2 :].split(".", 1)[0], field="pid", low=1)
        except InvalidInputError:
            continue
        if not _running(pid):
            try:
                temp.unlink()
            except OSError:
                continue
            removed.append(temp)
    return removed


def _running(pid: int) -> bool:
    """Return True when a process with ``pid`` exists (or may: one we may not signal)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class StagedFile:
    """A temporary file beside ``path``, written first and given ``path``'s name by ``commit()``.

    Use it as a context manager: leaving the block without ``commit()`` (or with an error)
    removes the temporary file, so nothing is left behind.
    """

    def __init__(self, path: str | os.PathLike[str], *, encoding: str = "utf-8", newline: str | None = "") -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file() and not self.path.is_dir():
            # The rename would put a regular file where the device was: as root, --out /dev/null
            # replaced /dev/null itself.
            raise InvalidInputError(
                f"{str(self.path)!r} is a device, a pipe or a socket, not a file: a file is "
                "written whole by renaming a finished copy onto its name; give a file name"
            )
        remove_stale_temps(self.path)
        # The writer's pid in the name lets a later writer tell a killed run's file from a live one's.
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.{os.getpid()}.", suffix=".tmp", dir=self.path.parent)
        self.temp = Path(temp)
        try:
            os.fchmod(fd, new_file_mode(self.path))  # mkstemp's 0600 would make the output private
            self.handle: IO[str] = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        except BaseException:
            os.close(fd)
            self.temp.unlink(missing_ok=True)
            raise
        self.committed = False

    def write(self, text: str) -> None:
        """Write ``text`` to the temporary file; returns nothing."""
        self.handle.write(text)

    def close(self) -> None:
        """Flush the temporary file to disk and close it; returns nothing."""
        if not self.handle.closed:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()

    def commit(self) -> None:
        """Give the finished temporary file its real name (replacing any file there); returns nothing."""
        self.close()
        os.replace(self.temp, self.path)
        self.committed = True
        _fsync_folder(self.path.parent)

    def discard(self) -> None:
        """Remove the temporary file unless it was committed; returns nothing."""
        if not self.handle.closed:
            self.handle.close()
        if not self.committed:
            self.temp.unlink(missing_ok=True)

    def __enter__(self) -> StagedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()


@contextmanager
def atomic_writer(
    path: str | os.PathLike[str], *, encoding: str = "utf-8", newline: str | None = ""
) -> Iterator[IO[str]]:
    """Yield a text handle whose content becomes ``path`` only when the block ends without an error."""
    with StagedFile(path, encoding=encoding, newline=newline) as staged:
        yield staged.handle
        staged.commit()


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for a writer that takes a file name (binary, or another
    library's); the file there becomes ``path`` only when the block ends without an error.

    The temporary name is ``StagedFile``'s (with the writer's pid), so a killed run's leftover is
    removed by the next writer; on an error the temporary file is removed and ``path`` is untouched.
    """
    target = Path(path)
    remove_stale_temps(target)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    temp = Path(temp_name)
    try:
        yield temp
        with temp.open("rb") as fh:
            os.fsync(fh.fileno())
        os.replace(temp, target)
        _fsync_folder(target.parent)
    finally:
        temp.unlink(missing_ok=True)


def check_target(path: str | os.PathLike[str], field: str) -> Path:
    """Return ``path`` (``~`` expanded) when a file can be written there, before any work is done.

    Else ``InvalidInputError`` naming ``field`` (the command line shows its flag): a folder, a
    device, pipe or socket, a folder that does not exist or is not writable, a read-only file.
    """
    target = Path(path).expanduser()
    folder = target.parent
    where = f"{field} {str(path)!r}"
    if target.is_dir():
        raise InvalidInputError(f"{where} is a folder; give a file name", field=field)
    if target.exists() and not target.is_file():
        raise InvalidInputError(f"{where} is a device, a pipe or a socket, not a file; give a file name", field=field)
    if not folder.is_dir():
        raise InvalidInputError(
            f"{where}: folder {str(folder)!r} does not exist; create it or give another path", field=field
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidInputError(f"{where}: folder {str(folder)!r} is not writable; give another path", field=field)
    if target.exists() and not os.access(target, os.W_OK):
        raise InvalidInputError(f"{where}: the file exists and is read-only; give another path", field=field)
    return target


def write_files(texts: Mapping[str | os.PathLike[str], str], *, encoding: str = "utf-8") -> None:
    """Write every ``path: text`` of ``texts`` all or nothing: each is complete on disk before any is renamed.

    If writing any of them fails, no file is renamed and every earlier file stays as it was.
    """
    staged: list[StagedFile] = []
    try:
        for path, text in texts.items():
            staged.append(StagedFile(path, encoding=encoding))
            staged[-1].write(text)
            staged[-1].close()
        for file in staged:
            file.commit()
    finally:
        for file in staged:
            file.discard()


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` all or nothing (a temporary file, fsync, then ``os.replace``)."""
    write_files({path: text}, encoding=encoding)
