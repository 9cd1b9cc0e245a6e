"""The lab's shape, checked on its source: one door to the engine, no cycles (sizes: tests/test_architecture.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "contextlab"
UI = sorted((ROOT / "ui").rglob("*.py"))
ENGINE = ("contextlab.manager", "contextlab.stages", "contextlab.tokenizers")


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Return every module ``path`` imports, lazily inside functions too, relative ones resolved."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


def test_ui_only_engine_py_imports_the_engine():
    offenders = {
        _module(p): sorted(i for i in _imports(p) if i.startswith(ENGINE)) for p in UI if p.name != "engine.py"
    }
    assert {m: i for m, i in offenders.items() if i} == {}


def test_ui_views_are_imported_only_by_the_registry_and_the_shell():
    outside = [p for p in UI if "views" not in p.parts]
    importers = {_module(p) for p in outside if any(i.startswith("contextlab.ui.views") for i in _imports(p))}
    assert importers == {"contextlab.ui.shell"}


def test_ui_has_no_import_cycle_lazy_imports_included():
    modules = {_module(p): p for p in UI}
    graph = {m: {i for i in _imports(p) if i in modules and i != m} for m, p in modules.items()}
    # A package's __init__ importing its own modules is how the registry works, not a cycle.
    for m in graph:
        graph[m] = {i for i in graph[m] if not (modules[m].name == "__init__.py" and i.startswith(m + "."))}
    seen: dict[str, int] = {}
    cycle: list[str] = []

    def visit(m: str, path: list[str]) -> None:
        if cycle:
            return
        seen[m] = 1
        for nxt in sorted(graph[m]):
            if seen.get(nxt) == 1:
                cycle.extend([*path, m, nxt])
                return
            if nxt not in seen:
                visit(nxt, [*path, m])
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            visit(m, [])
    assert cycle == []


def test_ui_runs_documents_returns_the_documents_input_type():
    from contextlab.ui.inputs import DocumentsInput
    from contextlab.ui.runs import runs_documents

    assert runs_documents.__annotations__["return"] in ("DocumentsInput", DocumentsInput)
