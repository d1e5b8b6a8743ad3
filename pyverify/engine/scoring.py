"""Tolerances and violation scores: how far one relation is from failing, per instance.

A *violation score* > 1 means the relation fails beyond tolerance; the *objective* is a smooth measure of
closeness to failure (the falsifier climbs it); *measure* is the relative error of an identity or the
slack of a bound; *ratio* is a bound's tightness lhs/rhs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..checks.compiled import Sides

TOL_FACTOR = 1024  # tolerance = TOL_FACTOR * eps(dtype) * sqrt(size) * (1 + input scale) * conditioning
# where the code under test computes in a lower precision (float32, bfloat16, float16): the tolerance is at
# least PRECISION_FACTOR * its unit roundoff * sqrt(size) * conditioning; the relation is compared relative
# to its sides' magnitude already, and an instance whose inputs amplify that rounding further (large
# angles, large logits) is judged by the conditioning the rounding judgement measures at that precision
PRECISION_FACTOR = 4
# the condition number measured on code below float64 (``precision.amplification``) counts this many times
# over: it is measured along one move of all the arguments at once, and correct code rounds several times
# along it (a rotary angle rounds with its position, its frequency and their product: 3 to 4 unit roundoffs
# times the angle, which PRECISION_FACTOR alone leaves no margin above)
MEASURED_FACTOR = 2
LOW_PRECISION_RATIO_ALLOWANCE = 8  # see ``score_sides``: the rounding judgement's NOISE_FACTOR

# Strict relations (`<`, `>`) are violated where their sides are equal. Float64 cannot tell an exact tie from
# a strict inequality that rounding closed (1 / (1 + exp(-40)) < 1 evaluates to 1 < 1), so an instance whose
# sides lie within the rounding allowance of each other scores TIE_SCORE, just above 1: a candidate, never a
# refutation by itself. The confirm phase refutes on it only where ball arithmetic certifies the two sides
# exactly equal (``rounding.judge_exactly``); everywhere else a strict relation is scored as its non-strict
# counterpart. The same rule keeps an instance at the boundary of a strict hypothesis outside it.
STRICT = {"<": "<=", ">": ">="}  # a strict relation and its non-strict counterpart
TIE_SCORE = 1 + 2 ** -10


def default_tol(sides: Sides, dtype: torch.dtype) -> torch.Tensor:
    """(B,) tolerance scaling with dtype, the size of the compared objects, the inputs' magnitude and the
    conditioning of what the instance computes (the largest condition number of a determinant, inverse,
    solve or Cayley transform it calls: rounding error there is amplified that much), and never below the
    error model of the lowest precision the evaluation computed in (``precision_tol``)."""
    return _at_precision(sides, dtype, _check_tol(sides, dtype))


def _check_tol(sides: Sides, dtype: torch.dtype) -> torch.Tensor:
    """(B,) the default tolerance of a computation in ``dtype`` itself."""
    size, scale, conditioning = _error_scale(sides, dtype)
    return TOL_FACTOR * torch.finfo(dtype).eps * math.sqrt(size) * (1 + scale) * conditioning


def _at_precision(sides: Sides, dtype: torch.dtype, tol: torch.Tensor) -> torch.Tensor:
    """``tol``, raised to the error model of the precision the code computed in where that is lower."""
    return torch.maximum(tol, precision_tol(sides, dtype).to(tol.dtype)) if lower_precision(sides, dtype) else tol


def lower_precision(sides: Sides, dtype: torch.dtype) -> bool:
    """Did the evaluation compute in a precision lower than ``dtype`` (float32 code in a float64 check)?"""
    return torch.finfo(sides.precision).eps > torch.finfo(dtype).eps


def unit_roundoff(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps / 2


def precision_tol(sides: Sides, dtype: torch.dtype, amplification: float | None = None) -> torch.Tensor:
    """(B,) the error model of the lowest precision in the computation: PRECISION_FACTOR times its unit
    roundoff times the larger of the square root of the compared objects' size times the declared
    conditioning, and the condition number measured on the calls below float64 (``sides.amplification``, or
    ``amplification``). The measured one replaces the size model rather than multiplying it: it is measured
    on the calls' whole results, accumulation included (a rotation by t in float32 errs about t unit
    roundoffs; a softmax of logits of size 3, about 3)."""
    size, _, conditioning = _error_scale(sides, dtype)
    measured = sides.amplification.to(conditioning.dtype) if amplification is None else \
        torch.full_like(conditioning, amplification)
    return PRECISION_FACTOR * unit_roundoff(sides.precision) * torch.maximum(math.sqrt(size) * conditioning,
                                                                            MEASURED_FACTOR * measured)


def _error_scale(sides: Sides, dtype: torch.dtype) -> tuple[int, torch.Tensor, torch.Tensor]:
    """The size of the compared objects, (B,) the inputs' magnitude and (B,) the conditioning."""
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
    return size, scale, sides.conditioning.to(scale.dtype)


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
    tol: torch.Tensor
    # per bound relation (B,), ``no_constant_score``: > 1 where no positive constant C rescues
    # ``lhs <= C * rhs`` (what a ``constant`` check asks)
    no_constant: list[torch.Tensor | None]


def broadcast_instances(lhs: torch.Tensor, rhs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
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


def relation_terms(op: str, lhs: torch.Tensor, rhs: torch.Tensor, tol: torch.Tensor, ratio_allowance: float = 1.0):
    """Violation score (B,), measure (B,), tightness ratio (B,) or None, and the objective (B,): a smooth
    measure of how close the relation is to failing, for gradient ascent, with a gradient where the
    relation holds comfortably (the violation score, clamped, would not). Identities: log relative
    error; bounds: slack / (1 + |lhs| + |rhs|), in (-1, 1). A strict bound whose sides tie within the
    allowance scores at least ``TIE_SCORE`` (see there)."""
    b = tol.shape[0]
    lhs, rhs = broadcast_instances(lhs, rhs)
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
    allowance = tol.unsqueeze(1) * scale  # what the score forgives: lhs <= rhs + allowance holds
    score = (slack / allowance).amax(1)
    if op in STRICT:
        tied = (slack.abs() <= allowance).any(1)
        score = torch.where(tied, score.clamp_min(TIE_SCORE), score)
    # the tightness is the lower end of what lhs/rhs can be given the rounding allowance, (lhs - allowance)
    # / rhs: never above 1 where the bound holds (lhs <= rhs + allowance), so where both sides are at the
    # rounding level (rhs ~ 0) no tightness above 1 is reported that no violation backs; where rhs is
    # resolved the correction is negligible; a lhs within the allowance of 0 counts as 0
    forgiven = ratio_allowance * allowance
    lower = torch.where(l > forgiven, l - forgiven, torch.minimum(l, torch.zeros_like(l)))
    ratio = torch.where(r > 0, lower / r.clamp_min(1e-300), torch.full_like(l, -math.inf)).amax(1)
    return score, slack.amax(1), ratio, (slack / scale).amax(1)


def no_constant_score(op: str, lhs: torch.Tensor, rhs: torch.Tensor, tol: torch.Tensor) -> torch.Tensor | None:
    """(B,) for a bound read as ``lhs <= C * rhs`` with an unnamed C > 0 (a ``constant`` check): at an entry
    whose right side is <= 0, C * rhs <= 0 for every C, so the bound fails for every C where lhs > 0 — the
    score of ``lhs <= 0`` there (> 1: lhs beyond its rounding allowance); -inf where every right side is
    positive (the ratio lhs / rhs measures those). None for an identity."""
    if op not in ("<=", "<", ">=", ">"):
        return None
    b = tol.shape[0]
    lhs, rhs = broadcast_instances(lhs, rhs)
    l, r = _flat(lhs.detach(), b), _flat(rhs.detach(), b)
    if op in (">=", ">"):
        l, r = r, l
    score = l / (tol.detach().unsqueeze(1) * (1 + l.abs()))
    return torch.where(r <= 0, score, torch.full_like(score, -math.inf)).amax(1)


def score_sides(sides: Sides, tol: float | None, dtype: torch.dtype) -> Scored:
    """Score every instance; a check's explicit ``tol`` is taken as written, except that no tolerance is
    below the error model of the precision the code computed in."""
    b = sides.flat[0].shape[0]
    written = _check_tol(sides, dtype) if tol is None else torch.full((b,), tol, dtype=dtype, device=sides.flat[0].device)
    t = _at_precision(sides, dtype, written)
    # the hypotheses are judged at the check's own tolerance: the coarser arithmetic of the code under test
    # must not admit instances outside them (q = 1 + 1e-7 passing `q < 1`); tighter only excludes instances
    t_assume = written
    # the tightness of code below float64 forgives what its rounding judgement forgives a violation: the
    # allowance NOISE_FACTOR times over (a left side that is that code's rounding is no constant's witness)
    forgive = LOW_PRECISION_RATIO_ALLOWANCE if lower_precision(sides, dtype) else 1.0
    scores, measures, ratios, objs, no_constant = [], [], [], [], []
    for rel, lhs, rhs in sides.relation_sides():
        s, m, q, o = relation_terms(rel.op, lhs, rhs, t, forgive)
        no_constant.append(no_constant_score(rel.op, lhs, rhs, t))
        scores.append(s)
        measures.append(m)
        ratios.append(q)
        objs.append(o)
    ascores, aslack = [], []
    for rel, lhs, rhs in sides.assume_sides():
        s, _, _, o = relation_terms(rel.op, lhs, rhs, t_assume)
        ascores.append(s)
        if rel.op not in ("==", "!="):
            aslack.append(o)
    zero = torch.zeros(b, dtype=dtype, device=t.device)
    a = torch.stack(ascores).amax(0) if ascores else zero
    score = torch.stack(scores).amax(0) if scores else zero
    objective = torch.stack(objs).sum(0) if objs else zero
    assume_slack = torch.stack(aslack).amax(0) if aslack else zero
    return Scored(score, objective, assume_slack, measures, ratios, a <= 1, t, no_constant)


def only_ties(sides: Sides, sc: Scored) -> bool:
    """Is every relation violated at instance 0 a strict one whose sides merely tie within the tolerance
    (its non-strict counterpart holds)? Such a violation is real only where the tie is exact."""
    violated = violated_relations(sides, sc)
    rows = list(sides.relation_sides())
    return bool(violated) and all(
        rows[j][0].op in STRICT
        and float(relation_terms(STRICT[rows[j][0].op], rows[j][1], rows[j][2], sc.tol)[0][0]) <= 1
        for j in violated)


def violated_relations(sides: Sides, sc: Scored) -> list[int]:
    """Indices of the relations violated beyond tolerance at instance 0 (of a one-instance re-check)."""
    return [j for j, (rel, lhs, rhs) in enumerate(sides.relation_sides())
            if float(relation_terms(rel.op, lhs, rhs, sc.tol)[0][0]) > 1]
