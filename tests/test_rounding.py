"""No refutation from rounding error (issue 13 §9): a violation near the tolerance is judged again, exactly
(ball arithmetic) where the vocabulary allows, otherwise by rounding-level perturbations of the instance."""

from __future__ import annotations

from pyverify.engine import run_claim
from pyverify.registry import Claim


def _claim(check: dict) -> Claim:
    return Claim.model_validate({"id": "X.1", "title": "t", "document": "d", "locator": "l", "kind": "identity",
                                 "statement": "s", "check": check})


def _verdict(check: dict, budget: str = "quick") -> tuple[str, dict]:
    r = run_claim(_claim(check), {}, budget=budget)
    return r.verdict.value, r.details


def test_rounding_noise_of_a_determinant_is_not_a_refutation():
    # det(AB) = det A det B for 8x8 matrices with entries up to 8: float64 rounding exceeds this tolerance
    verdict, details = _verdict({"given": {"A": "mat(8, hi=8)", "B": "mat(8, hi=8)"},
                                 "assert": "det(A @ B) == det(A) * det(B)", "tol": 1e-15})
    assert verdict == "holds", details
    assert details.get("rounding_candidates"), "the search should have met (and discarded) rounding violations"


def test_a_small_real_violation_near_the_tolerance_is_certified_and_kept():
    verdict, _ = _verdict({"given": {"A": "mat(3)"}, "assert": "det(A) * (1 + 3e-11) == det(A) + 0 * tr(A)",
                           "assume": "abs(det(A)) >= 0.5", "tol": 1e-11})
    assert verdict == "refuted"


def test_rounding_noise_through_a_function_without_ball_meaning_is_discarded():
    # eigvalsh has no ball meaning: the perturbation test judges it
    verdict, details = _verdict({"given": {"S": "sym(12, hi=50)"}, "assert": "total(eigvalsh(S)) == tr(S)",
                                 "tol": 1e-17})
    assert verdict == "holds", details


def test_a_real_violation_through_a_function_without_ball_meaning_is_kept():
    verdict, _ = _verdict({"given": {"S": "sym(4)"}, "assert": "total(eigvalsh(S)) * (1 + 1e-9) == tr(S)",
                           "assume": "abs(tr(S)) >= 1", "tol": 1e-10})
    assert verdict == "refuted"


def _rounding_reasons(details: dict) -> str:
    return " | ".join(details.get("rounding_candidates", []))


def test_rounding_noise_through_an_eigendecomposition_vanishes_at_60_digits():
    # eigvalsh has no ball meaning; its 60-digit meaning shows the exact value within tolerance
    verdict, details = _verdict({"given": {"S": "sym(12, hi=50)"}, "assert": "total(eigvalsh(S)) == tr(S)",
                                 "tol": 1e-17})
    assert verdict == "holds", details
    assert "at 60 digits the relation holds" in _rounding_reasons(details), details


def test_a_real_violation_near_the_tolerance_is_confirmed_at_60_digits():
    r = run_claim(_claim({"given": {"S": "sym(4)"}, "assert": "total(eigvalsh(S)) * (1 + 3e-10) == tr(S)",
                          "assume": "abs(tr(S)) >= 1", "tol": 1e-10}), {}, budget="quick")
    assert r.verdict.value == "refuted"
    assert "60-digit re-evaluation: confirmed" in r.message, r.message
    assert r.witness["certificate"]["precise"]["status"] == "confirmed"


def test_rounding_noise_of_classical_mds_vanishes_at_60_digits():
    # PE Remark 8's structural part: rank(P_MDS) <= V for V-column distributions; float64 eigenvalues of
    # the zero eigenspace are ~1e-16, not 0, which an absurd tolerance turns into a "violation"
    verdict, details = _verdict({"given": {"mu": "simplex(3, rows=7)"}, "where": {"P": "mds(hellinger(mu), 5)"},
                                 "assert": "svdvals(P)[3] ** 2 == 0", "tol": 1e-17})
    assert verdict == "holds", details
    assert "at 60 digits the relation holds" in _rounding_reasons(details), details


def test_without_exact_meanings_the_tolerance_scales_with_the_measured_conditioning(monkeypatch):
    # no ball and no 60-digit meaning: the rounding noise measured under perturbations scales the
    # tolerance; an ill-conditioned but true identity is not refuted, a real violation still is
    from pyverify.checks.vocabulary import VOCABULARY

    monkeypatch.setattr(VOCABULARY["eigvalsh"], "precise", None)
    verdict, details = _verdict({"given": {"S": "sym(12, hi=50)"}, "assert": "total(eigvalsh(S)) == tr(S)",
                                 "tol": 1e-17})
    assert verdict == "holds", details
    assert "scaled by this conditioning" in _rounding_reasons(details), details
    r = run_claim(_claim({"given": {"S": "sym(4)"}, "assert": "total(eigvalsh(S)) * (1 + 3e-10) == tr(S)",
                          "assume": "abs(tr(S)) >= 1", "tol": 1e-10}), {}, budget="quick")
    assert r.verdict.value == "refuted", r.message


def test_a_violation_far_beyond_the_tolerance_that_vanishes_at_60_digits_is_not_a_refutation():
    # the same true statement with a tolerance so small that float64 rounding scores ~1e5: the size of the
    # float64 score does not make it real, the 60-digit value (within tolerance) decides
    verdict, details = _verdict({"given": {"mu": "simplex(3, rows=7)"}, "where": {"P": "mds(hellinger(mu), 5)"},
                                 "assert": "svdvals(P)[3] ** 2 == 0", "tol": 1e-20})
    assert verdict == "holds", details


def _default_tolerance(check: dict, values: dict) -> tuple[float, float]:
    """(tolerance, conditioning) the default tolerance gives one fixed instance of ``check``."""
    import torch

    from conftest import compile_check
    from pyverify.engine.scoring import score_sides
    from pyverify.registry import Check

    comp = compile_check(Check.model_validate(check))
    ctx = {"dtype": torch.float64, "device": torch.device("cpu")}
    sides = comp.evaluate_values({k: torch.tensor(v, dtype=torch.float64).unsqueeze(0) for k, v in values.items()}, ctx)
    return float(score_sides(sides, comp.check.tol, torch.float64).tol[0]), float(sides.conditioning[0])


def test_the_default_tolerance_scales_with_the_conditioning_of_a_determinant():
    check = {"given": {"A": "mat(2)"}, "assert": "det(A) * det(inv(A)) == 1"}
    well, k_well = _default_tolerance(check, {"A": [[1.0, 0.0], [0.0, 1.0]]})
    ill, k_ill = _default_tolerance(check, {"A": [[1.0, 0.0], [0.0, 1e-4]]})
    assert k_well == 1.0 and abs(k_ill - 1e4) < 1e-6
    assert abs(ill / well - 1e4) < 1e-6  # same size, same input scale: the conditioning alone
    # a check's explicit tolerance is taken as written
    assert _default_tolerance({**check, "tol": 1e-9}, {"A": [[1.0, 0.0], [0.0, 1e-4]]})[0] == 1e-9


def test_the_conditioned_tolerance_does_not_hide_a_real_error():
    # det(AB) = det A det B with a planted relative error of 1e-6: caught whatever the conditioning
    verdict, _ = _verdict({"given": {"A": "mat(6, hi=8)", "B": "mat(6, hi=8)"},
                           "assert": "det(A @ B) == det(A) * det(B) * (1 + 1e-6)", "assume": "abs(det(A) * det(B)) >= 0.01"},
                          budget="default")
    assert verdict == "refuted"


def test_an_exact_confirmation_on_rounded_inputs_of_a_constrained_hypothesis_is_not_enough():
    # U from orth(8) is orthogonal only to rounding: exact arithmetic on the rounded U "certifies" that
    # U^T U != I beyond an absurdly small tolerance, but the violation is the rounding of the hypothesis
    # itself, as a rounding-level perturbation of the sampler's parameters shows
    r = run_claim(_claim({"given": {"U": "orth(8)"}, "assert": "U.T @ U == I(8)", "tol": 3e-16}), {}, budget="quick")
    assert r.verdict.value == "holds", r.message
    reasons = _rounding_reasons(r.details)
    assert "certifies" in reasons or "confirmed" in reasons, reasons
    assert "scaled by this conditioning" in reasons, reasons
