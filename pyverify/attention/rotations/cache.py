"""A cache for what a layer computes from its parameters alone (Cayley transforms, basis, folded projection),
reused while the parameters are unchanged.

When may a cached value be reused? Only when no autograd graph to the parameters is needed: a forward in grad
mode with trainable parameters must build its own graph (each backward frees the graph it walks), and its
parameters are about to change anyway, so there the value is computed afresh and the cache is emptied.
In every other call (``torch.no_grad``, ``torch.inference_mode``, frozen parameters) the value is reused as
long as its key is unchanged. The key of each parameter is

* its storage address and its version counter (bumped by every in-place change PyTorch sees: ``copy_`` in
  ``load_state_dict``, ``add_`` in the optimizers, any ``with torch.no_grad(): p.mul_(...)``); the cache keeps
  a detached alias of each keyed tensor so that its storage cannot be freed and its address reused;
* its dtype, device and shape;
* the number of optimizer steps taken so far in this process: fused optimizers (``Adam(fused=True)``) write
  parameters without bumping their version counter, so every ``Optimizer.step`` invalidates (a global step
  post-hook, registered when the first value is cached);
* whether inference mode is on (an inference tensor cannot be saved for a later backward).

The owning module also empties the cache on ``train()``/``eval()`` and on ``.to()``/``.half()``. What nothing
can see is a write through ``p.data`` (a tensor with its own version counter): call ``clear_cache()`` after one.
"""

from __future__ import annotations

from typing import Callable, Iterable

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook
from torch import Tensor

__all__ = ["ParameterCache"]

_optimizer_steps = 0
_hook_registered = False


def _count_step(optimizer, args, kwargs) -> None:
    global _optimizer_steps
    _optimizer_steps += 1


def _watch_optimizers() -> None:
    global _hook_registered
    if not _hook_registered:
        register_optimizer_step_post_hook(_count_step)
        _hook_registered = True


class ParameterCache:
    """One cached value per owner, computed by ``get(tensors, compute)`` from the tensors it depends on."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self._key: tuple | None = None
        self._value = None
        self._pinned: list[Tensor] = []
        self.computed = 0  # how often ``compute`` ran (for tests and benchmarks)

    def __getstate__(self) -> dict:  # pickling or deep-copying a module does not carry its cache
        return {}

    def __setstate__(self, state: dict) -> None:
        self.clear()

    def get(self, tensors: Iterable[Tensor | None], compute: Callable[[], object]):
        """``compute()``, or its earlier value if no tensor of ``tensors`` changed and no graph is needed."""
        tensors = [t for t in tensors if t is not None]
        if torch.compiler.is_compiling():  # the compiled graph recomputes (and fuses) it; no Python-side state
            return compute()
        if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
            self._key = self._value = None
            self._pinned = []
            self.computed += 1
            return compute()
        if any(torch.is_inference(t) for t in tensors):  # no version counter to key on
            self.computed += 1
            return compute()
        _watch_optimizers()
        key = (_optimizer_steps, torch.is_inference_mode_enabled(),
               tuple((t.data_ptr(), t._version, t.dtype, t.device, t.shape) for t in tensors))
        if key != self._key:
            self._value = compute()
            self._key = key
            self._pinned = [t.detach() for t in tensors]
            self.computed += 1
        return self._value
