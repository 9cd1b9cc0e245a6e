"""``contextlab lab``: start the Streamlit lab (its options go to ``streamlit run``)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ContextLabError
from ..validation import message_value
from .common import require

__all__ = ["add_lab", "cmd_lab", "lab_app_path", "streamlit_problem"]


def lab_app_path() -> Path:
    """Return where the Streamlit lab's script lives inside the installed package."""
    import contextlab

    return Path(contextlab.__file__).parent / "ui" / "streamlit_app.py"


def cmd_lab(args: argparse.Namespace, streamlit_args: list[str]) -> int:
    if args.runs == "-":
        raise ContextLabError("--runs reads a capture file or span export by name, not stdin; "
                              "save it to a file first")
    app = lab_app_path()
    if not app.is_file():
        raise ContextLabError(
            f"the lab's script is missing ({app}); reinstall contextlab, or run "
            "`streamlit run app.py` from a source checkout"
        )
    require("streamlit", "the lab")
    if args.runs is not None:
        from ..captures import LAB_RUNS_ENV, iter_runs

        path = Path(args.runs).resolve()
        next(iter_runs(path))  # a foreign or malformed file is one line here, not in the browser
        os.environ[LAB_RUNS_ENV] = str(path)  # the lab's sidebar opens on this file's runs
    command = [sys.executable, "-m", "streamlit", "run", str(app), *streamlit_args]
    if os.name == "posix":
        # Become the server: SIGTERM, SIGINT and the exit status then reach Streamlit itself,
        # and no orphaned server is left on the port when this command is stopped.
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, command)
        return 0  # reached only when a test stands in for execv
    try:  # Windows has no exec that keeps the process: wait on the child instead
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130


#: Streamlit options checked here, so a typo is one line instead of Streamlit's usage text:
#: each maps to (what it takes, a check). Other options go to Streamlit unchecked.
_BOOLEAN = ("true", "false", "1", "0", "yes", "no", "on", "off")
_STREAMLIT_OPTIONS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "--server.port": ("a port number from 1 to 65535",
                      lambda v: v.isdigit() and len(v) <= 5 and 1 <= int(v) <= 65535),
    "--server.maxUploadSize": ("a whole number of megabytes >= 1",
                               lambda v: v.isdigit() and len(v) <= 9 and int(v) >= 1),
    "--server.headless": ("true or false", lambda v: v.lower() in _BOOLEAN),
    "--server.runOnSave": ("true or false", lambda v: v.lower() in _BOOLEAN),
    "--browser.gatherUsageStats": ("true or false", lambda v: v.lower() in _BOOLEAN),
    "--theme.base": ("light or dark", lambda v: v in ("light", "dark")),
}


def streamlit_problem(options: list[str]) -> str | None:
    """Return what is wrong with a Streamlit option we know (``--opt V`` or ``--opt=V``), or None."""
    for i, option in enumerate(options):
        name, has_value, value = option.partition("=")
        if name not in _STREAMLIT_OPTIONS:
            continue
        if not has_value:
            if i + 1 >= len(options) or options[i + 1].startswith("--"):
                return f"{name} needs a value"
            value = options[i + 1]
        wanted, check = _STREAMLIT_OPTIONS[name]
        if not check(value.strip()):
            return f"{name} expects {wanted}, got {message_value(value)}"
    return None


def add_lab(sub: Any) -> None:
    p = sub.add_parser(
        "lab", help="start the Streamlit lab",
        description="Start the Streamlit lab. Arguments after `lab` go to `streamlit run`.",
        epilog="example: contextlab lab --server.port 8502",
    )
    p.add_argument("--runs", metavar="FILE", default=None,
                   help="open on the runs of a capture file or an OpenInference span export")
    p.set_defaults(handler=None, passes_extra=True)
