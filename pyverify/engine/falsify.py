"""Adversarial counterexample search, re-checking and shrinking.

The search maximises a *violation score* (> 1 means the relation fails beyond tolerance; ``scoring.py``)
over the samplers' unconstrained parameters: random and degenerate instances first (``generate``), then
restarts of gradient ascent (``ascend``: Adam, torch autograd) through the samplers' reparameterisations. A candidate is
re-evaluated alone without vmap (an independent path), then shrunk: its parameters are rounded as
coarsely as the violation survives, so the witness is small and readable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..checks import dsl, precision
from ..checks.compiled import Compiled, Sides
from .context import CPU64, NumericContext
from .scoring import Scored, lower_precision, score_sides

@dataclass
class Candidate:
    theta: dict
    score: float


@dataclass
class SearchOutcome:
    worst_measure: list[float]
    worst_ratio: list[float | None]
    best: Candidate | None  # the most violating instance found (score > 1), if any
    instances: int
    satisfiable: bool  # some instance satisfied all assumptions
    nan_instance: Candidate | None = None
    failed_instances: int = 0  # instances whose evaluation raised (skipped, not counted as violations)
    ascent_failure: str | None = None  # why the gradient ascent stopped early, if it did
    # per bound relation, the instances of largest tightness lhs/rhs seen (best first): the polishing
    # phase starts from them (``polish.py``)
    tightest: list[list[Candidate]] = field(default_factory=list)
    # the lowest precision the code computed in, and the largest tolerance of its error model (0 when the
    # whole computation was float64)
    precision: torch.dtype = torch.float64
    precision_tol: float = 0.0
    # the instance where a bound fails for every positive constant (its right side <= 0, its left side
    # positive: ``scoring.no_constant_score``), most clearly; what a ``constant`` check's judge confirms
    no_constant: Candidate | None = None


TIGHTEST_KEPT = 4


def _take(theta: dict, i: int) -> dict:
    return {n: {k: v[i: i + 1].detach().clone() for k, v in t.items()} for n, t in theta.items()}


def slice_instances(theta: dict, lo: int, hi: int) -> dict:
    return {n: {k: v[lo:hi] for k, v in t.items()} for n, t in theta.items()}


def _score_batch(comp: Compiled, theta: dict, size: int, ctx: NumericContext, tol: float | None,
                 out: SearchOutcome) -> RuntimeError | None:
    """Score a batch of instances into ``out``. An instance whose evaluation raises (an eigensolver
    that does not converge on it, say) is skipped, not allowed to kill the search: a failing batch is
    halved until the failing instances are isolated. Returns the first failure, if any."""
    try:
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx)
            sc = score_sides(sides, tol, ctx["dtype"])
    except RuntimeError as exc:  # torch's LinAlgError is one; a bad check is a DSLError/CheckError and raises
        if size == 1:
            out.failed_instances += 1
            return exc
        half = size // 2
        first = _score_batch(comp, slice_instances(theta, 0, half), half, ctx, tol, out)
        second = _score_batch(comp, slice_instances(theta, half, size), size - half, ctx, tol, out)
        return first or second
    _merge(out, theta, sc, sides)
    return None


def _merge(out: SearchOutcome, theta: dict, sc: Scored, sides: Sides) -> None:
    valid = sc.assume_ok
    finite = torch.isfinite(sc.score)
    if bool(valid.any()):
        out.satisfiable = True
    if lower_precision(sides, sc.tol.dtype):
        out.precision = precision.lowest([out.precision, sides.precision])
        out.precision_tol = max(out.precision_tol, float(sc.tol.max()))
    bad = valid & ~finite
    if bool(bad.any()) and out.nan_instance is None:
        out.nan_instance = Candidate(_take(theta, int(bad.nonzero()[0])), math.nan)
    ok = valid & finite
    if not bool(ok.any()):
        return
    for j, m in enumerate(sc.measure):
        mv = float(m[ok].max())
        out.worst_measure[j] = max(out.worst_measure[j], mv)
        if sc.ratio[j] is not None:
            rv = float(sc.ratio[j][ok].max())
            prev = out.worst_ratio[j]
            out.worst_ratio[j] = rv if prev is None else max(prev, rv)
            _keep_tightest(out, j, theta, torch.where(ok, sc.ratio[j], torch.full_like(sc.ratio[j], -math.inf)))
    out.best = _better(out.best, theta, sc.score, ok)
    unbounded = [q for q in sc.no_constant if q is not None]
    if unbounded:
        out.no_constant = _better(out.no_constant, theta, torch.stack(unbounded).amax(0), ok)


def _better(best: Candidate | None, theta: dict, score: torch.Tensor, ok: torch.Tensor) -> Candidate | None:
    """The batch's most violating admissible instance (score > 1) where it beats ``best``; else ``best``."""
    masked = torch.where(ok, score, torch.full_like(score, -math.inf))
    i = int(masked.argmax())
    s = float(masked[i])
    if s > 1 and (best is None or s > best.score):
        return Candidate(_take(theta, i), s)
    return best


def _keep_tightest(out: SearchOutcome, j: int, theta: dict, ratio: torch.Tensor) -> None:
    """Merge this batch's tightest instances of relation j into the kept few (distinct ratios only, so
    one instance seen at several ascent steps does not fill the list)."""
    while len(out.tightest) <= j:
        out.tightest.append([])
    kept = out.tightest[j]
    floor = kept[-1].score if len(kept) >= TIGHTEST_KEPT else -math.inf
    top = torch.topk(ratio, min(TIGHTEST_KEPT, ratio.shape[0]))
    for r, i in zip(top.values.tolist(), top.indices.tolist()):
        if not math.isfinite(r) or r <= floor or any(c.score == r for c in kept):
            continue
        kept.append(Candidate(_take(theta, i), r))
    kept.sort(key=lambda c: -c.score)
    del kept[TIGHTEST_KEPT:]


ASCENT_LR = 0.3


def generate(comp: Compiled, instances: int, ctx: NumericContext, tol: float | None) -> SearchOutcome:
    """Random and degenerate instances (an eighth of them degenerate), drawn from ``ctx``'s stream."""
    n_rel = len(comp.relations)
    out = SearchOutcome([-math.inf] * n_rel, [None] * n_rel, None, 0, False)
    theta = comp.init_theta(instances, ctx.gen, ctx, degenerate=max(1, instances // 8))
    failure = _score_batch(comp, theta, instances, ctx, tol, out)
    if failure is not None and out.failed_instances == instances:
        raise failure  # no instance can be evaluated: the check itself cannot run
    out.instances += instances
    return out


def ascend(comp: Compiled, out: SearchOutcome, restarts: int, steps: int, ctx: NumericContext,
           tol: float | None) -> SearchOutcome:
    """Gradient ascent (Adam) on the violation score from ``restarts`` fresh starts (a quarter of them
    degenerate), through the samplers' reparameterisations; what it meets is scored into ``out``."""
    if restarts <= 0 or steps <= 0 or not comp.givens:
        return out
    if comp.unbatchable:
        # each start is a separate evaluation here (no vmap), not a row of one batch: fewer starts
        restarts = max(2, restarts // 4)
    theta = comp.init_theta(restarts, ctx.gen, ctx, degenerate=max(1, restarts // 4))
    params = [v.requires_grad_(True) for t in theta.values() for k, v in t.items() if v.is_floating_point() and k != "sign"]
    if not params:
        return out
    # large first moves, then a fine approach: the step size decays from ASCENT_LR to a tenth of it
    opt = torch.optim.Adam(params, lr=ASCENT_LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=ASCENT_LR / 10)
    for _ in range(steps):
        opt.zero_grad()
        try:
            obj = _ascent_objective(comp, theta, ctx, tol, out)
        except RuntimeError as exc:
            # the ascent walked where the check cannot be evaluated (or differentiated): keep what it found
            out.ascent_failure = f"{type(exc).__name__}: {exc}"
            return out
        if not ascend_step(obj, params, opt, sched):
            break
        out.instances += restarts
    _score_batch(comp, {n: {k: v.detach() for k, v in t.items()} for n, t in theta.items()}, restarts, ctx, tol, out)
    return out


def search(comp: Compiled, instances: int, restarts: int, steps: int, ctx: NumericContext, tol: float | None,
           stop_early: bool = False) -> SearchOutcome:
    """Random + degenerate instances, then gradient ascent on the violation score.

    ``stop_early``: return after the random phase when it already found a violation (the caller
    confirms it, and searches again without stopping early if the confirmation fails)."""
    out = generate(comp, instances, ctx, tol)
    if stop_early and out.best is not None:
        return out
    return ascend(comp, out, restarts, steps, ctx, tol)


def _ascent_objective(comp: Compiled, theta: dict, ctx: NumericContext, tol: float | None,
                      out: SearchOutcome) -> torch.Tensor:
    """Score the ascent's instances into ``out``; the per-instance objective (B,) to climb."""
    sides = comp.evaluate(theta, ctx)
    sc = score_sides(sides, tol, ctx["dtype"])
    with torch.no_grad():
        _merge(out, theta, sc, sides)
    # push every relation towards failure while staying inside the assumptions (penalty outside)
    obj = sc.objective - 100 * torch.relu(sc.assume_slack)
    return torch.where(torch.isfinite(obj), obj, torch.zeros_like(obj))


def ascend_step(obj: torch.Tensor, params: list[torch.Tensor], opt: torch.optim.Optimizer, sched) -> bool:
    """One step up the per-instance objectives (B,) (their sum: the instances are independent); a NaN
    gradient counts as 0. False when the objective does not depend on the parameters."""
    if not obj.requires_grad:
        return False
    (-obj.sum()).backward()
    for p in params:
        if p.grad is not None:
            p.grad.nan_to_num_(0.0, 0.0, 0.0)
    opt.step()
    sched.step()
    return True


def recheck(comp: Compiled, theta: dict, tol: float | None) -> tuple[bool, Scored, Sides]:
    """Re-evaluate one instance in float64 on the CPU, without vmap."""
    th = {n: {k: v.detach().to(**CPU64) for k, v in t.items()} for n, t in theta.items()}
    with torch.no_grad():
        sides = comp.evaluate_one(th, 0, CPU64)
        sc = score_sides(sides, tol, torch.float64)
    ok = bool(sc.assume_ok[0]) and bool(torch.isfinite(sc.score[0])) and float(sc.score[0]) > 1
    return ok, sc, sides


def shrink(comp: Compiled, theta: dict, tol: float | None) -> dict:
    """Round the parameters as coarsely as the violation survives (0 decimals first)."""
    for decimals in (0, 1, 2, 3, 4):
        rounded = {n: {k: torch.round(v.detach(), decimals=decimals) for k, v in t.items()} for n, t in theta.items()}
        if any(not bool(torch.isfinite(v).all()) for t in rounded.values() for v in t.values()):
            continue
        try:
            ok, _, _ = recheck(comp, rounded, tol)
        except (RuntimeError, dsl.DSLError, ValueError):
            ok = False
        if ok:
            return rounded
    return theta
