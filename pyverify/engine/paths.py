"""A second floating-point path: does a near-tolerance violation survive a different evaluation?

Where neither ball nor 60-digit arithmetic can re-evaluate a violated relation (the user's own code, a
function without an exact meaning), rounding of the code path itself cannot be told from a defect by
perturbing the inputs: the unbatched float64 ``matrix_exp`` of a small skew matrix errs by 1e-11 on
every input near it, while the same matrix in a batch of two is exact to 1e-16. So the instance is
evaluated again with every linear-algebra kernel it calls (``matrix_exp``, matrix products, solves,
factorisations — inside the user's functions too, whatever their style: loops, index-put, caches) run on
the witness embedded in a batch of two, and the two evaluations are compared.

A violation is confirmed only when it persists on the second path and its discrepancy exceeds
``MARGIN`` times the disagreement of the two paths; otherwise it is *inconclusive*: the discrepancy is of
the size of the code's own rounding.

Where the code computes below float64, one more path comes first (``judge_in_float64``): the same code on
float64 arguments, its kernels in a batch. A violation that vanishes there is made of the precision the
code runs in — a float32 ``matrix_exp`` of a rotation by about 0.5 errs by some 700 unit roundoffs, far
past any error model of float32 but nothing the mathematics got wrong — and is *inconclusive at that
precision*, never a refutation.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..checks.compiled import Compiled, Sides
from ..checks.kernels import KernelsInABatch
from ..checks.precision import below_float64, declared, name
from ..checks.roles import in_float64
from .context import CPU64
from .scoring import Scored, broadcast_instances, lower_precision, relation_terms, score_sides, violated_relations

MARGIN = 8  # a confirmed discrepancy exceeds the disagreement of the two paths by this factor

@dataclass(frozen=True)
class PathJudgement:
    """The two paths compared at the relation that decides: its discrepancy on the first path, how far
    the two paths' values of it disagree, and whether the second path still violates it."""

    confirmed: bool
    relation: str
    discrepancy: float
    disagreement: float
    second_score: float
    failure: str | None = None  # why the second path could not be evaluated

    def sentence(self) -> str:
        if self.failure is not None:
            return (f"inconclusive: a discrepancy of {self.discrepancy:.3g} that no second floating-point path "
                    f"could check (evaluating it failed: {self.failure})")
        if self.confirmed:
            return (f"confirmed on a second floating-point path (the linear-algebra kernels run in a batch): the "
                    f"discrepancy {self.discrepancy:.3g} exceeds {MARGIN} times the disagreement of the two paths "
                    f"({self.disagreement:.3g})")
        return (f"inconclusive: a discrepancy of {self.discrepancy:.3g} within {MARGIN} times the measured "
                f"disagreement of two evaluation paths ({self.disagreement:.3g}: the instance alone, and its "
                f"linear-algebra kernels run in a batch, where its score is {self.second_score:.3g})")


def on_cpu64(theta: dict) -> dict:
    """``theta`` detached, in float64 on the CPU (where every one-instance path evaluates)."""
    return {n: {k: v.detach().to(**CPU64) for k, v in t.items()} for n, t in theta.items()}


def second_path(comp: Compiled, theta: dict) -> Sides:
    """The one instance of ``theta`` evaluated with its batch-sensitive kernels run in a batch of two."""
    with torch.no_grad(), KernelsInABatch():
        return comp.evaluate_one(on_cpu64(theta), 0, CPU64)


def judge_two_paths(comp: Compiled, theta: dict, sides: Sides, sc: Scored, tol: float | None) -> PathJudgement:
    """Compare the one-instance evaluation (``sides``, scored ``sc``) with the second path. A second path
    that cannot be evaluated confirms nothing: the violation stays unconfirmed."""
    try:
        other = second_path(comp, theta)
        sc2 = score_sides(other, tol, torch.float64)
    except Exception as exc:  # noqa: BLE001 - the user's code failed on the batched kernels' results
        return PathJudgement(False, "", float(sc.measure[0][0]) if sc.measure else 0.0, float("inf"), float("nan"),
                             f"{type(exc).__name__}: {exc}")
    best: PathJudgement | None = None
    rels1, rels2 = sides.relation_sides(), other.relation_sides()
    for j in violated_relations(sides, sc):
        rel, l1, r1 = rels1[j]
        _, l2, r2 = rels2[j]
        discrepancy, disagreement = _gap(rel.op, l1, r1, l2, r2)
        second = float(relation_terms(rel.op, l2, r2, sc2.tol)[0][0])
        confirmed = second > 1 and discrepancy > MARGIN * disagreement
        found = PathJudgement(confirmed, rel.text, discrepancy, disagreement, second)
        if best is None or (found.confirmed and not best.confirmed) or (
                found.confirmed == best.confirmed and found.discrepancy > best.discrepancy):
            best = found
    if best is None:  # no relation violated on the first path: nothing to confirm
        return PathJudgement(False, "", 0.0, 0.0, float(sc2.score[0]))
    return best


@dataclass(frozen=True)
class PrecisionJudgement:
    """The violation against the same code run on float64 arguments: its score on the code's own precision
    path and on the float64 one."""

    precision: torch.dtype
    score: float
    in_float64: float

    def sentence(self) -> str:
        return (f"inconclusive at {name(self.precision)} precision: the violation (score {self.score:.3g} against "
                f"the error model of {name(self.precision)}) vanishes when the same code runs on float64 arguments "
                f"(score {self.in_float64:.3g} there): it is made of the code's {name(self.precision)} rounding, "
                "larger here than that precision's error model, not of the mathematics it computes")


def judge_in_float64(comp: Compiled, theta: dict, sides: Sides, sc: Scored, tol: float | None) -> PrecisionJudgement | None:
    """Where the code computed below float64: the instance evaluated again with bound code on float64
    arguments (``roles.in_float64``) and its kernels in a batch. The judgement when the violation vanishes
    there; None when it persists, when the code still computes below float64 on that path (a float32 cache
    of its own: the path isolates nothing) or when it cannot be evaluated."""
    if not lower_precision(sides, torch.float64) or not _float64_path_isolates(comp):
        return None
    try:
        with torch.no_grad(), in_float64(), KernelsInABatch():
            other = comp.evaluate_one(on_cpu64(theta), 0, CPU64)
        again = float(score_sides(other, tol, torch.float64).score[0])
    except Exception:  # noqa: BLE001 - a path that cannot be evaluated dismisses nothing
        return None
    if not again <= 1:
        return None
    return PrecisionJudgement(sides.precision, float(sc.score[0]), again)


def _float64_path_isolates(comp: Compiled) -> bool:
    """Does ``in_float64`` lift every function of the check that computes below float64: each is bound code
    whose low precision is its binding's cast alone (a callable that declares a precision of its own, such
    as a module holding float32 parameters, or a plugin's float32 function, stays below float64 there)?"""
    low = [fn for fn in comp.functions.values() if fn.precision is not None and below_float64(fn.precision)]
    return bool(low) and all(fn.binding is not None and not below_float64(declared(fn.binding.target) or torch.float64)
                             for fn in low)


def _gap(op: str, l1: torch.Tensor, r1: torch.Tensor, l2: torch.Tensor, r2: torch.Tensor) -> tuple[float, float]:
    """(the discrepancy of the relation on the first path, the change of it between the paths), in the
    relation's own measure: relative to the larger side for an identity, the slack for a bound."""
    l1, r1 = (_wide(x) for x in broadcast_instances(l1, r1))
    l2, r2 = (_wide(x) for x in broadcast_instances(l2, r2))
    d1, d2 = (l1 - r1).reshape(-1), (l2 - r2).reshape(-1)
    if d1.shape != d2.shape:  # the second path changed a shape: it tells nothing about this relation
        return float(d1.abs().max()), float("inf")
    if op in ("==", "!="):
        denom = max(float(torch.linalg.vector_norm(l1)), float(torch.linalg.vector_norm(r1)), 1.0)
        return float(torch.linalg.vector_norm(d1)) / denom, float(torch.linalg.vector_norm(d1 - d2)) / denom
    sign = -1.0 if op in (">=", ">") else 1.0
    return float((sign * d1).max()), float((d1 - d2).abs().max())


def _wide(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.complex128 if x.is_complex() else torch.float64)
