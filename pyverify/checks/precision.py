"""Floating-point precisions: which type a computation actually ran in.

An evaluation of a check records the real floating-point type of every function's result and the
internal precision a function declares (a float32 cache whose results are cast to float64 computes in
float32 all the same). The lowest of them — the one with the largest unit roundoff — is the precision
of the computation: the engine scales its tolerance by that precision's unit roundoff
(``engine/scoring.py``) and says, in the verdict, at which precision a claim holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

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
    if isinstance(value, torch.Tensor) and not torch._C._functorch.is_functorch_wrapped_tensor(value) \
            and made_in_float32(value):
        found.add(torch.float32)
    elif isinstance(value, (tuple, list)):
        for v in value:
            undeclared_float32(found, v)
