"""Pointwise relations — identities and bounds: every instance within the hypotheses must satisfy them.

A confirmed violation refutes; otherwise the claim holds with its worst relative error and tightness,
unless no instance meets the assumptions or the bound is never better than its named trivial baseline
(both vacuous).
"""

from __future__ import annotations

import torch

from ...registry import Verdict
from ..pipeline import Searched, SearchJudge, holds, measured
from ..result import Outcome
from ..run import ClaimRun
from ..scoring import relation_score


def assumptions_unmet(run: ClaimRun, searched: Searched) -> Outcome | None:
    """``vacuous`` when the check has assumptions and no instance satisfied them jointly."""
    assumes = run.compiled.expressions.assumes
    if assumes and not searched.satisfiable:
        return Outcome(Verdict.vacuous, "no instance satisfies the assumptions jointly: "
                       + "; ".join(r.text for r in assumes), searched.worst, measured(searched))
    return None


class PointwiseJudge(SearchJudge):
    def verdict(self, run: ClaimRun, searched: Searched) -> Outcome:
        unmet = assumptions_unmet(run, searched)
        if unmet is not None:
            return unmet
        check = run.compiled.check
        if run.compiled.expressions.baseline is not None and _no_better_than_baseline(run):
            return Outcome(Verdict.vacuous, f"the bound is never better than the trivial baseline {check.baseline}",
                           searched.worst, measured(searched))
        return holds(run, searched, measured(searched))


def _no_better_than_baseline(run: ClaimRun) -> bool:
    """True when on fresh instances of every assignment no bound's right side is ever below the baseline."""
    for k, comp in enumerate(run.compiled.assignments):
        ctx = run.stream(7919 + k)
        theta = comp.init_theta(run.profile.instances, ctx.gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx)
        base = sides.baseline
        for rel, lhs, rhs in sides.relation_sides():
            if rel.op not in ("<=", "<"):
                continue
            t = torch.full(rhs.shape[:1], 1e-9, dtype=rhs.dtype, device=rhs.device)
            better, _, _ = relation_score("<", rhs, base, t)  # rhs < baseline somewhere?
            if bool((better <= -1).any()):
                return False
    return True
