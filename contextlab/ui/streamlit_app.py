"""The lab as a file inside the package, for `contextlab lab` (streamlit run <this file>)."""

import streamlit as st

from contextlab.ui import main

st.set_page_config(page_title="contextlab", page_icon="🧪", layout="wide")
main()
