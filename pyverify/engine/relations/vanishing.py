"""A constant bound ``lhs <= C rhs`` whose smallest admissible constant is infinite at one size.

The search measures the constant as the largest lhs / rhs it meets, and refutes only where that grows
along the sweep. A bound whose ratio is unbounded at every size reads there as a large, flat constant:
``|R(r)^T R(s)| <= C eps |r| |s|`` (a difference dropped from the left side) gets "holds, C = 1277",
though the left side stays near sqrt(d) while the right side vanishes with r and s. No sample of
bounded radius meets the supremum; a ray does.

Along a ray the tightest instances of each assignment are shrunk toward 0 (``Sampler.toward_zero``: only
hypotheses that contain every multiple in (0, 1] of their instances, such as a norm range starting at 0,
take part; all of them together, then each alone), by the factors 1, 1/2, ..., 1/65536. An instance on
the ray is an instance of the claim: its samplers' hypothesis holds by construction and its ``assume``
lines are re-checked. The constant is unbounded there when lhs / rhs rises as a power of the shrinking
factor, and keeps its rate: a log-log slope above ``GROWTH_SLOPE`` over the whole ray and over its far
third, the far third's at least ``PERSISTS`` times the near third's, and ``RISE`` times its value at
factor 1 or more. A ratio like a / (f u + v) (a part of the right side the ray does not shrink) rises
for a while and levels off at a / v: a finite constant, whose slope decays along the ray; that is not
read as unbounded. Every point's left side must lie ``RESOLVED`` times beyond its rounding allowance (a
left side that sinks into rounding while the right side vanishes would make a rise out of rounding); the
line is read from factor 1 to its last resolved point. The far end is then evaluated again, at 60
digits where the check's functions have a meaning there, else on the one-instance path (and, for the
user's code, on a second floating-point path: the smaller ratio counts), and must show the rise again.

Not judged along rays: code computing below float64 (its rounding sets a floor under the left side the
ray would run into) and constants the statement chooses existentially (``chosen``: another choice may
bound the ray)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ...checks.compiled import Compiled
from ...provers import precise
from ...registry import Verdict
from ..context import CPU64
from ..falsify import Candidate
from ..pipeline import Searched, evaluates_user_code, ratio_on_two_paths
from ..result import Outcome, values_json
from ..run import ClaimRun
from ..scoring import broadcast_instances, score_sides
from ..witnesses import ConstantUnboundedAlongRay
from .constant import GROWTH_SLOPE, RESOLVED_RATIO, loglog_slope, quantification

FACTORS = tuple(2.0 ** -k for k in range(17))  # 1 .. 1/65536: almost five decades of the radius
PROBED = 2  # tightest instances per assignment and relation shrunk
MAX_RAYS = 32  # rays per claim at most (each costs one evaluation of len(FACTORS) instances)
RESOLVED = 1e3  # a left side at least this many times its rounding allowance, at every point used
RISE = 10.0  # the ratio at the far end at least this many times its value at factor 1
MIN_POINTS = 9  # resolved points (from factor 1 on, without a gap) for a line to be read: thirds of 3 or more
PERSISTS = 0.8  # the far third's slope at least this fraction of the near third's: a power law, not a levelling


@dataclass
class Rays:
    """What the rays found: the refutation one makes, if any, and per relation the largest resolved ratio
    met on a ray and where (an admissible instance's: a lower estimate of the constant, as the search's)."""

    refutation: Outcome | None = None
    largest: dict[int, tuple[dict, float]] = field(default_factory=dict)
    drawn: int = 0


def along_rays(run: ClaimRun, searched: Searched, texts: list[str], spec) -> Rays:
    """Shrink the tightest instances of every assignment toward 0; stop at the first ray that refutes. The
    rays are drawn in rounds, so that ``MAX_RAYS`` spreads over the sweep: every assignment's tightest
    instance along the joint ray first, then along each input alone, then the second tightest."""
    found = Rays()
    _, chosen = quantification(spec)
    if chosen or searched.precision is not None:
        return found
    work = []
    for j in range(len(texts)):
        for comp, out in searched.outcomes:
            candidates = out.tightest[j][:PROBED] if j < len(out.tightest) else []
            for r, inputs in enumerate(_rays(comp)):
                for c, cand in enumerate(candidates):
                    work.append(((c, r), j, comp, inputs, cand))
    work.sort(key=lambda item: item[0])
    for _, j, comp, inputs, cand in work[:MAX_RAYS]:
        found.drawn += 1
        refutation, line = _rise(run, comp, cand, inputs, j, texts[j])
        if refutation is not None:
            found.refutation = refutation
            return found
        # the user's code reads its ratios on two floating-point paths (``pipeline.ratio_on_two_paths``); the
        # ray evaluates one, so its ratios raise no constant there: the report never overstates one
        if line and not evaluates_user_code(comp):
            top = max(r for _, r in line)
            if top > found.largest.get(j, (None, -math.inf))[1]:
                found.largest[j] = (comp.dims or {}, top)
    return found


def _rays(comp: Compiled) -> list[tuple[str, ...]]:
    """The inputs shrunk together along each ray: every shrinkable one, then each alone."""
    probe = torch.ones(1, dtype=torch.float64)
    names = []
    for name, sampler in comp.givens.items():
        try:
            theta = sampler.init(1, torch.Generator().manual_seed(0), CPU64)
            if sampler.toward_zero(theta, probe) is not None:
                names.append(name)
        except Exception:  # noqa: BLE001 - a sampler that cannot say is not shrunk
            continue
    if not names:
        return []
    return [tuple(names)] + ([(n,) for n in names] if len(names) > 1 else [])


def _shrunk(comp: Compiled, theta: dict, inputs: tuple[str, ...], factors: torch.Tensor) -> dict:
    k = factors.shape[0]
    out = {}
    for name, part in theta.items():
        one = {key: v.detach().to(**CPU64) for key, v in part.items()}
        moved = comp.givens[name].toward_zero(one, factors) if name in inputs else None
        out[name] = moved if moved is not None else {key: v.expand(k, *v.shape[1:]).clone() for key, v in one.items()}
    return out


def _rise(run: ClaimRun, comp: Compiled, cand: Candidate, inputs: tuple[str, ...], j: int,
          text: str) -> tuple[Outcome | None, list[tuple[float, float]]]:
    """The refutation the ray makes, if any, and its line: (factor, ratio) from factor 1 to its last
    resolved, admissible point."""
    factors = torch.tensor(FACTORS, dtype=torch.float64)
    theta = _shrunk(comp, cand.theta, inputs, factors)
    try:
        with torch.no_grad():
            sides = comp.evaluate(theta, CPU64)
            sc = score_sides(sides, run.tol, torch.float64)
    except Exception:  # noqa: BLE001 - a ray the check cannot evaluate says nothing
        return None, []
    if sc.ratio[j] is None:
        return None, []
    resolved = _resolved(sides, sc, j)
    line: list[tuple[float, float]] = []
    for k, f in enumerate(FACTORS):
        r = float(sc.ratio[j][k])
        if not (bool(sc.assume_ok[k]) and bool(resolved[k]) and math.isfinite(r) and r > RESOLVED_RATIO):
            break  # the line is read from factor 1 on, without a gap
        line.append((f, r))
    if len(line) < MIN_POINTS:
        return None, line
    xs = [-math.log(f) for f, _ in line]
    ys = [math.log(r) for _, r in line]
    slope = loglog_slope(xs, ys)
    third = len(line) // 3
    near, late = loglog_slope(xs[:third], ys[:third]), loglog_slope(xs[-third:], ys[-third:])
    if not (slope > GROWTH_SLOPE and late > GROWTH_SLOPE and late >= PERSISTS * near
            and line[-1][1] >= RISE * line[0][1]):
        return None, line
    end = len(line) - 1
    again, how = _again(run, comp, theta, end, j)
    if again is None or not again >= RISE * line[0][1]:
        run.tally.rounding_candidates.append(
            f"`{text}` rose along a ray toward 0 from {line[0][1]:.3g} to {line[-1][1]:.3g}, but {how}")
        return None, line[:1]
    dims = comp.dims or {}
    message = (f"the smallest admissible constant of `{text}` is infinite at {dims or 'the fixed size'}: "
               f"shrinking {', '.join(inputs)} of one instance toward 0 (a multiple of an instance of "
               f"{'their hypotheses' if len(inputs) > 1 else 'its hypothesis'}, its assumptions re-checked), "
               f"lhs/rhs rises from {line[0][1]:.4g} at factor 1 to {line[-1][1]:.4g} at factor "
               f"1/{round(1 / line[-1][0])} (log-log slope {slope:.2f}: {near:.2f} over the near third, "
               f"{late:.2f} over the far third); {how}")
    witness = ConstantUnboundedAlongRay(text, tuple(({"factor": f}, r) for f, r in line), slope, dims, inputs, how,
                                        values_json(_one(sides, end)))
    return Outcome(Verdict.refuted, message, again, (witness,)), line


def _resolved(sides, sc, j: int) -> torch.Tensor:
    """(B,) whether the entry that makes each instance's ratio has its left side ``RESOLVED`` times beyond
    the rounding allowance the ratio forgives (``scoring.relation_terms``)."""
    rel, lhs, rhs = list(sides.relation_sides())[j]
    if rel.op in (">=", ">"):
        lhs, rhs = rhs, lhs
    lhs, rhs = broadcast_instances(lhs, rhs)
    b = sc.tol.shape[0]
    l, r = lhs.reshape(b, -1).to(torch.float64), rhs.reshape(b, -1).to(torch.float64)
    allowance = sc.tol.to(torch.float64).unsqueeze(1) * (1 + l.abs() + r.abs())
    ratio = torch.where(r > 0, (l - allowance) / r.clamp_min(1e-300), torch.full_like(l, -math.inf))
    at = ratio.argmax(1, keepdim=True)
    return (l.gather(1, at) >= RESOLVED * allowance.gather(1, at)).squeeze(1)


def _one(sides, k: int) -> dict:
    return {n: (v[k: k + 1] if isinstance(v, torch.Tensor) else {a: x[k: k + 1] for a, x in v.items()})
            for n, v in sides.values.items()}


def _again(run: ClaimRun, comp: Compiled, theta: dict, k: int, j: int) -> tuple[float | None, str]:
    """The far end's ratio evaluated again, and how: at 60 digits where the relation has a meaning there,
    else on the one-instance float64 path (the smaller of two floating-point paths for the user's code)."""
    one = {n: {key: v[k: k + 1] for key, v in part.items()} for n, part in theta.items()}
    try:
        with torch.no_grad():
            sides = comp.evaluate_one(one, 0, CPU64)
        scored = score_sides(sides, run.tol, torch.float64)
        if not bool(scored.assume_ok[0]):
            return None, "on the one-instance float64 path the far end is not an admissible instance"
        exact: list[float] = []

        def ratio(left, right) -> bool:
            exact.extend(float(a / b) for a, b in zip(left, right) if b > 0)
            return True

        if precise.judge_signs(comp, sides, j, ratio) and exact:
            r = max(exact)
            return r, f"at {precise.DIGITS} digits the far end's ratio is {r:.4g}"
        if evaluates_user_code(comp):
            r, admissible = ratio_on_two_paths(run, comp, one, j)
            path = "the smaller of two floating-point paths of the user's code"
        else:
            r, admissible = float(scored.ratio[j][0]), True
            path = "the one-instance float64 path"
    except Exception as exc:  # noqa: BLE001 - the far end cannot be evaluated again: no refutation
        return None, f"the far end could not be evaluated again ({type(exc).__name__})"
    if not admissible or not math.isfinite(r):
        return None, f"on {path} the far end is not an admissible instance"
    return r, f"on {path} the far end's ratio is {r:.4g}"

