"""Constant claims: "lhs <= C rhs for some constant C" — the smallest constant the search could not
beat, per sweep assignment, and whether it grows along the sweep (then no constant exists). The judge that
runs these steps is ``constant_judge.py``; a constant infinite at one size is ``vanishing.py``'s."""

from __future__ import annotations

import math

from ...checks.compiled import Compiled
from ...checks.precision import name
from ...registry import Verdict
from ..evidence import ConstantEstimate, ConstantGrowth, ConstantOfRelation
from ..falsify import recheck
from ..pipeline import Searched, evaluates_user_code, explore, measured, ratio_on_two_paths
from ..result import Outcome
from ..run import ClaimRun
from ..scoring import LOW_PRECISION_RATIO_ALLOWANCE


# a smallest constant below this is a left side at the rounding level of its right side (an unbatched
# matrix_exp errs by 1e-11 where the exact left side is 0): read as zero, it anchors no growth line — a
# constant rising from zero is not a power law, and no sweep of these documents spans a power law over
# nine decades
RESOLVED_RATIO = 1e-9
GROWTH_SLOPE = 0.3  # a log-log slope of a constant along the sweep above this (and over its upper half) is growth
LEVELLING_SIZES = 3  # sizes in the upper half of a sweep's line, at least, for a levelling to be read there


def _upper_half(n: int) -> int:
    """How many of the n sizes of a line the late slope is fitted on: its upper half (the middle size included)."""
    return (n + 1) // 2


def loglog_slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


def same_hypotheses(a: Compiled, b: Compiled) -> bool:
    """Whether an instance of assignment ``a`` is an instance of ``b``: the same samplers with the same
    arguments (a sweep variable that enters only the ``where`` lines, such as a scale t, leaves them equal)."""
    try:
        return a.givens == b.givens and a.randoms == b.randoms
    except Exception:  # noqa: BLE001 - arguments that cannot be compared (tensors) are not known to be equal
        return False


def carry_across_the_sweep(run: ClaimRun, searched: Searched) -> int:
    """Evaluate each assignment's tightest instances at every other assignment with the same hypotheses, and
    raise that assignment's estimate of the smallest admissible constant to the largest ratio found; the
    number of estimates raised.

    The searches at the sweep's sizes are independent, and each estimate is only the largest ratio its own
    search met. Where the sup is driven by an instance whose right side is nearly 0, one size's search can
    find such an instance and the next size's not: a constant growing like t (the query scaled by t, the
    right side blind to it) then reads as flat, 174 at t = 1 and about the same at t = 100. On common
    instances the growth cannot hide: the instance that gave 174 at t = 1 gives 17400 at t = 100. Every value
    carried is a ratio of an admissible instance at that size (its hypotheses equal, its assumptions
    re-checked there), so it only raises a lower estimate, as more search would."""
    outcomes = searched.outcomes
    raised = 0
    for j, line in enumerate(searched.ratios_by_size):
        best: dict[int, float] = {}
        for b, a, cand in _carried(outcomes, j):
            ratio = _ratio_at(run, outcomes[b][0], cand.theta, j)
            if ratio is not None and ratio > best.get(b, -math.inf):
                best[b] = ratio
        for b, ratio in best.items():
            dims = outcomes[b][0].dims
            k = next((k for k, (d, _) in enumerate(line) if d == dims), None)
            if k is None:
                line.append((dims, ratio))
                raised += 1
            elif ratio > line[k][1]:
                line[k] = (dims, ratio)
                raised += 1
    searched.carried += raised
    return raised


CARRIED = 512  # evaluations per relation at most: each size's best instance at every other size first, then its next


def _carried(outcomes: list, j: int) -> list[tuple[int, int, object]]:
    """(target, source, instance) of relation j to evaluate, in rounds: every source's best instance at
    every target of the same hypotheses (the nearest sizes of the sweep first), then every source's second
    best, ...; at most CARRIED of them (a sweep of 256 sizes would otherwise cost 256 x 255 x 4 evaluations)."""
    pairs = sorted(((b, a) for a, (source, _) in enumerate(outcomes) for b, (target, _) in enumerate(outcomes)
                    if a != b and same_hypotheses(source, target)), key=lambda ba: abs(ba[0] - ba[1]))
    tightest = [out.tightest[j] if j < len(out.tightest) else [] for _, out in outcomes]
    rounds = max((len(t) for t in tightest), default=0)
    work = [(b, a, tightest[a][r]) for r in range(rounds) for b, a in pairs if r < len(tightest[a])]
    return work[:CARRIED]


def _ratio_at(run: ClaimRun, comp: Compiled, theta: dict, j: int) -> float | None:
    """Relation j's lhs/rhs of one instance at this assignment, where it satisfies the assumptions there;
    where the user's code is evaluated, on two floating-point paths, as the search's own tightness is read
    (``pipeline.ratio_on_two_paths``)."""
    try:
        if evaluates_user_code(comp):
            ratio, admissible = ratio_on_two_paths(run, comp, theta, j)
        else:
            _, first, _ = recheck(comp, theta, run.tol)
            ratio, admissible = float(first.ratio[j][0]), bool(first.assume_ok[0])
    except Exception:  # noqa: BLE001 - an instance this assignment cannot evaluate (or no ratio of j) carries nothing
        return None
    return ratio if admissible and math.isfinite(ratio) and ratio > 0 else None


AGAIN = 4  # the low end of a growth line is searched again with this many times the instances and restarts
LOW_END = 2  # ... at this many of its smallest sizes
AGAIN_STREAM = 1 << 20  # stream offsets of the second search, apart from the first search's (one per assignment)


def search_the_low_end_again(run: ClaimRun, searched: Searched, j: int, growth: ConstantGrowth) -> bool:
    """The search's largest ratio at a size is a lower estimate of the smallest admissible constant there, and
    at a small budget a noisy one: an estimate that fell short at the smallest size makes a flat constant
    look like growth (0.069 at the smallest size where other seeds find 0.26). The line's
    smallest sizes are searched again, harder, on fresh streams; a larger estimate replaces the old one, and
    the instances that gave it join that size's tightest, to be carried to the other sizes
    (``carry_across_the_sweep``). More search can only raise the low end: it never makes a growth, and a real
    one survives it, since the instance that raised the low end raises the rest of the line with it."""
    share = max(1, len(run.compiled.assignments))
    n_inst = AGAIN * max(16, run.profile.instances // share)
    n_rest = AGAIN * max(2, run.profile.restarts // share) if run.profile.runs("ascend") else 0
    raised = False
    for dims, ratio in growth.growth[:LOW_END]:
        k = next((k for k, (comp, _) in enumerate(searched.outcomes) if comp.dims == dims), None)
        if k is None:
            continue
        comp = searched.outcomes[k][0]
        out = explore(run, comp, run.stream(AGAIN_STREAM + k), n_inst, n_rest, stop_early=False)
        again = out.worst_ratio[j] if j < len(out.worst_ratio) else None
        kept = searched.outcomes[k][1].tightest
        if j < len(out.tightest) and j < len(kept):
            kept[j] = sorted(kept[j] + out.tightest[j], key=lambda c: -c.score)
        if again is not None and math.isfinite(again) and again > ratio:
            line = searched.ratios_by_size[j]
            line[:] = [(d, max(r, again) if d == dims else r) for d, r in line]
            raised = True
    return raised


def judge_constant(searched: Searched, texts: list[str], spec=None) -> Outcome:
    """Unnamed constants (one per relation): report sup lhs/rhs; refute when one grows without bound.

    ``spec`` (registry ``check.constant``) says how the constant is quantified as printed:
    ``before-data`` (one constant for all data: it may not grow along any sweep variable),
    ``per-parameter`` (one constant per value of the ``depends_on`` sweep variables: growth across them is
    allowed, growth along the others is not), ``after-data`` (chosen after the data it bounds: a
    tautology, so the statement is vacuous). ``chosen`` names sweep variables that are existential
    constants of the statement (∃ C1 ...): the claim holds if one of their values works.

    The polished ratios (``searched.polished``, per relation, a larger ratio the polishing phase found at
    one assignment) raise the reported constant (where it belongs to the chosen existential values), not
    the growth test, which compares the search's ratios found alike at every size."""
    found = measured(searched)
    quantified = getattr(spec, "quantified", "before-data")
    if quantified == "after-data":
        return Outcome(Verdict.vacuous, "the constant is chosen after the data it bounds: for every instance some "
                       "constant works, so the statement says nothing", searched.worst, found)
    depends, chosen = quantification(spec)
    entries: list[ConstantOfRelation] = []
    failures = []
    late_slopes: dict[int, float] = {}
    for j, series in enumerate(searched.ratios_by_size):
        finite = [(d, r) for d, r in series if math.isfinite(r) and r > RESOLVED_RATIO]
        if not finite:
            continue
        choice: dict = {}
        slope: list[float] = []
        failing = growth_in_every_choice(finite, depends, chosen, choice, slope)
        constant = max(r for _, r in finite)
        if failing is not None:
            failures.append((j, *failing))
            if choice.get("late_slope") is not None:
                late_slopes[j] = choice["late_slope"]
        elif "chosen" in choice:  # the constant the statement's existential choice needs
            constant = max(r for d, r in finite if all(d.get(k) == v for k, v in choice["chosen"].items()))
        polished = None
        dims, ratio = searched.polished.get(j, (None, -math.inf))
        if ratio > constant and all(dims.get(k) == v for k, v in choice.get("chosen", {}).items()):
            constant, polished = ratio, (dims, ratio)
        entries.append(ConstantOfRelation(texts[j], constant, tuple(finite), slope[0] if slope else None,
                                          choice.get("chosen"), polished, choice.get("growth_along")))
    at = _at_precision(searched)
    if not entries and searched.precision is not None:
        # below float64 the tightness forgives the code's rounding: a left side never above it is not a 0
        return Outcome(Verdict.inconclusive, (
            f"inconclusive at {name(searched.precision.dtype)} precision: where rhs > 0 the left side never rose "
            f"above the rounding of the code under test{at}, so no constant can be measured at this precision"),
            searched.worst, found)
    if not entries:
        return Outcome(Verdict.holds, "lhs never positive where rhs > 0", searched.worst, found)
    estimate = ConstantEstimate(tuple(entries))
    consts = [e.constant for e in entries]
    if failures:
        j, slope, finite = failures[0]
        late = f", {late_slopes[j]:.2f} over the upper half of the sweep" if j in late_slopes else ""
        message = (f"the smallest admissible constant of `{texts[j]}` grows with size (log-log slope {slope:.2f}{late}): "
                   f"{finite[0][1]:.3g} at {finite[0][0]} -> {finite[-1][1]:.3g} at {finite[-1][0]}"
                   + (f" ({searched.carried} of the sweep's estimates raised by the tightest instances of another "
                      "size, evaluated there)" if searched.carried else "")
                   + (f"; at {name(searched.precision.dtype)} precision{at}" if searched.precision is not None else ""))
        return Outcome(Verdict.refuted, message, max(consts),
                       found + (estimate, ConstantGrowth(texts[j], tuple(finite), slope)))
    message = ("smallest constant(s) the search could not beat: " + ", ".join(f"{c:.4g}" for c in consts)
               + " (bounded along the sweep)" + (f"; at {name(searched.precision.dtype)} precision{at}"
                                                  if searched.precision is not None else ""))
    if chosen or depends:
        picked = [e.chosen for e in entries if e.chosen is not None]
        message += f" (quantified as printed: {_describe(depends, chosen)}" + (f"; works with {picked[0]}" if picked else "") + ")"
    return Outcome(Verdict.holds, message, max(consts), found + (estimate,))


def _at_precision(searched: Searched) -> str:
    """Where the code under test computed below float64: its precision and the tolerance it allowed."""
    if searched.precision is None:
        return ""
    return (f" (the code under test computes in {name(searched.precision.dtype)}; tolerance up to "
            f"{searched.precision.tolerance:.3g}, forgiven {LOW_PRECISION_RATIO_ALLOWANCE} times over in the "
            "tightness)")


def quantification(spec) -> tuple[list[str], list[str]]:
    """The sweep variables a constant may depend on (``per-parameter``) and the existential ones."""
    quantified = getattr(spec, "quantified", "before-data")
    depends = list(getattr(spec, "depends_on", []) or []) if quantified == "per-parameter" else []
    return depends, list(getattr(spec, "chosen", []) or [])


def _describe(depends: list[str], chosen: list[str]) -> str:
    parts = [f"one constant per value of {', '.join(depends)}"] if depends else []
    parts += [f"exists {', '.join(chosen)}"] if chosen else []
    return "; ".join(parts)


def growth_in_every_choice(finite: list[tuple[dict, float]], depends: list[str], chosen: list[str],
                           entry: dict, slope: list[float]) -> tuple[float, list] | None:
    """The growth that refutes the constant, or None. With ``chosen`` constants the claim survives if
    some value of them leaves every ``depends`` group bounded; the refuting growth reported is the
    first one of the best choice. ``entry`` receives the working choice (``chosen``) and the sweep variable a
    growth was found along (``growth_along``) and its slope over the upper half of the sweep
    (``late_slope``), ``slope`` the first growth slope measured."""
    by_choice: dict[tuple, list] = {}
    for d, r in finite:
        by_choice.setdefault(tuple(d.get(k) for k in chosen), []).append((d, r))
    first_failure, first_entry = None, {}
    for choice, rows in by_choice.items():
        groups: dict[tuple, list] = {}
        for d, r in rows:
            groups.setdefault(tuple(d.get(k) for k in depends), []).append((d, r))
        failure = None
        for group in groups.values():
            failure = _grows(group, set(depends) | set(chosen), entry, slope)
            if failure is not None:
                break
        if failure is None:
            if chosen:
                entry["chosen"] = dict(zip(chosen, choice))
            return None
        if first_failure is None:  # what a later choice's growth wrote describes that growth, not this one
            first_failure, first_entry = failure, {k: entry[k] for k in ("growth_along", "late_slope")}
    entry.update(first_entry)
    return first_failure


def _grows(series: list[tuple[dict, float]], fixed: set[str], entry: dict,
           slope: list[float]) -> tuple[float, list] | None:
    """Log-log growth of the smallest admissible constant along any sweep variable not held fixed: along
    each such variable, with the other free variables at one value at a time (a constant chosen before the
    data may grow along none of them). The first slope measured goes to ``slope``, the variable a growth
    was found along to ``entry["growth_along"]``; the growth returned with its line, sorted along it."""
    free = [k for k in series[0][0] if k not in fixed]
    for key in free:
        others = [k for k in free if k != key]
        lines: dict[tuple, list[tuple[dict, float]]] = {}
        for d, r in series:
            lines.setdefault(tuple(d.get(k) for k in others), []).append((d, r))
        for line in lines.values():
            if len({float(d[key]) for d, _ in line}) < 3:
                continue
            line = sorted(line, key=lambda dr: float(dr[0][key]))
            xs = [math.log(abs(float(d[key])) or 1e-300) for d, _ in line]
            ys = [math.log(r) for _, r in line]
            growth = loglog_slope(xs, ys)
            # the growth must persist to the end of the sweep: a constant that rises over the first sizes and
            # then levels off is bounded, however steep its first segments (the whole line's slope would read
            # it as polynomial growth); a power law grows at its own rate over the upper half as well. Only an
            # upper half of LEVELLING_SIZES sizes or more can show a levelling: one last segment cannot tell
            # it from a supremum the search underestimated at the largest size (a growth like n read
            # 1265 -> 2421 from n = 100 to 1000), so with fewer sizes the whole line decides
            upper = _upper_half(len(line))
            late = loglog_slope(xs[-upper:], ys[-upper:]) if upper >= LEVELLING_SIZES else growth
            if not slope:
                slope.append(growth)
            if growth > GROWTH_SLOPE and late > GROWTH_SLOPE and line[-1][1] > 2 * line[0][1]:
                entry["growth_along"] = key
                entry["late_slope"] = late if upper >= LEVELLING_SIZES else None
                return growth, line
    return None
