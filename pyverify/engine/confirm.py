"""The confirm phase: a candidate violation becomes a counterexample only once it is re-checked on the
independent one-instance path (float64, CPU, no vmap), judged not to be rounding (``rounding.py``) and
shrunk; a failure of shrinking is recorded, never loses the counterexample. Also the fixed ``examples``
of a check, which refute with themselves as witness."""

from __future__ import annotations

import torch

from ..checks.compiled import CheckError, Compiled
from ..checks.examples import ExampleError, instance
from ..checks.precision import name
from ..registry import Verdict
from .context import CPU64
from .evidence import HELD_AT_WITNESS, Counterexample, RelationAtWitness, Undecided
from .falsify import Candidate, recheck, shrink
from .probe import diagnose_witness
from .run import ClaimRun
from .result import Outcome, tensor_to_list, values_json
from .rounding import INCONCLUSIVE, NEAR, REAL, ROUNDING, judge_exactly, outside_precision, rounding_verdict
from .scoring import lower_precision, score_sides


def confirm(run: ClaimRun, comp: Compiled, cand: Candidate) -> Outcome | None:
    """The refutation a candidate makes, or None when the re-check or the rounding judgement dismisses it
    (counted in the run's record) or finds it inconclusive (kept in the run: ``pipeline.holds``)."""
    tol, seed = comp.check.tol, run.seed
    ok, sc, sides = recheck(comp, cand.theta, tol)
    if lower_precision(sides, torch.float64):
        run.rechecked_precisions.append((sides.precision, float(sc.tol.max())))
    if not ok:
        run.tally.unconfirmed_candidates += 1
        return None
    outside = outside_precision(comp, cand.theta, sides)
    if outside is not None:  # code in a lower precision cannot be given this instance: it shows nothing
        run.inconclusive.append(Undecided(seed, comp.dims, values_json(sides.values), relation_reports(sides, sc),
                                          f"the instance lies outside the range of {name(sides.precision)}: {outside}",
                                          sides.precision))
        return None
    status, why, cert = rounding_verdict(comp, cand.theta, sides, sc, tol, seed)
    if status == ROUNDING:
        run.tally.rounding_candidates.append(why)
        return None
    if status == INCONCLUSIVE:
        run.inconclusive.append(Undecided(seed, comp.dims, values_json(sides.values), relation_reports(sides, sc),
                                          why, sides.precision))
        return None
    near = f"; near the tolerance, judged again: {why}" if float(sc.score[0]) < NEAR else ""
    params = cand.theta
    failures = []
    # confirmed: the refutation stands whatever fails from here on
    run.refutation = Outcome(Verdict.refuted, "", None, (Counterexample(
        seed, comp.dims, values_json(sides.values), relation_reports(sides, sc), {}, params=_params_json(params)),))
    try:
        small = shrink(comp, cand.theta, tol)
        ok2, sc2, sides2 = recheck(comp, small, tol)
        if ok2:
            status2, _, cert2 = rounding_verdict(comp, small, sides2, sc2, tol, seed)
            if status2 == REAL:  # the evidence judged there is the shrunk witness's certificate
                params, sc, sides, cert = small, sc2, sides2, cert2
    except Exception as exc:  # noqa: BLE001 - the unshrunk witness stands
        failures.append(f"shrinking failed ({type(exc).__name__}: {exc}); the witness is unshrunk")
    precise = f"; {cert['precise']['digits']}-digit re-evaluation: {cert['precise']['status']}" \
        if "digits" in cert.get("precise", {}) else ""
    at = f" at {name(sides.precision)} precision: the code computes in {name(sides.precision)}" \
        if lower_precision(sides, torch.float64) else ""
    score = (f"the strict relation `{cert['tie']}` is met with equality (a tie violates it whatever the tolerance)"
             if cert.get("tie") else f"violation score {float(sc.score[0]):.4g} (> 1 means beyond tolerance "
                                     f"{float(sc.tol[0]):.3g}{at})")
    message = (f"counterexample (dims {comp.dims or 'fixed'}): {score}; re-checked in float64 on the one-instance path; "
               f"interval certificate: {cert['status']}{precise}{near}" + "".join(f"; {f}" for f in failures))
    witness = Counterexample(seed, comp.dims, values_json(sides.values), relation_reports(sides, sc), cert,
                             params=_params_json(params))
    return Outcome(Verdict.refuted, message, float(max(m[0] for m in sc.measure)),
                   (witness,) + _diagnosis(run, comp, sides, sc))


def refuted_by_an_example(run: ClaimRun) -> Outcome | None:
    """The check's fixed instances, before any random one: the first that violates a relation in float64
    (and that ball arithmetic does not put within tolerance) refutes the claim with itself as witness."""
    compiled = run.compiled.assignments
    if any(c.randoms for c in compiled):
        raise CheckError("examples: only identity and bound checks without random hypotheses take fixed instances")
    assignments = [(c.dims, c.givens) for c in compiled]
    check = run.compiled.check
    for i, example in enumerate(check.examples):
        try:
            k, values = instance(example, assignments, i, run.compiled.data_root)
        except ExampleError as exc:
            raise CheckError(str(exc), ("examples", str(i))) from None
        comp = compiled[k]
        with torch.no_grad():
            sides = comp.evaluate_values(values, CPU64)
            sc = score_sides(sides, check.tol, torch.float64)
        run.tally.examples = i + 1
        if not bool(sc.assume_ok[0]):
            run.tally.examples_outside_assumptions.append(i)
            continue
        if not (bool(torch.isfinite(sc.score[0])) and float(sc.score[0]) > 1):
            continue
        artefact, why, cert = judge_exactly(comp, sides, sc)
        if artefact:  # the exact (or 60-digit) value lies within tolerance: rounding, not a refutation
            run.tally.rounding_candidates.append(f"examples[{i}]: {why}")
            continue
        message = (f"counterexample from check.examples[{i}] (a fixed instance, dims {comp.dims or 'fixed'}; "
                   f"no random instance needed): violation score {float(sc.score[0]):.4g} (> 1 means beyond "
                   f"tolerance {float(sc.tol[0]):.3g}); interval certificate: {cert['status']}"
                   + (f"; {why}" if "precise" in cert or cert.get("tie") else ""))
        witness = Counterexample(run.seed, comp.dims, values_json(values), relation_reports(sides, sc), cert, example=i)
        return Outcome(Verdict.refuted, message, float(max(m[0] for m in sc.measure)),
                       (witness,) + _diagnosis(run, comp, sides, sc))
    return None


def _diagnosis(run: ClaimRun, comp: Compiled, sides, sc) -> tuple:
    """Where the violated identities' sides differ and which defect shape they show (``engine/probe.py``);
    nothing when the probe fails — the counterexample stands without it."""
    violated = [i for i, (rel, m) in enumerate(zip(comp.relations, sc.measure))
                if rel.op == "==" and float(m[0]) > HELD_AT_WITNESS]
    if not violated:
        return ()
    try:
        found = diagnose_witness(comp, sides.values, violated, run.compiled.side_texts(), run.seed)
    except Exception:  # noqa: BLE001 - a diagnosis is an aid (time up included): the refutation stands without it
        return ()
    return (found,) if found.diagnoses or found.located else ()


def relation_reports(sides, sc) -> tuple[RelationAtWitness, ...]:
    return tuple(RelationAtWitness(rel.text, rel.op, tensor_to_list(lhs[0]), tensor_to_list(rhs[0]), float(m[0]))
                 for (rel, lhs, rhs), m in zip(sides.relation_sides(), sc.measure))


def _params_json(theta: dict) -> dict:
    return {n: {k: tensor_to_list(v[0]) for k, v in t.items()} for n, t in theta.items()}
