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

import torch

from . import dsl
from .asymptotics import judge_constant, run_order
from .engine_support import claim_seed
from .evaluation import CheckError, Compiled, compile_check, sweep
from .falsify import Candidate, recheck, relation_score, score_sides, search, shrink
from .montecarlo import run_expectation
from .registry import Claim
from .verdicts import BUDGETS, Budget, Result, tensor_to_list, values_json

__all__ = ["run_claim", "Result", "Budget", "BUDGETS"]

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


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
        return run_order(claim, budget, seed, ctx, res, conv)
    combos = sweep(check)
    compiled = [compile_check(check, dims, relation, conv) for dims in combos]  # compile all first: errors surface early
    if relation == "expectation" and len(compiled[0].relations) != 1:
        raise CheckError(f"a {relation} check takes exactly one relation (got {len(compiled[0].relations)}); "
                         "split it into separate claims")
    if relation == "expectation":
        return run_expectation(claim, compiled, budget, seed, ctx, res)
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
            res.details["nan_values"] = values_json(sides.values)
            return
        if relation == "exists":
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
        return judge_constant(res, ratios_by_size, [r.text for r in compiled[0].relations])
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
        rel_reports.append({"relation": rel.text, "op": rel.op, "lhs": tensor_to_list(lhs[0]),
                            "rhs": tensor_to_list(rhs[0]), "measure": float(m[0])})
    res.verdict = "refuted"
    res.worst = float(max(m[0] for m in sc.measure))
    res.message = (f"counterexample (dims {comp.dims or 'fixed'}): violation score {float(sc.score[0]):.4g} "
                   f"(> 1 means beyond tolerance {float(sc.tol[0]):.3g}); re-checked in float64 on the one-instance path; "
                   f"interval certificate: {cert['status']}")
    res.witness = {
        "seed": seed,
        "dims": comp.dims,
        "params": {n: {k: tensor_to_list(v[0]) for k, v in t.items()} for n, t in small.items()},
        "values": values_json(sides.values),
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
        return {"dims": comp.dims, "values": values_json(sides.values)}
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
