"""SymPy proofs, ball-arithmetic certificates and the necessity analysis can each fail when they should."""

from __future__ import annotations

import torch

from pyverify.checks.claim import compile_claim
from pyverify.engine import run_claim
from conftest import compile_check
from pyverify.provers.interval import certify
from pyverify.registry import Check, Claim
from pyverify.provers.symbolic import prove
from pyverify.engine.scoring import score_sides


def _claim(check: dict, cid: str = "A.1") -> Claim:
    return Claim.model_validate({"id": cid, "title": "t", "document": "d", "locator": "l", "kind": "identity",
                                 "statement": "s", "check": check})


def test_sympy_proves_a_true_identity_and_not_a_false_one():
    good = _claim({"given": {"S": "skew(3)"}, "assert": "cayley(S).T @ cayley(S) == I(3)", "symbolic": {}})
    assert prove(compile_claim(good)).proved
    bad = _claim({"given": {"S": "skew(3)"}, "assert": "cayley(S).T @ cayley(S) == I(3) + S", "symbolic": {}})
    out = prove(compile_claim(bad))
    assert not out.proved and "does not simplify" in out.message


def test_sympy_relative_law_and_its_sign_error():
    spec = {"given": {"g": "commuting_skew(4, 2)", "ri": "vec(2)", "rj": "vec(2)"}, "symbolic": {}}
    good = _claim({**spec, "assert": "R_str(g.L, ri).T @ R_str(g.L, rj) == R_str(g.L, rj - ri)"})
    bad = _claim({**spec, "assert": "R_str(g.L, ri).T @ R_str(g.L, rj) == R_str(g.L, ri - rj)"})
    assert prove(compile_claim(good)).proved
    assert not prove(compile_claim(bad)).proved


def test_symbolic_verdict_needs_the_proof():
    r = run_claim(_claim({"given": {"S": "skew(3)"}, "assert": "cayley(S).T @ cayley(S) == I(3)", "symbolic": {}}), {}, budget="quick")
    assert r.verdict == "symbolic" and r.details["symbolic"]["proved"]
    r = run_claim(_claim({"given": {"S": "skew(3)"}, "assert": "expm(S).T @ expm(S) == I(3)", "symbolic": {}}), {}, budget="quick")
    assert r.verdict == "holds", "no SymPy meaning for a generic skew exponential here: stays `holds`"


def _sides(check: dict, theta_scale: float = 1.0):
    c = Check.model_validate(check)
    comp = compile_check(c)
    ctx = {"dtype": torch.float64, "device": torch.device("cpu")}
    theta = comp.init_theta(1, torch.Generator().manual_seed(0), ctx)
    return comp, comp.evaluate_one(theta, 0, ctx)


def _tol(comp, sides) -> float:
    """The tolerance the float64 check uses on this instance (the certificate judges against it)."""
    return float(score_sides(sides, comp.check.tol, torch.float64).tol[0])


def test_certificate_confirms_a_real_violation():
    comp, sides = _sides({"given": {"M": "mat(3)", "N": "mat(3)"}, "assert": "(M @ N).T == M.T @ N.T"})
    assert certify(comp, sides, _tol(comp, sides))["status"] == "certified"


def test_certificate_refuses_a_rounding_artefact():
    # a true identity with an absurdly small tolerance "fails" in float64; the exact enclosure shows the
    # violation is rounding only, so it is not certified
    # (1e-40: far below float64 rounding, far above the 200-bit enclosure's radius)
    comp, sides = _sides({"given": {"S": "skew(4)"}, "assert": "cayley(S).T @ cayley(S) == I(4)", "tol": 1e-40})
    assert certify(comp, sides, _tol(comp, sides))["status"] == "not certified"


def test_certificate_says_inconclusive_when_the_enclosure_straddles_the_tolerance():
    # a tolerance below the enclosure's own radius: ball arithmetic can neither certify nor dismiss
    comp, sides = _sides({"given": {"S": "skew(4)"}, "assert": "cayley(S).T @ cayley(S) == I(4)", "tol": 1e-300})
    assert certify(comp, sides, _tol(comp, sides))["status"].startswith("inconclusive")


def test_certificate_is_honest_about_unsupported_functions():
    comp, sides = _sides({"given": {"u": "vec(3)"}, "assert": "qlog(qexp(u)) == 2 * u"})
    assert certify(comp, sides, _tol(comp, sides))["status"].startswith("unsupported")


def test_necessity_names_the_hypothesis_a_claim_needs():
    r = run_claim(_claim({"given": {"g": "commuting_skew(4, 2)", "ri": "vec(2)", "rj": "vec(2)"},
                          "assert": "R_str(g.L, ri).T @ R_str(g.L, rj) == R_str(g.L, rj - ri)"}), {}, budget="default")
    nec = r.details["necessity"]
    assert r.verdict == "holds"
    needed = [k for k, v in nec.items() if v.startswith("needed")]
    assert any(k.startswith("g:") for k in needed), nec
    assert not any(k.startswith("ri:") for k in needed), "the norm range of r is not needed"


def test_certificate_reads_a_matrix_power_as_the_float64_check_does():
    # `M ** 3` of a square matrix is the matrix power (docs/checks.md); an elementwise reading in the
    # ball backend would "certify" the false identity below and refuse the true one
    true = {"given": {"M": "mat(3)"}, "assert": "M ** 3 == M @ M @ M", "tol": 1e-40}
    comp, sides = _sides(true)
    assert certify(comp, sides, _tol(comp, sides))["status"] == "not certified"
    false = {"given": {"M": "mat(3)"}, "assert": "M ** 2 == M * M"}
    comp, sides = _sides(false)
    assert certify(comp, sides, _tol(comp, sides))["status"] == "certified"


def test_certificate_of_an_even_power_of_a_matrix_with_exact_zeros():
    # arb's own power gives nan for a ball around 0; the certificate must still go through
    comp, sides = _sides({"given": {"S": "skew(4, hi=0.5)"}, "where": {"Z": "cayley(S).T @ cayley(S) - I(4)"},
                          "assert": "norm((Z + S) ** 16) + Z[0, 1] ** 2 + 0.25 <= 0"})
    assert certify(comp, sides, _tol(comp, sides))["status"] == "certified"
