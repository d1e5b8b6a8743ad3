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


def _pytest(project, *args: str) -> subprocess.CompletedProcess:
    """pytest in ``project`` with the plugin loaded by ``-p`` (autoload off: the one way it is loaded, whether
    or not the entry point is installed)."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", ENTRY_POINT, "-p", "no:cacheprovider",
                           "--pyverify-budget", "quick", "-q", *args],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)


def test_an_external_claims_folder_is_collected_and_checked(tmp_path):
    root = tmp_path / "project" / "claims"
    root.mkdir(parents=True)
    (root / "documents.yaml").write_text(DOC)
    good = claim_yaml("X.good", extra="check: {given: {M: 'mat(3)'}, assert: 'M.T.T == M'}\nexpect: holds\n")
    wrong = claim_yaml("X.wrong", extra="check: {given: {M: 'mat(3)'}, assert: 'M.T == M'}\nexpect: holds\n")
    (root / "a.yaml").write_text("claims:\n" + good + wrong)
    (root.parent / "pyproject.toml").write_text('[tool.pyverify]\nregistries = ["claims"]\n')
    proc = _pytest(root.parent, "claims")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "claim X.wrong" in out and "computed verdict `refuted`, reviewed expectation `holds`" in out
    assert "at the witness M.T = " in out, out  # the failure shows both sides, as the command line does


def test_a_claims_folder_nobody_opted_into_is_not_collected(tmp_path):
    """A project that happens to have a `claims/` folder of its own YAML is left alone (it got collection
    errors); the same folder named by the ini option is collected."""
    project = tmp_path / "unrelated"
    (project / "claims").mkdir(parents=True)
    (project / "claims" / "insurance.yaml").write_text("claims:\n  - policy: 17\n    amount: 3.5\n")
    (project / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    proc = _pytest(project)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "1 passed" in out and "error" not in out.lower(), out
    named = _pytest(project, "-o", "pyverify_registries=claims")
    assert named.returncode == 2 and "insurance.yaml" in named.stdout + named.stderr  # opted in: its problems shown


def test_the_projects_plugins_are_loaded_before_its_registry(tmp_path):
    """[tool.pyverify] plugins is read under pytest too (the registry's `plugins:` was refused as not loaded)."""
    project = tmp_path / "project"
    (project / "claims").mkdir(parents=True)
    (project / "tripling.py").write_text("from pyverify import plugin\nPYVERIFY_PLUGIN = 'tripling'\n"
                                         "plugin.function('triple', lambda x: 3 * x, doc='three times x')\n")
    (project / "claims" / "documents.yaml").write_text(DOC)
    (project / "claims" / "t.yaml").write_text("plugins: [tripling]\nclaims:\n" + claim_yaml(
        "T.1", extra="check: {given: {x: 'vec(3)'}, assert: 'triple(x) == x + x + x'}\nexpect: holds\n"))
    (project / "pyproject.toml").write_text('[tool.pyverify]\nplugins = ["tripling.py"]\nregistries = ["claims"]\n')
    proc = _pytest(project)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
    (project / "pyproject.toml").write_text('[tool.pyverify]\nplugins = ["missing.py"]\nregistries = ["claims"]\n')
    proc = _pytest(project)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2 and "plugin file" in out and "missing.py" in out, out


RELATIVE_ROPE = """\
check:
  given: {q: 'vec(6)', k: 'vec(6)', i: 'vec(1, hi=50)', j: 'vec(1, hi=50)', t: 'vec(1, hi=50)'}
  where: {Q: 'outer(ones(1), q)', K: 'outer(ones(1), k)'}
  assert: 'rope(Q, i)[0] @ rope(K, j)[0] == rope(Q, i + t)[0] @ rope(K, j + t)[0]'
expect: holds
"""


@pytest.mark.parametrize("target, outcome", [("apply_rotary", "1 passed"), ("apply_rotary_position_scaled", "1 failed")])
def test_the_projects_bindings_run_its_claims_on_its_code(tmp_path, target, outcome):
    """[tool.pyverify] bindings is read under pytest as on the command line: the claim exercising the bound
    role runs on the user's function (a scale by absolute position breaks the relative law), with the
    conventions declared there mapped (half-split pairing, the opposite rotation sense)."""
    project = tmp_path / "project"
    (project / "claims").mkdir(parents=True)
    (project / "claims" / "documents.yaml").write_text(DOC)
    (project / "claims" / "r.yaml").write_text("claims:\n" + claim_yaml("R.relative", extra=RELATIVE_ROPE))
    (project / "pyproject.toml").write_text(
        '[tool.pyverify]\nregistries = ["claims"]\n'
        f'[tool.pyverify.bindings.rotary]\ntarget = "{REPO / "tests" / "bound_user_code.py"}:{target}"\n'
        'conventions = {pairing = "half", displacement = "ri-rj"}\n')
    proc = _pytest(project)
    out = proc.stdout + proc.stderr
    assert outcome in out, out
    (project / "pyproject.toml").write_text(
        '[tool.pyverify]\nregistries = ["claims"]\n[tool.pyverify.bindings.rotery]\ntarget = "x.py:f"\n')
    bad = _pytest(project)
    assert bad.returncode == 2 and "unknown role 'rotery'" in bad.stdout + bad.stderr, bad.stdout + bad.stderr


def test_this_repository_opts_its_registry_in():
    roots = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pyverify"]["registries"]
    assert [(REPO / r).resolve() for r in roots] == [PAPERS.resolve()]


def test_a_malformed_opt_in_is_a_usage_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pyverify]\nregistries = "claims"\n')
    proc = _pytest(tmp_path)
    assert proc.returncode == 4 and "registries must be a list" in proc.stderr, proc.stdout + proc.stderr
