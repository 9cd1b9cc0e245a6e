"""The filtered pass's small-pages context: numpy's huge page advice off inside, as it was after."""

from __future__ import annotations

import numpy as np
import pytest

from contextlab.stages.dedup.pages import small_pages

_switch = np._core.multiarray._set_madvise_hugepage


@pytest.fixture(autouse=True)
def _keep_advice():
    """Leave numpy's huge page advice as the test found it."""
    found = _switch(True)
    _switch(found)
    yield
    _switch(found)


def _advice() -> bool:
    """Return whether numpy advises huge pages now (reading the switch sets it back)."""
    now = _switch(True)
    _switch(now)
    return now


def test_dedup_pages_small_pages_turns_advice_off_inside_and_restores_it():
    for before in (True, False):
        _switch(before)
        with small_pages():
            assert _advice() is False
        assert _advice() is before


def test_dedup_pages_small_pages_restores_advice_when_the_pass_raises():
    _switch(True)
    with pytest.raises(ValueError, match="boom"), small_pages():
        raise ValueError("boom")
    assert _advice() is True
