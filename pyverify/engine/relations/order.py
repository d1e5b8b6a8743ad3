"""Order claims: the measured order of a quantity (log-log slope over a geometric parameter sequence)
against the claimed order."""

from __future__ import annotations

import math

import torch

from ...checks.compiled import CheckError, compile_check, sweep
from ...registry import Claim, Verdict
from ..result import Budget, Result, claim_seed
from ..scoring import score_sides


def loglog_slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


def run(claim: Claim, budget: Budget, seed: int, ctx: dict, res: Result, conv: dict[str, str]) -> None:
    """Measured order: the quantity over a geometric sequence of a sweep parameter, log-log slope."""
    check = claim.check
    spec = check.order
    if spec is None:
        raise CheckError("relation: order needs `order: {param, values, claimed}`")
    # the registry model checked the fields (>= 3 positive values, direction zero|infinity)
    param, claimed = spec.param, float(spec.claimed)
    values = [float(v) for v in spec.values]
    direction, slack, exact = spec.resolved_direction(), float(spec.tol), spec.exact
    n = max(4, budget.instances // 8)
    gen_seed = claim_seed(seed, claim.id)
    series, base_series = [], []
    for v in values:
        # the smallest sweep assignment: an order check varies only its own parameter
        comp = compile_check(check, {**sweep(check)[0], param: v}, "order", conv)
        gen = torch.Generator(device="cpu").manual_seed(gen_seed)  # same directions for every value
        theta = comp.init_theta(n, gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx)
            q = sides.quantity
            ok = score_sides(sides, check.tol, ctx["dtype"]).assume_ok if comp.assumes else None
        # an instance outside the assumptions at some value of the parameter leaves the fit
        series.append(_magnitude(q, n, ok))
        if sides.baseline is not None:
            base_series.append(_magnitude(sides.baseline, n, ok))
    qs = torch.stack(series, 1)  # (n, J)
    res.instances = n * len(values)
    floor = 1e-13
    admissible = ~torch.isnan(qs).any(1)  # NaN: outside the assumptions at some value of the parameter
    if not bool(admissible.any()):
        res.verdict = Verdict.vacuous
        res.message = (f"vacuous: none of the {n} instances satisfies the assumptions at every value of {param}; "
                       "there is nothing for the order to be measured on")
        res.details["order"] = {"claimed": claimed, "measured": None}
        return
    usable = (qs > floor).all(1) & torch.isfinite(qs).all(1)
    if not bool(usable.any()):
        res.verdict, res.message = Verdict.holds, f"quantity below {floor:g} at every value: faster than any order"
        res.details["order"] = {"claimed": claimed, "measured": None}
        return
    xs = [math.log(v) for v in values]
    slopes = []
    for i in range(n):
        if bool(usable[i]):
            slopes.append(loglog_slope(xs, [math.log(float(y)) for y in qs[i]]))
    lead = float((qs[usable] / torch.tensor(values, dtype=qs.dtype) ** claimed).amax())
    # the instance the verdict rests on: the slowest order towards 0, the fastest growth towards infinity,
    # and for an exact order the one farthest from the claim on either side
    worst = _worst(slopes, claimed, direction, exact)
    shown = [worst] + [i for i in range(min(3, len(slopes))) if i != worst][:2]
    res.details["order"] = {"param": param, "values": values, "claimed": claimed, "direction": direction,
                            "exact": exact, "tolerance": slack, "measured_worst": slopes[worst],
                            "measured_min": min(slopes), "measured_median": sorted(slopes)[len(slopes) // 2],
                            "measured_max": max(slopes), "leading_constant": lead,
                            # error against the parameter of the worst instance and two others, for the plot
                            "series": qs[usable][shown].tolist(), "series_slopes": [slopes[i] for i in shown]}
    measured = sorted(slopes)[len(slopes) // 2]
    res.worst = measured
    if direction == "zero":
        bad = min(slopes) < claimed - slack
        if exact:
            bad = bad or max(slopes) > claimed + slack
    else:
        bad = max(slopes) > claimed + slack
        if exact:
            bad = bad or min(slopes) < claimed - slack
    rel = "as" if exact else ("at least as fast as" if direction == "zero" else "no faster than")
    if bad:
        res.verdict = Verdict.refuted
        res.message = (f"measured order {_orders(slopes, slopes[worst])} vs claimed {claimed:g} "
                       f"as {param} -> {'0' if direction == 'zero' else 'inf'}")
        res.witness = {"seed": seed, "param": param, "values": values, "slopes": slopes,
                       "series": res.details["order"]["series"]}
    else:
        res.verdict = Verdict.holds
        res.message = f"measured order {_orders(slopes, slopes[worst])} {rel} claimed {claimed:g}; leading constant <= {lead:.4g}"
        if base_series:
            _judge_baseline(res, torch.stack(base_series, 1), xs, claimed, measured, direction, slack, check.baseline)


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


def _judge_baseline(res: Result, bs: torch.Tensor, xs: list[float], claimed: float, measured: float,
                    direction: str, slack: float, text: str) -> None:
    """Vacuity by order: a trivial baseline (e.g. the distance of each of two maps to a trivial third
    one) that already has the claimed order — or a better one — makes the claimed order say nothing.
    The orders are measured the same way (median log-log slope), not compared at one point."""
    usable = (bs > 1e-300).all(1) & torch.isfinite(bs).all(1)
    if not bool(usable.any()):
        # a baseline vanishing at every value is of every order: the claim is no better than it
        base = math.inf if direction == "zero" else -math.inf
    else:
        slopes = sorted(loglog_slope(xs, [math.log(float(y)) for y in row]) for row in bs[usable])
        base = slopes[len(slopes) // 2]
    res.details["order"]["baseline"] = {"expression": text, "measured_median": base}
    as_good = base >= claimed - slack if direction == "zero" else base <= claimed + slack
    if as_good:
        res.verdict = Verdict.vacuous
        res.message = (f"vacuous by order: the trivial baseline {text} already has order {base:.3f} (measured), "
                       f"the claimed order is {claimed:g} (measured {measured:.3f}); the bound says no more than the baseline")
