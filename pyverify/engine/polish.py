"""Polishing: where a bound holds, climb its tightness lhs/rhs from the tightest instances the search
saw, so that a bound attained somewhere is reported at (nearly) its supremum, and a bound a little too
small is pushed over the edge (the caller confirms such an instance as a counterexample).

The search maximises a violation score scaled for finding failures; its best tightness stops short of
an attained supremum by a seed-dependent amount. Here the target is the ratio itself, optimised by
Adam with a decaying step size from the few tightest instances, over the samplers' unconstrained
parameters (so the hypotheses given by construction stay satisfied), with a penalty outside the
``assume`` region.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..checks.compiled import Compiled
from .context import NumericContext
from .falsify import Candidate, ascend_step
from .scoring import score_sides

PATIENCE, STALL = 4, 1e-7  # stop after more than PATIENCE steps without a relative gain above STALL
RESOLVED = 1e6  # a ratio counts where the bound exceeds its tolerance this many times
POLISH_LR = 1.0  # first step size (a supremum often lies at a saturated radius, far out in parameter space);
# it decays (cosine) to POLISH_LR / 1000 for the final approach


@dataclass
class Polished:
    ratio: dict[int, float]  # per polished bound relation, the largest resolved tightness the climb met (or -inf)
    violation: Candidate | None  # the most violating instance met (score > 1), if any


def polish(comp: Compiled, starts: dict[int, list[Candidate]], steps: int, ctx: NumericContext, tol: float | None) -> Polished:
    """Maximise the tightness of each bound relation j from its starting instances ``starts[j]``.

    All relations climb in one batch (a row per start, its objective the ratio of its own relation):
    one evaluation per step whatever the number of relations."""
    rels = [j for j, cs in starts.items() if cs]
    rows = [(j, c) for j in rels for c in starts[j]]
    # the climb's own resolved ratios only: a start's score is the caller's (read on two paths where the
    # user's code runs, and possibly made of one path's rounding)
    out = Polished({j: -math.inf for j in rels}, None)
    if not rows or steps <= 0:
        return out
    theta = {n: {k: torch.cat([c.theta[n][k] for _, c in rows]).detach().clone() for k in rows[0][1].theta[n]}
             for n in rows[0][1].theta}
    params = [v.requires_grad_(True) for t in theta.values() for k, v in t.items() if v.is_floating_point() and k != "sign"]
    if not params:
        return out
    # row r climbs relation rels[slot[r]]
    slot = torch.tensor([rels.index(j) for j, _ in rows], device=ctx.device).unsqueeze(0)
    opt = torch.optim.Adam(params, lr=POLISH_LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=POLISH_LR / 1000)
    stalled = 0  # steps in a row that raised no relation's best ratio (by more than STALL, relatively)
    for step in range(steps + 1):
        opt.zero_grad()
        sides = comp.evaluate(theta, ctx)
        sc = score_sides(sides, tol, ctx["dtype"])
        ratio = torch.stack([sc.ratio[j] for j in rels]).gather(0, slot)[0]
        resolved = torch.stack([_resolved(sides, j, sc.tol) for j in rels]).gather(0, slot)[0]
        with torch.no_grad():
            before = sum(out.ratio.values())
            _record(out, rows, theta, sc, ratio, resolved)
            stalled = stalled + 1 if sum(out.ratio.values()) <= before + STALL * abs(before) else 0
        # the large first steps may overshoot before they gain: stalls count in the fine second half only
        if step == steps or (stalled > PATIENCE and 2 * step >= steps):
            break
        # an unresolved instance stops climbing: its ratio there is rounding, not the bound's tightness
        ratio = torch.where(torch.isfinite(ratio) & resolved, ratio, torch.zeros_like(ratio).detach())
        if not ascend_step(ratio - 100 * torch.relu(sc.assume_slack), params, opt, sched):
            break
    return out


def _resolved(sides, j: int, tol: torch.Tensor) -> torch.Tensor:
    """(B,) bool: the right side of bound j is far above the tolerance (RESOLVED times), so rounding
    moves its ratio lhs/rhs by less than 1/RESOLVED. Near a zero of both sides the ratio is rounding
    noise, and a climb towards it would report a tightness above 1 that no violation backs."""
    rel, lhs, rhs = sides.relation_sides()[j]
    bound = lhs if rel.op in (">=", ">") else rhs
    b = tol.shape[0]
    size = bound.detach().reshape(b, -1).abs().amax(1) if bound.dim() > 0 else bound.detach().abs().expand(b)
    return size > RESOLVED * tol


def _record(out: Polished, rows: list, theta: dict, sc, ratio: torch.Tensor, resolved: torch.Tensor) -> None:
    ok = sc.assume_ok & torch.isfinite(sc.score)
    if not bool(ok.any()):
        return
    counted = torch.where(ok & resolved, ratio, torch.full_like(ratio, -math.inf)).tolist()
    for (j, _), r in zip(rows, counted):
        out.ratio[j] = max(out.ratio[j], r)
    score = torch.where(ok, sc.score, torch.full_like(sc.score, -math.inf))
    i = int(score.argmax())
    if float(score[i]) > 1 and (out.violation is None or float(score[i]) > out.violation.score):
        out.violation = Candidate({n: {k: v[i: i + 1].detach().clone() for k, v in t.items()} for n, t in theta.items()},
                                  float(score[i]))
