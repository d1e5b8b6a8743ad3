"""Existence claims: search for an instance satisfying every relation (minimise the violation score).

Sampling cannot refute an existence claim; a witness found makes it hold. A witness from the trivial
subfamily (the exact, unperturbed case the check's ``trivial:`` relations describe, e.g. a perturbation
of norm 0) does not exercise the claim's content: when only such witnesses exist the claim is vacuous."""

from __future__ import annotations

import torch

from ...checks.compiled import Compiled
from ...registry import Verdict
from ..context import NumericContext
from ..evidence import ExistenceWitness
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
                           "relation: the existence claim is met by the unperturbed case and says nothing about "
                           "the perturbed one", None, (self.trivial,))
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
    trivial = _trivial(marker, theta, ctx, tol)
    nontrivial = good & ~trivial
    if bool(nontrivial.any()):
        return ExistenceWitness(*_example(comp, theta, int(nontrivial.nonzero()[0]), ctx)), None
    return None, ExistenceWitness(*_example(comp, theta, int(good.nonzero()[0]), ctx), trivial=True)


def _trivial(marker: Compiled, theta: dict, ctx: NumericContext, tol: float | None) -> torch.Tensor:
    """(B,) bool: the instance lies in the trivial subfamily (every ``trivial`` relation holds)."""
    with torch.no_grad():
        sc = score_sides(marker.evaluate(theta, ctx), tol, ctx.dtype)
    return (sc.score <= 1) & torch.isfinite(sc.score)


def _example(comp: Compiled, theta: dict, i: int, ctx: NumericContext) -> tuple[dict, dict]:
    one = {n: {k: v[i: i + 1] for k, v in t.items()} for n, t in theta.items()}
    sides = comp.evaluate_one(one, 0, ctx)
    return comp.dims, values_json(sides.values)
