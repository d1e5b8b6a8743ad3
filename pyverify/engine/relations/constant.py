"""Constant claims: "lhs <= C rhs for some constant C" — the smallest constant the search could not
beat, per sweep assignment, and whether it grows along the sweep (then no constant exists)."""

from __future__ import annotations

import math

from ...registry import Verdict
from ..result import Result
from .order import loglog_slope


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
        res.verdict, res.message = Verdict.holds, "lhs never positive where rhs > 0"
        return
    res.worst = max(consts)
    res.details["constant"] = res.worst
    if verdicts:
        j, slope, finite = verdicts[0]
        res.verdict = Verdict.refuted
        res.message = (f"the smallest admissible constant of `{texts[j]}` grows with size (log-log slope {slope:.2f}): "
                       f"{finite[0][1]:.3g} at {finite[0][0]} -> {finite[-1][1]:.3g} at {finite[-1][0]}")
        res.witness = {"relation": texts[j], "growth": [{"dims": d, "ratio": r} for d, r in finite], "slope": slope}
        return
    res.verdict = Verdict.holds
    res.message = "smallest constant(s) the search could not beat: " + ", ".join(f"{c:.4g}" for c in consts) + " (bounded along the sweep)"


