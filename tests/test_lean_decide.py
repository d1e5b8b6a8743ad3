"""Vacuity of foreign Lean statements, decided exactly (provers/lean/decide.py, translate.py).

Planted hypotheses that force the data to zero (`∀ i, x i = - x i` over ℝ among them), to a single point,
or that cannot hold, must be flagged; faithful ones must be decided non-trivial; hypotheses outside the
translatable fragment must give "cannot decide", never a verdict.
"""

from __future__ import annotations

import pytest
from conftest import REPO

from pyverify.provers.lean import audit_sources
from pyverify.provers.lean.decide import decide
from pyverify.provers.lean.faithful import statement_prop
from pyverify.provers.lean.index import index_text

FIXTURE = REPO / "tests" / "lean_fixtures" / "vacuity"


def _decide(statement: str):
    decl = index_text(f"theorem t {statement} := by\n  sorry\n", "t.lean")[0]
    return decide(statement_prop(decl))


@pytest.mark.parametrize("statement, verdict, forced", [
    ("{n : ℕ} (x : Fin n → ℝ) (hx : ∀ i, x i = - x i) : x = x", "forces-zero", {"x": "0"}),
    ("(x : Fin 3 → ℝ) (hx : ∀ i, 2 * x i = 0) : x = x", "forces-zero", {"x": "0"}),
    ("(x : EuclideanSpace ℝ (Fin 2)) (hx : ‖x‖ ≤ 0) : True", "forces-zero", {"x": "0"}),
    ("(x : EuclideanSpace ℝ (Fin 2)) (h : ⟪x, x⟫_ℝ ≤ 0) : True", "forces-zero", {"x": "0"}),
    ("(x : Fin 2 → ℝ) (h : ∑ i, |x i| = 0) (y : ℝ) (hy : y ≤ 3) : True", "forces-datum", {"x": "0"}),
    ("(a b : ℝ) (h1 : a + b = 2) (h2 : a - b = 0) : a * b ≤ 1", "single-point", {"a": "1", "b": "1"}),
    ("(x y : ℝ) (h : |x| + (y - 1) ^ 2 ≤ 0) : True", "single-point", {"x": "0", "y": "1"}),
    ("(a b : ℝ) (h1 : a ≤ b) (h2 : b < a) : False", "unsatisfiable", {}),
    ("(x : ℝ) (h1 : x ≠ 0) (h2 : 2 * x = 0) : False", "unsatisfiable", {}),
    ("(x : EuclideanSpace ℝ (Fin 2)) (h : ‖x‖ < 0) : False", "unsatisfiable", {}),
])
def test_planted_hypotheses_are_decided_vacuous(statement, verdict, forced):
    decision = _decide(statement)
    assert decision.verdict == verdict and decision.is_finding
    assert decision.forced == forced


@pytest.mark.parametrize("statement", [
    "(a b : ℝ) (h1 : 0 ≤ a) (h2 : a ≤ b) : a ≤ b + 1",
    "{n : ℕ} (x : Fin n → ℝ) (hx : ∀ i, |x i| ≤ 1) : ∑ i, x i ≤ n",
    "(x y : ℝ) (h : x ^ 2 + y ^ 2 = 1) : x ≤ 1",
    "(x y : ℝ) (h : x * y ≤ 1) (hx : 0 < x) : True",
    "{ι : Type*} [Fintype ι] (w : ι → ℝ) (hw : ∀ i, 0 ≤ w i) (hs : ∑ i, w i = 1) : True",
    "(x : Fin 2 → ℝ) (h : x 0 = 0) : True",  # one coordinate fixed, the other free
    "(x : ℝ) (h : x ≠ 0) : True",
])
def test_faithful_hypotheses_are_decided_non_trivial(statement):
    decision = _decide(statement)
    assert decision.verdict == "non-trivial" and not decision.is_finding


@pytest.mark.parametrize("statement, why", [
    ("(f : ℝ → ℝ) (x : ℝ) (hf : Continuous f) (hx : 0 ≤ x) : True", "Continuous f"),
    ("(x : ℝ) (h : Real.exp x ≤ 1) : True", "Real.exp"),
    ("(x y : ℝ) (h : x ^ 3 + y ^ 3 = 1) (h2 : x * y = 2) : True", "nonlinear"),
])
def test_hypotheses_outside_the_fragment_cannot_be_decided(statement, why):
    decision = _decide(statement)
    assert decision.verdict == "cannot-decide" and why in decision.reason


def test_an_untranslatable_hypothesis_does_not_hide_a_forced_zero():
    decision = _decide("(f : ℝ → ℝ) (x : ℝ) (hf : Continuous f) (hx : |x| ≤ 0) : True")
    assert decision.verdict == "forces-zero"  # more hypotheses could only shrink the models further


def test_statements_without_real_data_or_hypotheses_are_not_decided():
    assert _decide("(n : ℕ) (h : 0 < n) : True") is None
    assert _decide("(x : ℝ) : x = x") is None


def test_the_foreign_audit_flags_exactly_the_planted_statements():
    audit = audit_sources(FIXTURE)
    flagged = {f.declaration for f in audit.findings if f.kind == "vacuity"}
    assert flagged == {"Vac.antisymmetric_coordinates", "Vac.norm_le_zero", "Vac.contradictory", "Vac.pinned",
                       "Vac.squares_vanish"}
    verdicts = {d["declaration"]: d["verdict"] for d in audit.decisions}
    assert verdicts["Vac.simplex_weights"] == verdicts["Vac.on_the_circle"] == verdicts["Vac.in_a_box"] == "non-trivial"
    assert verdicts["Vac.about_a_function"] == "cannot-decide"
    assert audit.as_dict()["vacuity_decisions"] == audit.decisions
