"""Is a confirmed float64 violation real, or rounding error? (More search must never turn a true claim false.)

A violation far beyond the tolerance is real. One within ``NEAR`` times the tolerance is judged twice:

1. exactly, where the vocabulary has ball meanings for every function of the relation: the interval
   certificate re-evaluates the same instance in 200-bit ball arithmetic; *certified* keeps the
   violation, *not certified* (the exact value lies within tolerance) discards it;
2. otherwise by the conditioning of what is computed, measured: the instance is perturbed at the
   rounding level (relative ``PERTURBATION``) a few times and re-evaluated; a violation that such a
   perturbation removes (or divides by ``SHRINK``) is within the rounding noise of the computation (an ill-conditioned
   determinant, a near-degenerate eigendecomposition), not a counterexample.
"""

from __future__ import annotations

import torch

from ..checks.compiled import Compiled, Sides
from .scoring import Scored, score_sides, violated_relations

NEAR = 1e4  # scores (violation / tolerance) below this are close enough to rounding to be judged again
PERTURBATION = 64 * torch.finfo(torch.float64).eps
TRIES = 16
SHRINK = 4  # a violation that a rounding-level perturbation divides by this is rounding noise


def rounding_verdict(comp: Compiled, theta: dict, sides: Sides, sc: Scored, tol: float | None,
                     seed: int) -> tuple[bool, str, dict | None]:
    """(is_artefact, why, certificate) for a candidate that passed the float64 re-check."""
    score = float(sc.score[0])
    if score >= NEAR:
        return False, f"score {score:.3g} is far beyond the tolerance", None
    from ..provers.interval import certify

    cert = certify(comp, sides, float(sc.tol[0]), violated_relations(sides, sc))
    if cert["status"] == "certified":
        return False, "ball arithmetic certifies the violation", cert
    if cert["status"] == "not certified":
        return True, "ball arithmetic puts the exact value within tolerance", cert
    gen = torch.Generator().manual_seed(seed)
    cpu = {"dtype": torch.float64, "device": torch.device("cpu")}
    lowest = score
    for _ in range(TRIES):
        th = {n: {k: _perturb(v, gen) for k, v in t.items()} for n, t in theta.items()}
        with torch.no_grad():
            s2 = score_sides(comp.evaluate_one(th, 0, cpu), tol, torch.float64)
        if not bool(s2.assume_ok[0]) or not bool(torch.isfinite(s2.score[0])):
            continue
        lowest = min(lowest, float(s2.score[0]))
        # rounding noise: the violation vanishes, or shrinks to a fraction of itself, under a perturbation
        # of the instance at the rounding level (a real violation is stable under it)
        if lowest <= 1 or lowest < score / SHRINK:
            return True, (f"a relative perturbation of {PERTURBATION:.1e} of the instance shrinks the violation "
                          f"(score {score:.3g} -> {lowest:.3g}): within the rounding noise of the computation"), cert
    return False, f"the violation survives {TRIES} rounding-level perturbations (lowest score {lowest:.3g})", cert


def _perturb(v: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    v = v.detach().to(torch.float64).cpu()
    if not v.is_floating_point():
        return v
    noise = torch.randn(v.shape, generator=gen, dtype=v.dtype)
    return v * (1 + PERTURBATION * noise)
