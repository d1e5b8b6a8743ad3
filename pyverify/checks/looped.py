"""Code vmap cannot batch, called one instance at a time inside a batched evaluation.

User code often refuses ``torch.func.vmap``: it writes into tensors it preallocated, loops over heads in
Python, or calls a kernel with no batching rule. Evaluating the whole check one instance at a time for that
one call costs the interpretation of every other node of the check once per instance (an expectation: once
per sample), about twice the code's own time on the role matrix's random-feature claims. ``per_instance``
instead gives vmap a rule for the call alone: the batch is sliced and the code is called once per instance,
on plain tensors, exactly as the one-instance path calls it; the rest of the check stays batched.

The rule nests (a Monte-Carlo expectation maps over samples inside the map over instances), and gradients
flow through it, since the calls run on plain tensors under ordinary autograd. Anything the rule cannot
carry (nested containers of tensors, a result that is not a tensor or a tuple of them, results of
different shapes, or any failure of the code) is refused as a batching failure (``LoopRefused``), and the
caller falls back to its one-instance path, where a genuine failure of the code raises again with its own
message.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import torch


class LoopRefused(RuntimeError):
    """The per-instance rule cannot carry this call (its message names vmap, so ``batching_refused`` knows
    it for a batching failure)."""


def wrapped(value: Any) -> bool:
    """Is ``value`` a tensor that some vmap level batches?"""
    return isinstance(value, torch.Tensor) and torch._C._functorch.is_functorch_wrapped_tensor(value)


def per_instance(function: Callable) -> Callable:
    """``function`` made callable under vmap: each instance of the batch is passed to it alone. Outside vmap,
    the call is the function's own."""

    def call(*args, **kwargs):
        values = (*args, *kwargs.values())
        if any(isinstance(v, (tuple, list, dict)) and _holds_wrapped(v) for v in values):
            raise LoopRefused(f"vmap: a container of batched tensors cannot be sliced per instance for {_name(function)}")
        if not any(wrapped(v) for v in values):
            return function(*args, **kwargs)
        return _PerInstance.apply(function, len(args), tuple(kwargs), 0, *values)

    return call


def _holds_wrapped(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_wrapped(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(_holds_wrapped(v) for v in value)
    return wrapped(value)


def _name(function: Callable) -> str:
    return getattr(function, "__qualname__", None) or getattr(function, "__name__", None) or repr(function)


class _PerInstance(torch.autograd.Function):
    # only ``vmap`` is used: ``per_instance`` applies this where some argument is batched. Each vmap level's
    # rule moves its batch dimension to the front of every tensor argument (``loops`` counts the dimensions
    # moved so far) and applies the function again, so the levels below see one more leading dimension; the
    # last level, on plain tensors, calls the code once per instance of all of them. The calls run on plain
    # tensors, whose own operations autograd records.

    @staticmethod
    def forward(function, n_args, names, loops, *values):
        return function(*values[:n_args], **dict(zip(names, values[n_args:])))

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *grads):
        raise LoopRefused("vmap: the per-instance rule has no backward outside vmap")

    @staticmethod
    def vmap(info, in_dims, function, n_args, names, loops, *values):
        moved = []
        for v, d in zip(values, in_dims[4:]):
            if not isinstance(v, torch.Tensor):
                moved.append(v)
            elif d is None:
                moved.append(v.unsqueeze(0).expand(info.batch_size, *v.shape))
            else:
                moved.append(v.movedim(d, 0))
        if any(wrapped(v) for v in moved):
            out = _PerInstance.apply(function, n_args, names, loops + 1, *moved)
        else:
            out = _each_instance(function, n_args, names, loops + 1, moved)
        return out, (0 if isinstance(out, torch.Tensor) else tuple(0 for _ in out))


def _each_instance(function: Callable, n_args: int, names: tuple, loops: int, values: list | tuple) -> Any:
    """The code called once per instance: ``loops`` leading dimensions of every tensor argument index the
    instances; the results are stacked back into them."""
    lead = tuple(next(v for v in values if isinstance(v, torch.Tensor)).shape[:loops])
    try:
        results = []
        for index in itertools.product(*(range(n) for n in lead)):
            one = [v[index] if isinstance(v, torch.Tensor) else v for v in values]
            results.append(function(*one[:n_args], **dict(zip(names, one[n_args:]))))
        return _stacked(results, lead)
    except LoopRefused:
        raise
    except Exception as exc:  # noqa: BLE001 - the one-instance path runs it again and raises what is genuine
        raise LoopRefused(f"vmap: {_name(function)} one instance at a time: {type(exc).__name__}: {exc}") from exc


def _stacked(results: list, lead: tuple) -> Any:
    first = results[0]
    if isinstance(first, torch.Tensor):
        return torch.stack(results).reshape(*lead, *first.shape)
    if isinstance(first, tuple) and first and all(isinstance(t, torch.Tensor) for t in first):
        return tuple(torch.stack([r[k] for r in results]).reshape(*lead, *first[k].shape) for k in range(len(first)))
    raise LoopRefused(f"vmap: a result of type {type(first).__name__} cannot be stacked per instance")
