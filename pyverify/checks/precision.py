"""Floating-point precisions: which type a computation actually ran in.

An evaluation of a check records the real floating-point type of every function's result and the
internal precision a function declares (a float32 cache whose results are cast to float64 computes in
float32 all the same). The lowest of them — the one with the largest unit roundoff — is the precision
of the computation: the engine scales its tolerance by that precision's unit roundoff
(``engine/scoring.py``) and says, in the verdict, at which precision a claim holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from .looped import wrapped

# the names a user declares a precision by, and what each means
PRECISIONS: dict[str, torch.dtype] = {
    "float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16,
}
NAMES = {dtype: name for name, dtype in PRECISIONS.items()}
ATTRIBUTE = "pyverify_precision"  # a callable may carry its precision itself (``plugin.computes_in``)


class PrecisionError(ValueError):
    """A declared precision that is not one of ``PRECISIONS``."""


def parse(value: Any) -> torch.dtype | None:
    """A declared precision ("float32", torch.float32, None) as a torch dtype."""
    if value is None:
        return None
    if isinstance(value, torch.dtype) and value in NAMES:
        return value
    if isinstance(value, str) and value in PRECISIONS:
        return PRECISIONS[value]
    raise PrecisionError(f"precision {value!r}: expected one of {', '.join(PRECISIONS)} (or the torch dtype)")


def declared(fn: Any) -> torch.dtype | None:
    """The precision a callable declares through its ``pyverify_precision`` attribute, if any."""
    return parse(getattr(fn, ATTRIBUTE, None))


def real(dtype: torch.dtype) -> torch.dtype | None:
    """The real floating-point type a value of ``dtype`` is made of (None for integers and booleans)."""
    if dtype.is_complex:
        return torch.float32 if dtype == torch.complex64 else torch.float64
    return dtype if dtype.is_floating_point else None


def eps(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps


def lowest(dtypes: Iterable[torch.dtype | None]) -> torch.dtype:
    """The precision with the largest machine epsilon among ``dtypes`` (float64 when there are none)."""
    found = [d for d in dtypes if d is not None]
    return max(found, key=eps, default=torch.float64)


def name(dtype: torch.dtype) -> str:
    return NAMES.get(dtype, str(dtype).removeprefix("torch."))


def collect(found: set, value: Any) -> None:
    """Add the real floating-point types of a function's result (a tensor, or tensors nested in tuples,
    lists and dicts) to ``found``."""
    if isinstance(value, torch.Tensor):
        dt = real(value.dtype)
        if dt is not None:
            found.add(dt)
    elif isinstance(value, (tuple, list)):
        for v in value:
            collect(found, v)
    elif isinstance(value, dict):
        for v in value.values():
            collect(found, v)


def made_in_float32(t: torch.Tensor) -> bool:
    """A float64 tensor every entry of which is a float32 number, not all of them short binary fractions (1,
    0.5, integers are float32 numbers whatever computed them): it was computed in float32 and cast up (or
    stored so) — a float64 computation of the same quantity almost never lands on float32 numbers only."""
    if t.dtype != torch.float64 or t.numel() == 0:
        return False
    t = t.detach()
    return bool((t == t.float().double()).all()) and bool((t != t.bfloat16().double()).any())


def undeclared_float32(found: set, value: Any) -> None:
    """Add float32 to ``found`` when an (opaque) function's float64 result was made in float32 — code that
    casts a float32 table or computation up to float64 without declaring it. Only outside ``vmap`` (the test
    reads the values; the one-instance paths that confirm a refutation always run it)."""
    if isinstance(value, torch.Tensor) and not wrapped(value) \
            and made_in_float32(value):
        found.add(torch.float32)
    elif isinstance(value, (tuple, list)):
        for v in value:
            undeclared_float32(found, v)


@dataclass(frozen=True)
class LowCall:
    """One call of a function that computed in a precision below float64, as it was made: what the engine
    needs to measure how much that function's own rounding is amplified at this instance."""

    name: str
    function: Callable
    args: tuple
    kwargs: dict
    result: torch.Tensor
    precision: torch.dtype


_LOW_CALLS: list[LowCall] | None = None


@contextlib.contextmanager
def low_precision_calls() -> Iterator[list[LowCall]]:
    """Record the calls made inside that computed in a precision below float64 (one instance's evaluation)."""
    global _LOW_CALLS
    previous, _LOW_CALLS = _LOW_CALLS, []
    calls = _LOW_CALLS
    try:
        yield calls
    finally:
        _LOW_CALLS = previous


def below_float64(dtype: torch.dtype) -> bool:
    """Does ``dtype`` round more coarsely than float64 (float32, bfloat16, float16)?"""
    return eps(dtype) > eps(torch.float64)


def record(name: str, function: Callable, args: tuple, kwargs: dict, result: Any, dtype: torch.dtype) -> None:
    """Keep one call while ``low_precision_calls`` records, where it computed below float64 and returned a
    tensor. A call under ``vmap`` (an expectation's samples) is not kept: its tensors live only inside it."""
    if _LOW_CALLS is not None and isinstance(result, torch.Tensor) and below_float64(dtype) \
            and not wrapped(result):
        _LOW_CALLS.append(LowCall(name, function, args, kwargs, result.detach(), dtype))


_INJECT: tuple[torch.Generator, float] | None = None


@contextlib.contextmanager
def injected_rounding(gen: torch.Generator, ulps: float = 1.0) -> Iterator[None]:
    """Inside, every result computed below float64 comes back with a relative error of ``ulps`` units of
    roundoff of its precision times the call's condition number (normal, from ``gen``): what the computation
    makes of its code's rounding, for a judge to measure (one instance at a time: the noise is drawn outside
    ``vmap``)."""
    global _INJECT
    previous, _INJECT = _INJECT, (gen, ulps)
    try:
        yield
    finally:
        _INJECT = previous


def injecting() -> bool:
    """Is ``injected_rounding`` active?"""
    return _INJECT is not None


def inject(result: Any, dtype: torch.dtype, amplified: torch.Tensor | None) -> Any:
    """``result`` with the rounding ``injected_rounding`` asks for, where it computed below float64: its
    precision's unit roundoff times the condition number the call shows at its arguments (``amplified``, from
    ``amplification``): the code's own rounding inside it is amplified as much as a rounding of its
    arguments."""
    if _INJECT is None or amplified is None or not isinstance(result, torch.Tensor) \
            or not result.is_floating_point() or not below_float64(dtype):
        return result
    gen, ulps = _INJECT
    amplified = float(amplified)
    noise = torch.randn(result.shape, generator=gen, dtype=torch.float64, device="cpu").to(result.device)
    return (result.to(torch.float64) * (1 + ulps * eps(dtype) / 2 * amplified * noise)).to(result.dtype)


AMPLIFICATION_ULPS = 2  # the perturbation a low-precision call's arguments get: this many ulps of its precision


def amplification(function: Callable, args: tuple, kwargs: dict, result: torch.Tensor, dtype: torch.dtype,
                  gen: torch.Generator | None = None) -> torch.Tensor:
    """(0-d) how much a call that computed in ``dtype`` (below float64) amplifies rounding at its arguments:
    the relative change of its result when its floating arguments move by ``AMPLIFICATION_ULPS`` ulps of
    ``dtype``, per unit of that relative move, at least 1. The move is random (from ``gen``) or, without a
    generator, along one fixed, dense pattern of signs and sizes (it then runs under ``vmap``). A float32
    ``matrix_exp`` of a rotation by t has condition number about t, a float32 rotary cache at position p about
    p times its frequency: their rounding grows as much. A call that fails or changes shape on the moved
    arguments (a size read from a tensor) measures 1."""
    relative = AMPLIFICATION_ULPS * eps(dtype)
    one = torch.ones((), dtype=torch.float64, device=result.device)
    if not result.is_floating_point() and not result.is_complex():
        return one
    try:
        again = function(*_moved(args, relative, gen), **_moved(kwargs, relative, gen))
    except Exception:  # noqa: BLE001 - the measurement is an aid: the call itself succeeded
        return one
    if not isinstance(again, torch.Tensor) or again.shape != result.shape:
        return one
    wide = torch.complex128 if result.is_complex() else torch.float64
    base = result.detach().to(wide)
    change = torch.linalg.vector_norm(again.detach().to(wide) - base) / torch.linalg.vector_norm(base).clamp_min(1e-300)
    return torch.nan_to_num(change / relative, nan=1.0, posinf=1.0).clamp_min(1.0).to(torch.float64)


def _moved(value: Any, relative: float, gen: torch.Generator | None) -> Any:
    if isinstance(value, dict):
        return {k: _moved(v, relative, gen) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_moved(v, relative, gen) for v in value)
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return value
    if gen is None:  # a dense deterministic pattern in [-1, 1] (no generator: this runs inside vmap)
        k = torch.arange(value.numel(), dtype=torch.float64, device=value.device).reshape(value.shape)
        direction = torch.cos(k * 2.399963229728653 + 0.5)
    else:
        direction = torch.randn(value.shape, generator=gen, dtype=torch.float64, device="cpu").to(value.device)
    return (value.to(torch.float64) * (1 + relative * direction)).to(value.dtype)


def out_of_range(calls: list[LowCall]) -> str | None:
    """Where an argument of a call below float64 lies outside that precision's range — a nonzero value that
    rounds to 0 in it, or a finite one that rounds to infinity — a sentence saying so; None where none does.
    Code in that precision cannot even be given such an instance."""
    for call in calls:
        for value in (*call.args, *call.kwargs.values()):
            if not isinstance(value, torch.Tensor) or not value.is_floating_point() or value.is_complex():
                continue
            rounded = value.detach().to(call.precision).to(value.dtype)
            under = (value != 0) & (rounded == 0)
            over = torch.isfinite(value) & ~torch.isfinite(rounded)
            if bool(under.any()):
                tiny = float(value[under].abs().min())
                return (f"{call.name} is given {tiny:.3g}, which {name(call.precision)} rounds to 0 (its smallest "
                        f"positive number is {torch.finfo(call.precision).smallest_normal * eps(call.precision):.3g})")
            if bool(over.any()):
                huge = float(value[over].abs().max())
                return (f"{call.name} is given {huge:.3g}, beyond the largest {name(call.precision)} number "
                        f"({torch.finfo(call.precision).max:.3g})")
    return None
