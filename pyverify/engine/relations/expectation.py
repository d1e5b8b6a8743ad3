"""Expectation claims: Monte-Carlo means with standard errors, a z-test with a corrected threshold,
and a rejection re-run on fresh samples before it counts."""

from __future__ import annotations

import torch

from ...checks.compiled import CheckError, Compiled
from ...registry import Claim, Verdict
from ..result import Budget, Result, claim_seed, values_json


def run(claim: Claim, compiled: list[Compiled], budget: Budget, seed: int, ctx: dict, res: Result) -> None:
    """Monte-Carlo: per instance, the sample mean of E's argument and its standard error; z-test with a
    Bonferroni-corrected threshold; a rejection is re-run on fresh samples before it counts."""
    check = claim.check
    s = int(check.samples or budget.samples)
    b = budget.mc_instances
    z_crit = 4.5
    worst_z = 0.0
    worst_rel = 0.0
    for k, comp in enumerate(compiled):
        if not comp.randoms:
            raise CheckError("an expectation check needs a random hypothesis (gaussian(...) or orf(...))")
        gen = torch.Generator(device="cpu").manual_seed(claim_seed(seed, claim.id) + k)
        theta = comp.init_theta(b, gen, ctx, degenerate=1)
        z, rel, detail = _mc_z(comp, theta, b, s, gen, ctx)
        res.instances += b * s
        worst_rel = max(worst_rel, rel)
        if z > z_crit:
            i = detail["instance"]
            one = {n: {kk: v[i: i + 1] for kk, v in t.items()} for n, t in theta.items()}
            z2, rel2, detail2 = _mc_z(comp, one, 1, 4 * s, gen, ctx)
            if z2 > z_crit:
                res.verdict = Verdict.refuted
                res.worst = rel2
                res.message = (f"Monte-Carlo mean differs from the claimed value by {z2:.1f} standard errors "
                               f"({4 * s} fresh samples; threshold {z_crit})")
                sides = comp.evaluate_one(one, 0, ctx, comp.draw_randoms(1, 2, gen, ctx))
                res.witness = {"seed": seed, "dims": comp.dims, "values": values_json(sides.values), **detail2}
                return
        worst_z = max(worst_z, z)
    res.verdict = Verdict.holds
    res.worst = worst_rel
    res.details["max_z"] = worst_z
    res.message = f"Monte-Carlo agrees within {worst_z:.2f} standard errors (threshold {z_crit}); max relative gap {worst_rel:.3g}"


def _mc_z(comp: Compiled, theta: dict, b: int, s: int, gen: torch.Generator, ctx: dict) -> tuple[float, float, dict]:
    chunk = min(s, 20000)
    means = None
    sq = None
    total = 0
    rhs_v = None
    op = None
    while total < s:
        c = min(chunk, s - total)
        randoms = comp.draw_randoms(b, c, gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx, randoms, keep_samples=True)
        rel, lhs, rhs = sides.relation_sides()[0]
        op = rel.op
        if lhs.dim() < 2:
            raise CheckError("expectation: the left side must be E(...) of the random hypotheses")
        x = lhs.reshape(b, c, -1)
        means = x.sum(1) if means is None else means + x.sum(1)
        sq = (x ** 2).sum(1) if sq is None else sq + (x ** 2).sum(1)
        total += c
        rhs_v = rhs.reshape(b, -1)
    mean = means / total
    var = (sq / total - mean ** 2).clamp_min(0) * total / max(total - 1, 1)
    se = (var / total).sqrt()
    gap = mean - rhs_v
    if op in ("<=", "<"):
        gap = gap.clamp_min(0)
    elif op in (">=", ">"):
        gap = (-gap).clamp_min(0)
    else:
        gap = gap.abs()
    z = gap / (se + 1e-12 * (1 + rhs_v.abs()))
    flat = z.amax(1)
    i = int(flat.argmax())
    rel_gap = float((gap / rhs_v.abs().clamp_min(1e-300)).amax())
    detail = {"instance": i, "mean": mean[i].tolist(), "claimed": rhs_v[i].tolist(), "standard_error": se[i].tolist(),
              "samples": total}
    return float(flat[i]), rel_gap, detail
