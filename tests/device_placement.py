"""A CPU stand-in for a GPU run: catches the device mix-ups a CUDA run would hit, on a machine without one.

On CUDA, a tensor made without ``device=`` lands on the CPU, and mixing it with the context's CUDA
tensors raises "Expected all tensors to be on the same device"; a ``torch.Generator()`` made without
``device=`` is a CPU generator, and drawing CUDA tensors from it raises "Expected a 'cuda' device type for
generator". On a CPU-only machine both mistakes are invisible, because the context's device is the CPU too.

``stray_placement()`` makes them visible while the context stays on the CPU:

* every factory call (``torch.zeros``, ``randn``, ``tensor``, ``arange``, ...) without an explicit
  ``device`` makes a tensor on the ``meta`` device instead, so combining it with the context's tensors
  raises exactly as on CUDA (``.item()``, ``float()`` and ``.numpy()`` of it raise too). The call site is
  recorded;
* every ``torch.Generator`` made without an explicit ``device`` is marked; drawing from one raises and
  the call site is recorded.

The strictness is deliberate: on CUDA a 0-dimensional CPU tensor may still mix with CUDA ones, here it
may not. Code that means the CPU says ``device="cpu"``.

What it cannot see, because the context is the CPU too: a context tensor handed unmoved to code that works
on the CPU by name (the one-instance re-check, the ball and 60-digit re-evaluation move their inputs with
``.to(**CPU64)`` / ``.cpu()``: read in the source), ``.numpy()`` of a context tensor (a source scan in
``test_device_placement.py``), and kernels CUDA lacks; ``scripts/compare_devices.py`` on a GPU covers those.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._device import _device_constructors

ELSEWHERE = torch.device("meta")


class StrayGeneratorError(RuntimeError):
    """A draw from a generator that was made without saying its device."""


class _Generator(torch.Generator):
    """``torch.Generator`` that remembers whether its device was given."""

    def __new__(cls, *args, **kwargs):
        made = super().__new__(cls, *args, **kwargs)
        made.device_given = bool(args) or "device" in kwargs
        return made

    def __init__(self, *args, **kwargs):  # torch.Generator takes its arguments in __new__
        pass


def _site() -> str:
    """The innermost frame of pyverify's code that made the call."""
    for frame in reversed(traceback.extract_stack()[:-3]):
        if "/pyverify/" in frame.filename and "/tests/" not in frame.filename:
            return f"{frame.filename.split('/pyverify/', 1)[1]}:{frame.lineno} {frame.line}"
    return "(outside pyverify)"


@dataclass
class Strays:
    """Where tensors or generators were made without the context's device: ``site -> what``."""

    found: dict[str, str] = field(default_factory=dict)

    def add(self, what: str) -> None:
        self.found.setdefault(_site(), what)


class _Mode(TorchFunctionMode):
    def __init__(self, strays: Strays):
        super().__init__()
        self.strays = strays
        self.constructors = _device_constructors()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        gen = kwargs.get("generator")
        if isinstance(gen, _Generator) and not gen.device_given:
            self.strays.add(f"{getattr(func, '__name__', func)} drew from a generator made without device=")
            raise StrayGeneratorError("a draw from a torch.Generator made without device= "
                                      "(on CUDA: Expected a 'cuda' device type for generator but found 'cpu')")
        copies = func in (torch.as_tensor, torch.asarray, torch.tensor) and args and isinstance(args[0], torch.Tensor)
        if func in self.constructors and kwargs.get("device") is None and not copies:  # a tensor stays where it is
            self.strays.add(f"{func.__name__} without device=")
            kwargs["device"] = ELSEWHERE
        return func(*args, **kwargs)


@contextlib.contextmanager
def stray_placement() -> Iterator[Strays]:
    """Within: tensors made without ``device=`` land on ``meta``, device-less generators refuse to draw."""
    strays = Strays()
    original = torch.Generator
    torch.Generator = _Generator
    try:
        with _Mode(strays):
            yield strays
    finally:
        torch.Generator = original
