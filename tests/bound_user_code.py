"""A user's own attention code, written the way third-party code is (not pyverify's conventions), bound to
the shipped claims by tests/test_bindings.py. Each correct function declares the conventions it follows;
the planted defects are the bugs found in real implementations.
"""

from __future__ import annotations

import math

import torch

# ------------------------------------------------------------------------------------- rotary embedding
# the split-halves layout of many libraries (coordinate i pairs with i + d/2), rotating the other way round


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def _inverse_frequencies(d: int, dtype: torch.dtype) -> torch.Tensor:
    return 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=dtype) / d))


def _rotary(x: torch.Tensor, pos: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    angles = -pos[..., None] * inv_freq  # this library turns clockwise: displacement ri - rj
    cos, sin = torch.cat((angles.cos(), angles.cos()), -1), torch.cat((angles.sin(), angles.sin()), -1)
    return x * cos + _rotate_half(x) * sin


def apply_rotary(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """Correct under pairing: half, displacement: ri-rj."""
    return _rotary(x, pos, _inverse_frequencies(x.shape[-1], x.dtype))


def apply_rotary_xpos(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """The query side of xpos (scale base 512): the rotation, then plane i scaled by zeta_i^(pos / 512)."""
    d = x.shape[-1]
    zeta = (torch.arange(0, d, 2, dtype=x.dtype) + 0.4 * d) / (1.4 * d)
    scale = zeta ** (pos[..., None] / 512)
    return _rotary(x, pos, _inverse_frequencies(d, x.dtype)) * torch.cat((scale, scale), -1)


def apply_rotary_wrong_frequency(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """Planted defect: the first plane's frequency is off (base^(-2/d) where base^0 was meant)."""
    inv_freq = _inverse_frequencies(x.shape[-1], x.dtype) * 0.75
    return _rotary(x, pos, inv_freq)


def apply_rotary_position_scaled(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """Planted defect: a length-extrapolation scale applied by absolute position (not by displacement)."""
    return apply_rotary(x, pos) * (1.0 + 0.01 * pos[..., None])


# ------------------------------------------------------------------------------------- relative logits
# keys-by-queries score matrices, a 1/sqrt(d) scale and the opposite rotation sense


def _rotated(z: torch.Tensor, r: torch.Tensor, L: torch.Tensor, P: torch.Tensor, Pi: torch.Tensor) -> torch.Tensor:
    A = torch.einsum("...c,cij->...ij", r, L)
    R = torch.linalg.matrix_exp(A) @ P
    return (R @ (z @ Pi.mT)[..., None]).squeeze(-1) @ Pi.mT


def _logits(q, k, r_q, r_k, L, P=None, Pi=None, key_sign=-1.0, transposed=True):
    eye = torch.eye(q.shape[-1], dtype=q.dtype)
    P = eye if P is None else P
    Pi = eye if Pi is None else Pi
    qr, kr = _rotated(q, -r_q, L, P, Pi), _rotated(k, key_sign * r_k, L, P, Pi)
    scores = kr @ qr.mT if transposed else qr @ kr.mT
    return scores / math.sqrt(q.shape[-1])


def scores(q, k, r_q, r_k, L, P=None, Pi=None):
    """Correct under displacement: ri-rj, logit_scale: 1/sqrt(d), layout: key-major."""
    return _logits(q, k, r_q, r_k, L, P, Pi)


def scores_key_sign_flipped(q, k, r_q, r_k, L, P=None, Pi=None):
    """Planted defect: the keys are rotated the other way from the queries."""
    return _logits(q, k, r_q, r_k, L, P, Pi, key_sign=1.0)


def scores_transposed(q, k, r_q, r_k, L, P=None, Pi=None):
    """Planted defect: query-major scores where the declared layout is key-major."""
    return _logits(q, k, r_q, r_k, L, P, Pi, transposed=False)


# ------------------------------------------------------------------------------------------- rotation


def rotation(L: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Correct under displacement: ri-rj (R(r) = exp(-sum_k r_k L_k)); float32 arithmetic."""
    return torch.linalg.matrix_exp(-torch.einsum("c,cij->ij", r, L))


def rotation_scaled(L: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Planted defect: a non-orthogonal scaling of the rotation."""
    return 1.01 * rotation(L, r)
ROTARY_CONSTANT = 10000.0  # not a function: binding it is an error
