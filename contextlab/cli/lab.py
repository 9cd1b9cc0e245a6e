"""``contextlab lab``: start the Streamlit lab (its options go to ``streamlit run``)."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ContextLabError, InvalidInputError
from ..validation import FALSE_WORDS, TRUE_WORDS, message_value, parse_int
from .common import require

__all__ = ["LAB_DEFAULTS", "add_lab", "cmd_lab", "lab_app_path", "lab_options", "streamlit_problem"]


def lab_app_path() -> Path:
    """Return where the Streamlit lab's script lives inside the installed package."""
    import contextlab

    return Path(contextlab.__file__).parent / "ui" / "streamlit_app.py"


def cmd_lab(args: argparse.Namespace, streamlit_args: list[str]) -> int:
    if args.runs == "-":
        raise ContextLabError("--runs reads a capture file or span export by name, not stdin; save it to a file first")
    app = lab_app_path()
    if not app.is_file():
        raise ContextLabError(
            f"the lab's script is missing ({app}); reinstall contextlab, or run "
            "`streamlit run app.py` from a source checkout"
        )
    require("streamlit", "the lab")
    if args.runs is not None:
        from ..runs.captures import LAB_RUNS_ENV, iter_runs

        path = Path(args.runs).resolve()
        next(iter_runs(path))  # a foreign or malformed file is one line here, not in the browser
        os.environ[LAB_RUNS_ENV] = str(path)  # the lab's sidebar opens on this file's runs
    # Usage statistics off however Streamlit reads its settings (flags below, and the environment).
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")
    command = [sys.executable, "-m", "streamlit", "run", str(app), *lab_options(streamlit_args)]
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


#: What ``contextlab lab`` tells Streamlit unless its command line says otherwise: listen on this
#: machine only (serving on the network is ``--server.address 0.0.0.0``), no browser to open, no
#: usage statistics, and no full garbage collection after every run (Streamlit's ``gc.collect(2)``
#: walks the whole heap, the tokenizer's and the caches' included: about 100–200 ms on two cores
#: after each slider step, holding the lock the server needs to send the page; Python's own
#: collector still runs). Passed as flags, so they hold from any folder and from the wheel,
#: where no ``.streamlit/config.toml`` is read.
LAB_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("--server.address", "127.0.0.1"),
    ("--server.headless", "true"),
    ("--browser.gatherUsageStats", "false"),
    ("--runner.postScriptGC", "false"),
)


def lab_options(streamlit_args: list[str]) -> list[str]:
    """Return ``streamlit_args`` with every ``LAB_DEFAULTS`` option they do not set, and the address to show.

    ``browser.serverAddress`` is set too (to where the lab listens), because without it a headless
    Streamlit asks a server on the internet for this machine's external IP to print its URL.
    """
    given = {a.partition("=")[0]: i for i, a in enumerate(streamlit_args) if a.startswith("--")}
    options: list[str] = []
    for name, value in LAB_DEFAULTS:
        if name not in given:
            options += [name, value]
    if "--browser.serverAddress" not in given:
        options += ["--browser.serverAddress", _shown_host(_option_value(streamlit_args, given, "--server.address"))]
    return [*options, *streamlit_args]


def _option_value(args: list[str], given: dict[str, int], name: str) -> str:
    """Return the value the command line gives option ``name`` (``--opt V`` or ``--opt=V``), or the default."""
    if name not in given:
        return dict(LAB_DEFAULTS)[name]
    i = given[name]
    _, has_value, value = args[i].partition("=")
    return value if has_value else (args[i + 1] if i + 1 < len(args) else "")


def _shown_host(address: str) -> str:
    """Return the host name the lab's URL shows for a listening ``address``."""
    if address in ("127.0.0.1", "::1", "localhost", ""):
        return "localhost"
    if address in ("0.0.0.0", "::"):
        return socket.gethostname()  # every interface: the machine's own name, not a looked-up IP
    return address


def _is_int(value: str, option: str, low: int, high: int) -> bool:
    try:
        parse_int(value, field=option, low=low, high=high)
    except InvalidInputError:
        return False
    return True


#: Streamlit options checked here, so a typo is one line instead of Streamlit's usage text:
#: each maps to (what it takes, a check). Other options go to Streamlit unchecked.
_STREAMLIT_OPTIONS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "--server.address": (
        "an address to listen on (127.0.0.1 by default; 0.0.0.0 serves the network)",
        lambda v: bool(v) and not v.startswith("-"),
    ),
    "--server.port": ("a port number from 1 to 65535", lambda v: _is_int(v, "--server.port", 1, 65535)),
    "--server.maxUploadSize": (
        "a whole number of megabytes >= 1",
        lambda v: _is_int(v, "--server.maxUploadSize", 1, 10**9 - 1),
    ),
    "--server.headless": ("true or false", lambda v: v.lower() in TRUE_WORDS | FALSE_WORDS),
    "--server.runOnSave": ("true or false", lambda v: v.lower() in TRUE_WORDS | FALSE_WORDS),
    "--browser.gatherUsageStats": ("true or false", lambda v: v.lower() in TRUE_WORDS | FALSE_WORDS),
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
        "lab",
        help="start the Streamlit lab",
        description="Start the Streamlit lab. Arguments after `lab` go to `streamlit run`. The lab "
        "listens on 127.0.0.1 only and sends no usage statistics; --server.address 0.0.0.0 "
        "serves it to the network (anyone who can reach the port can use it and upload files).",
        epilog="example: contextlab lab --server.port 8502",
    )
    p.add_argument(
        "--runs",
        metavar="FILE",
        default=None,
        help="open on the runs of a capture file or an OpenInference span export",
    )
    p.set_defaults(handler=None, passes_extra=True)
