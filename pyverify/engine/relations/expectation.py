"""Expectation claims: Monte-Carlo means with standard errors, z-tests corrected for multiple testing
(Holm), the smallest effect the sample size could detect, and a rejection re-run on fresh samples
before it counts.

Every (sweep assignment, instance, component) is one test; a refutation needs a Holm rejection at the
family-wise level ``FAMILY_ALPHA`` confirmed on fresh samples. A strict comparison (``E(a) < b``: one
estimator beats another) holds only when the claimed difference is seen, significantly, at every
instance; otherwise it is inconclusive (``not-checkable``, with the effect the sample size could
detect) — never ``holds`` on a test that could not have failed."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import torch
from scipy.stats import norm

from ... import limits
from ...checks.compiled import CheckError, Compiled, sampler_elements
from ...checks.precision import lowest, name
from ...checks.roles import in_float64
from ...registry import Verdict
from ..context import NumericContext
from ..evidence import Inconclusive, MonteCarloAgreement, MonteCarloRefutation
from ..result import Outcome, values_json
from ..run import ClaimRun
from ..scoring import PRECISION_FACTOR, lower_precision, score_sides, unit_roundoff

FAMILY_ALPHA = 1e-3  # probability of a false refutation over all tests of one claim
CONFIRM_FACTOR = 4  # a rejection is re-run on this many times the samples
# where code below float64 is evaluated, the mean may differ from the claimed value by this many times the
# shift its precision makes in that difference (measured on the same samples on float64 arguments)
DRIFT_FACTOR = 2


@dataclass
class MCRun:
    """Monte-Carlo statistics of one sweep assignment: per instance (b) and component (c)."""

    comp: Compiled
    theta: dict
    ctx: NumericContext  # with the stream the samples were drawn from (a confirmation draws on from it)
    mean: torch.Tensor  # (b, c)
    se: torch.Tensor  # (b, c)
    claimed: torch.Tensor  # (b, c)
    op: str
    samples: int
    # (b, c) the largest bias the rounding of code below float64 can give the mean (``_rounding_bias``);
    # zeros where everything computed in float64
    bias: torch.Tensor | None = None
    precision: torch.dtype = torch.float64
    asked: int | None = None  # the samples the check asked for, where code vmap cannot batch drew fewer

    def allowed(self) -> torch.Tensor:
        """(b, c) the rounding bias not counted against the mean: 0 where everything computed in float64."""
        return self.bias if self.bias is not None else torch.zeros_like(self.mean)

    def capped(self) -> str:
        """The sentence a message ends with where fewer samples were drawn than asked for."""
        if self.asked is None:
            return ""
        return (f"; on {self.samples} of the {self.asked} samples asked for per instance: code vmap cannot batch is "
                f"evaluated one sample at a time, at most {UNBATCHED_DRAWS} draws")

    def violation_z(self) -> torch.Tensor:
        """(b, c) z-score of the evidence against the relation (large: violated), the mean moved towards the
        claimed value by the rounding bias its precision allows (none in float64)."""
        gap = self.mean - self.claimed
        if self.bias is not None:
            gap = torch.sign(gap) * (gap.abs() - self.bias).clamp_min(0)
        z = gap / _guarded(self.se, self.claimed)
        return z.abs() if self.op == "==" else (z if self.op in ("<=", "<") else -z)

    def p_values(self) -> torch.Tensor:
        z = self.violation_z()
        p = norm.sf(z.cpu().numpy()) * (2 if self.op == "==" else 1)  # SciPy reads host memory
        return torch.as_tensor(p, device=z.device).clamp(max=1.0)


class ExpectationJudge:
    """Monte-Carlo means of each assignment's instances, a multiple-testing correction, and a rejection
    confirmed on fresh samples before it refutes."""

    def judge(self, run: ClaimRun) -> Outcome:
        check = run.compiled.check
        s = int(check.samples or run.profile.samples)
        b = run.profile.mc_instances
        runs = []
        outside = None
        for k, comp in enumerate(run.compiled.assignments):
            ctx = run.stream(k)
            theta = comp.init_theta(b, ctx.gen, ctx, degenerate=1)
            kept = b
            if comp.assumes:  # the assumptions select the instances the expectation is claimed for
                theta, kept = _admissible(comp, theta, b, ctx, check.tol)
                outside = (outside or 0) + b - kept
                if not kept:
                    continue
            runs.append(_mc_run(comp, theta, kept, s, ctx))
            run.instances += kept * s
        run.tally.instances_outside_assumptions = outside
        if not runs:
            return Outcome(Verdict.vacuous, f"vacuous: none of the {b * len(run.compiled.assignments)} instances "
                           "drawn satisfies the assumptions; no expectation was estimated")
        tests = sum(r.mean.numel() for r in runs)
        two_sided = runs[0].op == "=="
        z_crit = float(norm.isf(FAMILY_ALPHA / tests / (2 if two_sided else 1)))  # Bonferroni: Holm's first step
        # the effect each instance's test could detect, relative to its claimed value: the test could have failed
        # wherever that is below the claimed value itself. An instance whose claimed value is near 0 (a variance
        # of 4e-5 where x is nearly 0) resolves no relative effect, but does not make the others' tests blind:
        # the power is that of the instances that have it, and the claim is not checkable only where none has.
        # Below float64 the rounding bias the precision allows adds to it: no sample size resolves an effect
        # smaller than what the precision is forgiven (a bfloat16 logit inside a claimed
        # variance that cancels to 0.0027 is forgiven a third of it)
        per_instance = torch.cat([_per_instance_relative(z_crit * r.se + r.allowed(), r.claimed) for r in runs])
        by_precision = bool(torch.cat([_per_instance_relative(r.allowed(), r.claimed) for r in runs]).gt(1).all())
        remedy = "code in a higher precision" if by_precision else "more `samples`"
        limited_by = ", with the rounding bias its precision allows," if any(r.bias is not None for r in runs) else ""
        gaps = torch.cat([_per_instance_relative((r.mean - r.claimed).abs(), r.claimed) for r in runs])
        has_power = per_instance <= 1
        if not bool(has_power.any()):
            has_power = torch.ones_like(has_power)
        detectable, worst_rel = float(per_instance[has_power].amax()), float(gaps[has_power].amax())
        blind = int((~has_power).sum())
        max_z = max(float(r.violation_z().amax()) for r in runs)
        agreement = MonteCarloAgreement(max_z, z_crit, tests, detectable)
        rejected = _holm(torch.cat([r.p_values().reshape(-1) for r in runs]), FAMILY_ALPHA)
        if bool(rejected.any()):
            k, i = _most_significant(runs)
            refutation = _confirm(run, runs[k], i, z_crit, agreement)
            if refutation is not None:
                return refutation
        if runs[0].op in ("<", ">"):
            # the claim is a strict improvement: every instance must show it (an intersection-union test,
            # each at level FAMILY_ALPHA, so no correction is needed)
            z_better = min(float((-r.violation_z()).amin()) for r in runs)
            needed = float(norm.isf(FAMILY_ALPHA))
            if z_better < needed:
                return Outcome(Verdict.not_checkable, (
                    f"inconclusive: the sample size could detect only effects >= {detectable:.3g} (relative to "
                    f"the claimed value); the claimed strict difference is seen at only {z_better:.2f} "
                    f"standard errors somewhere (needs {needed:.2f}); more `samples` decide it" + runs[0].capped()), worst_rel,
                    (agreement, Inconclusive(detectable, "more `samples`")))
        if detectable > 1:
            return Outcome(Verdict.not_checkable, (
                f"inconclusive: the sample size{limited_by} could detect only effects >= {detectable:.3g} times "
                "the claimed value; the test could not have failed" + _precision_note(runs)
                + runs[0].capped()), worst_rel, (agreement, Inconclusive(detectable, remedy)))
        return Outcome(Verdict.holds, (
            f"Monte-Carlo agrees within {max(max_z, 0):.2f} standard errors (Holm over {tests} tests, "
            f"threshold {z_crit:.2f}); max relative gap {worst_rel:.3g}; detectable effect {detectable:.3g}"
            + (f" (at {per_instance.numel() - blind} of the {per_instance.numel()} instances; at {blind} the sample "
               "size" + limited_by + " resolves no effect of the claimed value's own size, which lies near 0 there)" if blind else "")
            + _precision_note(runs) + runs[0].capped()), worst_rel, (agreement,))


def _confirm(run: ClaimRun, run_: MCRun, i: int, z_crit: float, agreement: MonteCarloAgreement) -> Outcome | None:
    """Re-run instance i on fresh samples; the rejection counts only if it is significant again."""
    comp = run_.comp
    one = {n: {kk: v[i: i + 1] for kk, v in t.items()} for n, t in run_.theta.items()}
    again = _mc_run(comp, one, 1, CONFIRM_FACTOR * run_.samples, run_.ctx)
    z2 = float(again.violation_z().amax())
    if z2 <= z_crit:
        run.tally.unconfirmed_rejections = 1
        return None
    message = (f"Monte-Carlo mean differs from the claimed value by {z2:.1f} standard errors "
               f"({again.samples} fresh samples; Holm-corrected threshold {z_crit:.2f})" + _precision_note([again])
               + again.capped())
    witness = MonteCarloRefutation(run.seed, comp.dims, i, again.mean[0].tolist(), again.claimed[0].tolist(),
                                   again.se[0].tolist(), again.samples)
    refutation = Outcome(Verdict.refuted, message, _relative((again.mean - again.claimed).abs(), again.claimed),
                         (agreement, witness))
    # confirmed: recorded before the instance's values are added, so that a failure there cannot lose it
    run.refutation = refutation
    sides = comp.evaluate_one(one, 0, run_.ctx, comp.draw_randoms(1, 2, run_.ctx.gen, run_.ctx))
    return dataclasses.replace(refutation, evidence=(agreement, dataclasses.replace(
        witness, values=values_json(sides.values))))


def _precision_note(runs: list[MCRun]) -> str:
    """Where code computed below float64 in any run, the sentence saying the test judged the mean to the lowest
    such precision, with the largest rounding bias allowed over all runs."""
    low = [r for r in runs if r.bias is not None]
    if not low:
        return ""
    dtype = lowest([r.precision for r in low])
    allowed = max(_relative(r.bias, r.claimed) for r in low)
    return (f"; at {name(dtype)} precision: the code under test computes in {name(dtype)}, and a rounding bias "
            f"of the mean up to {allowed:.3g} (relative to the claimed value) is not counted against it")


def _admissible(comp: Compiled, theta: dict, b: int, ctx: NumericContext, tol: float | None) -> tuple[dict, int]:
    """The instances of ``theta`` that satisfy the check's assumptions (judged on one draw of the random
    hypotheses, which assumptions about the instance do not involve), and how many there are."""
    with torch.no_grad():
        sides = comp.evaluate(theta, ctx, comp.draw_randoms(b, 1, ctx.gen, ctx), keep_samples=True)
        ok = score_sides(sides, tol, ctx.dtype).assume_ok
    keep = ok.nonzero().reshape(-1)
    return {n: {k: v[keep] for k, v in t.items()} for n, t in theta.items()}, int(keep.numel())


def _holm(p: torch.Tensor, alpha: float) -> torch.Tensor:
    """Holm's step-down procedure: bool mask of the rejected hypotheses (family-wise level alpha)."""
    m = p.numel()
    order = torch.argsort(p)
    thresholds = alpha / (m - torch.arange(m, dtype=p.dtype, device=p.device))
    passed = p[order] <= thresholds
    # reject the smallest p-values up to the first one that fails its threshold
    n_reject = int(passed.long().cumprod(0).sum())
    rejected = torch.zeros(m, dtype=torch.bool, device=p.device)
    rejected[order[:n_reject]] = True
    return rejected


def _most_significant(runs: list[MCRun]) -> tuple[int, int]:
    best = max(range(len(runs)), key=lambda k: float(runs[k].violation_z().amax()))
    return best, int(runs[best].violation_z().amax(1).argmax())


def _guarded(se: torch.Tensor, claimed: torch.Tensor) -> torch.Tensor:
    return se + 1e-12 * (1 + claimed.abs())


def _per_instance_relative(x: torch.Tensor, claimed: torch.Tensor) -> torch.Tensor:
    """(b,) max |x| / max |claimed| of each instance (per instance, so zero entries of a claimed matrix do not
    blow up the ratio); absolute where the claimed value is 0 (no scale to be relative to)."""
    scale = claimed.abs().amax(1)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    return x.amax(1) / scale


def _relative(x: torch.Tensor, claimed: torch.Tensor) -> float:
    """The largest relative size over instances (``_per_instance_relative``)."""
    return float(_per_instance_relative(x, claimed).amax())


# the most (instances x samples) of one Monte-Carlo run evaluated one at a time: the default budget's runs (up to 6 x
# 20000 in the shipped registry) and their confirmation on 4x fresh samples fit, a 400000-sample claim (hours one at
# a time) does not
UNBATCHED_DRAWS = 200_000


def _mc_run(comp: Compiled, theta: dict, b: int, s: int, ctx: NumericContext) -> MCRun:
    # samples are drawn in chunks that stay well inside the batch cap (a quarter of it: the evaluation's
    # intermediates are larger than the draws), so a large sample count costs time, not the cap
    per_draw = max(1, sum(sampler_elements(r) for r in comp.randoms.values()))
    chunk = max(1, min(s, 20000, int(limits.BATCH_ELEMENTS.value // (4 * b * per_draw))))
    sums = sq = claimed = absolute = drift = claimed_f64 = None
    asked = None  # the samples asked for, where fewer were drawn
    op = "=="
    total = 0
    found = torch.float64
    size = 1
    while total < s:
        c = min(chunk, s - total)
        randoms = comp.draw_randoms(b, c, ctx.gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx, randoms, keep_samples=True)
        rel, lhs, rhs = sides.relation_sides()[0]
        op = rel.op
        if lhs.dim() < 2:
            raise CheckError("expectation: the left side must be E(...) of the random hypotheses")
        x = lhs.reshape(b, c, -1)
        sums = x.sum(1) if sums is None else sums + x.sum(1)
        sq = (x ** 2).sum(1) if sq is None else sq + (x ** 2).sum(1)
        absolute = x.abs().sum(1) if absolute is None else absolute + x.abs().sum(1)
        if lower_precision(sides, torch.float64):
            # the same samples with bound code on float64 arguments: what the declared precision moves the
            # mean by, rounding inside the code included (an estimator's squared error gains the square of its
            # rounding, which no relative error model of the samples sees), and the claimed value too (a
            # claimed variance exp(2a)(exp(s + 2a) - 1) cancels to 0.0027, so a bfloat16 logit a moves it 17%)
            moved = _on_float64_arguments(comp, theta, ctx, randoms, b, c)
            if moved is not None:
                shift = (x - moved[0]).sum(1)
                drift = shift if drift is None else drift + shift
                claimed_f64 = moved[1]
        total += c
        found = lowest([found, sides.precision])
        size = max(size, x.shape[-1])  # the compared object, one sample's (as in ``scoring.precision_tol``)
        claimed = rhs.reshape(b, -1)
        if comp.unbatchable and b * s > UNBATCHED_DRAWS:
            # one instance and one sample at a time: the test runs on the samples that fit, and says so (its
            # detectable effect is that of the samples it drew)
            asked, s = s, max(total, UNBATCHED_DRAWS // b)
    mean = sums / total
    var = (sq / total - mean ** 2).clamp_min(0) * total / max(total - 1, 1)
    claimed = claimed.expand_as(mean) if claimed.shape != mean.shape else claimed
    bias = None
    if found != torch.float64:
        bias = _rounding_bias(absolute / total, claimed, found, size)
        if drift is not None:
            gap_shift = drift / total - (claimed - claimed_f64.expand_as(claimed))
            bias = torch.maximum(bias, DRIFT_FACTOR * gap_shift.abs())
    return MCRun(comp, theta, ctx, mean, (var / total).sqrt(), claimed, op, total, bias, found, asked)


def _on_float64_arguments(comp: Compiled, theta: dict, ctx: NumericContext, randoms: dict, b: int,
                          c: int) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The samples (b, c, k) and the claimed value (b, k) evaluated again with bound code on float64 arguments
    (``roles.in_float64``); None where that path fails."""
    try:
        with torch.no_grad(), in_float64():
            sides = comp.evaluate(theta, ctx, randoms, keep_samples=True)
        _, lhs, rhs = sides.relation_sides()[0]
        return lhs.reshape(b, c, -1), rhs.reshape(b, -1)
    except Exception:  # noqa: BLE001 - code that cannot run on float64 arguments leaves the error model alone
        return None


def _rounding_bias(mean_abs: torch.Tensor, claimed: torch.Tensor, dtype: torch.dtype, size: int) -> torch.Tensor:
    """(b, c) the bias rounding in ``dtype`` can give a Monte-Carlo mean: each sample carries a relative error
    up to the precision's error model (``scoring.PRECISION_FACTOR`` unit roundoffs, times the square root of
    the evaluated objects' size), so the mean is off by at most that times the mean magnitude of the samples
    (or of the claimed value, where larger). A Monte-Carlo test of float32 or bfloat16 code judges the
    expectation only to that precision: more samples shrink the standard error, never this."""
    return PRECISION_FACTOR * unit_roundoff(dtype) * math.sqrt(size) * torch.maximum(mean_abs, claimed.abs())


