"""Order claims: the measured order of a quantity (log-log slope over a geometric parameter sequence)
against the claimed order; with a sweep, at every assignment, and the O(.) uniform along the sweep."""

from __future__ import annotations

import dataclasses
import math

import torch

from ...checks.compiled import Compiled
from ...checks.precision import injected_rounding, lowest, name
from ...checks.roles import in_float64
from ...registry import Verdict
from ..evidence import AssignmentOrder, OrderConstantGrowth, OrderEstimate, OrderRefutation
from ..result import Outcome
from ..run import ClaimRun
from ..rounding import NOISE_FACTOR
from ..scoring import lower_precision, score_sides
from .constant import growth_in_every_choice, loglog_slope, quantification

__all__ = ["OrderJudge", "loglog_slope", "orders_text"]

FLOOR = 1e-13  # a quantity below this at some value is at the rounding level: faster than any order
ROUNDING_TRIES = 3  # injections of rounding per instance and value, where the code computes below float64


@dataclasses.dataclass(frozen=True)
class _Measured:
    """One assignment of the other sweep variables: the quantity (and baseline) of the same n instances
    at every value of the parameter, (n, J); NaN rows lie outside the assumptions at some value."""

    dims: dict
    quantity: torch.Tensor
    baseline: torch.Tensor | None
    # where the code computes below float64: (n, J) the quantity's rounding level at that precision, measured
    # (``_rounding_level``), and the precision; zeros and float64 otherwise
    floor: torch.Tensor | None = None
    precision: torch.dtype = torch.float64


@dataclasses.dataclass(frozen=True)
class _Judged:
    """An assignment with usable instances: their slopes, their quantities and the leading constant."""

    dims: dict
    slopes: list[float]
    quantity: torch.Tensor
    lead: float


class OrderJudge:
    """The quantity on the same instances at every value of the parameter, at every assignment of the
    other sweep variables (the same random directions everywhere), and the median per-instance slope
    against the claimed order. The claimed order must hold at each assignment, and where there are
    several, the leading constant (the largest quantity / param^claimed) must stay bounded along them,
    quantified as ``check.constant`` says (one constant chosen before the data by default): an O(eps^2)
    "uniformly in L" is an O with one constant. A baseline of the claimed order (at every assignment, its
    leading constant bounded alike) makes the claim vacuous."""

    def judge(self, run: ClaimRun) -> Outcome:
        check = run.compiled.check
        spec = check.order
        # the registry model checked the fields (>= 3 positive values, direction zero|infinity)
        param, claimed = spec.param, float(spec.claimed)
        values = [float(v) for v in spec.values]
        direction, slack, exact = spec.resolved_direction(), float(spec.tol), spec.exact
        n = max(4, run.profile.instances // 8)
        xs = [math.log(v) for v in values]
        per = len(values)
        assignments = run.compiled.assignments
        measured = [_series(run, assignments[k:k + per], param, n) for k in range(0, len(assignments), per)]
        run.instances = n * len(assignments)
        judged = []
        for m in measured:
            qs = m.quantity
            above = qs > FLOOR if m.floor is None else qs > torch.clamp(m.floor, min=FLOOR)
            usable = ~torch.isnan(qs).any(1) & above.all(1) & torch.isfinite(qs).all(1)
            if bool(usable.any()):
                slopes = [loglog_slope(xs, [math.log(float(y)) for y in row]) for row in qs[usable]]
                lead = float((qs[usable] / torch.tensor(values, dtype=qs.dtype, device=qs.device) ** claimed).amax())
                judged.append(_Judged(m.dims, slopes, qs[usable], lead))
        if not any(bool((~torch.isnan(m.quantity).any(1)).any()) for m in measured):
            return Outcome(Verdict.vacuous, f"vacuous: none of the {n} instances satisfies the assumptions at every "
                           f"value of {param}; there is nothing for the order to be measured on", None,
                           (OrderEstimate(claimed),))
        low = [m for m in measured if m.floor is not None]
        if not judged and low:
            # at a lower precision the quantity sinks into the code's own rounding: a measured order there
            # would be that of the rounding, and "faster than any order" would be a verdict rounding made
            at = name(lowest(m.precision for m in low))
            return Outcome(Verdict.inconclusive, (
                f"inconclusive at {at} precision: at some value of {param}, every instance's quantity lies within "
                f"the rounding level of the code under test ({at} rounding injected into its results, or the code "
                f"run on float64 arguments, moves the quantity by as much as "
                f"{max(float(m.floor.nan_to_num().amax()) for m in low) / NOISE_FACTOR:.3g}); "
                f"the order cannot be measured at this precision"), None, (OrderEstimate(claimed),))
        if not judged:
            return Outcome(Verdict.holds, f"quantity below {FLOOR:g} at every value: faster than any order", None,
                           (OrderEstimate(claimed),))

        def bad(slopes: list[float]) -> bool:
            if direction == "zero":
                return min(slopes) < claimed - slack or (exact and max(slopes) > claimed + slack)
            return max(slopes) > claimed + slack or (exact and min(slopes) < claimed - slack)

        failing = next((j for j in judged if bad(j.slopes)), None)
        # the assignment the verdict rests on: the first that fails, or else the one with the worst instance
        rests = failing or max(judged, key=lambda j: _badness(j.slopes, claimed, direction, exact))
        slopes = rests.slopes
        median = sorted(slopes)[len(slopes) // 2]
        lead = max(j.lead for j in judged)
        # the instance the verdict rests on: the slowest order towards 0, the fastest growth towards infinity,
        # and for an exact order the one farthest from the claim on either side
        worst = _worst(slopes, claimed, direction, exact)
        shown = [worst] + [i for i in range(min(3, len(slopes))) if i != worst][:2]
        # error against the parameter of the worst instance and two others, for the plot
        first = rests.quantity[shown].tolist()
        by_assignment = tuple(AssignmentOrder(j.dims, min(j.slopes), sorted(j.slopes)[len(j.slopes) // 2],
                                              max(j.slopes), j.lead) for j in judged) if len(measured) > 1 else ()
        estimate = OrderEstimate(claimed, param, tuple(values), direction, min(slopes), median, max(slopes), lead, first,
                                 exact=exact, tolerance=slack, measured_worst=slopes[worst],
                                 series_slopes=tuple(slopes[i] for i in shown), by_assignment=by_assignment)
        rel = "as" if exact else ("at least as fast as" if direction == "zero" else "no faster than")
        where = f" at {rests.dims}" if len(measured) > 1 else ""
        if failing is not None:
            return Outcome(Verdict.refuted, f"measured order {_orders(slopes, slopes[worst])} vs claimed {claimed:g} "
                           f"as {param} -> {'0' if direction == 'zero' else 'inf'}{where}", median,
                           (estimate, OrderRefutation(run.seed, param, tuple(values), tuple(slopes), first,
                                                      rests.dims if where else None)))
        growth = _lead_growth([(j.dims, j.lead) for j in judged], check.constant)
        if growth is not None:
            slope, line, along = growth
            return Outcome(Verdict.refuted, f"the order {claimed:g} holds at every assignment, but not uniformly: its "
                           f"leading constant grows along {along} (log-log slope {slope:.2f}): {line[0][1]:.3g} at "
                           f"{line[0][0]} -> {line[-1][1]:.3g} at {line[-1][0]}", median,
                           (estimate, OrderConstantGrowth(f"{check.assert_} <= C {param}^{claimed:g}", tuple(line),
                                                          slope, run.seed, param, tuple(values), along)))
        message = (f"measured order {_orders(slopes, slopes[worst])} {rel} claimed {claimed:g}; leading constant "
                   f"<= {lead:.4g}" + (f" (bounded along the sweep, {len(judged)} assignments; worst at {rests.dims})"
                                       if len(judged) > 1 else ""))
        bases = [(m.dims, m.baseline) for m in measured if m.baseline is not None]
        if not bases:
            return Outcome(Verdict.holds, message, median, (estimate,))
        base, leads = _baseline_order(bases, values, xs, claimed, direction)
        as_good = base >= claimed - slack if direction == "zero" else base <= claimed + slack
        uniform = None
        if as_good and len(bases) > 1:  # the baseline's leading constant bounded along the sweep, as the claim's
            uniform = as_good = _lead_growth(leads, check.constant) is None
        estimate = dataclasses.replace(estimate, baseline=(check.baseline, base), baseline_uniform=uniform)
        if as_good:
            # vacuity by order: a trivial baseline (e.g. the distance of each of two maps to a trivial third
            # one) that already has the claimed order — or a better one — makes the claimed order say nothing
            return Outcome(Verdict.vacuous, f"vacuous by order: the trivial baseline {check.baseline} already has "
                           f"order {base:.3f} (measured), the claimed order is {claimed:g} (measured {median:.3f}); "
                           "the bound says no more than the baseline", median, (estimate,))
        return Outcome(Verdict.holds, message, median, (estimate,))


def orders_text(worst: float, median: float, low: float, high: float) -> str:
    """The measured order as the CLI and the report both word it: the worst instance's first."""
    return f"{worst:.3f} at the worst instance (median {median:.3f}, range {low:.3f} to {high:.3f})"


def _orders(slopes: list[float], worst: float) -> str:
    return orders_text(worst, sorted(slopes)[len(slopes) // 2], min(slopes), max(slopes))


def _worst(slopes: list[float], claimed: float, direction: str, exact: bool) -> int:
    """The index of the slope the verdict rests on."""
    if exact:
        return max(range(len(slopes)), key=lambda i: abs(slopes[i] - claimed))
    return slopes.index(min(slopes) if direction == "zero" else max(slopes))


def _badness(slopes: list[float], claimed: float, direction: str, exact: bool) -> float:
    """How far an assignment's worst slope lies on the wrong side of the claim (larger: worse)."""
    s = slopes[_worst(slopes, claimed, direction, exact)]
    return abs(s - claimed) if exact else (claimed - s if direction == "zero" else s - claimed)


def _series(run: ClaimRun, comps: tuple[Compiled, ...], param: str, n: int) -> _Measured:
    """The quantity (and the baseline) of n instances at every value of the parameter (one evaluator per
    value), at one assignment of the other sweep variables; the same random directions at every value and
    assignment."""
    series, base_series, floors = [], [], []
    found = torch.float64
    for comp in comps:
        actx = run.stream(0)  # the same directions for every value and assignment
        theta = comp.init_theta(n, actx.gen, actx)
        with torch.no_grad():
            sides = comp.evaluate(theta, actx)
            ok = score_sides(sides, run.compiled.check.tol, run.ctx.dtype).assume_ok if comp.assumes else None
        # an instance outside the assumptions at some value of the parameter leaves the fit
        q = _magnitude(sides.quantity, n, ok)
        series.append(q)
        if sides.baseline is not None:
            base_series.append(_magnitude(sides.baseline, n, ok))
        if lower_precision(sides, torch.float64):
            found = lowest([found, sides.precision])
            floors.append(_rounding_level(comp, theta, q, n, actx, run.seed))
        else:
            floors.append(torch.zeros_like(q))
    dims = {k: v for k, v in comps[0].dims.items() if k != param}
    low = found != torch.float64
    return _Measured(dims, torch.stack(series, 1), torch.stack(base_series, 1) if base_series else None,
                     torch.stack(floors, 1) if low else None, found)


def _rounding_level(comp: Compiled, theta: dict, q: torch.Tensor, n: int, ctx, seed: int) -> torch.Tensor:
    """(n,) NOISE_FACTOR times the largest change of each instance's quantity when the results of the code
    that computes below float64 carry one unit of roundoff of error more (``precision.injected_rounding``),
    or when bound code runs on float64 arguments (``roles.in_float64``): below it, the quantity is the code's
    rounding, not the quantity the claim is about."""
    gen = torch.Generator().manual_seed(seed)
    spread = torch.zeros_like(q)

    def moved(again: torch.Tensor | None, i: int) -> None:
        if again is not None:
            change = (again.reshape(-1).abs().amax() - q[i]).abs()
            spread[i] = torch.maximum(spread[i], torch.nan_to_num(change, nan=math.inf))

    for i in range(n):
        for _ in range(ROUNDING_TRIES):
            with torch.no_grad(), injected_rounding(gen):
                moved(comp.evaluate_one(theta, i, ctx).quantity, i)
        # and the same instance with bound code run on float64 arguments: what the declared precision costs,
        # including rounding inside the code that no perturbation of its results reproduces (an inner product
        # of two unit vectors rounded to bfloat16 next to 1, then arccos)
        try:
            with torch.no_grad(), in_float64():
                moved(comp.evaluate_one(theta, i, ctx).quantity, i)
        except Exception:  # noqa: BLE001 - code that fails in float64 leaves the injected measure
            pass
    return NOISE_FACTOR * spread


def _lead_growth(leads: list[tuple[dict, float]], spec) -> tuple[float, list, str] | None:
    """Growth of the leading constant along the sweep (None with fewer than three assignments or when
    bounded), quantified as ``check.constant`` says."""
    if len(leads) < 3:
        return None
    depends, chosen = quantification(spec)
    entry: dict = {}
    failure = growth_in_every_choice([(d, lead) for d, lead in leads if lead > 0], depends, chosen, entry, [])
    if failure is None:
        return None
    slope, line = failure
    return slope, line, entry.get("growth_along", "the sweep")


def _magnitude(x: torch.Tensor, n: int, ok: torch.Tensor | None) -> torch.Tensor:
    """(n,) max |x| per instance; NaN where the instance is outside the assumptions."""
    q = x.reshape(n, -1).abs().amax(1)
    return q if ok is None else torch.where(ok, q, torch.full_like(q, math.nan))


def _baseline_order(bases: list[tuple[dict, torch.Tensor]], values: list[float], xs: list[float], claimed: float,
                    direction: str) -> tuple[float, list[tuple[dict, float]]]:
    """The baseline's order, measured the same way as the quantity's (median log-log slope), not compared
    at one point: the slowest towards 0 (the fastest towards infinity) over the assignments, so that it is
    as good as the claim only where it is at every one (a baseline vanishing at every value is of every
    order); and its leading constant per assignment."""
    medians, leads = [], []
    for dims, bs in bases:
        usable = (bs > 1e-300).all(1) & torch.isfinite(bs).all(1)
        if not bool(usable.any()):
            medians.append(math.inf if direction == "zero" else -math.inf)
            continue
        slopes = sorted(loglog_slope(xs, [math.log(float(y)) for y in row]) for row in bs[usable])
        medians.append(slopes[len(slopes) // 2])
        leads.append((dims, float((bs[usable] / torch.tensor(values, dtype=bs.dtype, device=bs.device) ** claimed).amax())))
    return (min(medians) if direction == "zero" else max(medians)), leads
