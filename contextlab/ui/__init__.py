"""The Streamlit lab. Only this package (and ``app.py``) imports streamlit and plotly."""

from __future__ import annotations

# Imported eagerly: importing the submodule ``main`` would otherwise replace a lazily
# defined ``main`` function on the package with the module itself.
from .main import main

__all__ = ["main"]
