"""The Streamlit lab. Only this package (and ``app.py``) imports streamlit and plotly.

Importing the package itself loads neither: ``main`` imports the shell when it is called, so
``contextlab.ui.sweep_chart`` (the CLI's ``sweep --html``) stays free of streamlit.
"""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Draw the lab (call it from a Streamlit script, after ``st.set_page_config``)."""
    from .shell import main as draw

    draw()
