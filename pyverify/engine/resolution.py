"""Does a verdict reached below float64 decide the claim? The reference in float64 says.

Against code that computes in float32 or bfloat16, a claim is judged to that precision's error model
(``scoring.precision_tol``): a violation smaller than the precision can resolve is no refutation of the
code. But the same blindness can make a false claim *hold*: a bound that fails by a few percent, or a
constant that grows slowly, hides below bfloat16's rounding, and "holds at bfloat16 precision" would read
as the code satisfying a statement that is false for the mathematics it implements.

So every claim that holds (or is consistent) on bound code below float64 is checked once more, with the
same budget and seed, against the reference functions in float64 (the bindings suspended). Where the
reference refutes it, the verdict on the code is *inconclusive at that precision*: the violation the
mathematics has is below what the code's precision resolves. Where the reference does not, the verdict
stands. Nothing is taken from the registry's expectations: the reference's verdict is computed here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ..checks.precision import below_float64, name
from ..checks.roles import ACTIVE, suspended
from ..registry import Registry, Verdict
from .evidence import Precision, ReferenceVerdict
from .result import Result

DECIDED_LOW = (Verdict.holds, Verdict.consistent)


def unresolved_below_float64(registry: Registry, results: list[Result],
                             check: Callable[[Registry, Sequence[str]], list[Result]]) -> list[Result]:
    """``results`` with each claim that held on bound code below float64, and that the reference refutes
    in float64, made inconclusive at that precision. ``check(registry, ids)`` checks claims as the run
    did (same budget, seed, device, jobs)."""
    if not ACTIVE:
        return results
    low = {r.id: r for r in results if r.verdict in DECIDED_LOW and _precision(r) is not None}
    if not low:
        return results
    plain = Registry(**{f.name: getattr(registry, f.name) for f in dataclasses.fields(Registry)})
    with suspended():  # compiled afresh: the reference functions, in float64
        reference = {r.id: r for r in check(plain, list(low))}
    return [_unresolved(r, reference[r.id]) if r.id in low and reference[r.id].verdict is Verdict.refuted else r
            for r in results]


def _precision(result: Result) -> Precision | None:
    p = result.find(Precision)
    return p if p is not None and below_float64(p.dtype) else None


def _unresolved(result: Result, reference: Result) -> Result:
    p = _precision(result)
    lowest = name(p.dtype)
    said = reference.message if len(reference.message) <= 240 else reference.message[:240] + "…"
    message = (f"inconclusive at {lowest} precision: the reference refutes this claim in float64 ({said}), where "
               f"the code under test, computing in {lowest}, showed no violation beyond its error model (tolerance up "
               f"to {p.tolerance:.3g}): at {lowest} precision the claim is not decided on this code; on the code: "
               f"{result.message}")
    return dataclasses.replace(result, verdict=Verdict.inconclusive, message=message,
                               evidence=result.evidence + (ReferenceVerdict(reference.verdict.value, said),))
