"""contextlab.lab.thresholds: thresholds and similarities written without rounding past the boundary."""

from __future__ import annotations

import pytest

from contextlab.lab.thresholds import catching_threshold, similarity_text, threshold_decimals, threshold_text


@pytest.mark.parametrize(
    ("similarity", "caught_at"),
    [(0.776, 0.77), (0.77, 0.77), (0.7799999, 0.77), (0.29, 0.29), (1.0, 1.0), (0.009, 0.0)],
)
def test_thresholds_catching_threshold_rounds_down_to_the_slider_step(similarity, caught_at):
    assert catching_threshold(similarity) == caught_at
    assert similarity >= catching_threshold(similarity)  # the pair really is caught there


def test_thresholds_text_keeps_the_digits_a_threshold_has():
    assert [threshold_text(t) for t in (0.85, 0.776, 1.0, 0.5)] == ["0.85", "0.776", "1.00", "0.50"]
    assert threshold_decimals(0.776) == 3 and threshold_decimals(0.8) == 2


def test_thresholds_similarity_text_is_cut_never_rounded_up():
    assert [similarity_text(s) for s in (0.7769, 0.29, 0.9999)] == ["0.776", "0.290", "0.999"]
