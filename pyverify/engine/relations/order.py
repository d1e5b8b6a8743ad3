"""Order claims: the measured order of a quantity (log-log slope over a geometric parameter sequence)
against the claimed order; with a sweep, at every assignment, and the O(.) uniform along the sweep."""

from __future__ import annotations

import math

import torch

from ...checks.compiled import CheckError, compile_check, sweep
from ...registry import Claim, Verdict
from ..result import Budget, Result, claim_seed
from ..scoring import score_sides
from .constant import growth_in_every_choice, loglog_slope

__all__ = ["run", "loglog_slope", "orders_text"]

FLOOR = 1e-13  # a quantity below this at some value is at the rounding level: faster than any order


def run(claim: Claim, budget: Budget, seed: int, ctx: dict, res: Result, conv: dict[str, str]) -> None:
    """Measured order: the quantity over a geometric sequence of a sweep parameter, log-log slope.

    Every assignment of the other sweep variables is measured with the same random directions; the
    claimed order must hold at each, and where there are several, the leading constant (the largest
    quantity / param^claimed) must stay bounded along them, quantified as ``check.constant`` says (one
    constant chosen before the data by default): an O(eps^2) "uniformly in L" is an O with one constant."""
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
    xs = [math.log(v) for v in values]
    measured = []  # per assignment: (dims, quantity (n, J), baseline (n, J) or None)
    for dims in sweep(check):
        measured.append((dims, *_series(check, dims, param, values, n, gen_seed, ctx, conv)))
    res.instances = n * len(values) * len(measured)
    judged = []  # per assignment with usable instances: (dims, slopes, qs usable, lead)
    for dims, qs, _ in measured:
        admissible = ~torch.isnan(qs).any(1)  # NaN: outside the assumptions at some value of the parameter
        usable = admissible & (qs > FLOOR).all(1) & torch.isfinite(qs).all(1)
        if bool(usable.any()):
            slopes = [loglog_slope(xs, [math.log(float(y)) for y in row]) for row in qs[usable]]
            lead = float((qs[usable] / torch.tensor(values, dtype=qs.dtype) ** claimed).amax())
            judged.append((dims, slopes, qs[usable], lead))
    if not any(bool((~torch.isnan(qs).any(1)).any()) for _, qs, _ in measured):
        res.verdict = Verdict.vacuous
        res.message = (f"vacuous: none of the {n} instances satisfies the assumptions at every value of {param}; "
                       "there is nothing for the order to be measured on")
        res.details["order"] = {"claimed": claimed, "measured": None}
        return
    if not judged:
        res.verdict, res.message = Verdict.holds, f"quantity below {FLOOR:g} at every value: faster than any order"
        res.details["order"] = {"claimed": claimed, "measured": None}
        return

    def bad(slopes: list[float]) -> bool:
        if direction == "zero":
            return min(slopes) < claimed - slack or (exact and max(slopes) > claimed + slack)
        return max(slopes) > claimed + slack or (exact and min(slopes) < claimed - slack)

    failing = next((j for j in judged if bad(j[1])), None)
    # the assignment the verdict rests on: the first that fails, or else the one with the worst instance
    dims, slopes, qs, _ = failing or max(judged, key=lambda j: _badness(j[1], claimed, direction, exact))
    median = sorted(slopes)[len(slopes) // 2]
    # the instance the verdict rests on: the slowest order towards 0, the fastest growth towards infinity,
    # and for an exact order the one farthest from the claim on either side
    worst = _worst(slopes, claimed, direction, exact)
    shown = [worst] + [i for i in range(min(3, len(slopes))) if i != worst][:2]
    res.details["order"] = {"param": param, "values": values, "claimed": claimed, "direction": direction,
                            "exact": exact, "tolerance": slack, "measured_worst": slopes[worst],
                            "measured_min": min(slopes), "measured_median": median,
                            "measured_max": max(slopes), "leading_constant": max(j[3] for j in judged),
                            # error against the parameter of the worst instance and two others, for the plot
                            "series": qs[shown].tolist(), "series_slopes": [slopes[i] for i in shown]}
    if len(measured) > 1:
        res.details["order"]["by_assignment"] = [
            {"dims": d, "measured_min": min(s), "measured_median": sorted(s)[len(s) // 2], "measured_max": max(s),
             "leading_constant": ld} for d, s, _, ld in judged]
    res.worst = median
    rel = "as" if exact else ("at least as fast as" if direction == "zero" else "no faster than")
    where = f" at {dims}" if len(measured) > 1 else ""
    if failing is not None:
        res.verdict = Verdict.refuted
        res.message = (f"measured order {_orders(slopes, slopes[worst])} vs claimed {claimed:g} "
                       f"as {param} -> {'0' if direction == 'zero' else 'inf'}{where}")
        res.witness = {"seed": seed, "param": param, "values": values, "slopes": slopes,
                       "series": res.details["order"]["series"]}
        if where:
            res.witness["dims"] = dims
        return
    growth = _lead_growth(judged, check.constant)
    if growth is not None:
        slope, line, along = growth
        res.verdict = Verdict.refuted
        res.message = (f"the order {claimed:g} holds at every assignment, but not uniformly: its leading constant "
                       f"grows along {along} (log-log slope {slope:.2f}): {line[0][1]:.3g} at {line[0][0]} -> "
                       f"{line[-1][1]:.3g} at {line[-1][0]}")
        res.witness = {"seed": seed, "param": param, "values": values, "growth_along": along, "slope": slope,
                       "relation": f"{check.assert_} <= C {param}^{claimed:g}",
                       "growth": [{"dims": d, "ratio": c} for d, c in line]}
        return
    res.verdict = Verdict.holds
    res.message = (f"measured order {_orders(slopes, slopes[worst])} {rel} claimed {claimed:g}; leading constant "
                   f"<= {max(j[3] for j in judged):.4g}" + (f" (bounded along the sweep, {len(judged)} assignments; "
                                                            f"worst at {dims})" if len(judged) > 1 else ""))
    bases = [(d, bs) for d, _, bs in measured if bs is not None]
    if bases:
        _judge_baseline(res, bases, values, xs, claimed, median, direction, slack, check.baseline, check.constant)


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


def _series(check, dims: dict, param: str, values: list[float], n: int, gen_seed: int, ctx: dict,
            conv: dict[str, str]) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(n, J) the quantity (and the baseline) of n instances at every value of the parameter, at one
    assignment of the other sweep variables; the same random directions at every value and assignment."""
    series, base_series = [], []
    for v in values:
        comp = compile_check(check, {**dims, param: v}, "order", conv)
        gen = torch.Generator(device="cpu").manual_seed(gen_seed)  # same directions for every value
        theta = comp.init_theta(n, gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx)
            ok = score_sides(sides, check.tol, ctx["dtype"]).assume_ok if comp.assumes else None
        # an instance outside the assumptions at some value of the parameter leaves the fit
        series.append(_magnitude(sides.quantity, n, ok))
        if sides.baseline is not None:
            base_series.append(_magnitude(sides.baseline, n, ok))
    return torch.stack(series, 1), (torch.stack(base_series, 1) if base_series else None)


def _lead_growth(judged: list, spec) -> tuple[float, list, str] | None:
    """Growth of the leading constant along the sweep (None with a single assignment or when bounded)."""
    if len(judged) < 3:
        return None
    quantified = getattr(spec, "quantified", "before-data")
    depends = list(getattr(spec, "depends_on", []) or []) if quantified == "per-parameter" else []
    chosen = list(getattr(spec, "chosen", []) or [])
    entry: dict = {}
    failure = growth_in_every_choice([(d, lead) for d, _, _, lead in judged if lead > 0], depends, chosen, entry)
    if failure is None:
        return None
    slope, line = failure
    return slope, line, entry.get("growth_along", "the sweep")


def _magnitude(x: torch.Tensor, n: int, ok: torch.Tensor | None) -> torch.Tensor:
    """(n,) max |x| per instance; NaN where the instance is outside the assumptions."""
    q = x.reshape(n, -1).abs().amax(1)
    return q if ok is None else torch.where(ok, q, torch.full_like(q, math.nan))


def _judge_baseline(res: Result, bases: list[tuple[dict, torch.Tensor]], values: list[float], xs: list[float],
                    claimed: float, measured: float, direction: str, slack: float, text: str, spec) -> None:
    """Vacuity by order: a trivial baseline (e.g. the distance of each of two maps to a trivial third
    one) that already has the claimed order — or a better one — makes the claimed order say nothing.
    The orders are measured the same way (median log-log slope), not compared at one point. With a sweep,
    at every assignment, and the baseline's leading constant bounded along it as the claim's must be."""
    medians, leads = [], []
    for dims, bs in bases:
        usable = (bs > 1e-300).all(1) & torch.isfinite(bs).all(1)
        if not bool(usable.any()):
            # a baseline vanishing at every value is of every order: the claim is no better than it
            medians.append(math.inf if direction == "zero" else -math.inf)
            continue
        slopes = sorted(loglog_slope(xs, [math.log(float(y)) for y in row]) for row in bs[usable])
        medians.append(slopes[len(slopes) // 2])
        leads.append((dims, float((bs[usable] / torch.tensor(values, dtype=bs.dtype) ** claimed).amax())))
    base = min(medians) if direction == "zero" else max(medians)
    res.details["order"]["baseline"] = {"expression": text, "measured_median": base}
    as_good = base >= claimed - slack if direction == "zero" else base <= claimed + slack
    if as_good and len(bases) > 1:
        as_good = _lead_growth([(d, None, None, ld) for d, ld in leads], spec) is None
        res.details["order"]["baseline"]["uniform"] = as_good
    if as_good:
        res.verdict = Verdict.vacuous
        res.message = (f"vacuous by order: the trivial baseline {text} already has order {base:.3f} (measured), "
                       f"the claimed order is {claimed:g} (measured {measured:.3f}); the bound says no more than the baseline")
