"""`pyverify lean`: tokenizer, index, sorry audit, links, faithfulness audit, names, build attribution.

Every audit is shown failing on a planted error (tests/lean_fixtures/planted) and staying quiet on the
faithful version (tests/lean_fixtures/faithful). Nothing here needs a Lean toolchain; the one test that
runs `lake build` skips when `lake` is not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DOC, REPO, claim_yaml

from pyverify.cli import main
from pyverify.engine.hypotheses import count_models
from pyverify.provers.lean import BuildResult, audit_project, audit_sources, formal_status, index
from pyverify.provers.lean.build import lake_build, parse_build_output
from pyverify.provers.lean.faithful import zero_forcing
from pyverify.provers.lean.index import index_text
from pyverify.provers.lean.mapping import registry_links
from pyverify.provers.lean.tokens import LeanSyntaxError, tokenize
from pyverify.checks.validate import load_valid_registry
from pyverify.registry import RegistryError, load_registry

FIXTURES = REPO / "tests" / "lean_fixtures"


def _lean_dir(tmp_path: Path, *parts: str) -> Path:
    """A lean/ folder with the fixture modules ``parts`` and the fixture name list."""
    root = tmp_path / "lean"
    (root / "Fixture").mkdir(parents=True)
    for part in parts:
        for f in (FIXTURES / part).glob("*.lean"):
            shutil.copy(f, root / "Fixture" / f.name)
    (root / "mathlib-names").mkdir()
    shutil.copy(FIXTURES / "names" / "fixture.tsv", root / "mathlib-names")
    return root


ZERO_CHECK = """\
check:
  given: {x: 'vec(3)'}
  assume: 'norm(x) <= 0'
  assert: 'norm(x) <= 1'
"""
UNIT_CHECK = ZERO_CHECK.replace("norm(x) <= 0", "norm(x) <= 1")
SIN_CHECK = """\
check:
  given: {x: 'scalar(-3, 3)'}
  assert: 'abs(sin(x)) <= 1'
"""


def _link(statement: str, theorem: str, hypotheses: str = "{}", constants: str = "{}") -> str:
    return (f"lean:\n  statement: Fixture.{statement}\n  theorem: Fixture.{theorem}\n"
            f"  hypotheses: {hypotheses}\n  constants: {constants}\n")


def _registry(make_registry, planted: bool = True, faithful: bool = True):
    text = "claims:\n"
    if planted:
        text += claim_yaml("S12", kind="bound", extra=ZERO_CHECK + _link("ZeroBoundStatement", "zero_bound",
                                                                         "{hx: 'norm(x) <= 0'}"))
        text += claim_yaml("S13", kind="bound", extra=SIN_CHECK + _link(
            "LateConstantStatement", "late_constant", constants="{C: {quantified: before-data, depends_on: []}}"))
    if faithful:
        text += claim_yaml("S12.corrected", kind="bound", extra=UNIT_CHECK + _link(
            "UnitBoundStatement", "unit_bound", "{hx: 'norm(x) <= 1'}"))
        text += claim_yaml("S13.corrected", kind="bound", extra=SIN_CHECK + _link(
            "UniformConstantStatement", "uniform_constant",
            constants="{C: {quantified: before-data, depends_on: []}}"))
    return load_registry(make_registry({"a.yaml": text}))


# ------------------------------------------------------------------------------------------ tokenizer
def test_sorry_in_comments_strings_and_docstrings_is_not_a_token():
    decls = {d.name: d for d in index_text((FIXTURES / "tricky.lean").read_text(), "tricky.lean")}
    assert not decls["Outer.clean"].sorry
    assert decls["Outer.«odd name»"].sorry and decls["Outer.«odd name»"].only_sorry
    assert decls["Outer.half_done"].sorry and not decls["Outer.half_done"].only_sorry  # admit, after a `have`
    assert decls["Outer.clean"].doc == "Docstring mentioning sorry and admit."


def test_nested_comment_closes_only_at_its_own_end():
    texts = [t.text for t in tokenize("/- a /- b -/ sorry -/ theorem t : True := trivial")]
    assert texts[:2] == ["theorem", "t"] and "sorry" not in texts
    with pytest.raises(LeanSyntaxError, match="line 1: unterminated block comment"):
        tokenize("/- a /- b -/ never closed")


def test_char_literals_primes_guillemets_and_dotted_names():
    kinds = [(t.kind, t.text) for t in tokenize("x' 'a' '\\n' «a b».c Finset.sum_comm h.1 \"s\\\"\"")]
    assert kinds == [("ident", "x'"), ("char", "'a'"), ("char", "'\\n'"), ("ident", "«a b».c"),
                     ("ident", "Finset.sum_comm"), ("ident", "h.1"), ("string", '"s\\""')]


# ------------------------------------------------------------------------------------------ index
def test_names_are_qualified_through_namespaces_but_not_sections():
    decls = {d.name: d for d in index_text((FIXTURES / "tricky.lean").read_text(), "tricky.lean")}
    assert {"Outer.clean", "Outer.Deeper.x'", "Outer.choice_like", "Outer.half_done"} <= set(decls)
    assert decls["Outer.choice_like"].axiom and decls["Outer.choice_like"].kind == "axiom"
    assert any(name.startswith("_instance_") for name in decls)  # the anonymous instance, after `end Outer`


def test_end_that_does_not_match_the_open_scope_is_an_error_with_its_line():
    with pytest.raises(LeanSyntaxError, match="line 3: `end B` closes namespace A"):
        index_text("namespace A\ntheorem t : True := trivial\nend B\n", "x.lean")
    with pytest.raises(LeanSyntaxError, match="line 2: `end` without an open namespace or section"):
        index_text("theorem t : True := trivial\nend\n", "x.lean")


# ------------------------------------------------------------------------------------------ faithfulness
def test_planted_zero_hypothesis_and_late_constant_are_flagged_and_faithful_versions_are_not(tmp_path, make_registry):
    reg = _registry(make_registry)
    audit = audit_project(reg, _lean_dir(tmp_path, "planted", "faithful"), count_models=count_models)
    kinds = {(f.claim, f.kind) for f in audit.findings}
    assert ("S12", "suspect-zero") in kinds  # the Lean text: ‖x‖ ≤ 0
    assert ("S12", "vacuity") in kinds  # the engine's draws: only x = 0 satisfies norm(x) <= 0
    assert ("S13", "quantifier-order") in kinds  # ∀ x, ∃ C although the mapping says before-data
    assert not [f for f in audit.findings if f.claim in ("S12.corrected", "S13.corrected")]
    assert audit.failed and not audit.mapping_problems


def test_faithful_registry_alone_passes(tmp_path, make_registry, capsys):
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("S12.corrected", kind="bound", extra=UNIT_CHECK + _link(
        "UnitBoundStatement", "unit_bound", "{hx: 'norm(x) <= 1'}"))})
    code = main(["lean", "--registry", str(root), "--lean-dir", str(_lean_dir(tmp_path, "faithful")),
                 "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["findings"] == [], data["findings"]
    assert [n["name"] for n in data["unknown_names"]] == ["Real.abs_sin_le_one"]  # left out of fixture.tsv
    # UniformConstantStatement is linked to no claim here: the mapping's other direction
    assert any("UniformConstantStatement is linked to no claim" in p for p in data["mapping_problems"])
    assert code == 1


def test_sources_mode_flags_without_a_mapping(tmp_path):
    audit = audit_sources(_lean_dir(tmp_path, "planted"))
    kinds = {(f.declaration, f.kind) for f in audit.findings}
    assert ("Fixture.ZeroBoundStatement", "suspect-zero") in kinds
    assert ("Fixture.LateConstantStatement", "quantifier-order") in kinds
    assert not audit_sources(_lean_dir(tmp_path / "f", "faithful")).findings


@pytest.mark.parametrize("hypotheses, why", [
    ("(f : ℝ → ℝ) (h : ∀ x, f x = 0)", "vanish for every x"),
    ("(x : ℝ) (h : x = 0)", "forces the input x to be 0"),
    ("(x : ℝ) (hx : x ≤ 0) (hx' : 0 ≤ x)", "force x = 0"),
    ("(x : ℝ) (hx : 0 < x) (hx' : x < 0)", "contradict"),
])
def test_zero_forcing_hypotheses(hypotheses, why):
    decl = index_text(f"theorem t {hypotheses} : 1 ≤ 2 := by norm_num\n", "t.lean")[0]
    assert any(why in r for r in zero_forcing(decl)), zero_forcing(decl)


def test_satisfiable_hypotheses_are_not_suspect():
    decl = index_text("theorem t (x : ℝ) (f : ℝ → ℝ) (hx : 0 ≤ x) (hf : ∀ y, f y ≤ 1) (h2 : x ≤ 2) : x ≤ 3 := by\n"
                      "  linarith\n", "t.lean")[0]
    assert zero_forcing(decl) == []
    # a case of the conclusion (`(∀ k, lam k = 0) → ...` beside the other case) is no assumption on the inputs
    cases = ("def S : Prop := ∀ (lam : ℕ → ℝ), ((∃ k, lam k ≠ 0) → 0 ≤ 1) ∧ ((∀ k, lam k = 0) → 0 ≤ 1)\n")
    assert zero_forcing(index_text(cases, "t.lean")[0]) == []
    # ... but the same implication as the statement's own hypothesis is (planted)
    forced = "def S : Prop := ∀ (lam : ℕ → ℝ), (∀ k, lam k = 0) → 0 ≤ 1\n"
    assert any("vanish for every k" in r for r in zero_forcing(index_text(forced, "t.lean")[0]))


def test_per_parameter_constant_may_follow_its_parameters_only(tmp_path, make_registry):
    lean = tmp_path / "lean"
    lean.mkdir()
    (lean / "P.lean").write_text(
        "namespace Fixture\n/-- **S4** (fixture) -/\ndef HeadStatement : Prop :=\n"
        "  ∀ τ : ℝ, 0 < τ → ∃ C : ℝ, ∀ x : ℝ, |x / (1 + τ * x ^ 2)| ≤ C\n"
        "/-- **S4** -/\ntheorem head : HeadStatement := by sorry\nend Fixture\n")

    def findings(depends_on: str):
        text = "claims:\n" + claim_yaml("S4", kind="bound", extra=SIN_CHECK + _link(
            "HeadStatement", "head", constants=f"{{C: {{quantified: per-parameter, depends_on: {depends_on}}}}}"))
        return [f for f in audit_project(load_registry(make_registry({"a.yaml": text})), lean).findings
                if f.kind == "quantifier-order"]
    assert findings("[τ]") == []
    assert "chosen after τ" in findings("[]")[0].message
    assert "depends_on tau" in findings("[tau]")[0].message


def test_model_counter_skips_instances_that_raise(make_registry):
    from pyverify.provers.lean.vacuity import sampled_vacuity

    inv_check = ("check:\n  given: {X: 'mat(n, hi=3)'}\n  assume: 'sigma_min(X) >= 0.05'\n"
                 "  assert: 'inv(X).T == inv(X.T)'\n  dims: {n: [2]}\n")
    # planted: every instance raises (X - X is singular), so no draw can be judged
    dead_check = inv_check.replace("inv(X).T == inv(X.T)", "inv(X - X) == X")
    text = "claims:\n" + claim_yaml("S1", extra=inv_check) + claim_yaml("S2", extra=dead_check)
    reg = load_registry(make_registry({"a.yaml": text}))
    checked = load_valid_registry(reg.source)
    draws, satisfied, nonzero, failed = count_models(checked.compiled["S1"], 0)
    assert failed >= 1  # the zero draws make X singular: skipped, not fatal to the claim
    assert 0 < nonzero <= satisfied <= draws - failed
    assert sampled_vacuity("S1", reg.claims["S1"], checked.compiled["S1"], count_models) == []
    counted = count_models(checked.compiled["S2"], 0)
    assert counted == (draws, 0, 0, draws)
    found = sampled_vacuity("S2", reg.claims["S2"], checked.compiled["S2"], count_models)
    assert len(found) == 1 and "draws could not be evaluated and were skipped" in found[0].message


def test_unmapped_hypotheses_are_flagged(tmp_path, make_registry):
    text = "claims:\n" + claim_yaml("S12.corrected", kind="bound", extra=UNIT_CHECK + _link(
        "UnitBoundStatement", "unit_bound", "{hx: 'none (the check draws x without a constraint)'}"))
    text += claim_yaml("S13.corrected", kind="bound", extra=SIN_CHECK + _link(
        "UniformConstantStatement", "uniform_constant", "{hq: q}"))
    audit = audit_project(load_registry(make_registry({"a.yaml": text})), _lean_dir(tmp_path, "faithful"))
    messages = [f.message for f in audit.findings if f.kind == "unmapped-hypothesis"]
    # `none (why)` is a note (the engine never tests it, and the mapping says why), not a finding
    assert not any("hx" in m for m in messages)
    assert any("hx has no counterpart in the numeric check (none (the check draws" in n for n in audit.notes)
    assert any("hq maps to 'q', which the check of S13.corrected does not have" in m for m in messages)
    assert any("names hypothesis hq, which is not" in p for p in audit.mapping_problems)
    # planted: a bare `none` (no reason) is a finding; a sampler's parameter (a sweep variable) is a name of the check
    bare = claim_yaml("S12.corrected", kind="bound", extra=UNIT_CHECK.replace("'vec(3)'", "'vec(3, hi=eps)'")
                      + "  dims: {eps: 2}\n" + _link(
        "UnitBoundStatement", "unit_bound", "{hx: none, x: eps}"))
    audit = audit_project(load_registry(make_registry({"b.yaml": "claims:\n" + bare})), tmp_path / "lean")
    messages = [f.message for f in audit.findings if f.kind == "unmapped-hypothesis"]
    assert any("hx has no counterpart" in m and "does not say why" in m for m in messages)
    assert not any("hypothesis x " in m for m in messages)


def test_exists_bound_proofs_are_not_hypotheses_and_helper_binders_are_keys(tmp_path, make_registry):
    lean = tmp_path / "lean"
    lean.mkdir()
    (lean / "A.lean").write_text(
        "namespace N\ndef Bound (C : Nat) : Prop := ∀ (T : Nat), 0 < T → T ≤ C * T\n"
        "/-- **S1** -/\ndef OneStatement : Prop := ∃ (m : Nat) (h : m = 1), Bound m\nend N\n")
    check = "check:\n  given: {x: 'vec(3)'}\n  assert: 'norm(x) >= 0'\n"
    ok = claim_yaml("S1", extra=check + "lean: {statement: N.OneStatement, hypotheses: {T: x, '0 < T': x}}\n")
    audit = audit_project(load_registry(make_registry({"a.yaml": "claims:\n" + ok})), lean)
    assert audit.mapping_problems == []
    assert not any("binder h" in f.message for f in audit.findings)
    planted = ok.replace("'0 < T': x", "'0 < U': x")  # a key that is no hypothesis, not even of the helper
    audit = audit_project(load_registry(make_registry({"b.yaml": "claims:\n" + planted})), lean)
    assert any("names hypothesis 0 < U" in p for p in audit.mapping_problems)


def test_reading_differs_is_required(tmp_path, make_registry):
    bad = "claims:\n" + claim_yaml("S1", extra="lean: {statement: A.B, reading: stronger}\n")
    with pytest.raises(RegistryError, match="differs is required"):
        load_registry(make_registry({"a.yaml": bad}))
    mapping = tmp_path / "mapping"
    mapping.mkdir()
    (mapping / "m.yaml").write_text("S12.corrected:\n  statement: Fixture.UnitBoundStatement\n"
                                    "  theorem: Fixture.unit_bound\n  hypotheses: {hx: 'norm(x) <= 1'}\n"
                                    "  reading: weaker\n  differs: null\n")
    reg = load_registry(make_registry({"a.yaml": "claims:\n" + claim_yaml("S12.corrected", extra=UNIT_CHECK)}))
    audit = audit_project(reg, _lean_dir(tmp_path, "faithful"), mapping_dir=mapping)
    assert [f.kind for f in audit.findings] == ["reading"]


# ------------------------------------------------------------------------------------------ status, mapping
def test_formal_status_is_never_checked_without_build_evidence(tmp_path, make_registry):
    reg = _registry(make_registry)
    idx = index(_lean_dir(tmp_path, "planted", "faithful"))
    links = registry_links(reg)
    status = formal_status(idx, links, BuildResult(False, False, "not requested"))
    assert {row["formal"] for row in status.values()} == {"proof-written"}
    built = formal_status(idx, links, BuildResult(True, True, "ok"))
    assert {row["formal"] for row in built.values()} == {"checked"}
    failed = BuildResult(True, False, "", [{"file": "Fixture/Planted.lean", "line": 14, "col": 2, "message": "x",
                                            "declaration": "Fixture.zero_bound"}], {"Fixture.Planted", "Fixture.Faithful"})
    partly = formal_status(idx, links, failed)
    assert partly["S12"]["formal"] == "proof-written" and partly["S12.corrected"]["formal"] == "checked"


def test_sorry_reaches_a_proof_through_the_lemma_it_uses(make_registry, tmp_path):
    lean = tmp_path / "lean"
    lean.mkdir()
    (lean / "A.lean").write_text("namespace N\nlemma helper : True := by sorry\n"
                                 "theorem main_thm : True := by\n  exact helper\n"
                                 "theorem alone : True := by\n  sorry\nend N\n")
    text = "claims:\n" + claim_yaml("S1", extra="lean: N.main_thm\n") + claim_yaml("S2", extra="lean: N.alone\n")
    status = formal_status(index(lean), registry_links(load_registry(make_registry({"a.yaml": text}))),
                           BuildResult(True, True, "ok"))
    assert status["S1"]["formal"] == "sorry" and status["S1"]["sorry_via"] == "N.helper"
    assert status["S2"]["formal"] == "stated"


def test_mapping_both_ways_and_deps(tmp_path, make_registry):
    lean = tmp_path / "lean"
    lean.mkdir()
    (lean / "A.lean").write_text(
        "namespace N\n/-- **S1** -/\ntheorem one : True := trivial\n"
        "/-- **S2** -/\ntheorem two : True := by\n  exact one\n"
        "/-- **S9** -/\ndef OrphanStatement : Prop := True\n"
        "/-- **S77** -/\ntheorem cites_nothing_known : True := trivial\nend N\n")
    text = "claims:\n" + claim_yaml("S1", extra="lean: N.one\n") + claim_yaml("S2", extra="lean: N.two\n")
    text += claim_yaml("S3", deps="[S1]", extra="lean: N.missing\n") + claim_yaml("S5")
    # the document says which of its claims should be stated in Lean (here: those of its id form)
    document = DOC + '    id_form: "S{number}[.{rest}]"\n    lean_statements: id-form\n'
    root = make_registry({"documents.yaml": document, "a.yaml": text}, with_doc=False)
    audit = audit_project(load_registry(root), lean)
    problems = "\n".join(audit.mapping_problems)
    assert "S5: no Lean statement" in problems
    assert audit.coverage["claims_with_content"] == 4
    # planted: a document that expects no Lean statement makes none missing
    unexpected = audit_project(load_registry(make_registry({"a.yaml": text})), lean)
    assert not any("no Lean statement" in p for p in unexpected.mapping_problems)
    assert "S3: declaration N.missing not found" in problems
    assert "OrphanStatement is linked to no claim" in problems
    assert "cites S77, which is not a claim id" in problems
    assert "S2: the proof N.two uses S1, which deps of S2 do not list" in problems


def test_definition_claims_link_defs_and_skips_carry_reasons(tmp_path, make_registry):
    lean = tmp_path / "lean"
    lean.mkdir()
    (lean / "A.lean").write_text(
        "namespace N\n/-- **S1** -/\ndef double (x : Nat) : Nat := x + x\n"
        "/-- **S2** -/\ntheorem two : double 1 = 2 := by\n  unfold double\n  rfl\n"
        "/-- **S3** -/\ntheorem three : double 0 = 0 := by\n  unfold double\n  rfl\nend N\n")
    text = "claims:\n" + claim_yaml("S1", kind="definition", extra="lean: {statement: N.double}\n")
    # planted: an identity linked to a def (a def states nothing)
    text += claim_yaml("S4", extra="lean: {statement: N.double}\n")
    text += claim_yaml("S2", extra="lean: N.two\n")  # uses S1's def without listing S1
    text += claim_yaml("S8", deps="[S1]", kind="remark")
    text += claim_yaml("S3", deps="[S8]", extra="lean: N.three\n")  # S1's def reached through S8
    text += claim_yaml("S5", extra="lean: {skipped: the printed statement is cut off}\n")
    audit = audit_project(load_registry(make_registry({"a.yaml": text})), lean)
    problems = "\n".join(audit.mapping_problems)
    assert "S1:" not in problems and "S5:" not in problems and "S3:" not in problems
    assert "S4: N.double is a definition, not a statement" in problems
    assert "S2: the proof N.two uses S1, which deps of S2 do not list" in problems
    assert audit.skipped == {"S5": "the printed statement is cut off"}
    assert {r["id"]: r["formal"] for r in audit.claims}["S1"] == "stated"
    with pytest.raises(RegistryError):  # neither a statement nor a reason
        load_registry(make_registry({"b.yaml": "claims:\n" + claim_yaml("S6", extra="lean: {reading: same}\n")}))
    with pytest.raises(RegistryError):  # a skipped claim names no theorem
        load_registry(make_registry({"c.yaml": "claims:\n" + claim_yaml(
            "S7", extra="lean: {skipped: cut, theorem: N.two}\n")}))


# ------------------------------------------------------------------------------------------ names
def test_unlisted_external_names_are_reported(tmp_path, make_registry):
    lean = _lean_dir(tmp_path, "faithful")
    audit = audit_sources(lean, names_dir=lean / "mathlib-names")
    assert [n["name"] for n in audit.unknown_names] == ["Real.abs_sin_le_one"]
    (lean / "mathlib-names" / "more.tsv").write_text("Real.abs_sin_le_one\tMathlib/x.lean\tv4.24.0\n")
    assert audit_sources(lean, names_dir=lean / "mathlib-names").unknown_names == []


def test_projections_of_listed_names_and_integral_binders_are_known():
    from pyverify.provers.lean.names import unknown_names

    decls = index_text("theorem t (f : ℕ × ℕ → ℝ) : (∫ p, f (p.1, p.2)) = 0 ∧ 0 < 1 := by\n"
                       "  exact ⟨Real.sqrt_pos.mpr le_refl.symm, Real.cos_pi.symm.le⟩\n", "t.lean")
    found = [n["name"] for n in unknown_names(decls, {"Real.sqrt_pos", "le_refl"})]
    # the projections .mpr/.symm/.le are stripped and the ∫-bound p is local; the planted unlisted
    # Real.cos_pi is still reported (under its own name)
    assert found == ["Real.cos_pi"]


# ------------------------------------------------------------------------------------------ build
def test_build_errors_are_attributed_to_declarations():
    decls = index_text((FIXTURES / "planted" / "Planted.lean").read_text(), "lean/Fixture/Planted.lean")
    log = ("✔ [3/5] Built Fixture.Faithful\n"
           "error: ././lean/Fixture/Planted.lean:15:2: linarith failed\n"
           "warning: ././lean/Fixture/Planted.lean:24:2: declaration uses 'sorry'\n")
    errors, built = parse_build_output(log, decls)
    assert errors == [{"file": "lean/Fixture/Planted.lean", "line": 15, "col": 2, "message": "linarith failed",
                       "declaration": "Fixture.zero_bound"}]
    assert "Fixture.Faithful" in built


@pytest.mark.skipif(shutil.which("lake") is None, reason="no Lean toolchain (`lake`) on this machine")
def test_lake_build_runs_on_the_project():
    idx = index(REPO / "lean")
    result = lake_build(REPO, idx.declarations, timeout=7200)
    assert result.ran


# ------------------------------------------------------------------------------------------ cli, script
def test_cli_exit_codes(tmp_path, make_registry, capsys):
    lean = _lean_dir(tmp_path, "planted", "faithful")
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("X.1")})
    assert main(["lean", "--sources", str(lean / "Fixture" / "Faithful.lean")]) == 0
    assert main(["lean", "--sources", str(lean)]) == 1
    (lean / "Fixture" / "Broken.lean").write_text("/- never closed\n")
    assert main(["lean", "--sources", str(lean)]) == 2
    assert "unterminated block comment" in capsys.readouterr().out
    assert main(["lean", "--registry", str(root), "--lean-dir", str(tmp_path / "none")]) == 0


def test_link_script_edits_a_copy_and_keeps_comments(tmp_path, make_registry):
    entry = claim_yaml("S12.corrected", extra="# a comment that must stay\nexpect: holds\n")
    old = claim_yaml("S13.corrected", extra="lean: Old.name\nnotes: kept\n")
    root = make_registry({"a.yaml": "# header comment\nclaims:\n" + entry + "\n" + old + claim_yaml("S14")})
    mapping = tmp_path / "mapping"
    mapping.mkdir()
    (mapping / "m.yaml").write_text(
        "S12.corrected: {statement: Fixture.UnitBoundStatement, theorem: Fixture.unit_bound, hypotheses: {hx: x},"
        " reading: same, skipped: null, note: ignored}\n"
        "S13.corrected: {statement: Fixture.UniformConstantStatement, theorem: null,"
        " constants: {C: {quantified: before-data, depends_on: []}}}\n"
        "S14: {statement: null, skipped: no content}\n")
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "link_lean_mapping.py"), "--claims", str(root),
                           "--mapping", str(mapping)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    text = (root / "a.yaml").read_text()
    assert "# header comment" in text and "# a comment that must stay" in text and "notes: kept" in text
    assert text.index("lean:\n      statement: Fixture.UnitBoundStatement") < text.index("expect: holds")
    assert "Old.name" not in text and "note: ignored" not in text
    reg = load_registry(root)
    assert reg.claims["S12.corrected"].lean.hypotheses == {"hx": "x"}
    assert reg.claims["S13.corrected"].lean.constants["C"].quantified == "before-data"
    # a skipped claim keeps its reason in the registry (the registry is the single source of the links)
    assert reg.claims["S14"].lean.skipped == "no content" and reg.claims["S14"].lean.statement is None
