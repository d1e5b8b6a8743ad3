"""Counting the aten operators a computation dispatches (each one a kernel launch on a GPU) and the host
synchronisations among them, on any device: what the GPU benchmarks explain their fixed costs with."""

from __future__ import annotations

import collections

from torch.utils._python_dispatch import TorchDispatchMode

VIEWS = {"view", "_unsafe_view", "transpose", "t", "expand", "slice", "detach", "unsqueeze", "squeeze",
         "permute", "split", "split_with_sizes", "unbind", "as_strided", "alias", "select", "unflatten", "_reshape_alias",
         "promote_types", "result_type", "reshape", "diagonal", "narrow", "unfold", "view_as_real", "view_as_complex",
         "lift_fresh"}  # views and dtype queries: no kernel
SYNCS = {"_local_scalar_dense", "_linalg_check_errors", "item", "nonzero", "is_nonzero", "equal", "allclose"}


class OpCounter(TorchDispatchMode):
    """Counts, by name, the operators dispatched inside it (views excluded)."""

    def __init__(self):
        super().__init__()
        self.ops = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if name not in VIEWS:
            self.ops[name] += 1
        return func(*args, **(kwargs or {}))

    def syncs(self) -> int:
        return sum(self.ops[name] for name in SYNCS)
