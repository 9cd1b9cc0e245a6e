"""The Budget view's length curve: does a longer context cost accuracy? The bundled model's, or the user's own.

The curve and its answers are read by the library (``evaluation.experiments.length_file``); what
the caption claims comes from its one tested function (``length_claims``). A file the user loads
replaces the bundled curve; a bad one is named in one message and the bundled curve stays.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from contextlab.charts.length import length_curve_figure
from contextlab.errors import ContextLabError
from contextlab.evaluation.experiments.length_file import (
    LengthCurve,
    bundled_length_curve,
    length_claims,
    read_length_curve,
)

from ..context import LabContext
from ..parts import show_chart
from ..text import caption, error

__all__ = ["length_curve_section"]

_BUNDLED = (
    "The bundled model (Gemma 3 270M) answered the same NaturalQuestions-Open questions at each length: the "
    "answer passage first, then passages unrelated to the question up to the length. Measured with "
    "contextlab curve --vary length --lengths 500,1500,3000."
)
_ANSWERS_SUFFIX = ".questions.csv"


@st.cache_data(show_spinner=False)
def _bundled() -> LengthCurve:
    return bundled_length_curve()


def _text(upload: UploadedFile) -> str:
    try:
        return upload.getvalue().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{upload.name}: not UTF-8 text; load the CSV files contextlab curve wrote") from None


def _uploaded(files: list[UploadedFile]) -> tuple[LengthCurve, str] | None:
    """Return the user's curve and its name from the loaded files, or None after showing why it cannot be read."""
    curves = [f for f in files if not f.name.endswith(_ANSWERS_SUFFIX)]
    answers = [f for f in files if f.name.endswith(_ANSWERS_SUFFIX)]
    if len(curves) != 1 or len(answers) > 1:
        error(
            "Load one length curve (the CSV from contextlab curve --vary length) and, for paired tests, the "
            f"{_ANSWERS_SUFFIX} file written beside it; got {len(curves)} curve(s) and {len(answers)} answer file(s)."
        )
        return None
    try:
        answers_text = _text(answers[0]) if answers else None
        return read_length_curve(_text(curves[0]), answers_text, name=curves[0].name), curves[0].name
    except (ValueError, ContextLabError) as exc:
        error(exc)
        return None


def length_curve_section(ctx: LabContext) -> None:
    """Draw accuracy against context length beside the budget: the bundled curve, or the one the user loads."""
    st.markdown("**Does a longer context cost accuracy?**")
    drawn = st.container()  # the curve goes above the loader that may replace it
    files = st.file_uploader(
        "Load your own length curve: the CSV from contextlab curve --vary length, and its .questions.csv",
        type=["csv"],
        accept_multiple_files=True,
        key="budget_length_curve",
    )
    with drawn:
        own = _uploaded(list(files)) if files else None
        curve = own[0] if own is not None else _bundled()
        show_chart(ctx, "budget_length_chart", length_curve_figure, curve.points, ctx.result.tokens_budget)
        for claim in _claims(curve):
            caption(claim)
        caption(f"Your curve: {own[1]}." if own is not None else _BUNDLED)
        if own is not None and curve.outcomes is None:
            caption(f"Load its {_ANSWERS_SUFFIX} file too to test the lengths question by question.")


@st.cache_data(show_spinner=False)
def _claims(curve: LengthCurve) -> list[str]:
    return length_claims(curve)
