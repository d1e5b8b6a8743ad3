"""The shape of the package: no import cycle between its parts, a registry that needs no torch, and an
import that leaves torch's global settings alone."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import networkx as nx

from conftest import REPO

PACKAGE = REPO / "pyverify"
PARTS = ("registry", "checks", "engine", "provers", "attention", "report", "cli")


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every pyverify module a file imports, at module level or inside functions, relative imports resolved."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{a.name}" for a in node.names}  # `from . import x` imports module x
    return {name for name in found if name == "pyverify" or name.startswith("pyverify.")}


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in PARTS else None


def import_graph() -> nx.DiGraph:
    """Part-level graph: an edge a -> b when a module of part a imports one of part b."""
    graph = nx.DiGraph()
    graph.add_nodes_from(PARTS)
    for path in PACKAGE.rglob("*.py"):
        source = _part(_module_name(path))
        if source is None:
            continue
        for target in map(_part, _imports(path)):
            if target is not None and target != source:
                graph.add_edge(source, target)
    return graph


def test_the_parts_of_pyverify_import_each_other_without_a_cycle():
    graph = import_graph()
    assert graph.number_of_edges() >= 5, "the import parser found (almost) nothing"
    assert nx.is_directed_acyclic_graph(graph), f"import cycle: {nx.find_cycle(graph)}"
    # the data flow of the design: registry -> checks -> engine -> report
    assert not graph.has_edge("registry", "checks") and not graph.has_edge("checks", "engine")
    assert not graph.has_edge("engine", "report")


def test_the_cycle_detector_sees_a_planted_cycle(tmp_path):
    graph = import_graph()
    graph.add_edge("registry", "engine")  # engine imports registry already: a cycle
    assert not nx.is_directed_acyclic_graph(graph)


def test_function_level_and_relative_imports_are_resolved():
    found = _imports(PACKAGE / "engine" / "relations" / "pointwise.py")
    assert "pyverify.provers.symbolic" in found  # imported inside a function, two dots up
    assert "pyverify.checks.compiled" in found


def test_registry_imports_no_torch():
    for path in (PACKAGE / "registry").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            assert not any(n == "torch" or n.startswith("torch.") for n in names), f"{path}: imports torch"
    # and at run time: loading a registry does not pull torch in
    code = ("import sys; from pyverify.registry import load_registry; load_registry(); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         env={"PYTHONPATH": str(REPO), "PATH": ""}, timeout=120)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


STATE = ("import json, torch; print(json.dumps([torch.backends.cuda.matmul.allow_tf32, "
         "torch.backends.cudnn.allow_tf32, torch.get_num_threads(), torch.get_default_dtype() is torch.float64, "
         "torch.are_deterministic_algorithms_enabled()]))")


def _torch_state(before: str) -> list:
    out = subprocess.run([sys.executable, "-c", f"{before}; {STATE}"], cwd=REPO, capture_output=True, text=True,
                         env={"PYTHONPATH": str(REPO), "PATH": "", "OMP_NUM_THREADS": "2"}, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_pyverify_changes_no_global_torch_state():
    imports = ("import pyverify, pyverify.cli, pyverify.engine, pyverify.provers.symbolic, "
               "pyverify.provers.interval, pyverify.attention, pyverify.report, pyverify.pytest_plugin")
    assert _torch_state(imports) == _torch_state("pass")
    # the comparison sees a change: setting the thread count is one
    assert _torch_state("import torch; torch.set_num_threads(1)") != _torch_state("pass")
