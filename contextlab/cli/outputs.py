"""The command's outputs: every target checked before any work, then written all or nothing.

A command that writes several files (``sweep -o CSV --html HTML``) first checks that each can
be written, then writes each to a temporary file beside it and renames them into place only
when all were written: a failure leaves no partial file and no file of the set behind.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..atomic import write_files
from ..errors import ContextLabError

__all__ = ["check_target", "write_all"]


def check_target(path: str, flag: str) -> None:
    """Return None when ``path`` (given with ``flag``) can be written; else raise ContextLabError."""
    target = Path(path)
    folder = target.parent
    where = f"{flag} {path!r}"
    if target.is_dir():
        raise ContextLabError(f"{where} is a folder; give a file name")
    if target.exists() and not target.is_file():
        raise ContextLabError(f"{where} is a device, a pipe or a socket, not a file; give a file name")
    if not folder.is_dir():
        raise ContextLabError(f"{where}: folder {str(folder)!r} does not exist; create it or "
                              "give another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ContextLabError(f"{where}: folder {str(folder)!r} is not writable; give another path")
    if target.exists() and not os.access(target, os.W_OK):
        raise ContextLabError(f"{where}: the file exists and is read-only; give another path")


def write_all(texts: Mapping[str, str]) -> None:
    """Write each text to its path, all or none (``contextlab.atomic.write_files``)."""
    write_files(texts)
