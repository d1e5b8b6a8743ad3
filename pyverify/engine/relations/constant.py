"""Constant claims: "lhs <= C rhs for some constant C" — the smallest constant the search could not
beat, per sweep assignment, and whether it grows along the sweep (then no constant exists)."""

from __future__ import annotations

import math

from ...checks.compiled import Compiled
from ...registry import Verdict
from ..context import NumericContext
from ..evidence import ConstantEstimate, ConstantGrowth, ConstantOfRelation
from ..falsify import SearchOutcome
from ..no_constant import confirm_no_constant
from ..pipeline import Searched, SearchJudge, measured
from ..result import Outcome
from ..run import ClaimRun
from .pointwise import assumptions_unmet


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


class ConstantJudge(SearchJudge):
    """The search runs to the end at every assignment (no violation refutes: the constant is unnamed) and
    the polishing raises the reported constant."""

    stops_early = False
    confirms = False
    polishes_constants = True

    def at_assignment(self, run: ClaimRun, comp: Compiled, out: SearchOutcome, ctx: NumericContext) -> Outcome | bool:
        """An instance where the bound fails for every positive constant (its right side <= 0, its left side
        positive: ``engine/no_constant.py``) refutes once confirmed; no constant can rescue it."""
        meaning = super().at_assignment(run, comp, out, ctx)
        if meaning is True and out.no_constant is not None:
            refutation = confirm_no_constant(run, comp, out.no_constant)
            if refutation is not None:
                return refutation
        return meaning

    def verdict(self, run: ClaimRun, searched: Searched) -> Outcome:
        unmet = assumptions_unmet(run, searched)
        if unmet is not None:
            return unmet
        texts = [r.text for r in run.compiled.relations]
        return judge_constant(searched, texts, run.compiled.check.constant)


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
    if not entries:
        return Outcome(Verdict.holds, "lhs never positive where rhs > 0", searched.worst, found)
    estimate = ConstantEstimate(tuple(entries))
    consts = [e.constant for e in entries]
    if failures:
        j, slope, finite = failures[0]
        late = f", {late_slopes[j]:.2f} over the upper half of the sweep" if j in late_slopes else ""
        message = (f"the smallest admissible constant of `{texts[j]}` grows with size (log-log slope {slope:.2f}{late}): "
                   f"{finite[0][1]:.3g} at {finite[0][0]} -> {finite[-1][1]:.3g} at {finite[-1][0]}")
        return Outcome(Verdict.refuted, message, max(consts),
                       found + (estimate, ConstantGrowth(texts[j], tuple(finite), slope)))
    message = "smallest constant(s) the search could not beat: " + ", ".join(f"{c:.4g}" for c in consts) + " (bounded along the sweep)"
    if chosen or depends:
        picked = [e.chosen for e in entries if e.chosen is not None]
        message += f" (quantified as printed: {_describe(depends, chosen)}" + (f"; works with {picked[0]}" if picked else "") + ")"
    return Outcome(Verdict.holds, message, max(consts), found + (estimate,))


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
