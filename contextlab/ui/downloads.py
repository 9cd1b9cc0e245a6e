"""Downloads that give the newest build, even when clicked while the page is still rerunning.

A plain download button holds the bytes of the run that drew it: typing a budget and clicking
"Download" 150 ms later would save the previous build. These buttons pass Streamlit a callable
instead (``st.download_button``'s deferred ``data``), run when the button is clicked; it waits
until no run of the page is under way, then returns what the newest finished run built
(``LatestBuild``).

Only Streamlit's public API is used, and it cannot tell a download that a rerun has been asked
for but has not started yet: a click in the few milliseconds between the browser's rerun request
and the new run's first line gives the build before it. The issue to file with Streamlit: let a
deferred download wait for the session's pending rerun (or let the app see that one is queued).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import streamlit as st

from contextlab.lab.config import LabConfig
from contextlab.lab.report import html_report
from contextlab.types import ContextResult, Document

__all__ = ["LatestBuild", "latest_build", "download_newest", "BuildSnapshot", "Content"]

_KEY = "_latest_build"
#: The longest a download waits for a rerun to finish before giving what it has.
WAIT_S = 60.0

#: What a download can give: the block, the full result, the HTML report, the settings or the documents.
Content = Literal["block", "result", "report", "config", "documents"]


@dataclass(frozen=True)
class BuildSnapshot:
    """What one finished run built: the settings, the documents and the result (None if it failed)."""

    config: LabConfig
    documents: tuple[Document, ...]
    result: ContextResult | None


class LatestBuild:
    """The newest finished build of one browser session, shared with its download callables."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._snapshot: BuildSnapshot | None = None
        self._running = False

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
        """Return the newest snapshot once no run is under way (or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._running:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return self._snapshot


def latest_build() -> LatestBuild:
    """Return this session's ``LatestBuild`` (made on first use)."""
    holder = st.session_state.get(_KEY)
    if not isinstance(holder, LatestBuild):
        holder = st.session_state[_KEY] = LatestBuild()
    return holder


def _result_json(snapshot: BuildSnapshot) -> str:
    return json.dumps(snapshot.result.to_dict() if snapshot.result else {}, indent=2, ensure_ascii=False)


def _block_text(snapshot: BuildSnapshot) -> str:
    return snapshot.result.context_block if snapshot.result else ""


def _report_html(snapshot: BuildSnapshot) -> str:
    if snapshot.result is None:
        return ""
    return html_report(snapshot.result, snapshot.config, snapshot.documents)


def _config_json(snapshot: BuildSnapshot) -> str:
    return snapshot.config.to_json()


def _documents_json(snapshot: BuildSnapshot) -> str:
    return json.dumps([d.to_dict() for d in snapshot.documents], indent=1, ensure_ascii=False)


#: What each download gives, from the newest snapshot.
CONTENTS: dict[Content, Callable[[BuildSnapshot], str]] = {
    "block": _block_text,
    "result": _result_json,
    "report": _report_html,
    "config": _config_json,
    "documents": _documents_json,
}


def download_newest(label: str, what: Content, *, file_name: str, mime: str, key: str, help: str | None = None) -> None:
    """Draw a download button whose file is made from the newest build when it is clicked."""
    holder, content = latest_build(), CONTENTS[what]

    def make() -> str:
        snapshot = holder.newest()
        return content(snapshot) if snapshot is not None else ""

    st.download_button(
        label, make, file_name=file_name, mime=mime, key=key, width="stretch", help=help, on_click="ignore"
    )
