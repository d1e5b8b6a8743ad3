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
from typing import Any

import torch

from ..checks.compiled import MAX_CONDITIONING
from ..checks.precision import LowCall, eps, name

TRIES = 8
ULPS = 2  # the perturbation: this many units in the last place of the call's precision, relative


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
        return (f"{self.call} computes in {name(self.precision)}: its own arguments perturbed by {ULPS} ulps of "
                f"{name(self.precision)} change its result by {self.change:.3g} relative (condition number "
                f"{self.factor:.3g})")


def measure(calls: list[LowCall], gen: torch.Generator) -> Amplification:
    """Re-make each recorded call on perturbed arguments; a call that fails or changes shape on them (a size
    read from a tensor) tells nothing and is skipped."""
    best = Amplification(1.0)
    for call in calls:
        relative = ULPS * eps(call.precision)
        base = call.result.detach().to(_wide(call.result))
        norm = float(torch.linalg.vector_norm(base))
        if not (norm > 0 and torch.isfinite(base).all()):
            continue
        for _ in range(TRIES):
            args = tuple(_perturb(a, gen, relative) for a in call.args)
            kwargs = {k: _perturb(v, gen, relative) for k, v in call.kwargs.items()}
            try:
                with torch.no_grad():
                    again = call.function(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a call that fails on perturbed arguments measures nothing
                continue
            if not isinstance(again, torch.Tensor) or again.shape != base.shape:
                continue
            change = float(torch.linalg.vector_norm(again.detach().to(base.dtype) - base)) / norm
            factor = min(max(change / relative, 1.0), MAX_CONDITIONING)
            if change == change and factor > best.factor:
                best = Amplification(factor, call.name, call.precision, change)
    return best


def _perturb(value: Any, gen: torch.Generator, relative: float) -> Any:
    if isinstance(value, (tuple, list)):
        return type(value)(_perturb(v, gen, relative) for v in value)
    if not isinstance(value, torch.Tensor) or not value.is_floating_point() or value.is_complex():
        return value
    noise = torch.randn(value.shape, generator=gen, dtype=torch.float64, device="cpu").to(value.device)
    return (value.to(torch.float64) * (1 + relative * noise)).to(value.dtype)


def _wide(x: torch.Tensor) -> torch.dtype:
    return torch.complex128 if x.is_complex() else torch.float64
