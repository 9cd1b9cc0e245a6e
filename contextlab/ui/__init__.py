"""The Streamlit lab. Only this package (and ``app.py``) imports streamlit and plotly."""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Draw the lab (call from a Streamlit script after ``st.set_page_config``)."""
    from .main import main as _main

    _main()
