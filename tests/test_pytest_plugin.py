"""The pytest plugin: declared as a `pytest11` entry point, loaded once, collecting an external registry."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import subprocess
import sys
import tomllib

import pytest

import pyverify.pytest_plugin as plugin

from conftest import DOC, PAPERS, REPO, claim_yaml

ENTRY_POINT = "pyverify.pytest_plugin"


def test_pyproject_declares_the_pytest11_entry_point():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"pyverify": ENTRY_POINT}
    assert hasattr(plugin, "pytest_collect_file") and hasattr(plugin, "pytest_addoption")


def test_no_conftest_of_the_repo_loads_the_plugin_by_hand():
    """The entry point loads it; a `pytest_plugins` naming it too would register it twice (pytest stops)."""
    for conftest in [REPO / "conftest.py", *REPO.glob("tests/**/conftest.py"), *PAPERS.glob("**/conftest.py")]:
        for node in ast.walk(ast.parse(conftest.read_text())):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytest_plugins" for t in node.targets):
                assert "pyverify" not in ast.unparse(node.value), f"{conftest}: {ast.unparse(node)}"


def _installed_entry_points() -> list:
    try:
        dist = importlib.metadata.distribution("pyverify")
    except importlib.metadata.PackageNotFoundError:
        return []
    return [ep for ep in dist.entry_points if ep.group == "pytest11"]


def test_installed_metadata_has_the_entry_point_and_the_plugin_is_loaded_once(pytestconfig):
    installed = _installed_entry_points()
    if not installed:
        pytest.skip("the installed pyverify metadata predates the pytest11 entry point: "
                    "re-run `pip install -e .` to refresh it")
    assert [(ep.name, ep.value) for ep in installed] == [("pyverify", ENTRY_POINT)]
    loaded = [p for p in pytestconfig.pluginmanager.get_plugins() if p is plugin]
    assert len(loaded) == 1


def test_an_external_claims_folder_is_collected_and_checked(tmp_path):
    root = tmp_path / "project" / "claims"
    root.mkdir(parents=True)
    (root / "documents.yaml").write_text(DOC)
    good = claim_yaml("X.good", extra="check: {given: {M: 'mat(3)'}, assert: 'M.T.T == M'}\nexpect: holds\n")
    wrong = claim_yaml("X.wrong", extra="check: {given: {M: 'mat(3)'}, assert: 'M.T == M'}\nexpect: holds\n")
    (root / "a.yaml").write_text("claims:\n" + good + wrong)
    # autoload off: `-p` is then the one way the plugin is loaded, whether or not the entry point is installed
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", ENTRY_POINT, "-p", "no:cacheprovider",
                           "--pyverify-budget", "quick", "-q", "claims"],
                          cwd=root.parent, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "claim X.wrong" in out and "computed verdict `refuted`, reviewed expectation `holds`" in out
