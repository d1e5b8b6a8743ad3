"""Constant claims: "lhs <= C rhs for some constant C" — the smallest constant the search could not
beat, per sweep assignment, and whether it grows along the sweep (then no constant exists)."""

from __future__ import annotations

import math

from ...registry import Verdict
from ..result import Result


def loglog_slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


def judge_constant(res: Result, ratios: list[list[tuple[dict, float]]], texts: list[str], spec=None,
                   polished: dict[int, tuple[dict, float]] | None = None) -> None:
    """Unnamed constants (one per relation): report sup lhs/rhs; refute when one grows without bound.

    ``spec`` (registry ``check.constant``) says how the constant is quantified as printed:
    ``before-data`` (one constant for all data: it may not grow along any sweep variable),
    ``per-parameter`` (one constant per value of the ``depends_on`` sweep variables: growth across them is
    allowed, growth along the others is not), ``after-data`` (chosen after the data it bounds: a
    tautology, so the statement is vacuous). ``chosen`` names sweep variables that are existential
    constants of the statement (∃ C1 ...): the claim holds if one of their values works.

    ``polished``: per relation, a larger ratio the polishing phase found at one assignment (dims): it
    raises the reported constant (where it belongs to the chosen existential values), not the growth
    test, which compares the search's ratios found alike at every size."""
    quantified = getattr(spec, "quantified", "before-data")
    if quantified == "after-data":
        res.verdict = Verdict.vacuous
        res.message = ("the constant is chosen after the data it bounds: for every instance some constant works, "
                       "so the statement says nothing")
        return
    depends = list(getattr(spec, "depends_on", []) or []) if quantified == "per-parameter" else []
    chosen = list(getattr(spec, "chosen", []) or [])
    consts, failures = [], []
    for j, series in enumerate(ratios):
        finite = [(d, r) for d, r in series if math.isfinite(r) and r > 0]
        if not finite:
            continue
        entry = {"relation": texts[j], "constant": max(r for _, r in finite),
                 "by_size": [{"dims": d, "ratio": r} for d, r in finite]}
        failing = growth_in_every_choice(finite, depends, chosen, entry)
        if failing is not None:
            failures.append((j, *failing))
        elif "chosen" in entry:  # the constant the statement's existential choice needs
            entry["constant"] = max(r for d, r in finite if all(d.get(k) == v for k, v in entry["chosen"].items()))
        dims, ratio = (polished or {}).get(j, (None, -math.inf))
        if ratio > entry["constant"] and all(dims.get(k) == v for k, v in entry.get("chosen", {}).items()):
            entry["constant"] = ratio
            entry["polished"] = {"dims": dims, "ratio": ratio}
        consts.append(entry["constant"])
        res.details.setdefault("constants", []).append(entry)
    if not consts:
        res.verdict, res.message = Verdict.holds, "lhs never positive where rhs > 0"
        return
    res.worst = max(consts)
    res.details["constant"] = res.worst
    if failures:
        j, slope, finite = failures[0]
        res.verdict = Verdict.refuted
        res.message = (f"the smallest admissible constant of `{texts[j]}` grows with size (log-log slope {slope:.2f}): "
                       f"{finite[0][1]:.3g} at {finite[0][0]} -> {finite[-1][1]:.3g} at {finite[-1][0]}")
        res.witness = {"relation": texts[j], "growth": [{"dims": d, "ratio": r} for d, r in finite], "slope": slope}
        return
    res.verdict = Verdict.holds
    res.message = "smallest constant(s) the search could not beat: " + ", ".join(f"{c:.4g}" for c in consts) + " (bounded along the sweep)"
    if chosen or depends:
        picked = [e["chosen"] for e in res.details["constants"] if "chosen" in e]
        res.message += f" (quantified as printed: {_describe(depends, chosen)}" + (f"; works with {picked[0]}" if picked else "") + ")"


def _describe(depends: list[str], chosen: list[str]) -> str:
    parts = [f"one constant per value of {', '.join(depends)}"] if depends else []
    parts += [f"exists {', '.join(chosen)}"] if chosen else []
    return "; ".join(parts)


def growth_in_every_choice(finite: list[tuple[dict, float]], depends: list[str], chosen: list[str],
                            entry: dict) -> tuple[float, list] | None:
    """The growth that refutes the constant, or None. With ``chosen`` constants the claim survives if
    some value of them leaves every ``depends`` group bounded; the refuting growth reported is the
    first one of the best choice."""
    by_choice: dict[tuple, list] = {}
    for d, r in finite:
        by_choice.setdefault(tuple(d.get(k) for k in chosen), []).append((d, r))
    first_failure = None
    for choice, rows in by_choice.items():
        groups: dict[tuple, list] = {}
        for d, r in rows:
            groups.setdefault(tuple(d.get(k) for k in depends), []).append((d, r))
        failure = None
        for group in groups.values():
            failure = _grows(group, set(depends) | set(chosen), entry)
            if failure is not None:
                break
        if failure is None:
            if chosen:
                entry["chosen"] = dict(zip(chosen, choice))
            return None
        first_failure = first_failure or failure
    return first_failure


def _grows(series: list[tuple[dict, float]], fixed: set[str], entry: dict) -> tuple[float, list] | None:
    """Log-log growth of the smallest admissible constant along any sweep variable not held fixed: along
    each such variable, with the other free variables at one value at a time (a constant chosen before the
    data may grow along none of them). The reported slope is that of the first free variable."""
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
            entry.setdefault("growth_slope", growth)
            if growth > 0.3 and line[-1][1] > 2 * line[0][1]:
                entry["growth_along"] = key
                return growth, line
    return None

