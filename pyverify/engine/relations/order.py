"""Order claims: the measured order of a quantity (log-log slope over a geometric parameter sequence)
against the claimed order."""

from __future__ import annotations

import dataclasses
import math

import torch

from ...registry import Verdict
from ..evidence import OrderEstimate, OrderRefutation
from ..result import Outcome
from ..run import ClaimRun
from ..scoring import score_sides

FLOOR = 1e-13  # a quantity below this at every value is of every order


def loglog_slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


class OrderJudge:
    """The quantity on the same instances at every value of the parameter (one assignment each), and the
    median per-instance slope against the claimed order; a baseline of the claimed order makes it vacuous."""

    def judge(self, run: ClaimRun) -> Outcome:
        compiled, ctx = run.compiled, run.ctx
        check = compiled.check
        spec = check.order
        # the registry model checked the fields (>= 3 positive values, direction zero|infinity)
        param, claimed = spec.param, float(spec.claimed)
        values = [float(v) for v in spec.values]
        direction, slack, exact = spec.resolved_direction(), float(spec.tol), spec.exact
        n = max(4, run.profile.instances // 8)
        series, base_series = [], []
        # one assignment per value of the parameter, at the smallest sweep assignment of the other variables
        for comp in compiled.assignments:
            actx = run.stream(0)  # the same directions for every value
            theta = comp.init_theta(n, actx.gen, actx)
            with torch.no_grad():
                sides = comp.evaluate(theta, actx)
                q = sides.quantity
                ok = score_sides(sides, check.tol, ctx.dtype).assume_ok if comp.assumes else None
            # an instance outside the assumptions at some value of the parameter leaves the fit
            series.append(_magnitude(q, n, ok))
            if sides.baseline is not None:
                base_series.append(_magnitude(sides.baseline, n, ok))
        qs = torch.stack(series, 1)  # (n, J)
        run.instances = n * len(values)
        admissible = ~torch.isnan(qs).any(1)  # NaN: outside the assumptions at some value of the parameter
        if not bool(admissible.any()):
            return Outcome(Verdict.vacuous, f"vacuous: none of the {n} instances satisfies the assumptions at every "
                           f"value of {param}; there is nothing for the order to be measured on", None,
                           (OrderEstimate(claimed),))
        usable = (qs > FLOOR).all(1) & torch.isfinite(qs).all(1)
        if not bool(usable.any()):
            return Outcome(Verdict.holds, f"quantity below {FLOOR:g} at every value: faster than any order", None,
                           (OrderEstimate(claimed),))
        xs = [math.log(v) for v in values]
        slopes = [loglog_slope(xs, [math.log(float(y)) for y in qs[i]]) for i in range(n) if bool(usable[i])]
        lead = float((qs[usable] / torch.tensor(values, dtype=qs.dtype, device=qs.device) ** claimed).amax())
        measured = sorted(slopes)[len(slopes) // 2]
        # the instance the verdict rests on: the slowest order towards 0, the fastest growth towards infinity,
        # and for an exact order the one farthest from the claim on either side
        worst = _worst(slopes, claimed, direction, exact)
        shown = [worst] + [i for i in range(min(3, len(slopes))) if i != worst][:2]
        # error against the parameter of the worst instance and two others, for the plot
        first = qs[usable][shown].tolist()
        estimate = OrderEstimate(claimed, param, tuple(values), direction, min(slopes), measured, max(slopes), lead, first,
                                 exact=exact, tolerance=slack, measured_worst=slopes[worst],
                                 series_slopes=tuple(slopes[i] for i in shown))
        if direction == "zero":
            bad = min(slopes) < claimed - slack or (exact and max(slopes) > claimed + slack)
        else:
            bad = max(slopes) > claimed + slack or (exact and min(slopes) < claimed - slack)
        rel = "as" if exact else ("at least as fast as" if direction == "zero" else "no faster than")
        if bad:
            return Outcome(Verdict.refuted, f"measured order {_orders(slopes, slopes[worst])} vs claimed {claimed:g} "
                           f"as {param} -> {'0' if direction == 'zero' else 'inf'}", measured,
                           (estimate, OrderRefutation(run.seed, param, tuple(values), tuple(slopes), first)))
        message = f"measured order {_orders(slopes, slopes[worst])} {rel} claimed {claimed:g}; leading constant <= {lead:.4g}"
        if not base_series:
            return Outcome(Verdict.holds, message, measured, (estimate,))
        base = _baseline_order(torch.stack(base_series, 1), xs, direction)
        estimate = dataclasses.replace(estimate, baseline=(check.baseline, base))
        as_good = base >= claimed - slack if direction == "zero" else base <= claimed + slack
        if as_good:
            # vacuity by order: a trivial baseline (e.g. the distance of each of two maps to a trivial third
            # one) that already has the claimed order — or a better one — makes the claimed order say nothing
            return Outcome(Verdict.vacuous, f"vacuous by order: the trivial baseline {check.baseline} already has "
                           f"order {base:.3f} (measured), the claimed order is {claimed:g} (measured {measured:.3f}); "
                           "the bound says no more than the baseline", measured, (estimate,))
        return Outcome(Verdict.holds, message, measured, (estimate,))


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


def _magnitude(x: torch.Tensor, n: int, ok: torch.Tensor | None) -> torch.Tensor:
    """(n,) max |x| per instance; NaN where the instance is outside the assumptions."""
    q = x.reshape(n, -1).abs().amax(1)
    return q if ok is None else torch.where(ok, q, torch.full_like(q, math.nan))


def _baseline_order(bs: torch.Tensor, xs: list[float], direction: str) -> float:
    """The baseline's order, measured the same way as the quantity's (median log-log slope), not compared
    at one point; a baseline vanishing at every value is of every order."""
    usable = (bs > 1e-300).all(1) & torch.isfinite(bs).all(1)
    if not bool(usable.any()):
        return math.inf if direction == "zero" else -math.inf
    slopes = sorted(loglog_slope(xs, [math.log(float(y)) for y in row]) for row in bs[usable])
    return slopes[len(slopes) // 2]
