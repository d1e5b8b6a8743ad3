"""The phases of a check judged by the adversarial search, in order:

examples -> generate -> confirm -> ascend -> polish -> judge -> symbolic / necessity

* examples: the check's fixed instances (``confirm.refuted_by_an_example``);
* per sweep assignment, generate random and degenerate instances; a judge that ``stops_early`` confirms
  a candidate violation at once, and when the confirmation fails, generates and ascends afresh; otherwise
  the ascent continues from the same stream; a candidate the ascent finds is confirmed in turn;
* polish: each holding bound's tightness climbed once per claim, at the assignment where it is tightest;
* judge: the kind's judge turns what was found into a verdict (``SearchJudge.verdict``);
* symbolic and necessity: for a verdict that holds, a SymPy proof where the check asks for one, and each
  hypothesis weakened in turn.

The profile (``profiles.py``) says which phases run and what each may spend. The kinds judged this way
(pointwise identities and bounds, unnamed constants, existence) differ only in their judge: whether the
search stops early, whether a candidate refutes, what an assignment's search means, and the verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..checks.compiled import Compiled
from ..checks.precision import lowest, name
from ..registry import Verdict
from .confirm import confirm, refuted_by_an_example
from .context import NumericContext
from .evidence import Evidence, NaNInstance, Necessity, Precision, SymbolicProof, Tightness
from .falsify import Candidate, SearchOutcome, ascend, generate, recheck
from .paths import second_path
from .polish import polish
from .result import Outcome, values_json
from .rounding import outside_precision
from .run import ClaimRun
from .scoring import score_sides


@dataclass
class Searched:
    """What the search found over the sweep: per assignment its outcome, the summary over all of them,
    and the polished ratios of a constant check."""

    outcomes: list[tuple[Compiled, SearchOutcome]]
    satisfiable: bool  # some instance satisfied the assumptions
    worst_measure: list[float]
    worst_ratio: list[float | None]
    ratios_by_size: list[list[tuple[dict, float]]]  # per relation, (assignment, its largest ratio)
    polished: dict[int, tuple[dict, float]]  # constant checks: per relation, the polished ratio and where
    message: str  # the worst relative error / tightness per relation, in words
    worst: float | None
    tightness: Tightness | None
    precision: Precision | None = None  # the lowest precision the code computed in, where below float64
    carried: int = 0  # constant checks: estimates raised by another size's instances (``carry_across_the_sweep``)


class SearchJudge:
    """A kind of relation judged by the search. Subclasses give the verdict."""

    stops_early = True  # confirm the random phase's candidate before ascending
    confirms = True  # a confirmed violation refutes the claim
    polishes_constants = False  # polished ratios are the constant's, not the bounds' tightness

    def judge(self, run: ClaimRun) -> Outcome:
        return run_search(self, run)

    def at_assignment(self, run: ClaimRun, comp: Compiled, out: SearchOutcome, ctx: NumericContext) -> Outcome | bool:
        """What one assignment's search means beyond violations: an outcome ends the run, False leaves the
        assignment out of the judgement (True: judged with the others)."""
        if out.nan_instance is not None:
            _, _, sides = recheck(comp, out.nan_instance.theta, run.tol)
            outside = outside_precision(comp, out.nan_instance.theta, sides)
            if outside is not None:
                # code in a lower precision cannot be given this instance: nothing about the code is shown
                return Outcome(Verdict.inconclusive, (
                    f"inconclusive at {name(sides.precision)} precision: the evaluation gave NaN/inf on an instance "
                    f"(dims {comp.dims}) that lies outside the range of {name(sides.precision)}: {outside}; the claim "
                    f"cannot be checked there at this precision"), None, (NaNInstance(values_json(sides.values)),))
            return Outcome(Verdict.error, f"evaluation gave NaN/inf on an instance satisfying the hypotheses "
                                          f"(dims {comp.dims})", None, (NaNInstance(values_json(sides.values)),))
        return True

    def after_search(self, run: ClaimRun) -> Outcome | None:
        """An outcome decided once every assignment was searched, before any polishing."""
        return None

    def verdict(self, run: ClaimRun, searched: Searched) -> Outcome:
        """The judge phase: the verdict from what the search found (pointwise and constant judges)."""
        raise NotImplementedError(f"{type(self).__name__} decides in after_search")


def run_search(judge: SearchJudge, run: ClaimRun) -> Outcome:
    compiled, profile = run.compiled, run.profile
    if compiled.check.examples and profile.runs("examples"):
        outcome = refuted_by_an_example(run)
        if outcome is not None:
            return outcome
    outcomes: list[tuple[Compiled, SearchOutcome]] = []
    satisfiable = False
    # the budget is per claim: a sweep shares it between its assignments (each gets at least a little)
    share = len(compiled.assignments)
    n_inst = max(16, profile.instances // share)
    n_rest = max(2, profile.restarts // share) if profile.runs("ascend") else 0
    for k, comp in enumerate(compiled.assignments):
        ctx = run.stream(k)
        out = explore(run, comp, ctx, n_inst, n_rest, stop_early=judge.stops_early)
        satisfiable |= out.satisfiable
        meaning = judge.at_assignment(run, comp, out, ctx)
        if isinstance(meaning, Outcome):
            return meaning
        if not meaning:
            continue
        if out.best is not None and judge.confirms:
            refutation = confirm(run, comp, out.best)
            if refutation is not None:
                return refutation
            # the random phase's candidate did not survive the re-check: the full adversarial search
            out = explore(run, comp, ctx, n_inst, n_rest, stop_early=False)
            if out.best is not None:
                refutation = confirm(run, comp, out.best)
                if refutation is not None:
                    return refutation
        outcomes.append((comp, out))
    decided = judge.after_search(run)
    if decided is not None:
        return decided
    if judge.polishes_constants:
        _tightness_on_two_paths(run, outcomes)
    polished: dict[int, tuple[dict, float]] = {}
    if profile.runs("polish") and profile.polish:
        violation = _polish_bounds(run, outcomes, polished, judge.polishes_constants)
        if violation is not None and judge.confirms:
            refutation = confirm(run, *violation)
            if refutation is not None:
                return refutation
    return judge.verdict(run, _summarise(outcomes, satisfiable, polished))


def explore(run: ClaimRun, comp: Compiled, ctx: NumericContext, n_inst: int, n_rest: int,
             stop_early: bool) -> SearchOutcome:
    """Generate, then ascend from the same stream unless stopping early at a candidate."""
    out = generate(comp, n_inst, ctx, run.tol)
    if not (stop_early and out.best is not None):
        ascend(comp, out, n_rest, run.profile.steps, ctx, run.tol)
    run.note_search(out.instances, out.failed_instances, out.ascent_failure)
    return out


def _polish_bounds(run: ClaimRun, searched: list[tuple[Compiled, SearchOutcome]],
                   polished: dict[int, tuple[dict, float]], constant_kind: bool) -> tuple[Compiled, Candidate] | None:
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
        steps = run.profile.polish
        if comp.unbatchable:  # evaluated instance by instance: one start each, fewer steps (as the search does)
            starts, steps = {j: cs[:1] for j, cs in starts.items()}, max(5, steps // 4)
        found = polish(comp, starts, steps, run.ctx, run.tol)
        run.instances += sum(len(cs) for cs in starts.values()) * steps
        for j, ratio in found.ratio.items():
            if constant_kind:
                polished[j] = (comp.dims, max(out.worst_ratio[j], ratio))
            else:
                out.worst_ratio[j] = max(out.worst_ratio[j], ratio)
        if not constant_kind and found.violation is not None and (violation is None or found.violation.score > violation[1].score):
            violation = (comp, found.violation)
    return violation


def _tightness_on_two_paths(run: ClaimRun, outcomes: list[tuple[Compiled, SearchOutcome]]) -> None:
    """A constant's growth is read from the largest lhs/rhs per size. Where the user's code is evaluated, that
    ratio can be made of the code path's rounding (an unbatched float64 ``matrix_exp`` errs by 1e-11 where
    the exact left side is 0, and a right side of 1e-9 turns that into a constant of 0.004): the tightest
    instances are evaluated again on a second floating-point path (``paths.second_path``), and the size's
    estimate is the largest of their ratios, each the smaller of its two paths' -- as the ratios carried
    across the sweep and met on rays are read. A ratio made partly of rounding falls only partly: 2.66 on
    the one-instance path against 0.45 in a batch (a left side of 5e-11 against 9e-12, its right side
    2e-11) made a correct layer's constant grow 0.45 -> 2.59 along the sweep."""
    for comp, out in outcomes:
        if not evaluates_user_code(comp):
            continue  # the reference's own functions: float64 is the exact meaning's check already
        for j, candidates in enumerate(out.tightest):
            top = out.worst_ratio[j] if j < len(out.worst_ratio) else None
            if not candidates or top is None or not math.isfinite(top) or top <= 0:
                continue
            both = []
            for cand in candidates:
                try:
                    both.append(ratio_on_two_paths(run, comp, cand.theta, j)[0])
                except Exception:  # noqa: BLE001 - an instance the second path cannot evaluate keeps its ratio
                    both.append(cand.score)
            out.worst_ratio[j] = min(top, max(both))


def evaluates_user_code(comp: Compiled) -> bool:
    """Whether some function of the check is bound to the user's code (its rounding is the code path's own)."""
    return any(fn.binding is not None for fn in comp.functions.values())


def ratio_on_two_paths(run: ClaimRun, comp: Compiled, theta: dict, j: int) -> tuple[float, bool]:
    """Relation j's lhs/rhs of one instance, the smaller of its one-instance path's and its second
    floating-point path's (``paths.second_path``: a ratio made of the code path's rounding is no constant's
    witness), and whether the instance satisfies the assumptions."""
    _, first, _ = recheck(comp, theta, run.tol)
    second = score_sides(second_path(comp, theta), run.tol, torch.float64)
    return min(float(first.ratio[j][0]), float(second.ratio[j][0])), bool(first.assume_ok[0])


def _summarise(outcomes: list[tuple[Compiled, SearchOutcome]], satisfiable: bool,
               polished: dict[int, tuple[dict, float]]) -> Searched:
    ratios_by_size: list[list[tuple[dict, float]]] = [[] for _ in (outcomes[0][0].relations if outcomes else [])]
    worst_measure: list[float] = []
    worst_ratio: list[float | None] = []
    for comp, out in outcomes:
        if not worst_measure:
            worst_measure, worst_ratio = list(out.worst_measure), list(out.worst_ratio)
        else:
            worst_measure = [max(a, b) for a, b in zip(worst_measure, out.worst_measure)]
            worst_ratio = [b if a is None else (a if b is None else max(a, b)) for a, b in zip(worst_ratio, out.worst_ratio)]
        for j, q in enumerate(out.worst_ratio):
            if q is not None:
                ratios_by_size[j].append((comp.dims, q))
    parts = []
    relations = outcomes[0][0].relations if outcomes else []
    for rel, m, q in zip(relations, worst_measure, worst_ratio):
        if rel.op == "==":
            parts.append(f"max relative error {m:.3g}")
        elif q is not None and math.isfinite(q):
            parts.append(f"tightness max lhs/rhs {q:.4g}")
    low = [out for _, out in outcomes if out.precision_tol > 0]
    found = Precision(lowest(o.precision for o in low), max(o.precision_tol for o in low)) if low else None
    worst, tightness = None, None
    if worst_measure:
        eqs = [m for rel, m in zip(relations, worst_measure) if rel.op == "=="]
        rat = [q for q in worst_ratio if q is not None and math.isfinite(q)]
        worst = max(eqs) if eqs else (max(rat) if rat else max(worst_measure))
        tightness = Tightness(rat[0] if rat else None)
    return Searched(outcomes, satisfiable, worst_measure, worst_ratio, ratios_by_size, polished, "; ".join(parts),
                    worst, tightness, found)


def measured(searched: Searched) -> tuple[Evidence, ...]:
    """The search's own evidence: the tightness of the bounds, where there are relations, and the
    precision the code computed in, where it is below float64."""
    return tuple(e for e in (searched.tightness, searched.precision) if e is not None)


def holds(run: ClaimRun, searched: Searched, evidence: tuple[Evidence, ...]) -> Outcome:
    """``holds`` on what the search found (``inconclusive`` where a violation could not be told from the
    code's own rounding), at the precision the code computed in; then the symbolic and necessity phases,
    where they run."""
    message = searched.message or f"no violation in {run.instances} instances"
    p = searched.precision
    if run.rechecked_precisions:  # the re-checks measured a lower precision than the batched search saw
        dtypes = [d for d, _ in run.rechecked_precisions] + ([p.dtype] if p is not None else [])
        tols = [t for _, t in run.rechecked_precisions] + ([p.tolerance] if p is not None else [])
        p = Precision(lowest(dtypes), max(tols))
        if p != searched.precision:
            evidence = tuple(e for e in evidence if not isinstance(e, Precision)) + (p,)
    if p is not None:
        message = (f"holds at {name(p.dtype)} precision (tolerance up to {p.tolerance:.3g}; the code under test "
                   f"computes in {name(p.dtype)}, so the claim is decided only to that precision): {message}")
    if run.inconclusive:
        first = run.inconclusive[0]
        more = f" ({len(run.inconclusive)} such instances)" if len(run.inconclusive) > 1 else ""
        return Outcome(Verdict.inconclusive, f"{first.summary}{more}; otherwise: {message}",
                       searched.worst, evidence + tuple(run.inconclusive[:1]))
    verdict = Verdict.holds
    check = run.compiled.check
    if check.symbolic is not None and run.profile.runs("symbolic"):
        from ..provers.symbolic import prove

        outcome = prove(run.compiled)
        evidence += (SymbolicProof(outcome.proved, outcome.scope, outcome.message),)
        if outcome.proved:
            verdict = Verdict.symbolic
            message = f"SymPy reduced the identity to zero ({outcome.scope}); numerically: {message}"
    if run.profile.runs("necessity"):
        from .necessity import necessity

        evidence += (Necessity(tuple(necessity(run, run.compiled.assignments[0]).items())),)
    return Outcome(verdict, message, searched.worst, evidence)
