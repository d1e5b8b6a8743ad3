"""Pointwise relations — identities and bounds — judged by the adversarial search over the sweep.

The same loop serves ``constant`` (the smallest constant the search could not beat; ``constant.py``)
and ``exists`` (a witness; ``exists.py``): they differ only in what a search outcome means.
"""

from __future__ import annotations

import math

import torch

from ...checks.compiled import CheckError, Compiled
from ...registry import Claim, Verdict
from ..falsify import Candidate, SearchOutcome, recheck, search, shrink
from ..polish import polish
from ..result import Budget, Result, claim_seed, tensor_to_list, values_json
from ..rounding import NEAR, judge_exactly, rounding_verdict
from ..scoring import relation_score, score_sides
from . import constant, exists


def run(claim: Claim, compiled: list[Compiled], kind: str, budget: Budget, seed: int, ctx: dict, res: Result) -> None:
    check = claim.check
    if check.examples and _refuted_by_an_example(compiled, kind, seed, res):
        return
    ratios_by_size: list[list[tuple[dict, float]]] = [[] for _ in compiled[0].relations]
    any_satisfiable = False
    trivial_example = None  # exists: a witness from the trivial subfamily, kept in case no other exists
    searched: list[tuple[Compiled, SearchOutcome]] = []  # per sweep assignment, what its search found
    polished: dict[int, tuple[dict, float]] = {}  # constant: per relation, the polished ratio and where
    worst_measure: list[float] = []
    worst_ratio: list[float | None] = []
    # the budget is per claim: a sweep shares it between its assignments (each gets at least a little)
    share = len(compiled)
    n_inst = max(16, budget.instances // share)
    n_rest = max(2, budget.restarts // share)
    for k, comp in enumerate(compiled):
        gen = torch.Generator(device="cpu").manual_seed(claim_seed(seed, claim.id) + k)
        out = search(comp, n_inst, n_rest, budget.steps, gen, ctx, check.tol,
                     stop_early=kind not in ("constant", "exists"))
        res.instances += out.instances
        _note_failures(res, out)
        any_satisfiable |= out.satisfiable
        if out.nan_instance is not None and kind != "exists":
            _, _, sides = recheck(comp, out.nan_instance.theta, check.tol)
            res.verdict = Verdict.error
            res.message = f"evaluation gave NaN/inf on an instance satisfying the hypotheses (dims {comp.dims})"
            res.details["nan_values"] = values_json(sides.values)
            return
        if kind == "exists":
            found, trivial = exists.witness(comp, budget, gen, ctx, check.tol)
            if found is not None:
                res.verdict, res.message = Verdict.holds, "a witness satisfying every relation was constructed"
                if check.trivial is not None:
                    res.message += f" outside the trivial subfamily ({check.trivial})"
                res.details["example"] = found
                return
            trivial_example = trivial_example or trivial
            continue
        if out.best is not None and kind != "constant":
            if _confirm(comp, out.best, check.tol, seed, res):
                return
            # the random-phase candidate did not survive the re-check: run the full adversarial search
            out = search(comp, n_inst, n_rest, budget.steps, gen, ctx, check.tol)
            res.instances += out.instances
            _note_failures(res, out)
            if out.best is not None and _confirm(comp, out.best, check.tol, seed, res):
                return
        searched.append((comp, out))
    if kind == "exists" and trivial_example is not None:
        res.verdict = Verdict.vacuous
        res.message = (f"only trivial witnesses ({check.trivial}) satisfy every relation: the existence claim "
                       "is met where its content holds automatically and says nothing beyond it")
        res.details["trivial_witness"] = trivial_example
        return
    if kind == "exists":
        res.verdict = Verdict.not_checkable
        res.message = "the search found no witness (existence cannot be refuted by sampling)"
        return
    if budget.polish:
        violation = _polish_bounds(searched, budget, ctx, check.tol, res, polished, kind == "constant")
        if violation is not None and kind != "constant" and _confirm(*violation, check.tol, seed, res):
            return
    for comp, out in searched:
        if not worst_measure:
            worst_measure, worst_ratio = list(out.worst_measure), list(out.worst_ratio)
        else:
            worst_measure = [max(a, b) for a, b in zip(worst_measure, out.worst_measure)]
            worst_ratio = [b if a is None else (a if b is None else max(a, b)) for a, b in zip(worst_ratio, out.worst_ratio)]
        for j, q in enumerate(out.worst_ratio):
            if q is not None:
                ratios_by_size[j].append((comp.dims, q))
    _summarise(res, compiled[0], worst_measure, worst_ratio)
    if compiled[0].assumes and not any_satisfiable:
        res.verdict = Verdict.vacuous
        res.message = "no instance satisfies the assumptions jointly: " + "; ".join(r.text for r in compiled[0].assumes)
        return
    if kind == "constant":
        return constant.judge_constant(res, ratios_by_size, [r.text for r in compiled[0].relations], check.constant,
                                       polished)
    if compiled[0].baseline is not None:
        if _no_better_than_baseline(compiled, budget, seed, claim.id, ctx):
            res.verdict = Verdict.vacuous
            res.message = f"the bound is never better than the trivial baseline {check.baseline}"
            return
    res.verdict = Verdict.holds
    res.message = res.message or f"no violation in {res.instances} instances"
    if check.symbolic is not None:
        from ...provers.symbolic import prove

        outcome = prove(check, conventions=compiled[0].conventions)
        res.details["symbolic"] = outcome.as_dict()
        if outcome.proved:
            res.verdict = Verdict.symbolic
            res.message = f"SymPy reduced the identity to zero ({outcome.scope}); numerically: {res.message}"
    if budget.necessity:
        from ..necessity import necessity

        res.details["necessity"] = necessity(claim, compiled[0], seed, ctx)


def _refuted_by_an_example(compiled: list[Compiled], kind: str, seed: int, res: Result) -> bool:
    """The check's fixed instances, before any random one: the first that violates a relation in float64
    (and that ball arithmetic does not put within tolerance) refutes the claim with itself as witness."""
    from ...checks.examples import ExampleError, instance

    if kind != "relation" or any(c.randoms for c in compiled):
        raise CheckError("examples: only identity and bound checks without random hypotheses take fixed instances")
    assignments = [(c.dims, c.givens) for c in compiled]
    cpu = {"dtype": torch.float64, "device": torch.device("cpu")}
    tol = compiled[0].check.tol
    for i, example in enumerate(compiled[0].check.examples):
        try:
            k, values = instance(example, assignments, i)
        except ExampleError as exc:
            raise CheckError(str(exc), ("examples", str(i))) from None
        comp = compiled[k]
        with torch.no_grad():
            sides = comp.evaluate_values(values, cpu)
            sc = score_sides(sides, tol, torch.float64)
        res.details["examples"] = i + 1
        if not bool(sc.assume_ok[0]):
            res.details.setdefault("examples_outside_assumptions", []).append(i)
            continue
        if not (bool(torch.isfinite(sc.score[0])) and float(sc.score[0]) > 1):
            continue
        artefact, why, cert = judge_exactly(comp, sides, sc)
        if artefact:  # the exact (or 60-digit) value lies within tolerance: rounding, not a refutation
            res.details.setdefault("rounding_candidates", []).append(f"examples[{i}]: {why}")
            continue
        res.verdict = Verdict.refuted
        res.worst = float(max(m[0] for m in sc.measure))
        res.message = (f"counterexample from check.examples[{i}] (a fixed instance, dims {comp.dims or 'fixed'}; "
                       f"no random instance needed): violation score {float(sc.score[0]):.4g} (> 1 means beyond "
                       f"tolerance {float(sc.tol[0]):.3g}); interval certificate: {cert['status']}"
                       + (f"; {why}" if "precise" in cert else ""))
        res.witness = {"seed": seed, "dims": comp.dims, "example": i, "values": values_json(values),
                       "relations": _relation_reports(sides, sc), "certificate": cert}
        return True
    return False


def _note_failures(res: Result, out: SearchOutcome) -> None:
    """Instances the search skipped because their evaluation raised, and an ascent stopped by one:
    recorded, so that a verdict resting on fewer instances than budgeted says so."""
    if out.failed_instances:
        res.details["failed_instances"] = res.details.get("failed_instances", 0) + out.failed_instances
    if out.ascent_failure is not None:
        res.details["ascent_stopped"] = out.ascent_failure


def _polish_bounds(searched: list[tuple[Compiled, SearchOutcome]], budget: Budget, ctx: dict, tol: float | None,
                   res: Result, polished: dict[int, tuple[dict, float]], constant_kind: bool) -> tuple[Compiled, Candidate] | None:
    """Polish each bound relation once per claim, at the sweep assignment where the search found it
    tightest, from the instances kept there; the most violating instance met on the way, with its
    assignment, if any.

    A bound's polished ratio raises that assignment's ``worst_ratio``. The smallest admissible constant
    of a ``constant`` check goes to ``polished`` instead: it is reported, but the growth along the sweep
    is judged on the search's ratios, found alike at every size (one size polished could fake growth)."""
    by_assignment: dict[int, dict[int, list[Candidate]]] = {}
    n_rel = max((len(out.tightest) for _, out in searched), default=0)
    for j in range(n_rel):
        here = [k for k, (_, o) in enumerate(searched) if j < len(o.tightest) and o.tightest[j] and o.worst_ratio[j] is not None]
        if not here:
            continue
        k = max(here, key=lambda k: searched[k][1].worst_ratio[j])
        if searched[k][1].worst_ratio[j] >= 1 and not constant_kind:
            continue  # the search already reached the bound
        by_assignment.setdefault(k, {})[j] = searched[k][1].tightest[j]
    violation = None
    for k, starts in by_assignment.items():
        comp, out = searched[k]
        steps = budget.polish
        if comp.unbatchable:  # evaluated instance by instance: one start each, fewer steps (as the search does)
            starts, steps = {j: cs[:1] for j, cs in starts.items()}, max(5, steps // 4)
        found = polish(comp, starts, steps, ctx, tol)
        res.instances += sum(len(cs) for cs in starts.values()) * steps
        for j, ratio in found.ratio.items():
            if constant_kind:
                polished[j] = (comp.dims, ratio)
            else:
                out.worst_ratio[j] = max(out.worst_ratio[j], ratio)
        if not constant_kind and found.violation is not None and (violation is None or found.violation.score > violation[1].score):
            violation = (comp, found.violation)
    return violation


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


def _confirm(comp: Compiled, cand: Candidate, tol: float | None, seed: int, res: Result) -> bool:
    """Re-check a candidate on the independent path; once confirmed the claim is refuted, and a failure
    of shrinking or certification is recorded in the message instead of losing the refutation."""
    ok, sc, sides = recheck(comp, cand.theta, tol)
    if not ok:
        res.details["unconfirmed_candidates"] = res.details.get("unconfirmed_candidates", 0) + 1
        return False
    artefact, why, cert = rounding_verdict(comp, cand.theta, sides, sc, tol, seed)
    if artefact:
        res.details.setdefault("rounding_candidates", []).append(why)
        return False
    near = f"; near the tolerance, judged again: {why}" if float(sc.score[0]) < NEAR else ""
    params = cand.theta
    failures = []
    res.verdict = Verdict.refuted
    res.witness = {"seed": seed, "dims": comp.dims, "params": _params_json(params), "values": values_json(sides.values),
                   "relations": _relation_reports(sides, sc)}
    try:
        small = shrink(comp, cand.theta, tol)
        ok2, sc2, sides2 = recheck(comp, small, tol)
        if ok2:
            artefact2, _, cert2 = rounding_verdict(comp, small, sides2, sc2, tol, seed)
            if not artefact2:  # the evidence judged there is the shrunk witness's certificate
                params, sc, sides, cert = small, sc2, sides2, cert2
    except Exception as exc:  # noqa: BLE001 - the unshrunk witness stands
        failures.append(f"shrinking failed ({type(exc).__name__}: {exc}); the witness is unshrunk")
    res.worst = float(max(m[0] for m in sc.measure))
    precise = f"; {cert['precise']['digits']}-digit re-evaluation: {cert['precise']['status']}" \
        if "digits" in cert.get("precise", {}) else ""
    res.message = (f"counterexample (dims {comp.dims or 'fixed'}): violation score {float(sc.score[0]):.4g} "
                   f"(> 1 means beyond tolerance {float(sc.tol[0]):.3g}); re-checked in float64 on the one-instance path; "
                   f"interval certificate: {cert['status']}{precise}{near}" + "".join(f"; {f}" for f in failures))
    res.witness = {"seed": seed, "dims": comp.dims, "params": _params_json(params), "values": values_json(sides.values),
                   "relations": _relation_reports(sides, sc), "certificate": cert}
    return True


def _relation_reports(sides, sc) -> list[dict]:
    return [{"relation": rel.text, "op": rel.op, "lhs": tensor_to_list(lhs[0]), "rhs": tensor_to_list(rhs[0]),
             "measure": float(m[0])} for (rel, lhs, rhs), m in zip(sides.relation_sides(), sc.measure)]


def _params_json(theta: dict) -> dict:
    return {n: {k: tensor_to_list(v[0]) for k, v in t.items()} for n, t in theta.items()}


def _no_better_than_baseline(compiled: list[Compiled], budget: Budget, seed: int, cid: str, ctx: dict) -> bool:
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
