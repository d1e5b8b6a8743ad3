"""Existence claims: search for an instance satisfying every relation (minimise the violation score).

Sampling cannot refute an existence claim; a witness found makes it hold."""

from __future__ import annotations

import torch

from ...checks.compiled import Compiled
from ..result import Budget, values_json
from ..scoring import score_sides


def witness(comp: Compiled, budget: Budget, gen: torch.Generator, ctx: dict, tol: float | None) -> dict | None:
    """An instance satisfying all relations (and assumptions), as JSON, or None."""
    theta = comp.init_theta(budget.instances, gen, ctx)
    with torch.no_grad():
        sc = score_sides(comp.evaluate(theta, ctx), tol, ctx["dtype"])
    good = (sc.score <= 1) & sc.assume_ok & torch.isfinite(sc.score)
    if bool(good.any()):
        i = int(good.nonzero()[0])
        one = {n: {k: v[i: i + 1] for k, v in t.items()} for n, t in theta.items()}
        sides = comp.evaluate_one(one, 0, ctx)
        return {"dims": comp.dims, "values": values_json(sides.values)}
    return None
