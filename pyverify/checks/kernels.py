"""Linear-algebra kernels run on their operands embedded in a batch of two.

torch's CPU kernels take a different floating-point path for one matrix than for a batch: the float64
``matrix_exp`` of a single small skew matrix errs by 1e-11 to 1e-10, the same matrix in a batch of two is
exact to 1e-16. The reference's own functions are evaluated so wherever an instance is evaluated alone
(``compiled.TorchBackend.call``), as they are under ``vmap``; the engine's second floating-point path runs
every kernel so, the user's code included (``engine/paths.py``).
"""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_map

# kernels whose floating-point path depends on the batch they run in (by their torch name)
_BATCHED = frozenset({
    "matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "matrix_exp", "linalg_matrix_exp", "linalg_solve", "solve",
    "linalg_inv", "inverse", "linalg_det", "det", "linalg_eigh", "linalg_eigvalsh", "linalg_svd", "svd",
    "linalg_svdvals", "linalg_qr", "qr", "linalg_cholesky", "cholesky", "linalg_eig", "linalg_eigvals",
})
_AS_MATMUL = frozenset({"mm", "bmm"})  # take exactly 2-D / 3-D operands: batched through matmul


class KernelsInABatch(TorchFunctionMode):
    """Run each batch-sensitive kernel on its operands stacked twice, and keep the first row."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        operands = [a for a in args if isinstance(a, torch.Tensor)]
        if name not in _BATCHED or not operands or any(a.dim() < 2 for a in operands):
            return func(*args, **kwargs)
        # operands of different ranks broadcast from the right: each is given the others' rank first, so
        # the new batch axis lines up for all of them
        rank = max(a.dim() for a in operands)
        stacked = [torch.stack([a, a]).reshape(2, *([1] * (rank - a.dim())), *a.shape)
                   if isinstance(a, torch.Tensor) else a for a in args]
        out = (torch.matmul if name in _AS_MATMUL else func)(*stacked, **kwargs)
        return tree_map(lambda x: x[0] if isinstance(x, torch.Tensor) else x, out)
