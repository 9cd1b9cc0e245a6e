"""The one measured position curve the lab holds: the bundled model's until a file replaces it, in every view.

Learn, Placement and Evaluate each offer an upload; whichever view loads a file, every view then
reads that curve (a second, separate upload per view once let two views disagree). The file is
checked at the door (``contextlab.curves.outcomes.parse_measured_curve``); a bad one is a message
under the upload, and the curve loaded before stays. The per-question outcomes ``contextlab curve``
writes beside a curve (``curve.questions.csv``) may be uploaded with it, and ship with the bundled
curve: with them every test the views read is paired.
"""

from __future__ import annotations

import hashlib
from importlib import resources

import streamlit as st

from contextlab.curves.curve_file import PositionData
from contextlab.curves.outcomes import OUTCOME_COLUMNS, outcomes_path, parse_measured_curve
from contextlab.errors import LoadError

__all__ = [
    "BUNDLED_CURVE_FILE",
    "LOADED_CURVE",
    "read_curve_text",
    "loaded_curve",
    "curve_uploader",
    "is_bundled",
    "pick_curve_files",
]

#: The bundled model's curve, measured by ``contextlab curve`` (package data beside the published one).
BUNDLED_CURVE_FILE = "gemma3_270m_measured.csv"
#: Session-state key of the loaded curve: ``(file name, text, outcomes text or None)``; absent: the bundled curve.
LOADED_CURVE = "measured_curve"
_PROBLEM = "measured_curve_problem"


@st.cache_resource(show_spinner=False, max_entries=8)
def _parsed(digest: str, name: str, _text: str, _outcomes: str | None) -> PositionData:
    # Keyed by the texts' digest; ``_text`` and ``_outcomes`` are unhashed and match it.
    return parse_measured_curve(_text, _outcomes, name=name)


def read_curve_text(text: str, name: str, outcomes: str | None = None) -> PositionData:
    """Return the curves in a curve file's text (and its outcomes file's), checked at the door, read once."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (text, "\0", outcomes or ""):
        digest.update(part.encode())
    return _parsed(digest.hexdigest() + ("+" if outcomes is not None else ""), name, text, outcomes)


def _bundled() -> tuple[str, str, str]:
    data = resources.files("contextlab").joinpath("data")
    return (
        BUNDLED_CURVE_FILE,
        data.joinpath(BUNDLED_CURVE_FILE).read_text(encoding="utf-8"),
        data.joinpath(outcomes_path(BUNDLED_CURVE_FILE).name).read_text(encoding="utf-8"),
    )


def loaded_curve() -> tuple[str, PositionData]:
    """Return the file name and the curves of the measured curve every view reads."""
    name, text, outcomes = st.session_state.get(LOADED_CURVE) or _bundled()
    return name, read_curve_text(text, name, outcomes)


def pick_curve_files(files: list[tuple[str, str]]) -> tuple[str, str, str | None]:
    """Return ``(name, curve text, outcomes text or None)`` from uploaded ``(name, text)`` files, oldest first.

    The upload keeps every file given, so the newest curve file is the one read, with the outcomes
    file named after it (``curve.questions.csv``) or else the newest outcomes file (told apart by its
    header, ``query_id,kind,...``). No curve file at all is a ``LoadError`` that says what to upload.
    """
    header = ",".join(OUTCOME_COLUMNS[:2])
    outcomes = [f for f in files if f[1].lstrip("\ufeff").startswith(header)]
    curves = [f for f in files if f not in outcomes]
    if not curves:
        raise LoadError(
            "upload the curve file `contextlab curve` writes (curve.csv) with its outcomes file "
            "(curve.questions.csv); only an outcomes file was given",
            field="curve",
        )
    name, text = curves[-1]
    own = [f for f in outcomes if f[0] == outcomes_path(name).name]
    candidates = own or outcomes
    return name, text, candidates[-1][1] if candidates else None


def is_bundled() -> bool:
    """Return True while the loaded curve is the bundled model's (no file loaded)."""
    return LOADED_CURVE not in st.session_state


def _load(key: str) -> None:
    uploads = st.session_state.get(key) or []
    st.session_state.pop(_PROBLEM, None)
    if not uploads:
        return
    files = []
    for upload in uploads:
        try:
            files.append((upload.name, upload.getvalue().decode("utf-8")))
        except UnicodeDecodeError:
            st.session_state[_PROBLEM] = (
                f"{upload.name} is not UTF-8 text; a curve file is the CSV `contextlab curve` writes"
            )
            return
    try:
        name, text, outcomes = pick_curve_files(files)
        read_curve_text(text, name, outcomes)
    except ValueError as exc:  # the library's LoadError included
        st.session_state[_PROBLEM] = str(exc)
        return
    st.session_state[LOADED_CURVE] = (name, text, outcomes)


def _bundled_again() -> None:
    st.session_state.pop(LOADED_CURVE, None)
    st.session_state.pop(_PROBLEM, None)


def curve_uploader(key: str) -> str | None:
    """Draw the upload that replaces the measured curve for every view; return a problem to show, or None."""
    st.file_uploader(
        "A curve file from `contextlab curve` (CSV), with the curve.questions.csv written beside "
        "it to make its tests paired; every view then reads it",
        type=["csv"],
        accept_multiple_files=True,
        key=key,
        on_change=_load,
        args=(key,),
    )
    if not is_bundled():
        st.button("Back to the bundled model's curve", key=f"{key}_bundled", on_click=_bundled_again)
    return st.session_state.get(_PROBLEM)
