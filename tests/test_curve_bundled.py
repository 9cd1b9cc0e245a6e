"""`contextlab curve` against the bundled model: your own questions, paired tests, looks, power and pace.

Every answer is the bundled Gemma 3 270M's (llama.cpp on 127.0.0.1); the prompts are few and
short (two or three documents, a handful of questions) because it answers in seconds on two
shared cores. What the numbers must be is tested without a model in tests/test_curve_design.py
and tests/test_curves_evidence.py; here: that a real run says and writes them.
"""

from __future__ import annotations

import csv
import functools
import json

import pytest

pytest.importorskip("xllamacpp")

from contextlab.curves.curve_file import load_curve_file  # noqa: E402
from contextlab.curves.evidence import curve_evidence  # noqa: E402
from contextlab.curves.outcomes import load_outcomes  # noqa: E402
from contextlab.models import LocalModelServer  # noqa: E402
from tests import helpers  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.integration]

# A curve on the bundled model takes minutes on two cores: a generous bound.
run_cli = functools.partial(helpers.run_cli, timeout=1800)


@pytest.fixture(scope="module")
def server():
    with LocalModelServer(port=0, parallel=2, context=2048) as running:
        yield running


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache") / "responses.sqlite")


def _own_set(path):
    docs = [
        {"content": "The Eiffel Tower is in Paris, the capital of France.", "source": "eiffel"},
        {"content": "Berlin is the capital of Germany.", "source": "berlin"},
        {"content": "Madrid is the capital of Spain.", "source": "madrid"},
    ]
    moon = [
        {"content": "Neil Armstrong was the first person to walk on the Moon, in 1969.", "source": "moon"},
        {"content": "Yuri Gagarin was the first human in space.", "source": "gagarin"},
        {"content": "Sputnik was the first satellite.", "source": "sputnik"},
    ]
    records = [
        {
            "id": "paris",
            "query": "where is the eiffel tower",
            "documents": docs,
            "gold_sources": ["eiffel"],
            "answers": ["Paris"],
        },
        {
            "id": "moon",
            "query": "who first walked on the moon",
            "documents": moon,
            "gold_sources": ["moon"],
            "answers": ["Neil Armstrong", "Armstrong"],
        },
        {
            "id": "short",
            "query": "who first walked on the moon",
            "documents": moon[:2],
            "gold_sources": ["moon"],
            "answers": ["Armstrong"],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_curve_bundled_on_your_own_questions_writes_paired_tests_and_the_pace(server, cache, tmp_path):
    out = tmp_path / "mine.csv"
    done = run_cli(
        "curve",
        str(_own_set(tmp_path / "mine.jsonl")),
        "--endpoint",
        server.url,
        "--api",
        "completions",
        "--shots",
        "1",
        "--documents",
        "3",
        "--positions",
        "1,3",
        "--limit",
        "5",
        "--no-closed-book",
        "--concurrency",
        "2",
        "--cache",
        cache,
        "--yes",
        "--name",
        "Gemma mine",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert (
        "contextlab: note: 1 question(s) of mine.jsonl skipped (first: short: only 1 other documents without "
        "an answer, 2 needed); 2 measured" in done.stderr
    )
    assert "paired tests (the same questions at every position; McNemar's exact p, Holm-corrected):" in done.stdout
    assert "  positions 1 and 3 differ by " in done.stdout and "on 2 questions" in done.stdout
    # the server's own timings: llama.cpp reports them, so the pace compares wall time with them
    assert "% of prompt tokens from its cache" in done.stdout
    assert "against the server's own" in done.stdout
    outcomes = load_outcomes(out)
    assert outcomes.query_ids == ("paris", "moon")
    assert sorted(outcomes.conditions) == [("oracle", 1, 1), ("position", 3, 1), ("position", 3, 3)]
    evidence = curve_evidence(load_curve_file(out), "Gemma mine", outcomes=outcomes.by_position())
    assert evidence.paired and evidence.questions == 2
    assert f"#   {evidence.differences[0].sentence()}" in out.read_text().splitlines()
    rows = list(csv.DictReader((tmp_path / "mine.questions.csv").open()))
    assert {r["query_id"] for r in rows} == {"paris", "moon"} and all(r["correct"] in ("0", "1") for r in rows)


def test_curve_bundled_until_resolved_takes_its_planned_looks(server, cache, tmp_path):
    done = run_cli(
        "curve",
        "--endpoint",
        server.url,
        "--api",
        "completions",
        "--documents",
        "2",
        "--positions",
        "1,2",
        "--limit",
        "2",
        "--until-resolved",
        "--max-questions",
        "4",
        "--no-closed-book",
        "--concurrency",
        "2",
        "--cache",
        cache,
        "--yes",
        "--out",
        str(tmp_path / "c.csv"),
    )
    assert done.returncode == 0, done.stderr
    assert (
        "contextlab: note: looks after 2, 4 questions; α = 0.05 split over 2 looks x 1 test(s) (first against "
        "last), Bonferroni: each tested at p < 0.025, claims at α = 0.025"
    ) in done.stderr
    # Two or four questions cannot reach p < 0.025 (four discordant: 2 / 16 = 0.125): both looks are taken.
    assert "contextlab: note: look at 2 questions: first against last p = " in done.stderr
    assert "contextlab: note: look at 4 questions: first against last p = " in done.stderr
    assert len(load_outcomes(tmp_path / "c.csv").query_ids) == 4


def test_curve_bundled_says_power_and_time_before_asking_to_send(server, cache, tmp_path):
    # The runs above left this endpoint's pace in the cache; six new questions are asked about, not sent.
    done = run_cli(
        "curve",
        "--endpoint",
        server.url,
        "--api",
        "completions",
        "--documents",
        "2",
        "--positions",
        "1,2",
        "--limit",
        "10",
        "--no-closed-book",
        "--detect",
        "20",
        "--cache",
        cache,
        "--out",
        str(tmp_path / "c.csv"),
    )
    assert done.returncode == 1
    assert (
        "contextlab: note: 10 questions per position cannot detect any difference (paired McNemar, 80% power, "
        "α = 0.05, assuming 25% of questions are answered differently at two positions)"
    ) in done.stderr
    assert "contextlab: note: a 20-point difference needs about " in done.stderr
    assert " prompt tokens/s measured over the last " in done.stderr
    assert "not sending: stdin is not a terminal" in done.stderr
    assert not (tmp_path / "c.csv").exists()
