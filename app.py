"""The contextlab lab from a source checkout: `streamlit run app.py` (the same as `contextlab lab`)."""

from contextlab.ui.streamlit_app import run

run()
