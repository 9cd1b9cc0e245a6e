"""Every integer read from text goes through ``validation.parse_int``: ASCII digits only, length capped."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from contextlab.curves.outcomes import load_outcomes
from contextlab.errors import LoadError

PACKAGE = Path(__file__).resolve().parent.parent / "contextlab"
_DIGIT_TESTS = {"isdigit", "isdecimal", "isnumeric"}


def _digit_test_then_int(scope: ast.AST) -> list[int]:
    """Return the lines in ``scope`` where ``x.isdigit()`` (or kin) guards an ``int(x)`` of the same ``x``."""
    tested: dict[str, int] = {}
    converted: dict[str, int] = {}
    for node in ast.walk(scope):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _DIGIT_TESTS:
            tested.setdefault(ast.dump(func.value), node.lineno)
        elif isinstance(func, ast.Name) and func.id == "int" and len(node.args) == 1:
            converted.setdefault(ast.dump(node.args[0]), node.lineno)
    return sorted(tested[key] for key in tested.keys() & converted.keys())


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))]


def test_the_walker_finds_a_digit_test_then_int():
    # The check itself: it must see the pattern it forbids, in a function and in a lambda.
    found = ast.parse(
        "def f(s):\n    return int(s) if s.isdigit() else 0\n\ng = lambda v: v.strip().isdigit() and int(v.strip())\n"
    )
    assert sorted(line for scope in _scopes(found) for line in _digit_test_then_int(scope)) == [2, 2, 4, 4]


def test_no_module_tests_digits_then_calls_int():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "validation.py":  # parse_int itself
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        lines = sorted({line for scope in _scopes(tree) for line in _digit_test_then_int(scope)})
        offenders += [f"{path.relative_to(PACKAGE.parent)}:{line}" for line in lines]
    assert offenders == []


def test_no_module_but_validation_tests_digits_at_all():
    # parse_int is the one place a string's digits are looked at.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in _DIGIT_TESTS:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert [f.split(":")[0] for f in found] == ["contextlab/validation.py"]


@pytest.mark.parametrize("cell", ["\u00b2", "\u0663", "1" * 5000])
def test_a_curve_outcomes_file_with_a_non_ascii_digit_is_a_line_naming_the_file(tmp_path: Path, cell):
    (tmp_path / "c.csv").write_text("model,kind,total_docs,position,accuracy\n", encoding="utf-8")
    (tmp_path / "c.questions.csv").write_text(
        f"query_id,kind,total_docs,position,correct,answer\nq1,position,{cell},1,1,yes\n", encoding="utf-8"
    )
    with pytest.raises(LoadError) as caught:
        load_outcomes(tmp_path / "c.csv")
    message = str(caught.value)
    assert message.startswith("outcomes file 'c.questions.csv' line 2: total_docs ")
    assert message.endswith(" and position '1' must be whole numbers with 1 <= position <= total_docs")
    assert "\n" not in message and len(message) < 200


@pytest.mark.parametrize("written", ["\u00b2", "\u0663", "1" * 5000])
def test_typed_orders_and_grid_values_take_ascii_digits_only(written):
    from contextlab.evaluation.grid import parse_grid
    from contextlab.lab.teaching import parse_order

    with pytest.raises(ValueError, match="order: type relevance ranks as whole numbers"):
        parse_order(f"1 {written} 3", 3)
    with pytest.raises(ValueError, match="grid max_context_tokens: .* is not a whole number"):
        parse_grid([f"max_context_tokens=512,{written}"])
