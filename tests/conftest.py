"""Fixtures shared by the engine's test modules."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

import pytest

from contextlab import events


def _module_marks(path: Path) -> set[str]:
    """Return the marks a test module's own ``pytestmark = ...`` line gives every test in it."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            return {v.attr for v in values if isinstance(v, ast.Attribute)}
    return set()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip importing a module whose module-wide marks ``-m`` deselects (its frameworks take seconds).

    ``-m "not integration"`` would deselect every test of tests/test_integrations_haystack.py
    anyway; not importing Haystack to find that out keeps the fast subset fast.
    """
    expression = config.getoption("markexpr")
    if not expression or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    marks = _module_marks(collection_path)
    if not marks:
        return None
    from _pytest.mark.expression import Expression  # pytest's own -m evaluator

    return True if not Expression.compile(expression).evaluate(lambda name: name in marks) else None


@pytest.fixture
def received():
    """Collect every retrieval event sent while the test runs."""
    got: list[tuple[object, dict]] = []

    def receiver(sender, payload):
        got.append((sender, payload))

    events.memory_retrieve.connect(receiver)
    yield got
    events.memory_retrieve.disconnect(receiver)


#: The grid of the one Dask run the suite makes (shared by the library's and the CLI's checks).
DASK_GRID = ["max_context_tokens=256,1024", "placement=lost_in_the_middle,reversed"]


@pytest.fixture(scope="session")
def bundled_run300():
    """Return the bundled set's first 300 questions at budgets 256 and 1024: one run (~25 s) the suite shares."""
    from contextlab.evaluation import RunOptions, run_evaluation

    return run_evaluation(None, ["max_context_tokens=256,1024"], RunOptions(limit=300))


@pytest.fixture(scope="session")
def dask_run40():
    """Return 40 questions of ``DASK_GRID`` run on a local 2-worker Dask cluster: the suite's one cluster."""
    pytest.importorskip("distributed")
    from contextlab.evaluation import RunOptions, run_evaluation

    return run_evaluation(None, DASK_GRID, RunOptions(limit=40, workers=2, chunk_size=5))


def _make_read_only(path: Path) -> None:
    """Make ``path`` unwritable for this process: mode bits for a user, the immutable flag for root."""
    if os.geteuid() != 0:
        path.chmod(0o555 if path.is_dir() else 0o444)
        return
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"running as root and chattr +i is not available here: {done.stderr.decode().strip()}")


def _make_writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    else:
        path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.fixture
def read_only():
    """Return ``make(path)``, which makes a file or folder unwritable for this process until the test ends."""
    made: list[Path] = []

    def make(path: Path) -> Path:
        _make_read_only(path)
        made.append(path)
        return path

    yield make
    for path in reversed(made):
        _make_writable(path)
