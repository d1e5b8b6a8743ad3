"""A ``constant`` bound ``lhs <= C * rhs`` at an instance whose right side is <= 0.

There C * rhs <= 0 for every C > 0, so a positive left side violates the bound whatever the constant: the
claim is refuted, not merely given a large constant (the ratio lhs / rhs, which measures the constant
where rhs > 0, says nothing there). A candidate (``scoring.no_constant_score`` > 1) refutes once

1. re-checked on the one-instance float64 path, and
2. its signs are judged exactly where the vocabulary allows: in 200-bit ball arithmetic (certified where
   some entry's right side is certainly <= 0 and its left side certainly beyond the rounding allowance,
   dismissed where no entry can be), else at 60 digits (the same test there; a right side that is <= 0
   at 60 digits but positive exactly is below 1e-60 of its scale, and would need a constant beyond any
   reading of "some constant");
3. where neither exact path evaluates the relation, its right side must lie below zero by more than its
   rounding allowance in float64, and the violation of the bound at C = 1, which the sign implies, must
   survive the rounding judgement (``rounding.rounding_verdict``: conditioning, a second floating-point path).

(``a >= b`` reads ``C a >= b``: the sides swap.) Instances with rhs < 0 and lhs <= 0 admit every C up to lhs / rhs: they violate nothing at small C and
are not counted here (the cap they put on C is not compared with the constant the rhs > 0 instances need).
"""

from __future__ import annotations

import torch

from ..checks.compiled import Compiled
from ..provers import interval, precise
from ..registry import Verdict
from .confirm import relation_reports
from .context import CPU64
from .evidence import Counterexample
from .falsify import Candidate
from .result import Outcome, tensor_to_list, values_json
from .rounding import REAL, rounding_verdict
from .run import ClaimRun
from .scoring import broadcast_instances, score_sides


def confirm_no_constant(run: ClaimRun, comp: Compiled, cand: Candidate) -> Outcome | None:
    """The refutation the candidate makes, or None (counted in the run's record) when it is not confirmed."""
    theta = {n: {k: v.detach().to(**CPU64) for k, v in t.items()} for n, t in cand.theta.items()}
    with torch.no_grad():
        sides = comp.evaluate_one(theta, 0, CPU64)
        sc = score_sides(sides, run.tol, torch.float64)
    scores = [(float(q[0]), j) for j, q in enumerate(sc.no_constant) if q is not None]
    score, j = max(scores, default=(float("-inf"), -1))
    if not (bool(sc.assume_ok[0]) and score > 1):
        run.tally.unconfirmed_candidates += 1
        return None
    tol = float(sc.tol[0])
    confirmed, why = _judge_signs(run, comp, theta, sides, sc, j, tol)
    if not confirmed:
        run.tally.rounding_candidates.append(why)
        return None
    rel, lhs, rhs = list(sides.relation_sides())[j]
    if rel.op in (">=", ">"):  # `a >= b` reads `C a >= b`: the constant multiplies the written left side
        lhs, rhs = rhs, lhs
    message = (f"`{rel.text}` fails for every constant C > 0: at this instance (dims {comp.dims or 'fixed'}) the "
               f"side the constant multiplies is <= 0 ({_show(rhs)}), so C times it is <= 0 for every C, while "
               f"the other side is positive beyond the tolerance {tol:.3g} ({_show(lhs)}); re-checked in float64 "
               f"on the one-instance path; {why}")
    witness = Counterexample(run.seed, comp.dims, values_json(sides.values), relation_reports(sides, sc),
                             {"status": why}, params={n: {k: tensor_to_list(v[0]) for k, v in t.items()}
                                                      for n, t in theta.items()})
    return Outcome(Verdict.refuted, message, score, (witness,))


def _judge_signs(run: ClaimRun, comp: Compiled, theta: dict, sides, sc, j: int, tol: float) -> tuple[bool, str]:
    def decide(left, right) -> bool | None:
        # some entry certainly rhs <= 0 and lhs beyond its allowance: True; no entry possibly so: False
        certain = [bool(r <= 0) and bool(l - tol * (1 + abs(l)) > 0) for l, r in zip(left, right)]
        excluded = [bool(r > 0) or bool(l - tol * (1 + abs(l)) <= 0) for l, r in zip(left, right)]
        return True if any(certain) else (False if all(excluded) else None)

    for path, judge in (("ball arithmetic", interval.judge_signs), (f"{precise.DIGITS} digits", precise.judge_signs)):
        decided = judge(comp, sides, j, decide)
        if decided is not None:
            return decided, (f"{path} {'certifies' if decided else 'refutes'} the signs (the constant's side <= 0, the "
                             f"other side beyond the tolerance)")
    rel, lhs, rhs = list(sides.relation_sides())[j]
    if rel.op in (">=", ">"):
        lhs, rhs = rhs, lhs
    l, r = (x[0].reshape(-1).to(torch.float64) for x in broadcast_instances(lhs, rhs))
    allowance = tol * (1 + l.abs() + r.abs())
    if not bool(((r < -allowance) & (l > allowance)).any()):
        return False, "no exact path evaluates the bound, and the constant's side is within rounding of 0 in float64"
    status, why, _ = rounding_verdict(comp, theta, sides, sc, run.tol, run.seed)
    return status == REAL, (f"no exact path evaluates the bound; the constant's side is below 0 beyond rounding "
                            f"in float64, and the violation at C = 1: {why}")


def _show(x: torch.Tensor) -> str:
    v = x[0].reshape(-1)
    return f"{float(v[0]):.6g}" if v.numel() == 1 else f"{v.numel()} entries, from {float(v.min()):.6g} to {float(v.max()):.6g}"
