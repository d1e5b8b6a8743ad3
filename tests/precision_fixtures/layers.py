"""Attention code written the way people write it, in styles that defeat batching, as a pyverify plugin
(tests/test_precision.py loads it with the public plugin API): a per-token ``matrix_exp`` of a small skew
generator built by index-put into a preallocated matrix, a cos/sin cache in float32 or bfloat16, a Python
loop over heads writing into a preallocated output, whole layers in float32 or bfloat16. Each has a
correct version and planted defects (``DEFECT`` below), registered under the same names.

Environment (read when the plugin is imported): ``PRECISION_LAYER_DTYPE`` = float64 | float32 | bfloat16
(what the layer computes in), ``PRECISION_LAYER_DEFECT`` = none | sign | scale | head (the planted defect).
"""

import math
import os

import torch

from pyverify import plugin

PYVERIFY_PLUGIN = "precision_layers"
DTYPE = getattr(torch, os.environ.get("PRECISION_LAYER_DTYPE", "float64"))
DEFECT = os.environ.get("PRECISION_LAYER_DEFECT", "none")
BASE = 10000.0


def _frequencies(d, dtype):
    return BASE ** (-torch.arange(0, d // 2, dtype=dtype) * 2.0 / d)


def mexp_rope(X, pos):
    """RoPE of each token by the matrix exponential of its skew generator, one token at a time."""
    n, d = X.shape
    work = torch.float32 if DTYPE == torch.bfloat16 else DTYPE  # CPU matrix_exp has no bfloat16 kernel
    freqs = _frequencies(d, work)
    out = torch.zeros(n, d, dtype=work)
    for i in range(n):
        G = torch.zeros(d, d, dtype=work)
        for u in range(d // 2):
            angle = pos[i].to(work) * freqs[u] * (-1.0 if DEFECT == "sign" else 1.0)
            G[2 * u, 2 * u + 1] = -angle
            G[2 * u + 1, 2 * u] = angle
        out[i] = torch.linalg.matrix_exp(G) @ X[i].to(work)
    return out.to(DTYPE)


@plugin.computes_in("float32" if DTYPE == torch.float64 else DTYPE)
def cached_rope(X, pos):
    """RoPE from a cos/sin cache built in float32 (or the layer's lower precision), applied in float64."""
    n, d = X.shape
    cache = torch.float32 if DTYPE == torch.float64 else DTYPE
    angles = pos.to(cache)[:, None] * _frequencies(d, cache)[None, :]
    if DEFECT == "scale":
        angles = angles * 1.5
    cos, sin = angles.cos().double(), angles.sin().double()
    x0, x1 = X[:, 0::2], X[:, 1::2]
    out = torch.empty(n, d, dtype=torch.float64)
    out[:, 0::2] = x0 * cos - x1 * sin
    out[:, 1::2] = x0 * sin + x1 * cos
    return out


def looped_heads(Q, K, V):
    """Two heads of width 2, a Python loop over them writing into a preallocated output."""
    n, d = Q.shape
    heads, width = 2, d // 2
    out = torch.zeros(n, d, dtype=DTYPE)
    q, k, v = Q.to(DTYPE), K.to(DTYPE), V.to(DTYPE)
    scale = 1 / (width if DEFECT == "scale" else math.sqrt(width))
    for h in range(heads):
        cols = slice(h * width, (h + 1) * width)
        source = slice(0, width) if DEFECT == "head" else cols
        weights = torch.softmax((q[:, cols] @ k[:, cols].T) * scale, dim=-1)
        out[:, cols] = weights @ v[:, source]
    return out


plugin.function("mexp_rope", mexp_rope, doc="RoPE by a per-token matrix exponential (index-put generator)")
plugin.function("cached_rope", cached_rope, doc="RoPE from a low-precision cos/sin cache")
plugin.function("looped_heads", looped_heads, doc="two-head softmax attention, a Python loop over heads")
