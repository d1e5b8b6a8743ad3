"""Existence claims: search for an instance satisfying every relation (minimise the violation score).

Sampling cannot refute an existence claim; a witness found makes it hold. A witness from the trivial
subfamily — the check's ``trivial:`` relations: the instances for which the claim's content holds
automatically, e.g. the unperturbed case and its neighbourhood within the scale at which the claimed bound
follows by continuity — does not exercise the claim's content: when only such witnesses exist the claim is
vacuous. The witness reports the sides of the ``trivial:`` relations (its distance from the subfamily against
the radius named)."""

from __future__ import annotations

import torch

from ...checks.compiled import Compiled, Sides
from ...registry import Verdict
from ..context import NumericContext
from ..evidence import ExistenceWitness, TrivialDistance
from ..falsify import SearchOutcome
from ..pipeline import SearchJudge
from ..result import Outcome, values_json
from ..run import ClaimRun
from ..scoring import score_sides


class ExistenceJudge(SearchJudge):
    """After each assignment's search, the witness search on the same stream; the first non-trivial
    witness decides, and once every assignment was searched ``after_search`` does (no polishing, no
    judge phase: a search outcome decides nothing more about existence)."""

    stops_early = False
    confirms = False

    def __init__(self) -> None:
        self.trivial: ExistenceWitness | None = None  # a witness from the trivial subfamily, in case no other exists

    def at_assignment(self, run: ClaimRun, comp: Compiled, out: SearchOutcome, ctx: NumericContext) -> Outcome | bool:
        check = run.compiled.check
        marker = run.compiled.trivial_marker(comp) if check.trivial is not None else None
        found, trivial = witness(comp, marker, run.profile.instances, ctx, run.tol)
        if found is not None:
            message = "a witness satisfying every relation was constructed"
            if check.trivial is not None:
                message += f" outside the trivial subfamily ({check.trivial})"
            return Outcome(Verdict.holds, message, None, (found,))
        self.trivial = self.trivial or trivial
        return False

    def after_search(self, run: ClaimRun) -> Outcome:
        if self.trivial is not None:
            return Outcome(Verdict.vacuous, f"only trivial witnesses ({run.compiled.check.trivial}) satisfy every "
                           "relation: the existence claim is met where its content holds automatically and says "
                           "nothing beyond it", None, (self.trivial,))
        return Outcome(Verdict.not_checkable, "the search found no witness (existence cannot be refuted by sampling)")


def witness(comp: Compiled, marker: Compiled | None, instances: int, ctx: NumericContext,
            tol: float | None) -> tuple[ExistenceWitness | None, ExistenceWitness | None]:
    """(a non-trivial instance satisfying all relations and assumptions, a trivial one).

    The search prefers a non-trivial witness; the trivial one is returned only when no non-trivial
    instance satisfies the relations (and is None when the check names no trivial subfamily, ``marker``
    the evaluator of its ``trivial`` relations)."""
    theta = comp.init_theta(instances, ctx.gen, ctx)
    with torch.no_grad():
        sc = score_sides(comp.evaluate(theta, ctx), tol, ctx.dtype)
    good = (sc.score <= 1) & sc.assume_ok & torch.isfinite(sc.score)
    if not bool(good.any()):
        return None, None
    if marker is None:
        return ExistenceWitness(*_example(comp, theta, int(good.nonzero()[0]), ctx)), None
    trivial, sides = _trivial(marker, theta, ctx, tol)
    nontrivial = good & ~trivial
    if bool(nontrivial.any()):
        i = int(nontrivial.nonzero()[0])
        return ExistenceWitness(*_example(comp, theta, i, ctx), trivial_distance=_distance(sides, i)), None
    i = int(good.nonzero()[0])
    return None, ExistenceWitness(*_example(comp, theta, i, ctx), trivial=True, trivial_distance=_distance(sides, i))


def _trivial(marker: Compiled, theta: dict, ctx: NumericContext, tol: float | None) -> tuple[torch.Tensor, Sides]:
    """(B,) bool: the instance lies in the trivial subfamily (every ``trivial`` relation holds); and the
    sides of those relations (how far each instance lies from the subfamily, against the radius named)."""
    with torch.no_grad():
        sides = marker.evaluate(theta, ctx)
        sc = score_sides(sides, tol, ctx.dtype)
    return (sc.score <= 1) & torch.isfinite(sc.score), sides


def _distance(sides: Sides, i: int) -> tuple[TrivialDistance, ...]:
    """The witness's place relative to the trivial subfamily: each ``trivial`` relation's two sides there."""
    return tuple(TrivialDistance(rel.text, values_json({"x": lhs[i: i + 1]})["x"], values_json({"x": rhs[i: i + 1]})["x"])
                 for rel, lhs, rhs in sides.relation_sides())


def _example(comp: Compiled, theta: dict, i: int, ctx: NumericContext) -> tuple[dict, dict]:
    one = {n: {k: v[i: i + 1] for k, v in t.items()} for n, t in theta.items()}
    sides = comp.evaluate_one(one, 0, ctx)
    return comp.dims, values_json(sides.values)
