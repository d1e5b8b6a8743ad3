"""Positive (orthogonal) random features for the softmax kernel, FAVOR+-style linear attention.

Mathematics: Tier 7 of the ESPR derivation (T7.0-T7.5) and Section 3 of the ESPR paper.

For ``w ~ N(0, I_d)`` and ``x, y in R^d`` the positive feature of one draw is

    phi_w(x) = exp(w.x - |x|^2 / 2)                                   (sign="plus", T7.1)

and ``Z(x, y; w) = phi_w(x) phi_w(y) = exp(w.(x + y) - (|x|^2 + |y|^2) / 2)`` has
``E Z = exp(x.y)`` (T7.3) because ``E exp(w.z) = exp(|z|^2 / 2)``.  Averaging ``m`` draws gives the
estimator ``SM_hat(x, y) = phi(x) . phi(y)`` with ``phi(x) = (phi_{w_t}(x))_t / sqrt(m)``.

Single-draw second moment (T7.4): ``E Z^2 = exp(2|x + y|^2 - |x|^2 - |y|^2) = exp(|x|^2 + |y|^2 + 4 x.y)``, so

    Var Z = exp(2 x.y) (exp(|x + y|^2) - 1),     Var SM_hat = Var Z / m   (iid draws, T7.5).

The "minus" feature ``exp(-w.x - |x|^2/2)`` is the same estimator under ``w -> -w`` (same law, same
variance); "both" averages the two (the hyperbolic variant), for which
``Var = exp(2 x.y) (cosh(|x + y|^2) - 1) / m``.

Reading of the sources: the paper's Section 3 prints ``phi(x) = exp(+|x|^2/2) exp(w.x)``; with that
sign the estimator has mean ``exp(x.y + |x|^2 + |y|^2)`` and is biased.  We follow T7.1 (minus
``|x|^2/2``), which is the unbiased map; the test-suite shows the printed sign fails.  The paper also
says the MSE "scales linearly with SM(x, y)"; the closed form above is quadratic in SM times
``exp(|x + y|^2) - 1``.
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor

__all__ = [
    "gaussian_iid",
    "gaussian_orthogonal",
    "positive_features",
    "softmax_kernel",
    "softmax_kernel_estimate",
    "positive_rf_variance",
    "linear_attention",
    "softmax_attention",
]

Sign = Literal["plus", "minus", "both"]
Shift = Literal["row", "global"]
_SIGNS = ("plus", "minus", "both")


def _creation_kwargs(generator: torch.Generator | None, dtype: torch.dtype | None, device) -> dict:
    if device is None and generator is not None:
        device = generator.device
    return {"dtype": torch.float64 if dtype is None else dtype, "device": device}


def _check_md(m: int, d: int) -> None:
    if not isinstance(m, int) or not isinstance(d, int) or m < 1 or d < 1:
        raise ValueError(f"m and d must be positive integers, got m={m!r}, d={d!r}")


def gaussian_iid(m: int, d: int, generator: torch.Generator | None = None, *,
                 dtype: torch.dtype | None = None, device=None) -> Tensor:
    """Independent draws ``w_t ~ N(0, I_d)``.  -> W (m, d), float64 unless ``dtype`` is given.

    The device is ``device``, else the generator's device, else torch's default device.
    """
    _check_md(m, d)
    kw = _creation_kwargs(generator, dtype, device)
    return torch.randn(m, d, generator=generator, **kw)


def gaussian_orthogonal(m: int, d: int, generator: torch.Generator | None = None, *,
                        norms: Literal["chi", "fixed"] = "chi", batch: tuple[int, ...] = (),
                        dtype: torch.dtype | None = None, device=None) -> Tensor:
    """Orthogonal Gaussian draws.  -> W (*batch, m, d): ``batch`` independent draws at once (one batched
    QR instead of a Python loop, which dominated Monte-Carlo checks with many samples).

    Rows come in ``ceil(m / d)`` independent blocks of ``d`` (the last one truncated to ``m mod d``).
    Within a block the row directions are orthonormal and Haar-distributed (QR of a Gaussian matrix
    with the signs of diag(R) absorbed).  Row lengths:

    * ``norms="chi"`` (default): independent chi_d lengths (norms of fresh N(0, I_d) vectors), so each
      row is marginally exactly N(0, I_d) and every positive-feature estimator stays unbiased;
    * ``norms="fixed"``: every row has length sqrt(d) (the "regularised" variant). Rows are then not
      Gaussian and the positive-feature estimator is biased; offered for comparison only.
    """
    _check_md(m, d)
    if norms not in ("chi", "fixed"):
        raise ValueError(f"norms must be 'chi' or 'fixed', got {norms!r}")
    kw = _creation_kwargs(generator, dtype, device)
    batch = tuple(int(b) for b in batch)
    n_blocks = -(-m // d)
    gauss = torch.randn(*batch, n_blocks, d, d, generator=generator, **kw)
    q, r = torch.linalg.qr(gauss)
    # Q * sign(diag R) is Haar on O(d); without the sign fix the law depends on the QR convention.
    diag_sign = torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))
    diag_sign = torch.where(diag_sign == 0, torch.ones_like(diag_sign), diag_sign)
    haar = q * diag_sign.unsqueeze(-2)
    rows = haar.transpose(-1, -2).reshape(*batch, n_blocks * d, d)[..., :m, :]   # rows of each orthogonal block
    if norms == "chi":
        lengths = torch.linalg.vector_norm(torch.randn(*batch, m, d, generator=generator, **kw), dim=-1)
    else:
        lengths = torch.full((*batch, m), math.sqrt(d), **kw)
    return rows * lengths.unsqueeze(-1)


def _check_sign(sign: str) -> None:
    if sign not in _SIGNS:
        raise ValueError(f"sign must be one of {_SIGNS}, got {sign!r}")


def _check_W(W: Tensor, d: int, what: str = "x") -> None:
    if W.ndim != 2:
        raise ValueError(f"W must have shape (m, d), got {tuple(W.shape)}")
    if W.shape[-1] != d:
        raise ValueError(f"feature dimension mismatch: W is {tuple(W.shape)} but {what} has last dim {d}")


def positive_features(x: Tensor, W: Tensor, *, sign: Sign = "plus", shift: Shift | None = None) -> Tensor:
    """Positive random features.  x (..., d), W (m, d) -> phi (..., m), or (..., 2m) for ``sign="both"``.

    * ``sign="plus"`` (default, T7.1): ``phi(x)_t = exp(w_t.x - |x|^2/2) / sqrt(m)``
    * ``sign="minus"``:                ``phi(x)_t = exp(-w_t.x - |x|^2/2) / sqrt(m)``
    * ``sign="both"``: the two concatenated and scaled by 1/sqrt(2) (hyperbolic variant)

    With any sign, ``phi(x) . phi(y)`` is an unbiased estimator of ``exp(x.y)`` when the rows of W are
    marginally N(0, I) (``gaussian_iid`` or ``gaussian_orthogonal(norms="chi")``).

    ``shift`` (stabiliser, OFF by default) subtracts a data-dependent constant ``c`` from the exponent
    before exp, so the result is ``exp(-c) * phi``: ``"row"`` uses the max over the feature axis of each
    row (c has shape (..., 1)); ``"global"`` the max over the last two axes (sequence and features,
    c of shape (..., 1, 1); needs x.ndim >= 2).  It CHANGES WHAT IS ESTIMATED: ``phi(x) . phi(y)`` then
    estimates ``exp(x.y - c_x - c_y)``.  In normalised attention a per-query ``c_x`` and a ``c_y``
    shared by all keys cancel exactly (see ``linear_attention(max_shift=True)``).

    W is cast to x's dtype and device.
    """
    _check_sign(sign)
    _check_W(W, x.shape[-1])
    if shift not in (None, "row", "global"):
        raise ValueError(f"shift must be None, 'row' or 'global', got {shift!r}")
    W = W.to(dtype=x.dtype, device=x.device)
    m = W.shape[0]
    proj = x @ W.transpose(0, 1)                              # (..., m)
    half_sq = 0.5 * (x * x).sum(dim=-1, keepdim=True)         # (..., 1)
    if sign == "plus":
        exponent = proj - half_sq
    elif sign == "minus":
        exponent = -proj - half_sq
    else:
        exponent = torch.cat([proj - half_sq, -proj - half_sq], dim=-1)
    if shift == "row":
        exponent = exponent - exponent.amax(dim=-1, keepdim=True)
    elif shift == "global":
        if x.ndim < 2:
            raise ValueError("shift='global' needs x of shape (..., n, d) with a sequence axis")
        exponent = exponent - exponent.amax(dim=(-2, -1), keepdim=True)
    n_draws = m if sign != "both" else 2 * m
    return torch.exp(exponent) / math.sqrt(n_draws)


def softmax_kernel(x: Tensor, y: Tensor) -> Tensor:
    """Exact softmax kernel ``SM(x, y) = exp(x.y)``.  x (..., d), y (..., d) -> (...) (broadcast)."""
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"last dims differ: x {tuple(x.shape)}, y {tuple(y.shape)}")
    return torch.exp((x * y).sum(dim=-1))


def softmax_kernel_estimate(x: Tensor, y: Tensor, W: Tensor, *, sign: Sign = "plus") -> Tensor:
    """Random-feature estimate ``phi(x) . phi(y)`` of ``exp(x.y)``.  x, y (..., d), W (m, d) -> (...)."""
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"last dims differ: x {tuple(x.shape)}, y {tuple(y.shape)}")
    return (positive_features(x, W, sign=sign) * positive_features(y, W, sign=sign)).sum(dim=-1)


def positive_rf_variance(x: Tensor, y: Tensor, m: int = 1, *, sign: Sign = "plus") -> Tensor:
    """Exact variance (= MSE, the estimator is unbiased) of ``softmax_kernel_estimate`` with m IID draws.

    x, y (..., d) -> (...):
    ``sign in {"plus", "minus"}``: ``exp(2 x.y) * (exp(|x + y|^2) - 1) / m``  (T7.4-T7.5);
    ``sign="both"``:              ``exp(2 x.y) * (cosh(|x + y|^2) - 1) / m``.
    Orthogonal draws are not covered (their variance is smaller; measure it by Monte Carlo).
    """
    _check_sign(sign)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"last dims differ: x {tuple(x.shape)}, y {tuple(y.shape)}")
    if not isinstance(m, int) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    xy = (x * y).sum(dim=-1)
    z2 = ((x + y) ** 2).sum(dim=-1)
    if sign == "both":
        excess = 2.0 * torch.sinh(0.5 * z2) ** 2          # cosh(a) - 1 without cancellation
    else:
        excess = torch.expm1(z2)
    return torch.exp(2.0 * xy) * excess / m


def _check_qkv(q: Tensor, k: Tensor, v: Tensor, causal: bool) -> None:
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError("q, k, v must have shape (..., n, d); got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k feature dims differ: {q.shape[-1]} vs {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v sequence lengths differ: {k.shape[-2]} vs {v.shape[-2]}")
    if causal and q.shape[-2] != k.shape[-2]:
        raise ValueError(f"causal attention needs as many queries as keys: {q.shape[-2]} vs {k.shape[-2]}")


def _check_scale(scale: float) -> None:
    if not (isinstance(scale, (int, float)) and scale > 0 and math.isfinite(scale)):
        raise ValueError(f"scale must be a positive finite number, got {scale!r}")


def linear_attention(q: Tensor, k: Tensor, v: Tensor, W: Tensor, *, causal: bool = False,
                     sign: Sign = "plus", scale: float = 1.0, eps: float = 0.0, max_shift: bool = False,
                     chunk_size: int | None = None) -> Tensor:
    """Random-feature (FAVOR+-style) attention in time linear in the sequence length.

    q (..., n, d), k (..., n_k, d), v (..., n_k, d_v), W (m, d) -> (..., n, d_v); leading dims broadcast.

    With ``phi = positive_features(sqrt(scale) * ., W, sign=sign)`` it returns

        out_i = sum_j A_ij v_j / (sum_j A_ij + eps),    A_ij = phi(q_i) . phi(k_j),

    the sums running over all j (``causal=False``) or over j <= i (``causal=True``, computed by prefix
    sums; ``chunk_size`` switches to a blockwise version with the same result and O(chunk^2 + m d_v)
    memory per step instead of O(n m d_v)).  ``A_ij`` estimates ``exp(scale * q_i.k_j)``, so the
    output is a (ratio-)estimate of ``softmax_attention(q, k, v, scale=scale, causal=causal)``.
    ``scale`` defaults to 1: pass ``1/sqrt(d)`` for the usual transformer logits.

    Stabilisers used in practice, OFF by default because they change what is computed:

    * ``eps > 0`` is added to the denominator: out_i becomes ``out_i * D_i / (D_i + eps)``, biased
      towards 0 where the denominator ``D_i`` is small.
    * ``max_shift=True`` subtracts, before exp, each query's max exponent and the max exponent over
      all keys (and features) of the sequence. Each ``A_ij`` is then scaled by a factor
      ``exp(-c_i - c_K)`` that cancels in the ratio in exact arithmetic, so the output is unchanged
      when ``eps == 0``; with ``eps > 0`` the effective eps becomes ``eps * exp(c_i + c_K)``. In the
      causal case ``c_K`` is taken over all keys, including future ones (a constant, no leak of their
      values, but large future keys can underflow early ones).
    """
    _check_qkv(q, k, v, causal)
    _check_W(W, q.shape[-1], "q")
    _check_sign(sign)
    _check_scale(scale)
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {eps!r}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"chunk_size must be a positive integer or None, got {chunk_size!r}")
    root = math.sqrt(scale)
    phi_q = positive_features(q * root, W, sign=sign, shift="row" if max_shift else None)
    phi_k = positive_features(k * root, W, sign=sign, shift="global" if max_shift else None)
    if not causal:
        kv = phi_k.transpose(-1, -2) @ v                      # (..., M, d_v)
        num = phi_q @ kv                                     # (..., n, d_v)
        den = phi_q @ phi_k.sum(dim=-2).unsqueeze(-1)        # (..., n, 1)
        return num / (den + eps)
    if chunk_size is None:
        kv_prefix = torch.cumsum(phi_k.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)   # (..., n, M, d_v)
        num = (phi_q.unsqueeze(-1) * kv_prefix).sum(dim=-2)
        den = (phi_q * torch.cumsum(phi_k, dim=-2)).sum(dim=-1, keepdim=True)
        return num / (den + eps)
    return _causal_chunked(phi_q, phi_k, v, chunk_size, eps)


def _causal_chunked(phi_q: Tensor, phi_k: Tensor, v: Tensor, chunk: int, eps: float) -> Tensor:
    """Blockwise causal prefix sums: carried state for past chunks, masked products inside a chunk."""
    phi_q, phi_k = torch.broadcast_tensors(phi_q, phi_k)
    lead = torch.broadcast_shapes(phi_k.shape[:-2], v.shape[:-2])
    phi_q = phi_q.expand(*lead, *phi_q.shape[-2:])
    phi_k = phi_k.expand(*lead, *phi_k.shape[-2:])
    v = v.expand(*lead, *v.shape[-2:])
    n, M, dv = phi_k.shape[-2], phi_k.shape[-1], v.shape[-1]
    state_kv = phi_k.new_zeros(*lead, M, dv)
    state_z = phi_k.new_zeros(*lead, M)
    outs = []
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        fq, fk, vc = phi_q[..., start:stop, :], phi_k[..., start:stop, :], v[..., start:stop, :]
        local = torch.tril(fq @ fk.transpose(-1, -2))                         # (..., c, c), j <= i
        num = fq @ state_kv + local @ vc
        den = (fq @ state_z.unsqueeze(-1)) + local.sum(dim=-1, keepdim=True)
        outs.append(num / (den + eps))
        state_kv = state_kv + fk.transpose(-1, -2) @ vc
        state_z = state_z + fk.sum(dim=-2)
    return torch.cat(outs, dim=-2)


def softmax_attention(q: Tensor, k: Tensor, v: Tensor, *, causal: bool = False, scale: float = 1.0) -> Tensor:
    """Exact softmax attention ``softmax(scale * q k^T) v`` (quadratic; the reference).

    q (..., n, d), k (..., n_k, d), v (..., n_k, d_v) -> (..., n, d_v).  ``causal=True`` masks j > i.
    """
    _check_qkv(q, k, v, causal)
    _check_scale(scale)
    logits = scale * (q @ k.transpose(-1, -2))
    if causal:
        n = q.shape[-2]
        future = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        logits = logits.masked_fill(future, float("-inf"))
    return torch.softmax(logits, dim=-1) @ v
