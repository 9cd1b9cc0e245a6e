"""A measured position curve in the lab: the bundled model's (shipped), or one you load.

Learn and Placement call ``measured_curve_section``: it draws the curve beside the published
ones' scale ("your model, measured on N questions"), tells the demo story on the bundled model,
and says how to measure your own (``contextlab curve``). The file is the bundled curves' format.
"""

from __future__ import annotations

from importlib import resources

import streamlit as st

from contextlab import charts
from contextlab.curves.curve_file import PositionData, parse_curve_file

from ..context import LabContext
from ..parts import on_request, show_chart
from ..text import caption, error, md_line

__all__ = ["BUNDLED_CURVE_FILE", "measured_curve_section", "read_curve_text"]

#: The bundled model's curve, measured by ``contextlab curve`` (package data beside the published one).
BUNDLED_CURVE_FILE = "gemma3_270m_measured.csv"


def read_curve_text(text: str, name: str) -> PositionData:
    """Return the curves in a curve file's text (the bundled format), checked (``parse_curve_file``)."""
    return parse_curve_file(text, name=name)


def _bundled_text() -> str:
    return resources.files("contextlab").joinpath("data", BUNDLED_CURVE_FILE).read_text(encoding="utf-8")


def _story(model: str, data: PositionData, count: int, n: int | None) -> str:
    points = data.curve(model, count)
    first, last = points[0][1], points[-1][1]
    middle = min(points[1:-1], key=lambda p: p[1]) if len(points) > 2 else None
    oracle, closed = data.oracle(model), data.closed_book(model)
    parts = [f"{model}, measured on {n or '?'} questions with {count} passages: {first:.0f}% correct with "
             f"the answer first, {last:.0f}% with it last"]
    if middle is not None:
        parts.append(f"{middle[1]:.0f}% at position {middle[0]}")
    if oracle is not None:
        parts.append(f"{oracle:.0f}% with the answer passage alone")
    if closed is not None:
        parts.append(f"{closed:.0f}% with no passage (closed book)")
    return "; ".join(parts) + "."


def measured_curve_section(ctx: LabContext, key: str) -> PositionData | None:
    """Draw a measured curve (the bundled model's, or an uploaded file); return its data."""
    opened = on_request("Your model's curve, measured (load or measure one)", f"{key}_measured_open")
    if opened is None:
        return None
    with opened:
        upload = st.file_uploader("A curve file from `contextlab curve` (CSV)", type=["csv"], key=f"{key}_curve_file")
        try:
            text = upload.getvalue().decode("utf-8") if upload is not None else _bundled_text()
            name = upload.name if upload is not None else BUNDLED_CURVE_FILE
            data = read_curve_text(text, name)
        except (ValueError, UnicodeDecodeError) as exc:
            error(exc)
            return None
        model = data.models()[0]
        count = data.doc_counts(model)[0]
        n = data.questions
        references = {k: v for k, v in (("gold passage alone", data.oracle(model)),
                                        ("closed book", data.closed_book(model))) if v is not None}
        show_chart(ctx, f"{key}_measured_chart", charts.position_curves_figure,
                   {f"{model} (your model, measured on {n or '?'} questions)": data.curve(model, count)}, count,
                   references=references)
        st.markdown(md_line(_story(model, data, count, n)))
        if upload is None:
            caption("Watch the model miss the middle: the bundled model is a tiny base model (Gemma 3 270M); it "
                    "reads the passage next to the question best (a recency bias), and its intervals are wide. "
                    "It shows the pipeline, not a model to tune for. Measure yours: contextlab curve --endpoint "
                    "URL --documents 5 --positions 1,3,5 --limit 30 --out curve.csv")
        return data
