"""A measured position curve in the lab: the bundled model's (shipped), or one you load, with its 95% band.

Learn, Placement and Evaluate call ``measured_curve_section``: it draws the one loaded curve
(``contextlab.ui.curve_store``: a file loaded in any view serves every view) with each point's
95% interval, says its numbers, and says only what its tests resolve
(``contextlab.curves.evidence``): "misses the middle" or "reads the end best" only when the
paired test shows it, otherwise what the questions cannot tell and about how many would.
"""

from __future__ import annotations

import streamlit as st

from contextlab.charts.curves import position_curves_figure
from contextlab.curves.curve_file import PositionData
from contextlab.lab.curve_views import MeasuredPoints, measured_points, said_of

from ..context import LabContext
from ..curve_store import curve_uploader, is_bundled, loaded_curve
from ..parts import on_request, show_chart
from ..text import caption, error, md_line

__all__ = ["measured_curve_section", "curve_numbers"]


def curve_numbers(shown: MeasuredPoints, data: PositionData) -> str:
    """Return a measured curve's numbers in one sentence, each point with its 95% interval (no claim)."""
    n = shown.evidence.questions
    points = ", ".join(
        f"pos {p.position}: {p.accuracy:.1f}%" + (f" [{p.low:.1f}, {p.high:.1f}]" if n else "")
        for p in shown.evidence.points
    )
    parts = [
        f"{shown.model}, measured on {f'{n:,}' if n else 'an unknown number of'} questions with "
        f"{shown.total_docs} passages: {points}"
    ]
    oracle, closed = data.oracle(shown.model), data.closed_book(shown.model)
    if oracle is not None:
        parts.append(f"{oracle:.1f}% with the answer passage alone")
    if closed is not None:
        parts.append(f"{closed:.1f}% with no passage (closed book)")
    return "; ".join(parts) + "."


def _what_it_shows(shown: MeasuredPoints) -> str:
    """Return the curve's earned sentences (``CurveEvidence.claims``): what its tests resolve, and no more."""
    return f"What these questions show: {said_of(shown.model, shown.evidence)}."


def measured_curve_section(ctx: LabContext, key: str) -> PositionData | None:
    """Draw the loaded measured curve (on request) with its band and earned sentences; return its data."""
    opened = on_request("Your model's curve, measured (load or measure one)", f"{key}_measured_open")
    if opened is None:
        return None
    with opened:
        problem = curve_uploader(f"{key}_curve_file")
        if problem:
            error(problem)
        name, data = loaded_curve()
        shown = measured_points(data)
        label = f"{shown.model} (your model, measured on {shown.evidence.questions or '?'} questions)"
        references = {
            k: v
            for k, v in (
                ("gold passage alone", data.oracle(shown.model)),
                ("closed book", data.closed_book(shown.model)),
            )
            if v is not None
        }
        show_chart(
            ctx,
            f"{key}_measured_chart",
            position_curves_figure,
            {label: shown.points},
            shown.total_docs,
            references=references,
            bands={label: shown.band} if shown.band else None,
        )
        st.markdown(md_line(curve_numbers(shown, data)))
        st.info(md_line(_what_it_shows(shown)))
        caption(
            (
                "The bundled model is a tiny base model (Gemma 3 270M): it shows the pipeline, not a model to "
                "tune for; Liu et al. report the U shape from 13B parameters up and a recency effect below, "
                "so no dip in the middle is expected of it. "
                if is_bundled()
                else f"Loaded from {name}; every view reads it now. "
            )
            + "Measure yours: contextlab curve --endpoint URL --documents 5 --positions 1,3,5 --limit 200 "
            "--out curve.csv (it says first how small a difference that many questions can tell apart)."
        )
        return data
