"""Existence claims: search for an instance satisfying every relation (minimise the violation score).

Sampling cannot refute an existence claim; a witness found makes it hold. A witness from the trivial
subfamily — the check's ``trivial:`` relations: the instances for which the claim's content holds
automatically, e.g. the unperturbed case and its neighbourhood within the scale at which the claimed bound
follows by continuity — does not exercise the claim's content: when only such witnesses exist the claim is
vacuous. The witness reports the sides of the ``trivial:`` relations (its distance from the subfamily against
the radius named)."""

from __future__ import annotations

import torch

from ...checks.compiled import Compiled, compile_check
from ..result import Budget, values_json
from ..scoring import score_sides


def witness(comp: Compiled, budget: Budget, gen: torch.Generator, ctx: dict, tol: float | None) -> tuple[dict | None, dict | None]:
    """(a non-trivial instance satisfying all relations and assumptions, a trivial one), as JSON.

    The search prefers a non-trivial witness; the trivial one is returned only when no non-trivial
    instance satisfies the relations (and is None when the check names no trivial subfamily)."""
    theta = comp.init_theta(budget.instances, gen, ctx)
    with torch.no_grad():
        sc = score_sides(comp.evaluate(theta, ctx), tol, ctx["dtype"])
    good = (sc.score <= 1) & sc.assume_ok & torch.isfinite(sc.score)
    if not bool(good.any()):
        return None, None
    if comp.check.trivial is None:
        return _example(comp, theta, int(good.nonzero()[0]), ctx), None
    trivial, sides = _trivial(comp, theta, ctx, tol)
    nontrivial = good & ~trivial
    if bool(nontrivial.any()):
        i = int(nontrivial.nonzero()[0])
        return {**_example(comp, theta, i, ctx), "trivial_distance": _distance(sides, i)}, None
    i = int(good.nonzero()[0])
    return None, {**_example(comp, theta, i, ctx), "trivial_distance": _distance(sides, i)}


def _trivial(comp: Compiled, theta: dict, ctx: dict, tol: float | None) -> tuple[torch.Tensor, object]:
    """(B,) bool: the instance lies in the trivial subfamily (every ``trivial`` relation holds); and the
    sides of those relations (how far each instance lies from the subfamily, against the radius named)."""
    check = comp.check.model_copy(update={"assert_": comp.check.trivial, "assume": None, "baseline": None})
    marker = compile_check(check, comp.dims, "relation", comp.conventions)
    with torch.no_grad():
        sides = marker.evaluate(theta, ctx)
        sc = score_sides(sides, tol, ctx["dtype"])
    return (sc.score <= 1) & torch.isfinite(sc.score), sides


def _distance(sides, i: int) -> list[dict]:
    """The witness's place relative to the trivial subfamily: each ``trivial`` relation's two sides there."""
    return [{"relation": rel.text, "lhs": values_json({"x": lhs[i: i + 1]})["x"],
             "rhs": values_json({"x": rhs[i: i + 1]})["x"]} for rel, lhs, rhs in sides.relation_sides()]


def _example(comp: Compiled, theta: dict, i: int, ctx: dict) -> dict:
    one = {n: {k: v[i: i + 1] for k, v in t.items()} for n, t in theta.items()}
    sides = comp.evaluate_one(one, 0, ctx)
    return {"dims": comp.dims, "values": values_json(sides.values)}
