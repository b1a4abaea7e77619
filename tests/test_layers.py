"""The harness's imports point down the layer order of docs/design.md, close no cycle, and take no
private name from another module.

Every module under harness/ is parsed with ast; every import counts, function-local ones included
(a cycle hidden in a function is still a cycle). Only imports under ``if TYPE_CHECKING:`` are
exempt: they never run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parent.parent / "harness"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("cli", ("harness.cli", "harness.__main__")),
    ("course", ("harness.course",)),
    ("tournament", ("harness.tournament",)),
    ("validate", ("harness.validate",)),
    ("report", ("harness.report",)),
    ("analysis", ("harness.analysis",)),
    ("store", ("harness.store",)),
    ("match", ("harness.match",)),
    ("referee", ("harness.referee",)),
    ("games", ("harness.games",)),
    ("base", ("harness.errors", "harness.rng", "harness.text", "harness.terminal", "harness.progress", "harness.machine",
              "harness.outputs", "harness")),
]
"""Top to bottom: a module may import its own layer (without a cycle) and the layers below it."""

PENDING: set[str] = set()
"""Violations tolerated for now, each of which must still occur: none (the list stays, empty, for a
step that moves modules in stages)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(HARNESS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    """The index of ``module``'s layer in LAYERS (0 is the top); the longest matching prefix wins."""
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    if best is None:
        raise AssertionError(f"{module} is in no layer of tests/test_layers.py: add it to LAYERS")
    return best


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    """(line, imported module, imported names) of one module, TYPE_CHECKING blocks left out."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[int, str, list[str]]] = []

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] == "harness":
                self.found.append((node.lineno, alias.name, []))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.package.split(".")
            parts = parts[:len(parts) - node.level + 1]
            base = ".".join(parts + ([base] if base else []))
        if base.split(".")[0] != "harness":
            return
        names = [alias.name for alias in node.names]
        submodules = [f"{base}.{name}" for name in names if (_path_of(f"{base}.{name}") is not None)]
        if submodules:  # from harness.referee import sandbox: the module imported is the submodule
            for sub in submodules:
                self.found.append((node.lineno, sub, []))
            names = [name for name in names if f"{base}.{name}" not in submodules]
            if not names:
                return
        self.found.append((node.lineno, base, names))


def _path_of(module: str) -> Path | None:
    relative = Path(*module.split("."))
    for candidate in (HARNESS.parent / relative.with_suffix(".py"), HARNESS.parent / relative / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def harness_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(HARNESS.rglob("*.py"))}


def imports_of(module: str, path: Path, source: str | None = None) -> list[tuple[int, str, list[str]]]:
    visitor = _Imports(module, path.name == "__init__.py")
    text = path.read_text(encoding="utf-8") if source is None else source
    visitor.visit(ast.parse(text, str(path)))
    return visitor.found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def violations(extra: dict[str, str] | None = None) -> list[str]:
    """Every import that points up, takes a private name across modules, or closes a cycle;
    ``extra`` adds modules by name with their source (for the tests of this test)."""
    modules = harness_modules()
    sources = extra or {}
    for module in sources:
        modules[module] = HARNESS.parent / Path(*module.split(".")).with_suffix(".py")
    found: list[str] = []
    graph: dict[str, set[str]] = {}
    where: dict[tuple[str, str], str] = {}
    for module, path in modules.items():
        for line, target, names in imports_of(module, path, sources.get(module)):
            place = f"{path.relative_to(HARNESS.parent)}:{line}"
            if target not in modules:
                found.append(f"{place}: {module} imports {target}, which is no module of harness/")
                continue
            if target == module:
                continue
            if layer_of(target) < layer_of(module) and not module.startswith(target + "."):
                found.append(f"{place}: {module} ({LAYERS[layer_of(module)][0]}) imports {target} "
                             f"({LAYERS[layer_of(target)][0]}), a layer above it")
            for name in names:
                if name.startswith("_"):
                    found.append(f"{place}: {module} imports the private name {name} of {target}")
            # A package's __init__ re-exporting its own submodule is no dependency back.
            if not target.startswith(module + "."):
                graph.setdefault(module, set()).add(target)
                where.setdefault((module, target), place)
    for component in _cycles(graph):
        members = set(component)
        edges = sorted(f"{where[(a, b)]}: {a} -> {b}" for a in component for b in graph.get(a, ()) if b in members)
        found.append(f"import cycle between {', '.join(component)} ({'; '.join(edges)})")
    return found


def _key(text: str) -> str:
    """A violation as PENDING names it: without line numbers (so it survives edits elsewhere in the
    file), a cycle by its modules alone."""
    if text.startswith("import cycle between "):
        return text.partition(" (")[0]
    return re.sub(r":\d+:", ":", text)


def test_docs_design_states_the_layer_order_this_test_checks() -> None:
    design = (HARNESS.parent / "docs" / "design.md").read_text(encoding="utf-8")
    assert " > ".join(name for name, _ in LAYERS) in design.splitlines()


def test_every_harness_module_is_in_a_layer() -> None:
    for module in harness_modules():
        layer_of(module)


def test_no_import_points_up_closes_a_cycle_or_takes_a_private_name() -> None:
    found = [_key(text) for text in violations()]
    unexpected = [text for text in found if text not in PENDING]
    assert unexpected == [], "\n".join(unexpected)


def test_every_pending_violation_still_occurs() -> None:
    found = {_key(text) for text in violations()}
    gone = sorted(PENDING - found)
    assert gone == [], "no longer found, remove from PENDING in tests/test_layers.py:\n" + "\n".join(gone)


@pytest.mark.parametrize(("source", "expected"), [
    ("from harness.tournament.run import x\n", "harness/match/fake.py:1: harness.match.fake (match) imports "
                                                "harness.tournament.run (tournament), a layer above it"),
    ("def f():\n    from harness.store.store import _private\n",
     "harness/match/fake.py:2: harness.match.fake (match) imports harness.store.store (store), a layer above it"),
])
def test_a_function_local_import_that_points_up_is_found(source: str, expected: str) -> None:
    found = violations({"harness.match.fake": source})
    assert expected in found
    if "_private" in source:
        assert ("harness/match/fake.py:2: harness.match.fake imports the private name _private of "
                "harness.store.store") in found


def test_a_cycle_within_one_layer_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_imports_under_type_checking_are_exempt_and_relative_ones_resolved() -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.cli.app import main\n"
              "else:\n    from . import match\nfrom .settings import GameSettings\n")
    visitor = _Imports("harness.match.fake", False)
    visitor.visit(ast.parse(source))
    assert visitor.found == [(5, "harness.match.match", []), (6, "harness.match.settings", ["GameSettings"])]
