"""Checks strengthened after the registry mutation pass (issue 23) can now fail on the error that survived
them: each is run with that error planted in its own registry text.

ESPR.Prop-active-block-near-identity.corrected drew P only at rho = 3, where dist(P, A) is so large that
|A| <= dist held for the block A itself (the term - I dropped); the check now sweeps rho down to 0.02.
T6'.3 drew r, s of size 3, where b = eps_comm |r|_1 |s|_1 is large and any bounded left side fits under
C (b + b^2); the check now sweeps their size h down to 0.03, the first-order regime the statement is about.
"""

from __future__ import annotations

import pytest

from test_dodged_claims import _planted

DROP_IDENTITY = ("opnorm(Ablk - I(2 * m)) <= dist", "opnorm(Ablk) <= dist")
FORMER_RHO = ("rho: [0.02, 0.2, 3]}", "rho: [3]}")
DROP_REFERENCE = ("R_str(gen.L, s) - R_str(gen.L, s - r))'", "R_str(gen.L, s))'")
FORMER_SIZE = ("h: [0.03, 0.3, 3]}", "h: [3]}")

PLANTED = [
    pytest.param("ESPR.Prop-active-block-near-identity.corrected", [DROP_IDENTITY], "refuted", id="active-block-drop-identity"),
    # the former sampling (rho = 3 only) let the same error hold: the reason the check was strengthened
    pytest.param("ESPR.Prop-active-block-near-identity.corrected", [DROP_IDENTITY, FORMER_RHO], "holds",
                 id="active-block-drop-identity-former-rho"),
    pytest.param("T6'.3", [DROP_REFERENCE], "refuted", id="T6p3-drop-reference"),
    pytest.param("T6'.3", [DROP_REFERENCE, FORMER_SIZE], "holds", id="T6p3-drop-reference-former-size"),
]


@pytest.mark.parametrize("cid, replacements, verdict", PLANTED)
def test_planted_error_gets_the_verdict_it_deserves(tmp_path, cid, replacements, verdict):
    res = _planted(tmp_path, cid, replacements, "quick")
    assert res.verdict.value == verdict, res.message


@pytest.mark.parametrize("cid", ["ESPR.Prop-active-block-near-identity.corrected", "T6'.3"])
def test_the_strengthened_checks_hold_as_shipped(tmp_path, cid):
    assert _planted(tmp_path, cid, [], "quick").verdict.value == "holds"
