"""Adversarial counterexample search, re-checking and shrinking.

The search maximises a *violation score* (> 1 means the relation fails beyond tolerance) over the
samplers' unconstrained parameters: random and degenerate instances first, then restarts of gradient
ascent (Adam, torch autograd) through the samplers' reparameterisations. A candidate is re-evaluated
alone without vmap (an independent path), then shrunk: its parameters are rounded as coarsely as the
violation survives, so the witness is small and readable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torch

from . import dsl
from .evaluation import Compiled, Sides

TOL_FACTOR = 1024  # tolerance = TOL_FACTOR * eps(dtype) * sqrt(size) * (1 + input scale)


def default_tol(sides: Sides, dtype: torch.dtype) -> torch.Tensor:
    """(B,) tolerance scaling with dtype, the size of the compared objects and the inputs' magnitude."""
    eps = torch.finfo(dtype).eps
    scales = []
    for v in sides.values.values():
        parts = v.values() if isinstance(v, dict) else [v]
        for p in parts:
            if p[0].numel():  # an empty part (e.g. no frequencies when m = 0) has no scale
                scales.append(p.detach().abs().reshape(p.shape[0], -1).amax(1))
    b = sides.flat[0].shape[0] if sides.flat else 1
    device = sides.flat[0].device if sides.flat else None
    scale = torch.stack(scales).amax(0) if scales else torch.zeros(b, dtype=dtype, device=device)
    size = max((x[0].numel() for x in sides.flat), default=1)
    return TOL_FACTOR * eps * math.sqrt(size) * (1 + scale)


def _flat(x: torch.Tensor, b: int) -> torch.Tensor:
    return x.reshape(b, -1) if x.dim() > 0 else x.reshape(1, 1).expand(b, 1)


@dataclass
class Scored:
    score: torch.Tensor  # (B,) max violation score over relations; > 1 violates
    objective: torch.Tensor  # (B,) smooth closeness to failure (gradient ascent target)
    assume_slack: torch.Tensor  # (B,) > 0 where an assumption fails (normalised), for the search penalty
    measure: list[torch.Tensor]  # per relation (B,): relative error (==) or lhs - rhs slack (<=)
    ratio: list[torch.Tensor | None]  # per bound relation: max lhs / rhs (tightness)
    assume_ok: torch.Tensor  # (B,) bool
    assume_score: torch.Tensor  # (B,) max assume violation (<= 1 satisfied)
    tol: torch.Tensor


def _broadcast_instances(lhs: torch.Tensor, rhs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-instance broadcasting: dim 0 is the instance, so a per-instance scalar (B,) against a vector
    (B, n) gets trailing singleton dims, never a leading one."""
    if lhs.dim() < rhs.dim():
        lhs = lhs.reshape(*lhs.shape, *([1] * (rhs.dim() - lhs.dim())))
    elif rhs.dim() < lhs.dim():
        rhs = rhs.reshape(*rhs.shape, *([1] * (lhs.dim() - rhs.dim())))
    return torch.broadcast_tensors(lhs, rhs)


def relation_score(op: str, lhs: torch.Tensor, rhs: torch.Tensor, tol: torch.Tensor):
    """Violation score (B,), measure (B,), tightness ratio (B,) or None."""
    return relation_terms(op, lhs, rhs, tol)[:3]


def relation_terms(op: str, lhs: torch.Tensor, rhs: torch.Tensor, tol: torch.Tensor):
    """Violation score (B,), measure (B,), tightness ratio (B,) or None, and the objective (B,): a smooth
    measure of how close the relation is to failing, for gradient ascent, with a gradient where the
    relation holds comfortably (the violation score, clamped, would not). Identities: log relative
    error; bounds: slack / (1 + |lhs| + |rhs|), in (-1, 1)."""
    b = tol.shape[0]
    lhs, rhs = _broadcast_instances(lhs, rhs)
    l, r = _flat(lhs, b), _flat(rhs, b)
    if op in ("==", "!="):
        diff = torch.linalg.vector_norm(l - r, dim=1)
        denom = torch.maximum(torch.linalg.vector_norm(l, dim=1), torch.linalg.vector_norm(r, dim=1)).clamp_min(1.0)
        err = diff / denom
        logerr = torch.log(err + 1e-30)
        if op == "==":
            return err / tol, err, None, logerr
        return tol / err.clamp_min(1e-300), err, None, -logerr
    if op in (">=", ">"):
        l, r = r, l
    slack = l - r
    scale = 1 + l.abs() + r.abs()
    score = (slack / (tol.unsqueeze(1) * scale)).amax(1)
    ratio = torch.where(r > 0, l / r.clamp_min(1e-300), torch.full_like(l, -math.inf)).amax(1)
    return score, slack.amax(1), ratio, (slack / scale).amax(1)


def score_sides(sides: Sides, tol: float | None, dtype: torch.dtype) -> Scored:
    b = sides.flat[0].shape[0]
    t = torch.full((b,), tol, dtype=dtype, device=sides.flat[0].device) if tol is not None else default_tol(sides, dtype)
    scores, measures, ratios, objs = [], [], [], []
    for rel, lhs, rhs in sides.relation_sides():
        s, m, q, o = relation_terms(rel.op, lhs, rhs, t)
        scores.append(s)
        measures.append(m)
        ratios.append(q)
        objs.append(o)
    ascores, aslack = [], []
    for rel, lhs, rhs in sides.assume_sides():
        s, _, _, o = relation_terms(rel.op, lhs, rhs, t)
        ascores.append(s)
        if rel.op not in ("==", "!="):
            aslack.append(o)
    zero = torch.zeros(b, dtype=dtype, device=t.device)
    a = torch.stack(ascores).amax(0) if ascores else zero
    score = torch.stack(scores).amax(0) if scores else zero
    objective = torch.stack(objs).sum(0) if objs else zero
    assume_slack = torch.stack(aslack).amax(0) if aslack else zero
    return Scored(score, objective, assume_slack, measures, ratios, a <= 1, a, t)


@dataclass
class Candidate:
    theta: dict
    score: float
    randoms: dict | None = None


@dataclass
class SearchOutcome:
    worst_measure: list[float]
    worst_ratio: list[float | None]
    best: Candidate | None  # the most violating instance found (score > 1), if any
    instances: int
    satisfiable: bool  # some instance satisfied all assumptions
    nan_instance: Candidate | None = None
    max_score: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)


def _take(theta: dict, i: int) -> dict:
    return {n: {k: v[i: i + 1].detach().clone() for k, v in t.items()} for n, t in theta.items()}


def _merge(out: SearchOutcome, theta: dict, sc: Scored) -> None:
    valid = sc.assume_ok
    finite = torch.isfinite(sc.score)
    if bool(valid.any()):
        out.satisfiable = True
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
    masked = torch.where(ok, sc.score, torch.full_like(sc.score, -math.inf))
    i = int(masked.argmax())
    s = float(masked[i])
    out.max_score = max(out.max_score, s)
    if s > 1 and (out.best is None or s > out.best.score):
        out.best = Candidate(_take(theta, i), s)


ASCENT_LR = 0.3


def search(comp: Compiled, instances: int, restarts: int, steps: int, gen: torch.Generator, ctx: dict,
           tol: float | None, stop_early: bool = False) -> SearchOutcome:
    """Random + degenerate instances, then gradient ascent on the violation score.

    ``stop_early``: return after the random phase when it already found a violation (the caller
    confirms it, and searches again without stopping early if the confirmation fails)."""
    dtype = ctx["dtype"]
    n_rel = len(comp.relations)
    out = SearchOutcome([-math.inf] * n_rel, [None] * n_rel, None, 0, False)
    theta = comp.init_theta(instances, gen, ctx, degenerate=max(1, instances // 8))
    with torch.no_grad():
        sc = score_sides(comp.evaluate(theta, ctx), tol, dtype)
    _merge(out, theta, sc)
    out.instances += instances
    if stop_early and out.best is not None:
        return out
    if restarts <= 0 or steps <= 0 or not comp.givens:
        return out
    if comp.unbatchable:
        # each start is a separate evaluation here (no vmap), not a row of one batch: fewer starts
        restarts = max(2, restarts // 4)
    theta = comp.init_theta(restarts, gen, ctx, degenerate=max(1, restarts // 4))
    params = [v.requires_grad_(True) for t in theta.values() for k, v in t.items() if v.is_floating_point() and k != "sign"]
    if not params:
        return out
    # large first moves, then a fine approach: the step size decays from ASCENT_LR to a tenth of it
    opt = torch.optim.Adam(params, lr=ASCENT_LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=ASCENT_LR / 10)
    for _ in range(steps):
        opt.zero_grad()
        sides = comp.evaluate(theta, ctx)
        sc = score_sides(sides, tol, dtype)
        with torch.no_grad():
            _merge(out, theta, sc)
        # push every relation towards failure while staying inside the assumptions (penalty outside)
        obj = sc.objective - 100 * torch.relu(sc.assume_slack)
        obj = torch.where(torch.isfinite(obj), obj, torch.zeros_like(obj))
        if not obj.requires_grad:
            break
        (-obj.sum()).backward()
        for p in params:
            if p.grad is not None:
                p.grad.nan_to_num_(0.0, 0.0, 0.0)
        opt.step()
        sched.step()
        out.instances += restarts
    with torch.no_grad():
        _merge(out, theta, score_sides(comp.evaluate(theta, ctx), tol, dtype))
    return out


def recheck(comp: Compiled, theta: dict, ctx: dict, tol: float | None) -> tuple[bool, Scored, Sides]:
    """Re-evaluate one instance in float64 on the CPU, without vmap."""
    cpu = {"dtype": torch.float64, "device": torch.device("cpu")}
    th = {n: {k: v.detach().to(**cpu) for k, v in t.items()} for n, t in theta.items()}
    with torch.no_grad():
        sides = comp.evaluate_one(th, 0, cpu)
        sc = score_sides(sides, tol, torch.float64)
    ok = bool(sc.assume_ok[0]) and bool(torch.isfinite(sc.score[0])) and float(sc.score[0]) > 1
    return ok, sc, sides


def shrink(comp: Compiled, theta: dict, ctx: dict, tol: float | None) -> dict:
    """Round the parameters as coarsely as the violation survives (0 decimals first)."""
    for decimals in (0, 1, 2, 3, 4):
        rounded = {n: {k: torch.round(v.detach(), decimals=decimals) for k, v in t.items()} for n, t in theta.items()}
        if any(not bool(torch.isfinite(v).all()) for t in rounded.values() for v in t.values()):
            continue
        try:
            ok, _, _ = recheck(comp, rounded, ctx, tol)
        except (RuntimeError, dsl.DSLError, ValueError):
            ok = False
        if ok:
            return rounded
    return theta
