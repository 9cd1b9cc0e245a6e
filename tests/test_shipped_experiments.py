"""The bundled model's context experiments as shipped: N >= 200 questions per level, each row backed by its answers.

``contextlab curve --vary distractors`` and ``--vary length`` measured them on the bundled model; the
answers file beside each curve must give back every level's accuracy and count.
"""

from __future__ import annotations

import csv
import io
from importlib import resources

import pytest

_DATA = resources.files("contextlab") / "data"


def _rows(name: str) -> list[dict[str, str]]:
    text = (_DATA / name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO("\n".join(x for x in text.splitlines() if not x.startswith("#")))))


@pytest.mark.parametrize(
    ("name", "kind", "level_column", "levels"),
    [
        ("gemma3_270m_distractors.csv", "distractors", "distractors", ["0", "1", "4"]),
        ("gemma3_270m_length.csv", "length", "context_tokens", ["500", "1500", "3000"]),
    ],
)
def test_shipped_experiment_has_200_questions_a_level_and_its_answers_give_its_accuracy(
    name: str, kind: str, level_column: str, levels: list[str]
) -> None:
    curve = _rows(name)
    answers = _rows(name.replace(".csv", ".questions.csv"))
    assert [row["kind"] for row in curve] == [kind] * len(levels)
    assert [row[level_column] for row in curve] == levels
    for row in curve:
        at_level = [a for a in answers if a["level"] == row[level_column]]
        assert int(row["questions"]) == len(at_level) >= 200
        right = sum(a["correct"] == "1" for a in at_level)
        assert float(row["accuracy"]) == round(100 * right / len(at_level), 1)
    ids = {level: sorted(a["query_id"] for a in answers if a["level"] == level) for level in levels}
    assert all(ids[level] == ids[levels[0]] for level in levels)  # the same questions at every level


def test_shipped_experiment_headers_say_how_they_were_measured() -> None:
    head = (_DATA / "gemma3_270m_distractors.csv").read_text(encoding="utf-8").splitlines()[0]
    assert head.startswith("# Distractors experiment of gemma-3-270m-q4_k_m, measured by `contextlab curve --vary")
