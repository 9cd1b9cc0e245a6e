"""The Streamlit lab. Only this package (and ``app.py``) imports streamlit.

Its figures come from ``contextlab.charts`` (plotly, no streamlit); its views live in
``contextlab.ui.views``, one module each, listed in ``views.VIEWS``. Importing this package
loads neither streamlit nor plotly: ``main`` imports the shell when it is called.
"""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Draw the lab (call it from a Streamlit script, after ``st.set_page_config``)."""
    from .shell import main as draw

    draw()
