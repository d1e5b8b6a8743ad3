"""Numeric verification: run a claim's check and compute its verdict with evidence.

Verdict rules (DESIGN.md, "Verdicts"), for one claim:

* no ``check`` or ``check.not_checkable`` -> ``not-checkable`` (with the reason);
* a check that cannot be compiled or run -> ``error`` (the message says why; other claims still run);
* assumptions that no instance satisfies -> ``vacuous``; a bound never better than its named baseline
  -> ``vacuous``;
* a violation found by the search, confirmed on the independent one-instance path, shrunk -> ``refuted``
  with a witness (seed, sweep values, parameters, values, both sides);
* otherwise ``holds`` with the worst relative error / tightness; upgraded to ``symbolic`` when a SymPy
  proof was requested and succeeded.

Relations: identities and bounds (``relation: auto``), measured orders (``order``), unnamed constants
(``constant``), Monte-Carlo expectations (``expectation``) and existence (``exists``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import torch

from . import dsl
from .evaluation import CheckError, Compiled, compile_check, sweep
from .engine_support import claim_seed
from .falsify import Candidate, recheck, relation_score, score_sides, search, shrink
from .registry import Claim

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


@dataclass(frozen=True)
class Budget:
    instances: int
    restarts: int
    steps: int
    samples: int  # Monte-Carlo samples per instance for E(...)
    mc_instances: int
    necessity: bool


BUDGETS = {
    "quick": Budget(40, 2, 2, 4000, 3, False),
    "default": Budget(256, 16, 24, 20000, 6, True),
    "thorough": Budget(2048, 64, 150, 200000, 16, True),
}


@dataclass
class Result:
    id: str
    verdict: str
    expect: str | None
    worst: float | None = None
    instances: int = 0
    elapsed_s: float = 0.0
    witness: dict | None = None
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def matches(self) -> bool:
        return self.expect is None or self.expect == self.verdict

    def as_dict(self) -> dict[str, Any]:
        d = {
            "id": self.id,
            "verdict": self.verdict,
            "expect": self.expect,
            "worst": _round(self.worst),
            "instances": self.instances,
            "elapsed_s": round(self.elapsed_s, 3),
            "message": self.message,
        }
        if self.witness is not None:
            d["witness"] = _round(self.witness)
        if self.details:
            d["details"] = _round(self.details)
        return d


def _round(x: Any, digits: int = 10) -> Any:
    """Round floats to `digits` significant digits, so JSON is byte-stable across thread counts."""
    if isinstance(x, float):
        if not math.isfinite(x) or x == 0:
            return x if math.isfinite(x) else str(x)
        return float(f"{x:.{digits}g}")
    if isinstance(x, dict):
        return {k: _round(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_round(v, digits) for v in x]
    return x


def _tensor_to_list(t: torch.Tensor) -> Any:
    return t.detach().cpu().tolist()


def _values_json(values: dict) -> dict:
    out = {}
    for name, v in values.items():
        if isinstance(v, dict):
            out[name] = {k: _tensor_to_list(x[0]) for k, x in v.items()}
        else:
            out[name] = _tensor_to_list(v[0])
    return out


def run_claim(claim: Claim, budget: str = "default", seed: int = 0, device: str = "cpu",
              conventions: dict[str, str] | None = None) -> Result:
    """Check one claim; never raises for a bad check (that is an ``error`` verdict).

    ``conventions``: the registry's conventions in force for the claim (document defaults and the
    claim's own); they fill the convention keywords of the mechanism functions."""
    start = time.perf_counter()
    res = Result(claim.id, "error", claim.expect)
    try:
        _run(claim, BUDGETS[budget], seed, torch.device(device), res, dict(conventions or claim.conventions))
    except (CheckError, dsl.DSLError) as exc:
        res.verdict, res.message = "error", str(exc)
    except Exception as exc:  # noqa: BLE001 - a crashing check must not stop the other claims
        res.verdict, res.message = "error", f"{type(exc).__name__}: {exc}"
    res.elapsed_s = time.perf_counter() - start
    return res


def _run(claim: Claim, budget: Budget, seed: int, device: torch.device, res: Result, conv: dict[str, str]) -> None:
    check = claim.check
    if check is None:
        res.verdict, res.message = "not-checkable", "no executable check recorded for this claim yet"
        res.details["pending"] = True
        return
    if check.not_checkable:
        res.verdict, res.message = "not-checkable", check.not_checkable
        return
    ctx = {"dtype": torch.float64, "device": device}
    relation = check.relation
    if relation == "auto":
        relation = "expectation" if any(s.strip().startswith(("gaussian", "orf")) for s in check.given.values()) else "relation"
    if relation == "order":
        return _run_order(claim, budget, seed, ctx, res, conv)
    combos = sweep(check)
    compiled = [compile_check(check, dims, relation, conv) for dims in combos]  # compile all first: errors surface early
    if relation == "expectation" and len(compiled[0].relations) != 1:
        raise CheckError(f"a {relation} check takes exactly one relation (got {len(compiled[0].relations)}); "
                         "split it into separate claims")
    if relation == "expectation":
        return _run_expectation(claim, compiled, budget, seed, ctx, res)
    ratios_by_size: list[list[tuple[dict, float]]] = [[] for _ in compiled[0].relations]
    any_satisfiable = False
    worst_measure: list[float] = []
    worst_ratio: list[float | None] = []
    # the budget is per claim: a sweep shares it between its assignments (each gets at least a little)
    share = len(compiled)
    n_inst = max(16, budget.instances // share)
    n_rest = max(2, budget.restarts // share)
    for k, comp in enumerate(compiled):
        gen = torch.Generator(device="cpu").manual_seed(claim_seed(seed, claim.id) + k)
        out = search(comp, n_inst, n_rest, budget.steps, gen, ctx, check.tol,
                     stop_early=relation not in ("constant", "exists"))
        res.instances += out.instances
        any_satisfiable |= out.satisfiable
        if not worst_measure:
            worst_measure, worst_ratio = list(out.worst_measure), list(out.worst_ratio)
        else:
            worst_measure = [max(a, b) for a, b in zip(worst_measure, out.worst_measure)]
            worst_ratio = [b if a is None else (a if b is None else max(a, b)) for a, b in zip(worst_ratio, out.worst_ratio)]
        for j, q in enumerate(out.worst_ratio):
            if q is not None:
                ratios_by_size[j].append((comp.dims, q))
        if out.nan_instance is not None and relation != "exists":
            ok, _, sides = recheck(comp, out.nan_instance.theta, ctx, check.tol)
            res.verdict = "error"
            res.message = f"evaluation gave NaN/inf on an instance satisfying the hypotheses (dims {comp.dims})"
            res.details["nan_values"] = _values_json(sides.values)
            return
        if relation == "exists":
            if out.best is None and out.max_score <= 1 and out.satisfiable:
                pass
            witness = _existence_witness(comp, budget, gen, ctx, check.tol)
            if witness is not None:
                res.verdict, res.message = "holds", "a witness satisfying every relation was constructed"
                res.details["example"] = witness
                return
            continue
        if out.best is not None and relation != "constant":
            if _confirm(claim, comp, out.best, ctx, check.tol, seed, res):
                return
            # the random-phase candidate did not survive the re-check: run the full adversarial search
            out = search(comp, n_inst, n_rest, budget.steps, gen, ctx, check.tol)
            res.instances += out.instances
            if out.best is not None and _confirm(claim, comp, out.best, ctx, check.tol, seed, res):
                return
    if relation == "exists":
        res.verdict = "not-checkable"
        res.message = "the search found no witness (existence cannot be refuted by sampling)"
        return
    _summarise(res, compiled[0], worst_measure, worst_ratio)
    if compiled[0].assumes and not any_satisfiable:
        res.verdict = "vacuous"
        res.message = "no instance satisfies the assumptions jointly: " + "; ".join(r.text for r in compiled[0].assumes)
        return
    if relation == "constant":
        return _judge_constant(res, ratios_by_size, [r.text for r in compiled[0].relations])
    if compiled[0].baseline is not None:
        if _no_better_than_baseline(compiled, budget, seed, claim.id, ctx, check.tol):
            res.verdict = "vacuous"
            res.message = f"the bound is never better than the trivial baseline {check.baseline}"
            return
    res.verdict = "holds"
    res.message = res.message or f"no violation in {res.instances} instances"
    if check.symbolic is not None:
        from .symbolic import prove

        outcome = prove(claim, check)
        res.details["symbolic"] = outcome.as_dict()
        if outcome.proved:
            res.verdict = "symbolic"
            res.message = f"SymPy reduced the identity to zero ({outcome.scope}); numerically: {res.message}"
    if budget.necessity:
        from .necessity import necessity

        res.details["necessity"] = necessity(claim, compiled[0], seed, ctx)


def _summarise(res: Result, comp: Compiled, worst_measure: list[float], worst_ratio: list[float | None]) -> None:
    parts = []
    for rel, m, q in zip(comp.relations, worst_measure, worst_ratio):
        if rel.op == "==":
            parts.append(f"max relative error {m:.3g}")
        elif q is not None and math.isfinite(q):
            parts.append(f"tightness max lhs/rhs {q:.4g}")
    if worst_measure:
        eqs = [m for rel, m in zip(comp.relations, worst_measure) if rel.op == "=="]
        rat = [q for q in worst_ratio if q is not None and math.isfinite(q)]
        res.worst = max(eqs) if eqs else (max(rat) if rat else max(worst_measure))
        res.details["tightness"] = rat[0] if rat else None
    res.message = "; ".join(parts)


def _confirm(claim: Claim, comp: Compiled, cand: Candidate, ctx: dict, tol: float | None, seed: int, res: Result) -> bool:
    ok, sc, sides = recheck(comp, cand.theta, ctx, tol)
    if not ok:
        res.details.setdefault("unconfirmed_candidates", 0)
        res.details["unconfirmed_candidates"] += 1
        return False
    small = shrink(comp, cand.theta, ctx, tol)
    ok2, sc2, sides2 = recheck(comp, small, ctx, tol)
    if ok2:
        sc, sides = sc2, sides2
    else:
        small = cand.theta
    from .interval import certify

    cert = certify(comp, sides)
    rel_reports = []
    for (rel, lhs, rhs), m in zip(sides.relation_sides(), sc.measure):
        rel_reports.append({"relation": rel.text, "op": rel.op, "lhs": _tensor_to_list(lhs[0]),
                            "rhs": _tensor_to_list(rhs[0]), "measure": float(m[0])})
    res.verdict = "refuted"
    res.worst = float(max(m[0] for m in sc.measure))
    res.message = (f"counterexample (dims {comp.dims or 'fixed'}): violation score {float(sc.score[0]):.4g} "
                   f"(> 1 means beyond tolerance {float(sc.tol[0]):.3g}); re-checked in float64 on the one-instance path; "
                   f"interval certificate: {cert['status']}")
    res.witness = {
        "seed": seed,
        "dims": comp.dims,
        "params": {n: {k: _tensor_to_list(v[0]) for k, v in t.items()} for n, t in small.items()},
        "values": _values_json(sides.values),
        "relations": rel_reports,
        "certificate": cert,
    }
    return True


def _existence_witness(comp: Compiled, budget: Budget, gen: torch.Generator, ctx: dict, tol: float | None) -> dict | None:
    """Search for an instance satisfying all relations: minimise the violation score."""
    theta = comp.init_theta(budget.instances, gen, ctx)
    with torch.no_grad():
        sc = score_sides(comp.evaluate(theta, ctx), tol, ctx["dtype"])
    good = (sc.score <= 1) & sc.assume_ok & torch.isfinite(sc.score)
    if bool(good.any()):
        i = int(good.nonzero()[0])
        one = {n: {k: v[i: i + 1] for k, v in t.items()} for n, t in theta.items()}
        sides = comp.evaluate_one(one, 0, ctx)
        return {"dims": comp.dims, "values": _values_json(sides.values)}
    return None


def _no_better_than_baseline(compiled: list[Compiled], budget: Budget, seed: int, cid: str, ctx: dict, tol: float | None) -> bool:
    for k, comp in enumerate(compiled):
        gen = torch.Generator(device="cpu").manual_seed(claim_seed(seed, cid) + 7919 + k)
        theta = comp.init_theta(budget.instances, gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx)
        base = sides.baseline
        for rel, lhs, rhs in sides.relation_sides():
            if rel.op not in ("<=", "<"):
                continue
            t = torch.full(rhs.shape[:1], 1e-9, dtype=rhs.dtype, device=rhs.device)
            better, _, _ = relation_score("<", rhs, base, t)  # rhs < baseline somewhere?
            if bool((better <= -1).any()):
                return False
    return True


def _judge_constant(res: Result, ratios: list[list[tuple[dict, float]]], texts: list[str]) -> None:
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
            slope = _slope(xs, ys)
            entry["growth_slope"] = slope
            if slope > 0.3 and finite[-1][1] > 2 * finite[0][1]:
                verdicts.append((j, slope, finite))
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


def _first(check) -> dict:
    """The smallest sweep assignment (an order check varies only its own parameter)."""
    return sweep(check)[0]


def _slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


# --------------------------------------------------------------------------------------------- orders


def _run_order(claim: Claim, budget: Budget, seed: int, ctx: dict, res: Result, conv: dict[str, str]) -> None:
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
        comp = compile_check(check, {**_first(check), param: v}, "order", conv)
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
            slopes.append(_slope(xs, [math.log(float(y)) for y in qs[i]]))
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


# ----------------------------------------------------------------------------------------- expectations


def _run_expectation(claim: Claim, compiled: list[Compiled], budget: Budget, seed: int, ctx: dict, res: Result) -> None:
    """Monte-Carlo: per instance, the sample mean of E's argument and its standard error; z-test with a
    Bonferroni-corrected threshold; a rejection is re-run on fresh samples before it counts."""
    check = claim.check
    s = int(check.samples or budget.samples)
    b = budget.mc_instances
    z_crit = 4.5
    worst_z = 0.0
    worst_rel = 0.0
    for k, comp in enumerate(compiled):
        if not comp.randoms:
            raise CheckError("an expectation check needs a random hypothesis (gaussian(...) or orf(...))")
        gen = torch.Generator(device="cpu").manual_seed(claim_seed(seed, claim.id) + k)
        theta = comp.init_theta(b, gen, ctx, degenerate=1)
        z, rel, detail = _mc_z(comp, theta, b, s, gen, ctx)
        res.instances += b * s
        worst_rel = max(worst_rel, rel)
        if z > z_crit:
            i = detail["instance"]
            one = {n: {kk: v[i: i + 1] for kk, v in t.items()} for n, t in theta.items()}
            z2, rel2, detail2 = _mc_z(comp, one, 1, 4 * s, gen, ctx)
            if z2 > z_crit:
                res.verdict = "refuted"
                res.worst = rel2
                res.message = (f"Monte-Carlo mean differs from the claimed value by {z2:.1f} standard errors "
                               f"({4 * s} fresh samples; threshold {z_crit})")
                sides = comp.evaluate_one(one, 0, ctx, comp.draw_randoms(1, 2, gen, ctx))
                res.witness = {"seed": seed, "dims": comp.dims, "values": _values_json(sides.values), **detail2}
                return
        worst_z = max(worst_z, z)
    res.verdict = "holds"
    res.worst = worst_rel
    res.details["max_z"] = worst_z
    res.message = f"Monte-Carlo agrees within {worst_z:.2f} standard errors (threshold {z_crit}); max relative gap {worst_rel:.3g}"


def _mc_z(comp: Compiled, theta: dict, b: int, s: int, gen: torch.Generator, ctx: dict) -> tuple[float, float, dict]:
    chunk = min(s, 20000)
    sums: list[torch.Tensor] = []
    worst = (0.0, 0.0, {})
    means = None
    sq = None
    total = 0
    rhs_v = None
    op = None
    while total < s:
        c = min(chunk, s - total)
        randoms = comp.draw_randoms(b, c, gen, ctx)
        with torch.no_grad():
            sides = comp.evaluate(theta, ctx, randoms, keep_samples=True)
        rel, lhs, rhs = sides.relation_sides()[0]
        op = rel.op
        if lhs.dim() < 2:
            raise CheckError("expectation: the left side must be E(...) of the random hypotheses")
        x = lhs.reshape(b, c, -1)
        means = x.sum(1) if means is None else means + x.sum(1)
        sq = (x ** 2).sum(1) if sq is None else sq + (x ** 2).sum(1)
        total += c
        rhs_v = rhs.reshape(b, -1)
    mean = means / total
    var = (sq / total - mean ** 2).clamp_min(0) * total / max(total - 1, 1)
    se = (var / total).sqrt()
    gap = mean - rhs_v
    if op in ("<=", "<"):
        gap = gap.clamp_min(0)
    elif op in (">=", ">"):
        gap = (-gap).clamp_min(0)
    else:
        gap = gap.abs()
    z = gap / (se + 1e-12 * (1 + rhs_v.abs()))
    flat = z.amax(1)
    i = int(flat.argmax())
    rel_gap = float((gap / rhs_v.abs().clamp_min(1e-300)).amax())
    detail = {"instance": i, "mean": mean[i].tolist(), "claimed": rhs_v[i].tolist(), "standard_error": se[i].tolist(),
              "samples": total}
    return float(flat[i]), rel_gap, detail
