"""The one measured position curve the lab holds: the bundled model's until a file replaces it, in every view.

Learn, Placement and Evaluate each offer an upload; whichever view loads a file, every view then
reads that curve (a second, separate upload per view once let two views disagree). The file is
checked at the door (``contextlab.curves.curve_file.parse_curve_file``); a bad one is a message
under the upload, and the curve loaded before stays.
"""

from __future__ import annotations

import hashlib
from importlib import resources

import streamlit as st

from contextlab.curves.curve_file import PositionData, parse_curve_file

__all__ = ["BUNDLED_CURVE_FILE", "LOADED_CURVE", "read_curve_text", "loaded_curve", "curve_uploader", "is_bundled"]

#: The bundled model's curve, measured by ``contextlab curve`` (package data beside the published one).
BUNDLED_CURVE_FILE = "gemma3_270m_measured.csv"
#: Session-state key of the loaded curve: ``(file name, text)``; absent: the bundled curve.
LOADED_CURVE = "measured_curve"
_PROBLEM = "measured_curve_problem"


@st.cache_resource(show_spinner=False, max_entries=8)
def _parsed(digest: str, name: str, _text: str) -> PositionData:
    # Keyed by the text's digest; ``_text`` is unhashed and matches it.
    return parse_curve_file(_text, name=name)


def read_curve_text(text: str, name: str) -> PositionData:
    """Return the curves in a curve file's text, checked at the door (``parse_curve_file``), read once."""
    return _parsed(hashlib.blake2b(text.encode(), digest_size=16).hexdigest(), name, text)


def _bundled_text() -> str:
    return resources.files("contextlab").joinpath("data", BUNDLED_CURVE_FILE).read_text(encoding="utf-8")


def loaded_curve() -> tuple[str, PositionData]:
    """Return the file name and the curves of the measured curve every view reads."""
    name, text = st.session_state.get(LOADED_CURVE) or (BUNDLED_CURVE_FILE, _bundled_text())
    return name, read_curve_text(text, name)


def is_bundled() -> bool:
    """Return True while the loaded curve is the bundled model's (no file loaded)."""
    return LOADED_CURVE not in st.session_state


def _load(key: str) -> None:
    upload = st.session_state.get(key)
    st.session_state.pop(_PROBLEM, None)
    if upload is None:
        return
    try:
        text = upload.getvalue().decode("utf-8")
        read_curve_text(text, upload.name)
    except (ValueError, UnicodeDecodeError) as exc:  # the library's LoadError included
        st.session_state[_PROBLEM] = str(exc) if not isinstance(exc, UnicodeDecodeError) else (
            f"{upload.name} is not UTF-8 text; a curve file is the CSV `contextlab curve` writes")
        return
    st.session_state[LOADED_CURVE] = (upload.name, text)


def _bundled_again() -> None:
    st.session_state.pop(LOADED_CURVE, None)
    st.session_state.pop(_PROBLEM, None)


def curve_uploader(key: str) -> str | None:
    """Draw the upload that replaces the measured curve for every view; return a problem to show, or None."""
    st.file_uploader("A curve file from `contextlab curve` (CSV); every view then reads it", type=["csv"],
                     key=key, on_change=_load, args=(key,))
    if not is_bundled():
        st.button("Back to the bundled model's curve", key=f"{key}_bundled", on_click=_bundled_again)
    return st.session_state.get(_PROBLEM)
