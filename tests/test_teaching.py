"""contextlab.lab.teaching: what the teaching views say, as pure functions with literal answers."""

from __future__ import annotations

import pytest

from contextlab.errors import InvalidInputError
from contextlab.lab.teaching import curve_name, middle_zone, parse_order, reorder_cannot_help


def test_teaching_reorder_cannot_help_when_the_last_slot_reads_below_the_second():
    said = reorder_cannot_help([70.0, 60.0, 55.0, 58.0], "M")
    assert said is not None and "moves the second most relevant to pos 4, which M reads at 58.0% — below pos 2's 60.0%" in said
    assert reorder_cannot_help([70.0, 55.0, 50.0, 66.0], "M") is None  # a U: the back reads better
    assert reorder_cannot_help([70.0, 60.0, 50.0], "M") is None  # three or fewer stay in order


def test_teaching_curve_name_says_interpolated_between_published_counts():
    assert curve_name("GPT-3.5-Turbo", 20) == "measured accuracy at this position"
    assert curve_name("GPT-3.5-Turbo", 7) == "accuracy at this position (interpolated from the published points)"


def test_teaching_middle_zone_is_the_middle_third():
    assert middle_zone(9) == (4, 6) and middle_zone(2) is None


def test_teaching_parse_order_is_bad_input_naming_the_field():
    assert parse_order("3, 1 2", 3) == [2, 0, 1]
    with pytest.raises(InvalidInputError, match=r"^order: give each rank 1..3 exactly once \(repeated: \[1\]; missing: \[3\]\)$"):
        parse_order("1 1 2", 3)
