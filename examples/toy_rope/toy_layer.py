"""A small rotary-attention layer with three deliberate defects (the example of docs/your-own-code.md).

Its twin ``toy_layer_fixed.py`` is the corrected version. Everything works on ONE instance (a vector q of
size d, a scalar position), as pyverify's vocabulary functions do; pyverify batches with vmap.
"""

import torch

BASE = 10000.0


def rotate(x: torch.Tensor, pos: torch.Tensor, layout: str = "interleaved") -> torch.Tensor:
    """Rotary embedding of x (d,) at position pos: plane i turns by pos * BASE^(-2i/d). ``layout`` says
    which coordinates form plane i: (2i, 2i+1) ("interleaved") or (i, i + d/2) ("split")."""
    d = x.shape[-1]
    angles = pos * BASE ** (-torch.arange(0, d // 2, dtype=x.dtype) * 2.0 / d)
    if layout == "interleaved":
        a, b = x[0::2], x[1::2]
    else:
        a, b = x[: d // 2], x[d // 2:]
    ra, rb = a * torch.cos(angles) - b * torch.sin(angles), a * torch.sin(angles) + b * torch.cos(angles)
    if layout == "interleaved":
        return torch.stack((ra, rb), dim=-1).flatten()
    return torch.cat((ra, rb))


def relative_logit(q: torch.Tensor, k: torch.Tensor, ri: torch.Tensor, rj: torch.Tensor) -> torch.Tensor:
    """<rotate(q, ri), rotate(k, rj)> in one rotation: q . rotate(k, rj - ri) (the displacement rj - ri)."""
    return (q * rotate(k, ri - rj)).sum()  # DEFECT 1: the displacement's sign is flipped against the docstring


def scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """S[i, j] = <Q_i, K_j> for the rows of Q (n, d) and K (n, d)."""
    return torch.einsum("id,jd->ji", Q, K)  # DEFECT 2: the output indices are swapped (S transposed)


def attention_logit(q: torch.Tensor, k: torch.Tensor, ri: torch.Tensor, rj: torch.Tensor, sign: int = 1,
                    layout: str = "interleaved", scale_by: str = "full") -> torch.Tensor:
    """The layer's attention logit q^T R(sign * (rj - ri)) k / sqrt(d): ``sign`` picks the displacement
    (+1: rj - ri, -1: ri - rj), ``layout`` the planes, ``scale_by`` the scaling ("full": 1/sqrt(d),
    "active": 1/sqrt(number of rotated coordinates), the same here since every plane turns)."""
    d = q.shape[-1]
    scale = 1.0 / (d ** 0.5) if scale_by == "full" else 1.0 / ((2 * (d // 2)) ** 0.5)
    rotated = rotate(k, sign * (rj - ri), layout)
    # DEFECT 3: a product of sums instead of the inner product q^T R k — still a function of rj - ri only,
    # so every translation-invariance claim holds; only a comparison with a reference logit sees it
    return q.sum() * rotated.sum() * scale
