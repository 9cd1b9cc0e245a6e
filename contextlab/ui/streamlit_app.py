"""The lab's Streamlit script: `contextlab lab` runs this file; `streamlit run app.py` runs it too."""

from __future__ import annotations

import streamlit as st

from contextlab.ui import main

__all__ = ["run"]


def run() -> None:
    """Configure the page and draw the lab (one Streamlit run)."""
    # A lab, not a Streamlit app in development: no Deploy button, rerun or clear-cache items.
    # Set once per server: changing a client option makes Streamlit push it to every browser.
    if st.get_option("client.toolbarMode") != "viewer":
        st.set_option("client.toolbarMode", "viewer")
    st.set_page_config(page_title="contextlab", page_icon="🧪", layout="wide")
    main()


if __name__ == "__main__":
    run()
