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
