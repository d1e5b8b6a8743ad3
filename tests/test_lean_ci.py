"""The Lean CI: one Lake configuration (lakefile.lean), a hosted workflow that runs Lean's standard
action and `pyverify lean --build` on every push, and the gate that judges its JSON. pyverify's own
CI (.ci/run) stays free of any Lean toolchain."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml
from conftest import REPO

from pyverify.provers.lean.build import project_root

GATE = REPO / "scripts" / "lean_ci_gate.py"


def test_one_lake_configuration_in_lean_form():
    assert (REPO / "lakefile.lean").exists() and not (REPO / "lakefile.toml").exists()
    text = (REPO / "lakefile.lean").read_text()
    assert '@ "v4.24.0"' in text and 'srcDir := "lean"' in text and "@[default_target]" in text
    assert "⟨`autoImplicit, false⟩" in text
    assert project_root(REPO / "lean") == REPO


def test_workflow_builds_with_the_standard_action_on_every_push():
    flow = yaml.safe_load((REPO / ".github" / "workflows" / "lean.yml").read_text())
    triggers = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads the key `on` as a boolean
    assert "push" in triggers and triggers["push"] is None  # every push, every branch
    steps = flow["jobs"]["lean"]["steps"]
    action = next(s for s in steps if str(s.get("uses", "")).startswith("leanprover/lean-action@"))
    assert action["with"]["use-mathlib-cache"] == "true" and action["with"]["build"] == "true"
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "pyverify lean --build" in runs and "lean_ci_gate.py" in runs
    assert "--requirement requirements/lock.txt --extra-index-url https://download.pytorch.org/whl/cpu" in runs
    assert "--no-deps" in runs  # nothing resolved beyond the lock
    assert steps.index(action) < next(i for i, s in enumerate(steps) if "pyverify lean --build" in s.get("run", ""))


def test_pyverify_ci_needs_no_lean_toolchain():
    text = (REPO / ".ci" / "run").read_text()
    assert not any(word in text for word in ("lake ", "elan", "lean-toolchain", "--build"))


def _gate(audit: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(GATE)], input=json.dumps(audit), capture_output=True, text=True)


BUILT = {"build_ran": True, "built": True, "build_errors": [], "input_problems": [], "mapping_problems": [],
         "unknown_names": [], "claims": [{"formal": "checked"}, {"formal": "sorry"}],
         "findings": [{"kind": "vacuity", "claim": "S4", "message": "vacuous"}]}


def test_gate_passes_a_build_and_reports_findings_without_failing():
    proc = _gate(BUILT)
    assert proc.returncode == 0, proc.stdout
    assert "checked 1, sorry 1" in proc.stdout and "finding (vacuity): [S4]" in proc.stdout


def test_gate_fails_without_a_build_in_the_same_run_or_with_errors():
    assert _gate({**BUILT, "build_ran": False, "built": False}).returncode == 1
    assert _gate({**BUILT, "built": False}).returncode == 1
    error = {"file": "lean/Pyverify/Rgat/LogMap.lean", "line": 131, "declaration": "Pyverify.Rgat.kLog",
             "message": "failed to compile definition"}
    proc = _gate({**BUILT, "built": False, "build_errors": [error]})
    assert proc.returncode == 1 and "Pyverify.Rgat.kLog" in proc.stdout
    assert _gate({**BUILT, "unknown_names": [{"name": "Foo.bar", "file": "x.lean", "line": 1}]}).returncode == 1
    assert subprocess.run([sys.executable, str(GATE)], input="not json", capture_output=True,
                          text=True).returncode == 2


def _noncomputable_span(tokens) -> tuple[int, int] | None:
    """Lines of the file's `noncomputable section` and of the anonymous `end` closing it (or the end
    of the file when it stays open)."""
    opened = next((t.line for k, t in enumerate(tokens[:-1])
                   if t.text == "noncomputable" and tokens[k + 1].text == "section"
                   and (k + 2 == len(tokens) or tokens[k + 2].line != tokens[k + 1].line)), None)
    if opened is None:
        return None
    bare_ends = [t.line for k, t in enumerate(tokens) if t.text == "end" and t.line > opened
                 and (k + 1 == len(tokens) or tokens[k + 1].line != t.line)]
    return opened, (bare_ends[-1] if bare_ends else tokens[-1].line + 1)


def test_every_definition_of_the_formalization_is_in_a_noncomputable_section():
    """Division, inverses and Mathlib's ℝ instances are noncomputable: a definition over ℝ outside a
    `noncomputable section` may fail to compile depending on the instance path (lean/Pyverify/Rgat/
    LogMap.lean's `kLog` did). Every definition sits inside the file's `noncomputable section`."""
    from pyverify.provers.lean.index import index_text
    from pyverify.provers.lean.tokens import tokenize
    outside = []
    for path in sorted((REPO / "lean" / "Pyverify").rglob("*.lean")):
        text = path.read_text()
        span = _noncomputable_span(tokenize(text))
        for d in index_text(text, str(path)):
            if d.kind in ("def", "abbrev", "instance", "opaque") and (span is None or not span[0] < d.line < span[1]):
                outside.append(f"{path.name}:{d.line} {d.name}")
    assert outside == []


def test_the_noncomputable_check_can_fail():
    from pyverify.provers.lean.tokens import tokenize
    assert _noncomputable_span(tokenize("namespace A\ndef x : ℝ := 1 / 2\nend A\n")) is None
    span = _noncomputable_span(tokenize("namespace A\nnoncomputable section\ndef x : ℝ := 1\nend\ndef y : ℝ := 2\nend A\n"))
    assert span == (2, 4)  # `y` (line 5) is outside


def _table_script():
    import importlib.util
    spec = importlib.util.spec_from_file_location("lean_formal_table", REPO / "scripts" / "lean_formal_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_table_of_the_formal_side_is_the_audit_output(tmp_path, monkeypatch):
    script = _table_script()
    current = script.table()
    monkeypatch.setattr(script, "table", lambda: current)  # computed once (the audit takes seconds)
    assert script.main(["--check"]) == 0  # README.md carries exactly what the audit computes now
    monkeypatch.setattr(script, "ROOT", tmp_path)  # another README; the figures still come from the repo
    (tmp_path / "README.md").write_text(f"x\n{script.BEGIN}\n| stale | 1 |\n{script.END}\n")
    assert script.main(["--check"]) == 1
    assert script.main(["--write"]) == 0 and script.main(["--check"]) == 0
    (tmp_path / "README.md").write_text("no markers\n")
    assert script.main(["--check"]) == 2
