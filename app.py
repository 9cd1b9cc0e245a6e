"""The contextlab lab: `streamlit run app.py`."""

import streamlit as st

from contextlab.ui import main

st.set_page_config(page_title="contextlab", page_icon="🧪", layout="wide")
main()
