"""Three judges strengthened after the registry mutation pass (issue 23): each fails on a planted error of a
shape it used to let pass, and still holds the true statement of the same shape.

1. A strict relation met with equality: `<`/`>` were scored as `<=`/`>=`, so `24 < 24` held. A tie within
   the tolerance is now a candidate, and refutes where ball arithmetic certifies the sides exactly equal.
2. A `constant` bound at an instance whose right side is <= 0: those instances were dropped, so
   `lhs <= C * (-g)` held. There no positive C helps: the instance refutes when lhs is positive.
3. The growth of a constant read from the whole sweep: a constant that levels off after a first steep
   segment was read as polynomial growth.
"""

from __future__ import annotations

from pyverify.engine import run_claim
from pyverify.registry import Claim


def _run(check: dict, budget: str = "quick"):
    claim = Claim.model_validate({"id": "X.1", "title": "t", "document": "d", "locator": "l", "kind": "bound",
                                  "statement": "s", "check": check})
    return run_claim(claim, {}, budget=budget)


def _verdict(check: dict, budget: str = "quick") -> str:
    return _run(check, budget).verdict.value


# ---------------------------------------------------------------- 1. strict relations met with equality
def test_a_strict_relation_met_with_equality_exactly_is_refuted():
    result = _run({"assert": "24 < 24"})
    assert result.verdict.value == "refuted", result.message
    assert "met with equality" in result.message
    assert result.witness["certificate"]["tie"] == "24 < 24"
    assert _verdict({"assert": "d > d", "dims": {"d": [2, 3]}}) == "refuted"
    # random inputs whose two sides are the same exact sum: ball arithmetic certifies the tie
    assert _verdict({"given": {"x": "vec(3)"}, "assert": "x[0] + x[1] < x[1] + x[0]"}) == "refuted"
    # a fixed example at a tie refutes with itself as witness
    assert _verdict({"given": {"x": "vec(2)"}, "assert": "x[0] < x[1]", "examples": [{"x": [0.5, 0.5]}]}) == "refuted"


def test_a_strict_relation_that_holds_with_a_margin_or_ties_only_in_floating_point_holds():
    assert _verdict({"assert": "23 < 24"}) == "holds"
    # exp(-x^2) underflows to 0 in float64 for |x| >= 30 (0 > 0 there), but is exactly positive
    assert _verdict({"given": {"x": "vec(1, lo=30, hi=40)"}, "assert": "exp(-x[0] * x[0]) > 0"}) == "holds"
    # 1 / (1 + exp(-45)) evaluates to exactly 1.0 in float64; exactly it is below 1
    for budget in ("quick", "default"):
        assert _verdict({"given": {"x": "vec(1, lo=40, hi=50)"}, "assert": "1 / (1 + exp(-abs(x[0]))) < 1"},
                        budget) == "holds"


def test_a_strict_hypothesis_excludes_its_boundary():
    # d = 2 ties `d > 2`: outside the hypothesis, so the tie of `d - 2 > 0` there refutes nothing
    assert _verdict({"assume": "d > 2", "assert": "d - 2 > 0", "dims": {"d": [2, 3, 4]}}) == "holds"
    assert _verdict({"assert": "d - 2 > 0", "dims": {"d": [2, 3, 4]}}) == "refuted"
