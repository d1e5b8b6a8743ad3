"""A thin rotary-embedding interface to structured positional rotations (STRING / ESPR without P).

Functional: ``rotate(x, positions, basis, freqs)`` applies R_STR(r_n) = U (⊕_u R_2(r_n · freqs[:, u]) ⊕ I) U^T
to each token x_n by the fast path of ``core.rstr_apply`` (rotation in U's basis, no matrix exponential).
Module: ``StructuredRotary`` holds a learnable orthogonal basis U = cayley(skew(W)) (W starts at 0, so U
starts at I) and learnable frequencies, and rotates queries or keys with ``rotate_queries_or_keys``.
Since the generators commute, q·k after rotation depends on the positions only through r_j - r_i (T2.9).
RoPE is the special case U = I, d_c = 1, freqs = ``core.rope_frequencies``.

Precision (``precision.py``): whatever the dtype of x and of the parameters and whatever autocast says, the
positions, angles, basis and rotation are computed in float32 (float64 for float64 x) with autocast off, and
the result is returned in x's dtype. Angles are sums of elementwise products, never a matmul, so that a
float32 matmul allowed to run in TF32 cannot round them.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from .core import cayley, rotate_pairs, skew
from .precision import as_positions, autocast_off, rotation_dtype

__all__ = ["rotate", "plane_angles", "StructuredRotary", "initial_freqs"]


def plane_angles(r: Tensor, freqs: Tensor) -> Tensor:
    """theta[..., n, u] = sum_k r[..., n, k] freqs[..., k, u] (T2.4) by elementwise products, in the inputs'
    dtype whatever the matmul precision setting.  r (..., N, d_c), freqs (..., d_c, m) -> (..., N, m)."""
    terms = r.unsqueeze(-1) * freqs.unsqueeze(-3)  # (..., N, d_c, m)
    return terms[..., 0, :] if r.shape[-1] == 1 else terms.sum(-2)


def rotate(x: Tensor, positions: Tensor, basis: Tensor | None, freqs: Tensor) -> Tensor:
    """R_STR(r_n) x_n for every token, by rotating the planes in U's basis (``core.rstr_apply``'s fast path).

    x (..., N, d); positions (..., N, d_c); basis U (d, d) orthogonal, or None for U = I (the O(d) path);
    freqs (d_c, m) with 2m <= d  ->  (..., N, d) in x's dtype.  Per-head parameters broadcast like any batch
    dimension: x (B, H, N, d) with positions (B, 1, N, d_c), basis (H, d, d) and freqs (H, d_c, m)."""
    rot = rotation_dtype(x.dtype)
    r = as_positions(positions, rot, x.device)
    if r.shape[-1] != freqs.shape[-2]:
        raise ValueError(f"positions (..., N, d_c) and freqs (d_c, m) disagree: {tuple(r.shape)} vs {tuple(freqs.shape)}")
    if basis is not None and basis.shape[-2:] != (x.shape[-1], x.shape[-1]):
        raise ValueError(f"basis is {tuple(basis.shape)} but x has d = {x.shape[-1]}")
    with autocast_off(x.device):
        theta = plane_angles(r, freqs.to(rot))
        if basis is None:
            return rotate_pairs(x.to(rot), theta).to(x.dtype)
        U = basis.to(rot)
        return (rotate_pairs(x.to(rot) @ U, theta) @ U.mT).to(x.dtype)  # row vectors: x in U's basis is x U


def initial_freqs(n_heads: int, d_c: int, m: int, theta: float, how, generator, dtype, device) -> Tensor:
    """(H, d_c, m) starting frequencies.  "axial": plane u follows coordinate u mod d_c with a RoPE ladder
    theta^{-j/n_k} (exactly RoPE for d_c = 1, 2m = d_h); "mixed": RoPE magnitudes theta^{-u/m} along random
    unit directions of R^{d_c}; a tensor (d_c, m) or (H, d_c, m) is used as given."""
    work = rotation_dtype(dtype)  # initialised in float32 at least, then rounded to the parameters' dtype
    if isinstance(how, Tensor):
        f = how.to(dtype=dtype, device=device)
        if f.shape not in ((d_c, m), (n_heads, d_c, m)):
            raise ValueError(f"freq_init tensor must be ({d_c}, {m}) or ({n_heads}, {d_c}, {m}), got {tuple(f.shape)}")
        return f.expand(n_heads, d_c, m).clone()
    if how == "axial":
        f = torch.zeros(d_c, m, dtype=work)
        for u in range(m):
            k, j = u % d_c, u // d_c
            f[k, u] = theta ** (-j / len(range(k, m, d_c)))
        return f.expand(n_heads, d_c, m).clone().to(device=device, dtype=dtype)
    if how == "mixed":
        mags = theta ** (-torch.arange(m, dtype=work) / m)
        dirs = torch.randn(n_heads, d_c, m, generator=generator, dtype=work)
        return (dirs / dirs.norm(dim=1, keepdim=True) * mags).to(device=device, dtype=dtype)
    raise ValueError(f"freq_init must be 'axial', 'mixed' or a tensor, got {how!r}")


class StructuredRotary(nn.Module):
    """Learnable structured rotary embedding.

    Args:
        dim: d, the width of the rotated vectors.  d_c: number of position coordinates.
        n_planes: m rotating planes (default d // 2).  heads: None for one shared rotation, or H for
            one basis and one set of frequencies per head (then t is (..., H, N, d)).
        theta, freq_init: frequency initialisation ("axial" = RoPE for d_c = 1; see ``initial_freqs``).
        learn_basis: U = cayley(skew(W)) learned (starts at I); False keeps U = I (the O(d) path).
        learn_freqs: frequencies are parameters (else a buffer).
    Parameters: ``basis_skew`` W (d, d) or (H, d, d) (None without learn_basis), ``freqs`` (d_c, m) or (H, d_c, m).
    """

    def __init__(self, dim: int, d_c: int, *, n_planes: int | None = None, heads: int | None = None,
                 theta: float = 10000.0, freq_init="axial", learn_basis: bool = True, learn_freqs: bool = True,
                 generator: torch.Generator | None = None, device=None, dtype=None):
        super().__init__()
        dtype = torch.float64 if dtype is None else dtype
        m = dim // 2 if n_planes is None else n_planes
        if not 1 <= m <= dim // 2:
            raise ValueError(f"need 1 <= n_planes <= dim // 2 = {dim // 2}, got {m}")
        freqs = initial_freqs(heads or 1, d_c, m, theta, freq_init, generator, dtype, device)
        freqs = freqs if heads else freqs[0]
        basis_shape = (dim, dim) if heads is None else (heads, dim, dim)
        basis_skew = nn.Parameter(torch.zeros(basis_shape, device=device, dtype=dtype)) if learn_basis else None
        self._adopt(basis_skew, nn.Parameter(freqs) if learn_freqs else freqs, heads)

    @classmethod
    def from_parameters(cls, basis_skew: Tensor | None, freqs: Tensor, *, heads: bool = False) -> "StructuredRotary":
        """A rotary module over existing tensors (shared, not copied: gradients reach their owner).
        basis_skew (d, d) / (H, d, d) or None; freqs (d_c, m) / (H, d_c, m); heads: whether they have the H dim."""
        module = cls.__new__(cls)
        nn.Module.__init__(module)
        module._adopt(basis_skew, freqs, freqs.shape[0] if heads else None)
        return module

    def _adopt(self, basis_skew: Tensor | None, freqs: Tensor, heads: int | None) -> None:
        self.heads = heads
        if isinstance(basis_skew, nn.Parameter) or basis_skew is None:
            self.basis_skew = basis_skew
        else:
            self.register_buffer("basis_skew", basis_skew)
        if isinstance(freqs, nn.Parameter):
            self.freqs = freqs
        else:
            self.register_buffer("freqs", freqs)

    def basis(self) -> Tensor | None:
        """U (d, d) or (H, d, d), orthogonal, in the rotation dtype (float32 unless the parameters are
        float64); None when the basis is fixed at I."""
        if self.basis_skew is None:
            return None
        with autocast_off(self.basis_skew.device):
            return cayley(skew(self.basis_skew.to(rotation_dtype(self.basis_skew.dtype))), check=False)

    def rotate_queries_or_keys(self, t: Tensor, positions: Tensor) -> Tensor:
        """t (..., N, d) — (..., H, N, d) with per-head parameters — and positions (..., N, d_c)  ->  R_STR(r_n) t_n."""
        if self.heads is not None:
            positions = positions.unsqueeze(-3)  # the same positions for every head
        return rotate(t, positions, self.basis(), self.freqs)

    def extra_repr(self) -> str:
        d_c, m = self.freqs.shape[-2:]
        return f"d_c={d_c}, n_planes={m}, heads={self.heads}, learn_basis={self.basis_skew is not None}"
