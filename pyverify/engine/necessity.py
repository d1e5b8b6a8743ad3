"""Hypothesis necessity: weaken each hypothesis of a claim that holds and try to break it again.

For every ``given`` whose sampler names a relaxation (commuting -> free skew family, orthogonal ->
general matrix, unit quaternion -> any 4-vector, ...) and for every ``assume``, the check is re-run
with that one hypothesis weakened. A violation means the claim needs the hypothesis; none means the
search could not show that it does (reported as such, not as "unnecessary").
"""

from __future__ import annotations

import dataclasses

from ..checks.compiled import Compiled
from .falsify import search
from .run import ClaimRun


def necessity(run: ClaimRun, comp: Compiled) -> dict[str, str]:
    """What weakening each hypothesis of ``comp`` (the first sweep assignment) did to the claim."""
    out: dict[str, str] = {}
    tol = run.tol
    variants: list[tuple[str, Compiled]] = []
    for name, sampler in comp.givens.items():
        relaxed = sampler.relaxed()
        if relaxed is None:
            continue
        givens = dict(comp.givens)
        givens[name] = relaxed
        variants.append((f"{name}: {sampler.describe()} -> {relaxed.describe()}", dataclasses.replace(comp, givens=givens)))
    for i, rel in enumerate(comp.assumes):
        rest = comp.assumes[:i] + comp.assumes[i + 1:]
        variants.append((f"assume {rel.text} dropped", dataclasses.replace(comp, assumes=rest)))
    for k, (label, variant) in enumerate(variants):
        try:
            res = search(variant, 64, 8, 8, run.stream(104729 + k), tol)
        except (RuntimeError, ValueError) as exc:
            out[label] = f"weakened check could not run ({type(exc).__name__})"
            continue
        out[label] = "needed: violated once weakened" if res.best is not None else "not shown needed: no violation found once weakened"
    return out
