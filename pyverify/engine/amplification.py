"""How much code that computes in float32 or bfloat16 amplifies its own rounding, at one instance.

The unit roundoff of a precision bounds the error of one well-conditioned operation; what a function
makes of it depends on the function and the point. A float32 ``matrix_exp`` of a rotation by an angle t
errs by about t times the unit roundoff (its squarings double the error t times over), a float32 rotary
cache at position p by about p times it (the angle p * theta is rounded relative to its own size). Perturbing
the whole instance cannot see this: the reference side moves with the code under test, and the violation
between them stays put. So each call that computed below float64 is made again on its own arguments
perturbed at the rounding level of its precision, and the relative change of its result, per unit of
relative perturbation, is its condition number at this instance: the factor by which its precision's error
model is scaled (``rounding._conditioned_verdict``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..checks.compiled import MAX_CONDITIONING
from ..checks.precision import AMPLIFICATION_ULPS, LowCall, amplification, eps, name

TRIES = 8


@dataclass(frozen=True)
class Amplification:
    """The largest condition number measured over the low-precision calls of one instance."""

    factor: float  # >= 1
    call: str = ""  # the function it was measured on
    precision: torch.dtype = torch.float64
    change: float = 0.0  # the relative change of its result under the perturbation

    def sentence(self) -> str:
        if not self.call:
            return "no call below float64 could be perturbed"
        return (f"{self.call} computes in {name(self.precision)}: its own arguments perturbed by "
                f"{AMPLIFICATION_ULPS} ulps of {name(self.precision)} change its result by {self.change:.3g} "
                f"relative (condition number {self.factor:.3g})")


def measure(calls: list[LowCall], gen: torch.Generator) -> Amplification:
    """The largest condition number of the recorded calls, each moved along ``TRIES`` random directions
    (``precision.amplification``)."""
    best = Amplification(1.0)
    for call in calls:
        if not bool(torch.isfinite(call.result).all()):
            continue
        for _ in range(TRIES):
            with torch.no_grad():
                factor = min(float(amplification(call.function, call.args, call.kwargs, call.result,
                                                 call.precision, gen)), MAX_CONDITIONING)
            if factor > best.factor:
                change = factor * AMPLIFICATION_ULPS * eps(call.precision)
                best = Amplification(factor, call.name, call.precision, change)
    return best
