"""Checks strengthened after the registry mutation pass (issue 23) can now fail on the error that survived
them: each is run with that error planted in its own registry text.

ESPR.Prop-active-block-near-identity.corrected drew P only at rho = 3, where dist(P, A) is so large that
|A| <= dist held for the block A itself (the term - I dropped); the check now sweeps rho down to 0.02.
T6'.3 drew r, s of size 3, where b = eps_comm |r|_1 |s|_1 is large and any bounded left side fits under
C (b + b^2); the check now sweeps their size 3 / t down to 0.01, the first-order regime the statement is about.

The eight checks the pass still flagged afterwards are closed one by one: five strengthened so that the planted
error that survived is now refuted at quick (each pinned below with the error planted, and where it shows why,
with the former sampling that let it hold), four (T6'.3, T6'.11.corrected, PE.Lem16.corrected,
PE.Rem20.corrected) with a recorded reason whose surviving mutant is pinned as the one the reason names.
"""

from __future__ import annotations

import pytest

from pyverify.checks.validate import load_valid_registry
from pyverify.mutation import mutate_claim

from conftest import PAPERS
from test_dodged_claims import _planted

DROP_IDENTITY = ("opnorm(Ablk - I(2 * m)) <= dist", "opnorm(Ablk) <= dist")
FORMER_RHO = ("rho: [0.02, 0.2, 3]}", "rho: [3]}")
DROP_REFERENCE = ("R_str(gen.L, s) - R_str(gen.L, s - r))'", "R_str(gen.L, s))'")
FORMER_SIZE = ("t: [1, 3, 10, 30, 100, 300]}", "t: [1]}")
REFERENCE_AT_MINUS_R = ("R_str(gen.L, s - r))'", "R_str(gen.L, -r))'")

C2_IR = "ir <= 0.5 * eps * Rr * RD + 2 * a + c ** 2 + 2 * e0 * RD * c\n"
C6_IR = "ir <= 0.5 * eps * Rr * RD + 2 * a + c ** 6 + 2 * e0 * RD * c\n"
LG16 = "Lg: 'G * opnorm(W) * (einf * LA + Le / 4)'"
LG16_NO_VALUE = "Lg: 'G * opnorm(W) * (einf * LA)'"

PLANTED = [
    pytest.param("ESPR.Prop-active-block-near-identity.corrected", [DROP_IDENTITY], "refuted", id="active-block-drop-identity"),
    # the former sampling (rho = 3 only) let the same error hold: the reason the check was strengthened
    pytest.param("ESPR.Prop-active-block-near-identity.corrected", [DROP_IDENTITY, FORMER_RHO], "holds",
                 id="active-block-drop-identity-former-rho"),
    pytest.param("T6'.3", [DROP_REFERENCE], "refuted", id="T6p3-drop-reference"),
    # the former sampling (t = 1 only) let the same error hold, the reason the check was strengthened; the
    # rays toward 0 (engine/relations/vanishing.py) now find its constant infinite within that one size
    pytest.param("T6'.3", [DROP_REFERENCE, FORMER_SIZE], "refuted", id="T6p3-drop-reference-former-size"),
    # a displacement error in the reference (R_STR(-r) for R_STR(s - r)) grows like 1 / size as r, s shrink
    pytest.param("T6'.3", [REFERENCE_AT_MINUS_R], "refuted", id="T6p3-reference-at-minus-r"),
    # T6.2.corrected: at ep = 0 the rotated commuting family leaves only eps_0^2 to bound the error, and a wrong
    # exponent shows as a constant growing along k
    pytest.param("T6.2.corrected", [("e0 ** 2 * l1(ri)", "e0 ** 6 * l1(ri)")], "refuted", id="T6p2c-eps0-sixth-power"),
    # a bound made negative (the distance subtracted): no constant works; its check in ball arithmetic meets the
    # family L (a list of matrices) and must say "unsupported", not fail
    pytest.param("T6.2.corrected", [("+ distance_to_structured(P, gen.U, 2)'", "- distance_to_structured(P, gen.U, 2)'")],
                 "refuted", id="T6p2c-distance-subtracted"),
    # T6'.11.corrected: compared over all queries and keys, the constants of the bound are tested
    pytest.param("T6'.11.corrected", [("(0.5 * cm + 2 * a", "(0.25 * cm + 2 * a")], "refuted", id="T6p11c-quarter-commutator"),
    pytest.param("T6'.11.corrected", [("<= 1 / sqrt(2 * m) * (", "<= 0.5 / sqrt(2 * m) * (")], "refuted",
                 id="T6p11c-half-scale"),
    # T8'.13.corrected: post-rotations turning the active space into the null space reach the c^2 term
    pytest.param("T8'.13.corrected", [(C2_IR, C6_IR)], "refuted", id="T8p13c-c-sixth-power"),
    pytest.param("T8'.13.corrected", [(C2_IR, C6_IR), ("fs: [0.02, 1], mx: [0, 1]}", "fs: [0.02, 1], mx: [0]}")], "holds",
                 id="T8p13c-c-sixth-power-former-rotations"),
    # T8'.17: the hypothesis binds (GD stalls at c = 12 where PL fails) and the printed rate is within 7% of f_4 / f_0
    pytest.param("T8'.17", [("      assume:\n        - 'minimum(minimum(pl0, pl1), minimum(pl2, pl3)) >= 0'\n", "")], "refuted",
                 id="T8p17-PL-dropped"),
    pytest.param("T8'.17", [("(1 - mu / Lg) ** 4", "(1 - mu / Lg) ** 12")], "refuted", id="T8p17-rate-exponent"),
    # PE.Lem14.corrected: at z = 0 every mean embedding is v, where C_b is attained
    pytest.param("PE.Lem14.corrected", [("Cb: '2 * n", "Cb: '1 * n")], "refuted", id="Lem14c-half-constant"),
    # PE.Lem16.corrected: at sM = 0 only the value term L_e / 4 bounds the change
    pytest.param("PE.Lem16.corrected", [(LG16, LG16_NO_VALUE)], "refuted", id="Lem16c-value-term-dropped"),
    # a perturbation of the embeddings that d_H does not see
    pytest.param("PE.Lem16.corrected", [("mu2: 'mu + outer(I(n)[1], nu - mu[1])'", "mu2: 'mu + outer(I(n)[1], nu + mu[1])'")],
                 "refuted", id="Lem16c-unseen-perturbation"),
    # PE.Rem20.corrected: an f that is not increasing is refuted; dropping mu_0 != mu_1 is not (its recorded reason)
    pytest.param("PE.Rem20.corrected", [("+ c * D * D +", "- c * D * D +")], "refuted", id="Rem20c-decreasing-f"),
    pytest.param("PE.Rem20.corrected", [("      assume: 'D[0, 1] >= 0.01'\n", "")], "holds", id="Rem20c-distinct-dropped"),
    # the survivors the reasons name: C_2 = 0 suffices in T6'.3, the standalone c^2 of T6'.11.corrected is slack
    pytest.param("T6'.3", [("b + b ** 2'", "b + b ** 6'")], "holds", id="T6p3-second-order-exponent"),
    pytest.param("T6'.11.corrected", [("+ c ** 2 + (ei", "+ c ** 6 + (ei")], "holds", id="T6p11c-standalone-c-sixth-power"),
]


@pytest.mark.parametrize("cid, replacements, verdict", PLANTED)
def test_planted_error_gets_the_verdict_it_deserves(tmp_path, cid, replacements, verdict):
    res = _planted(tmp_path, cid, replacements, "quick")
    assert res.verdict.value == verdict, res.message


@pytest.mark.parametrize("cid", ["ESPR.Prop-active-block-near-identity.corrected", "T6'.3"])
def test_the_strengthened_checks_hold_as_shipped(tmp_path, cid):
    assert _planted(tmp_path, cid, [], "quick").verdict.value == "holds"


# the four checks closed by a recorded reason: what still survives is the mutant the reason names, and nothing else
# is flagged
REASONED = [
    pytest.param("T6'.3", {"exponent untested"}, "b ** 6", id="T6p3"),
    pytest.param("T6'.11.corrected", {"exponent untested"}, "c ** 6", id="T6p11c"),
    pytest.param("PE.Lem16.corrected", {"content untested"}, "nu0 - mu[1] -> nu0 + mu[1]", id="Lem16c"),
    pytest.param("PE.Rem20.corrected", {"hypotheses unused"}, "dropped: D[0, 1] >= 0.01", id="Rem20c"),
]


@pytest.fixture(scope="module")
def shipped():
    return load_valid_registry(PAPERS)


@pytest.mark.parametrize("cid, flags, survivor", REASONED)
def test_a_recorded_reason_names_what_survives(shipped, cid, flags, survivor):
    res = mutate_claim(shipped, cid, "quick")
    assert set(res.flags) == flags and res.reason and not res.unexplained
    survived = [m.change for m in res.mutants if m.outcome == "survived"]
    assert any(survivor in change for change in survived), survived
