"""Asymptotic claims: measured orders (log-log slope over a parameter sequence) and unnamed
constants (the smallest constant the search could not beat, and whether it grows along a sweep)."""

from __future__ import annotations

import math

import torch

from .engine_support import claim_seed
from .evaluation import CheckError, compile_check, sweep
from .falsify import score_sides
from .registry import Claim
from .verdicts import Budget, Result


def judge_constant(res: Result, ratios: list[list[tuple[dict, float]]], texts: list[str]) -> None:
    """Unnamed constants (one per relation): report sup lhs/rhs; refute when one grows without bound
    along the sweep."""
    consts, verdicts = [], []
    for j, series in enumerate(ratios):
        finite = [(d, r) for d, r in series if math.isfinite(r) and r > 0]
        if not finite:
            continue
        const = max(r for _, r in finite)
        consts.append(const)
        entry = {"relation": texts[j], "constant": const, "by_size": [{"dims": d, "ratio": r} for d, r in finite]}
        if len(finite) >= 3:
            xs = [math.log(abs(float(next(iter(d.values())))) or 1e-300) for d, _ in finite]
            ys = [math.log(r) for _, r in finite]
            growth = loglog_slope(xs, ys)
            entry["growth_slope"] = growth
            if growth > 0.3 and finite[-1][1] > 2 * finite[0][1]:
                verdicts.append((j, growth, finite))
        res.details.setdefault("constants", []).append(entry)
    if not consts:
        res.verdict, res.message = "holds", "lhs never positive where rhs > 0"
        return
    res.worst = max(consts)
    res.details["constant"] = res.worst
    if verdicts:
        j, slope, finite = verdicts[0]
        res.verdict = "refuted"
        res.message = (f"the smallest admissible constant of `{texts[j]}` grows with size (log-log slope {slope:.2f}): "
                       f"{finite[0][1]:.3g} at {finite[0][0]} -> {finite[-1][1]:.3g} at {finite[-1][0]}")
        res.witness = {"relation": texts[j], "growth": [{"dims": d, "ratio": r} for d, r in finite], "slope": slope}
        return
    res.verdict = "holds"
    res.message = "smallest constant(s) the search could not beat: " + ", ".join(f"{c:.4g}" for c in consts) + " (bounded along the sweep)"


def loglog_slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


def run_order(claim: Claim, budget: Budget, seed: int, ctx: dict, res: Result, conv: dict[str, str]) -> None:
    """Measured order: the quantity over a geometric sequence of a sweep parameter, log-log slope."""
    check = claim.check
    spec = dict(check.order or {})
    try:
        param = spec["param"]
        values = [float(v) for v in spec["values"]]
        claimed = float(spec["claimed"])
    except (KeyError, TypeError, ValueError):
        raise CheckError("order: needs param, values (list) and claimed (the order)") from None
    direction = spec.get("direction", "zero" if values[-1] < values[0] else "infinity")
    slack = float(spec.get("tol", 0.25))
    exact = bool(spec.get("exact", False))
    if len(values) < 3:
        raise CheckError("order: at least 3 values of the parameter")
    n = max(4, budget.instances // 8)
    gen_seed = claim_seed(seed, claim.id)
    series = []
    for v in values:
        # the smallest sweep assignment: an order check varies only its own parameter
        comp = compile_check(check, {**sweep(check)[0], param: v}, "order", conv)
        gen = torch.Generator(device="cpu").manual_seed(gen_seed)  # same directions for every value
        theta = comp.init_theta(n, gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx)
            q = sides.quantity
            ok = score_sides(sides, check.tol, ctx["dtype"]).assume_ok if comp.assumes else None
        q = q.reshape(n, -1).abs().amax(1)
        # an instance outside the assumptions at some value of the parameter leaves the fit
        series.append(q if ok is None else torch.where(ok, q, torch.full_like(q, math.nan)))
    qs = torch.stack(series, 1)  # (n, J)
    res.instances = n * len(values)
    floor = 1e-13
    usable = (qs > floor).all(1) & torch.isfinite(qs).all(1)
    if not bool(usable.any()):
        res.verdict, res.message = "holds", f"quantity below {floor:g} at every value: faster than any order"
        res.details["order"] = {"claimed": claimed, "measured": None}
        return
    xs = [math.log(v) for v in values]
    slopes = []
    for i in range(n):
        if bool(usable[i]):
            slopes.append(loglog_slope(xs, [math.log(float(y)) for y in qs[i]]))
    lead = float((qs[usable] / torch.tensor(values, dtype=qs.dtype) ** claimed).amax())
    res.details["order"] = {"param": param, "values": values, "claimed": claimed, "direction": direction,
                            "measured_min": min(slopes), "measured_median": sorted(slopes)[len(slopes) // 2],
                            "measured_max": max(slopes), "leading_constant": lead}
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
        res.verdict = "refuted"
        worst_slope = min(slopes) if direction == "zero" else max(slopes)
        res.message = (f"measured order {worst_slope:.3f} (median {measured:.3f}) vs claimed {claimed:g} "
                       f"as {param} -> {'0' if direction == 'zero' else 'inf'}")
        res.witness = {"seed": seed, "param": param, "values": values, "slopes": slopes,
                       "series": qs[usable][:3].tolist()}
    else:
        res.verdict = "holds"
        res.message = (f"measured order {measured:.3f} (min {min(slopes):.3f}, max {max(slopes):.3f}) "
                       f"{rel} claimed {claimed:g}; leading constant <= {lead:.4g}")
