"""Is a confirmed float64 violation real, or rounding error? (More search must never turn a true claim false.)

Every confirmed violation is judged again. The exact paths (1, 2) can dismiss it; within ``NEAR`` times
the tolerance it must, in addition, stand out from the measured rounding noise (3) — exact arithmetic
re-evaluates the rounded inputs, which satisfy constrained hypotheses (orthogonality, commuting
generators) only to rounding. Far beyond the tolerance, a violation neither exact path dismisses is real.

1. exactly, where the vocabulary has ball meanings for every function of the violated relation: the
   interval certificate re-evaluates the same instance in 200-bit ball arithmetic; *certified* confirms
   the violation on these inputs, *not certified* (the exact value lies within tolerance) discards it;
2. in 60-digit arithmetic (mpmath), where every function has a 60-digit meaning (an enclosure too wide
   to decide, or a function without a ball meaning such as an eigendecomposition): a violation that
   *vanishes* at 60 digits was rounding; one that persists is *confirmed in higher precision*;
3. by the conditioning of what is computed, measured: the instance is perturbed at the
   rounding level (relative ``PERTURBATION``) a few times and re-evaluated; the spread of the violation
   measure under those perturbations is the rounding noise of this computation at this instance (large
   for an ill-conditioned determinant or a near-degenerate eigendecomposition), and the tolerance is
   scaled by it. A violation within the scaled tolerance is not a counterexample. The perturbation is
   at the rounding level of the lowest precision the code computed in (float32 code sees no float64-sized
   perturbation of its inputs). Where the code computed below float64, the condition number of its own
   calls is measured first (``amplification.py``): perturbing the whole instance moves the reference side
   with the code, so it cannot see how much the code amplifies its own rounding;
4. where neither exact path decided, on other floating-point paths (``paths.py``): a violation of code
   below float64 that vanishes when the same code runs on float64 arguments, or one that does not stand
   out from the disagreement of two evaluation paths, is *inconclusive*, neither a refutation nor a pass.
"""

from __future__ import annotations

import torch

from ..checks.compiled import Compiled, Sides
from ..checks.precision import low_precision_calls, name, out_of_range
from .amplification import Amplification, measure
from .context import CPU64
from .paths import judge_in_float64, judge_two_paths, on_cpu64
from .scoring import (Scored, lower_precision, only_ties, precision_tol, relation_terms, score_sides,
                      violated_relations)

NEAR = 1e4  # scores (violation / tolerance) below this are close enough to rounding to be judged again
PERTURBATION = 64 * torch.finfo(torch.float64).eps
LOW_PRECISION_PERTURBATION = 2  # ulps of a lower precision the code computes in (float32, bfloat16, float16)
TRIES = 16

# what the rounding judgement makes of a confirmed float64 violation
ROUNDING = "rounding"  # an artefact of rounding: dismissed
REAL = "real"  # a counterexample
INCONCLUSIVE = "inconclusive"  # within the disagreement of two floating-point paths: neither
NOISE_FACTOR = 8  # the conditioned tolerance: this many times the measured rounding noise of the measure


def judge_exactly(comp: Compiled, sides: Sides, sc: Scored) -> tuple[bool | None, str, dict]:
    """(is_artefact or None when undecided, why, evidence) by ball arithmetic, then 60-digit arithmetic.

    A violation that is only a tie of a strict relation within the tolerance (``scoring.TIE_SCORE``) is
    decided by ball arithmetic alone: real where it certifies the sides exactly equal, an artefact
    otherwise (no other path can tell a tie from a strict inequality that rounding closed)."""
    if only_ties(sides, sc):
        return _judge_tie(comp, sides, sc)
    evidence = exact_evidence(comp, sides, sc)
    if evidence["status"] == "certified":
        return False, "ball arithmetic certifies the violation", evidence
    if evidence["status"] == "not certified":
        return True, "ball arithmetic puts the exact value within tolerance", evidence
    precise = evidence.get("precise", {"status": "unsupported: random hypotheses"})
    if precise["status"] == "confirmed":
        return False, (f"confirmed in {precise['digits']}-digit arithmetic (score {precise['score']:.3g}; "
                       f"ball arithmetic: {evidence['status']})"), evidence
    if precise["status"] == "vanishes":
        return True, (f"at {precise['digits']} digits the relation holds within tolerance (score "
                      f"{precise['score']:.3g}): the float64 violation was rounding"), evidence
    return None, f"ball arithmetic: {evidence['status']}; 60 digits: {precise['status']}", evidence


def _judge_tie(comp: Compiled, sides: Sides, sc: Scored) -> tuple[bool, str, dict]:
    from ..provers.interval import certify

    try:
        cert = certify(comp, sides, float(sc.tol[0]), violated_relations(sides, sc))
    except Exception as exc:  # noqa: BLE001 - an uncertified tie refutes nothing
        cert = {"status": f"unsupported: certification failed ({type(exc).__name__}: {exc})"}
    if cert.get("tie"):
        return False, (f"ball arithmetic certifies the sides of the strict relation `{cert['tie']}` exactly equal: "
                       "it is met with equality"), cert
    return True, (f"a strict relation met with equality only to rounding: ball arithmetic does not certify its "
                  f"sides exactly equal (ball arithmetic: {cert['status']})"), cert


def exact_evidence(comp: Compiled, sides: Sides, sc: Scored) -> dict:
    """The certificate a reported witness carries: the ball certificate, and where it does not decide, the
    60-digit re-evaluation under ``precise``."""
    from ..provers.interval import certify
    from ..provers.precise import reevaluate

    violated = violated_relations(sides, sc)
    try:
        cert = certify(comp, sides, float(sc.tol[0]), violated)
    except Exception as exc:  # noqa: BLE001 - a failing certificate decides nothing; the float64 re-check stands
        cert = {"status": f"unsupported: certification failed ({type(exc).__name__}: {exc})"}
    if cert["status"] in ("certified", "not certified") or comp.randoms:
        return cert
    try:
        precise = reevaluate(comp, sides, float(sc.tol[0]), violated)
    except Exception as exc:  # noqa: BLE001 - likewise
        precise = {"status": f"unsupported: the 60-digit re-evaluation failed ({type(exc).__name__}: {exc})"}
    return {**cert, "precise": precise}


def rounding_verdict(comp: Compiled, theta: dict, sides: Sides, sc: Scored, tol: float | None,
                     seed: int) -> tuple[str, str, dict]:
    """(ROUNDING, REAL or INCONCLUSIVE, why, evidence) for a candidate that passed the float64 re-check;
    the evidence is the exact certificate of this instance (``exact_evidence``), which a reported witness
    carries."""
    score = float(sc.score[0])
    artefact, why, evidence = judge_exactly(comp, sides, sc)
    if artefact:
        return ROUNDING, why, evidence
    if evidence.get("tie"):  # an exact tie: perturbing the instance or a second path would test nothing
        return REAL, why, evidence
    if score >= NEAR:
        return REAL, (why if artefact is False else f"score {score:.3g} is far beyond the tolerance"), evidence
    # Near the tolerance an exact confirmation is not enough: the witness's inputs satisfy the hypotheses
    # only to rounding (an orthogonal U, a commuting family, a unit quaternion are float64 approximations),
    # so exact arithmetic on them judges a slightly inadmissible instance. The violation must also stand
    # out from the rounding noise of the whole computation, hypotheses' construction included.
    dismissed, why = _conditioned_verdict(comp, theta, sides, sc, tol, seed, why)
    if dismissed:
        return ROUNDING, why, evidence
    if artefact is None:  # no exact path decided: the code's own rounding must be ruled out another way
        precision = judge_in_float64(comp, theta, sides, sc, tol)
        if precision is not None:
            return INCONCLUSIVE, f"{why}; {precision.sentence()}", evidence
        paths = judge_two_paths(comp, theta, sides, sc, tol)
        return (REAL if paths.confirmed else INCONCLUSIVE), f"{why}; {paths.sentence()}", evidence
    return REAL, why, evidence


def _conditioned_verdict(comp: Compiled, theta: dict, sides: Sides, sc: Scored, tol: float | None, seed: int,
                         undecided: str) -> tuple[bool, str]:
    """Scale the tolerance by the rounding noise of the violated relations, measured by re-evaluating the
    instance under rounding-level perturbations of its inputs (at the level of the lowest precision the
    code computed in, where that is below float64)."""
    gen = CPU64.seeded(seed).gen
    score = float(sc.score[0])
    own, own_factor = _own_amplification(comp, theta, sides, sc, gen)
    if score <= own_factor:
        return True, (f"{undecided}; {own.sentence()}: the error model of {name(sides.precision)} scaled by it is "
                      f"{float(sc.tol[0]) * own_factor:.3g}, and the violation (score {score / own_factor:.3g} "
                      "against it) lies within it")
    relative = max(PERTURBATION, LOW_PRECISION_PERTURBATION * torch.finfo(sides.precision).eps)
    noise, lowest = 0.0, score  # noise: the largest change of the violation score, in units of the tolerance
    for _ in range(TRIES):
        th = {n: {k: _perturb(v, gen, relative) for k, v in t.items()} for n, t in theta.items()}
        with torch.no_grad():
            moved = comp.evaluate_one(th, 0, CPU64)
            s2 = score_sides(moved, tol, torch.float64)
        # scored against this instance's tolerance: the noise is the violation's, not that of a tolerance
        # re-derived from the moved instance (a conditioning measured on rounded values jumps with them)
        again = _score_at(moved, sc.tol)
        if not bool(s2.assume_ok[0]) or not again == again:
            continue
        lowest = min(lowest, again)
        noise = max(noise, abs(again - score))
    factor = max(1.0, NOISE_FACTOR * noise, own_factor)
    conditioned = float(sc.tol[0]) * factor
    if score <= factor or lowest <= 1:
        return True, (f"{undecided}; a relative perturbation of {relative:.1e} of the instance moves the "
                      f"violation score by {noise:.3g}: the tolerance scaled by this conditioning is "
                      f"{conditioned:.3g}, and the violation (score {score:.3g}, {score / factor:.3g} against "
                      f"it) lies within it")
    return False, (f"{undecided}; the violation exceeds the tolerance scaled by the measured conditioning "
                   f"({conditioned:.3g}; score {score / factor:.3g} against it)")


def _score_at(sides: Sides, tol: torch.Tensor) -> float:
    """The violation score of one instance's relations against a given tolerance (B,)."""
    scores = [float(relation_terms(rel.op, lhs, rhs, tol)[0][0]) for rel, lhs, rhs in sides.relation_sides()]
    worst = max(scores, default=0.0)
    return worst if worst == worst and worst != float("inf") else float("nan")


def _own_amplification(comp: Compiled, theta: dict, sides: Sides, sc: Scored,
                        gen: torch.Generator) -> tuple[Amplification, float]:
    """Where the code computed below float64: the condition number of its own calls at this instance
    (``amplification.py``), and the factor by which it raises the tolerance — the precision's error model
    times that condition number, against the tolerance in force (a check's own larger ``tol`` already
    covers what it covers)."""
    calls = _low_precision_calls(comp, theta, sides)
    if calls is None:
        return Amplification(1.0), 1.0
    try:
        own = measure(calls, gen)
    except Exception:  # noqa: BLE001 - an unmeasured amplification raises nothing
        return Amplification(1.0), 1.0
    tol = float(sc.tol[0])
    # the search measured the calls' condition number along one pattern of moves; here it is measured along
    # several random ones: the larger counts
    measured = max(own.factor, float(sides.amplification[0]))
    scaled = float(precision_tol(sides, torch.float64, measured)[0])
    return own, max(1.0, scaled / tol) if tol > 0 else 1.0


def _perturb(v: torch.Tensor, gen: torch.Generator, relative: float) -> torch.Tensor:
    v = v.detach().to(torch.float64).cpu()
    if not v.is_floating_point():
        return v
    noise = torch.randn(v.shape, generator=gen, dtype=v.dtype, device="cpu")
    return v * (1 + relative * noise)


def outside_precision(comp: Compiled, theta: dict, sides) -> str | None:
    """Where the code computed below float64 and the instance's arguments to it lie outside that precision's
    range (``precision.out_of_range``), the sentence that says so."""
    calls = _low_precision_calls(comp, theta, sides)
    return out_of_range(calls) if calls is not None else None


def _low_precision_calls(comp: Compiled, theta: dict, sides: Sides) -> list | None:
    """The calls below float64 of the instance's one-instance evaluation, as made; None where the code computed
    in float64 only or the instance cannot be evaluated again."""
    if not lower_precision(sides, torch.float64):
        return None
    try:
        with torch.no_grad(), low_precision_calls() as calls:
            comp.evaluate_one(on_cpu64(theta), 0, CPU64)
    except Exception:  # noqa: BLE001 - an instance that cannot be re-evaluated shows nothing
        return None
    return calls
