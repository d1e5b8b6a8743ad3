"""The rotary law a layer declares (``RotarySpec``), computed by pyverify in float64: the reference every
module law is judged against."""

from __future__ import annotations

import torch

from .module import AdapterError, RotarySpec


def declared_frequencies(spec: RotarySpec, heads: int, d: int) -> torch.Tensor:
    f = torch.as_tensor(spec.frequencies).detach().to(torch.float64)
    f = f.expand(heads, f.shape[-1]) if f.dim() == 1 else f
    if f.shape[0] != heads or 2 * f.shape[-1] > d:
        raise AdapterError(f"spec(): frequencies of shape {tuple(spec.frequencies.shape)} do not fit {heads} head(s) of size {d}")
    return f


def plane_coordinates(spec: RotarySpec, m: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The coordinates of plane p: (p, p + m) for split-half pairing, (2p, 2p + 1) for adjacent."""
    p = torch.arange(m)
    return (p, p + m) if spec.pairing == "half" else (2 * p, 2 * p + 1)


def decay_factors(spec: RotarySpec, heads: int, positions: torch.Tensor, side: str) -> torch.Tensor | None:
    """(heads, seq, planes) factor of each plane at each position, or None without a declared decay."""
    if spec.decay is None:
        return None
    zeta = torch.as_tensor(spec.decay).detach().to(torch.float64).expand(heads, -1)
    power = positions.to(torch.float64) / spec.decay_scale * (1.0 if side == "query" else -1.0)
    return zeta[:, None, :] ** power[None, :, None]


def reference_rotate(spec: RotarySpec, x: torch.Tensor, positions: torch.Tensor, side: str,
                     post: bool = True) -> torch.Tensor:
    """x (batch, heads, seq, d) rotated in float64 as the spec says, then the post-rotation."""
    x = x.to(torch.float64)
    heads, d = x.shape[1], x.shape[-1]
    f = declared_frequencies(spec, heads, d)
    a, b = plane_coordinates(spec, f.shape[-1])
    angle = positions.to(torch.float64)[None, :, None] * f[:, None, :]  # (heads, seq, planes)
    c, s = angle.cos(), angle.sin()
    decay = decay_factors(spec, heads, positions, side)
    if decay is not None:
        c, s = c * decay, s * decay
    out = x.clone()
    out[..., a] = x[..., a] * c - x[..., b] * s
    out[..., b] = x[..., a] * s + x[..., b] * c
    if post and spec.post_rotation is not None:
        P = torch.as_tensor(spec.post_rotation).detach().to(torch.float64)
        out = out @ P.expand(heads, d, d).mT[None]
    return out


def reference_logits(spec: RotarySpec, q, k, positions, post: bool = True) -> torch.Tensor:
    qr = reference_rotate(spec, q, positions, "query", post)
    kr = reference_rotate(spec, k, positions, "key", post)
    return qr @ kr.mT * spec.scale
