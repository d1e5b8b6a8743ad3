"""The shape of the package, read from its files: no import cycle between any two of its modules, the
data flow of the design (no edge against it), a registry that needs no torch, a core that names no paper
of the content it is shipped with, and an import that leaves torch's global settings alone."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from conftest import PAPERS, REPO

PACKAGE = REPO / "pyverify"
# the tool: it knows no paper; content (the papers) and the mechanisms build on it, never the reverse
CORE = ("registry", "checks", "engine", "provers", "report", "analysis", "cli", "contributions", "plugin", "mutation",
        "pytest_plugin", "limits", "atomic")
CONTENT = ("papers",)
MECHANISMS = ("attention",)


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The pyverify modules a file imports, at module level or inside functions, relative imports
    resolved; ``from package import name`` counts as importing the module ``package.name`` when there is
    one, else the package."""
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
            subs = {f"{target}.{a.name}" for a in node.names} & modules
            found |= subs or {target}
            if len(subs) < len(node.names):
                found.add(target)  # names defined in the package itself
    return {name for name in found if name in modules}


def import_graph() -> nx.DiGraph:
    """File-level graph: an edge a -> b when module a imports module b."""
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        graph.add_edges_from((name, target) for target in _imports(path, set(modules)) if target != name)
    return graph


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pyverify"


def test_no_module_imports_itself_through_others():
    graph = import_graph()
    assert graph.number_of_edges() > 100, "the import parser found (almost) nothing"
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"file-level import cycles: {cycles[:5]}"


def test_the_cycle_detector_sees_a_planted_cycle():
    graph = import_graph()
    graph.add_edge("pyverify.registry.models", "pyverify.engine.result")  # the engine imports the registry already
    assert list(nx.simple_cycles(graph))


def test_function_level_and_relative_imports_are_resolved():
    modules = set(_modules())
    found = _imports(PACKAGE / "engine" / "pipeline.py", modules)
    assert "pyverify.provers.symbolic" in found  # imported inside a function, two dots up
    assert "pyverify.engine.falsify" in found and "pyverify.checks.compiled" in found
    assert "pyverify.checks" not in _imports(PACKAGE / "checks" / "compiled.py", modules)  # `from . import dsl`


def _edges_between(sources: tuple[str, ...], targets: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(a, b) for a, b in import_graph().edges if _part(a) in sources and _part(b) in targets]


def test_the_data_flows_one_way():
    # the registry is data, the language does not judge, the engine does not show, the report only shows
    assert _edges_between(("registry",), ("checks", "engine", "provers", "report", "analysis")) == []
    assert _edges_between(("checks",), ("engine", "provers", "report", "analysis")) == []
    assert _edges_between(("engine", "provers"), ("report",)) == []
    assert _edges_between(("report",), MECHANISMS + CONTENT) == [], "the report runs no mechanism: it renders"


def test_the_core_names_neither_the_content_nor_the_mechanisms():
    assert _edges_between(CORE, CONTENT) == []
    assert _edges_between(CORE, MECHANISMS) == []
    # and the forbidden edge is seen when it is there
    assert _edges_between(CONTENT, CORE) and _edges_between(("certify",), MECHANISMS)


def test_registry_imports_no_torch():
    for path in (PACKAGE / "registry").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            assert not any(n == "torch" or n.startswith("torch.") for n in names), f"{path}: imports torch"
    # and at run time: loading the default registry (the content package's) does not pull torch in
    code = ("import sys; from pyverify.registry import load_registry; load_registry(); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         env={"PYTHONPATH": str(REPO), "PATH": ""}, timeout=120)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


def _content_names() -> list[str]:
    from pyverify.registry import load_registry

    reg = load_registry(PAPERS)
    return sorted(set(reg.claims) | set(reg.documents), key=len, reverse=True)


def _core_files() -> list[Path]:
    files = []
    for part in CORE:
        folder, module = PACKAGE / part, PACKAGE / f"{part}.py"
        files += [p for p in folder.rglob("*") if p.suffix in (".py", ".j2", ".js", ".css")] if folder.is_dir() else [module]
    return files


def _mentions(names: list[str], files: list[Path]) -> list[str]:
    # an id is bounded by what cannot continue it (a quote after it closes a string; a prime continues it)
    word = re.compile(r"(?<![\w.\-])(" + "|".join(map(re.escape, names)) + r")(?![\w\-]|\.\w|'[\w.])")
    return [f"{p.name}:{i}: {m.group(1)}" for p in files
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) for m in word.finditer(line)]


def test_the_core_names_no_claim_id_and_no_document_key_of_the_content():
    names = _content_names()
    assert len(names) > 300 and "T2.9" in names and "espr-derivation" in names
    assert _mentions(names, _core_files()) == []


def test_the_grep_sees_a_planted_id(tmp_path):
    planted = tmp_path / "x.py"
    planted.write_text("# the relative law (T2.9) holds\nROLE = 'pe-theory'\nOTHER = 'T2.90'\n")
    assert [m.split(": ")[1] for m in _mentions(_content_names(), [planted])] == ["T2.9", "pe-theory"]


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
               "pyverify.provers.interval, pyverify.attention, pyverify.report, pyverify.pytest_plugin; "
               "from pyverify.checks.plugins import ensure_content; ensure_content()")
    assert _torch_state(imports) == _torch_state("pass")
    # the comparison sees a change: setting the thread count is one
    assert _torch_state("import torch; torch.set_num_threads(1)") != _torch_state("pass")


@pytest.mark.parametrize("part", CORE)
def test_no_core_module_is_past_500_lines(part):
    files = [p for p in _core_files() if p.suffix == ".py" and (p.parent.name == part or p.stem == part
                                                                or part in p.relative_to(PACKAGE).parts)]
    assert not [(str(p.relative_to(REPO)), n) for p in files if (n := len(p.read_text().splitlines())) > 500]
