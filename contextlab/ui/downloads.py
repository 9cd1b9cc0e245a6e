"""Downloads that give the newest build, even when clicked while the page is still rerunning.

A plain download button holds the bytes of the run that drew it: typing a budget and clicking
"Download" 150 ms later would save the previous build. These buttons pass Streamlit a callable
instead, run when the button is clicked; it waits until the session has no script run under way
or requested, then returns what the newest finished run built (``LatestBuild``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from contextlab.lab.config import LabConfig
from contextlab.types import ContextResult, Document

__all__ = ["LatestBuild", "latest_build", "download_newest", "BuildSnapshot"]

_KEY = "_latest_build"
#: The longest a download waits for a rerun to finish before giving what it has.
WAIT_S = 60.0


@dataclass(frozen=True)
class BuildSnapshot:
    """What one finished run built: the settings, the documents and the result (None if it failed)."""

    config: LabConfig
    documents: tuple[Document, ...]
    result: ContextResult | None


def _session_busy(session_id: str | None) -> bool:
    """Return True while the session has a script run going or queued (Streamlit internals; False if unknown)."""
    if session_id is None:
        return False
    try:
        from streamlit.runtime import Runtime

        info = Runtime.instance()._session_mgr.get_active_session_info(session_id)
        return info is not None and getattr(info.session, "_scriptrunner", None) is not None
    except Exception:  # another Streamlit's internals, or no runtime (AppTest): rely on the flag
        return False


class LatestBuild:
    """The newest finished build of one browser session, shared with its download callables."""

    def __init__(self, session_id: str | None) -> None:
        self._cond = threading.Condition()
        self._snapshot: BuildSnapshot | None = None
        self._running = False
        self._session_id = session_id

    def started(self) -> None:
        """Mark a run as under way: downloads asked for now wait for its end."""
        with self._cond:
            self._running = True

    def finished(self, snapshot: BuildSnapshot) -> None:
        """Record what the run that just ended built, and let waiting downloads have it."""
        with self._cond:
            self._snapshot, self._running = snapshot, False
            self._cond.notify_all()

    def newest(self, timeout: float = WAIT_S) -> BuildSnapshot | None:
        """Return the newest snapshot once no run is under way or queued (or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while (self._running or _session_busy(self._session_id)) and time.monotonic() < deadline:
                self._cond.wait(0.05)
            return self._snapshot


def latest_build() -> LatestBuild:
    """Return this session's ``LatestBuild`` (made on first use)."""
    holder = st.session_state.get(_KEY)
    if holder is None:
        ctx = get_script_run_ctx()
        holder = st.session_state[_KEY] = LatestBuild(ctx.session_id if ctx else None)
    return holder


def _result_json(snapshot: BuildSnapshot) -> str:
    return json.dumps(snapshot.result.to_dict() if snapshot.result else {}, indent=2, ensure_ascii=False)


def _block_text(snapshot: BuildSnapshot) -> str:
    return snapshot.result.context_block if snapshot.result else ""


def _config_json(snapshot: BuildSnapshot) -> str:
    return snapshot.config.to_json()


def _documents_json(snapshot: BuildSnapshot) -> str:
    return json.dumps([d.to_dict() for d in snapshot.documents], indent=1, ensure_ascii=False)


#: What each download gives, from the newest snapshot.
CONTENTS: dict[str, Callable[[BuildSnapshot], str]] = {
    "block": _block_text,
    "result": _result_json,
    "config": _config_json,
    "documents": _documents_json,
}


def download_newest(label: str, what: str, *, file_name: str, mime: str, key: str, help: str | None = None) -> None:
    """Draw a download button whose file is made from the newest build when it is clicked.

    ``what`` is one of ``CONTENTS``: "block", "result", "config" or "documents".
    """
    holder, content = latest_build(), CONTENTS[what]

    def make() -> str:
        snapshot = holder.newest()
        return content(snapshot) if snapshot is not None else ""

    st.download_button(
        label, make, file_name=file_name, mime=mime, key=key, width="stretch", help=help, on_click="ignore"
    )
