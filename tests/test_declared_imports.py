"""Every third-party module contextlab imports is declared by the extra of the code that imports it.

The test reads the imports of every module (top level and inside functions) and the package's
declared requirements (``pyproject.toml``), and fails on a module that only "comes with" another
package: the measured path once imported ``httpx`` "installed with openai", and the registry's
next ``openai`` brought ``httpx2`` instead, so ``pip install 'contextlab[model]'`` could not
answer a single question. Which extra owns which code is written here, as a literal table.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "contextlab"

#: Which extras the code under a path may rely on, beyond the base requirements (longest prefix wins).
EXTRAS_OF_CODE: dict[str, tuple[str, ...]] = {
    "contextlab/ui/": ("lab",),
    "contextlab/charts/": ("lab",),
    "contextlab/integrations/langchain.py": ("langchain",),
    "contextlab/integrations/llama_index.py": ("llama-index",),
    "contextlab/integrations/haystack.py": ("haystack",),
    "contextlab/evaluation/cluster.py": ("dask",),
    "contextlab/models/server.py": ("model",),
    "contextlab/loaders/pdf_input.py": ("files",),
    "contextlab/loaders/docx_input.py": ("files",),
    "contextlab/loaders/html_input.py": ("files",),
    "contextlab/loaders/chunking.py": ("files",),
}


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {_name(r) for r in project["dependencies"]}
    extras = {extra: {_name(r) for r in reqs} for extra, reqs in project["optional-dependencies"].items()}
    return base, extras


def _third_party_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names and name != "contextlab"}


def _extras_for(relative: str) -> tuple[str, ...]:
    owners = [prefix for prefix in EXTRAS_OF_CODE if relative.startswith(prefix)]
    return EXTRAS_OF_CODE[max(owners, key=len)] if owners else ()


@cache
def _providers() -> dict[str, list[str]]:
    return packages_distributions()


def _distributions(module: str) -> set[str]:
    return {d.lower().replace("_", "-") for d in _providers().get(module, [])}


def test_declared_imports_every_module_is_declared_by_its_extra():
    base, extras = _declared()
    undeclared = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        allowed = set(base).union(*(extras[e] for e in _extras_for(relative)))
        for module in sorted(_third_party_imports(path)):
            distributions = _distributions(module)
            assert distributions, f"{relative} imports {module}, which no installed distribution provides"
            if not distributions & allowed:
                undeclared.append(
                    f"{relative}: {module} (from {', '.join(sorted(distributions))}; "
                    f"declared: base + {', '.join(_extras_for(relative)) or 'nothing else'})"
                )
    assert not undeclared, "undeclared imports:\n" + "\n".join(undeclared)


def test_declared_imports_the_table_names_real_extras_and_real_files():
    _, extras = _declared()
    for prefix, owners in EXTRAS_OF_CODE.items():
        assert (ROOT / prefix).exists(), prefix
        assert set(owners) <= set(extras), (prefix, owners)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import httpx\n", {"httpx"}),
        ("def f():\n    from openai import OpenAI\n", {"openai"}),
        ("import os, json\nfrom . import x\nfrom contextlab import y\n", set()),
    ],
)
def test_declared_imports_reader_sees_function_level_imports(tmp_path, source, expected):
    module = tmp_path / "m.py"
    module.write_text(source)
    assert _third_party_imports(module) == expected
