"""ESPRAttention: multi-head attention with structured positional rotations (Tier 4 of the ESPR derivation).

Per head, with W_Q, W_K, W_V the projections, U = cayley(skew(.)) a learnable orthogonal basis, freqs the
learnable plane frequencies (T2.4's beta), P a learnable Cayley post-rotation and Pi = Pi_act (T2.10):

    q~_i = Pi R_sp(r_i) Pi W_Q x_i,   k~_j = Pi R_sp(r_j) Pi W_K x_j,   R_sp(r) = R_STR(r) P  (T3.5, T4.3)
    alpha_ij = q~_i^T k~_j / sqrt(2m)                                                      (T4.4)
    out_i = W_O sum_j softmax_j(alpha_ij) W_V x_j

Fast form (``forward``): in U's basis R_STR(r) is block-diagonal (T2.7), so U^T Pi R_sp(r) Pi W_Q equals
B(theta(r)) [Q_act U_act^T W_Q] with B the 2x2 plane rotations and Q = U^T P U.  The bracket depends on the
parameters only: it is computed once per training call (O(H d_h^2 D), independent of the sequence) and cached
between inference calls, after which each token costs a plain projection plus O(d_h) rotations, like RoPE.
``fold_post_rotation()`` freezes that bracket into a plain projection (inference form).  ``reference_forward``
is the dense definition above.
Internally the planes use a "half" layout (all first coordinates, then all second ones); permuting q and
k alike leaves every logit unchanged.

Precision (``precision.py``): with bf16/fp16 parameters or under autocast, positions, angles, the Cayley
transforms, the folded projection and the rotation of q and k are computed in float32 with autocast off; the
projection and the attention run in the model's precision. Fixed cost (``cache.py``): the folded projection
is cached while the parameters are unchanged and no graph to them is needed (inference, frozen layers); the
two Cayley transforms share one batched solve without the solver's host synchronisation; the rotation of q
and k is one autograd Function whose backward reuses the forward's cos and sin.
"""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.autograd.function import once_differentiable

from .cache import ParameterCache
from .core import Pi_act, cayley, commuting_generators, skew
from .precision import as_positions, autocast_off, rotation_dtype
from .rotary import StructuredRotary, initial_freqs, plane_angles

__all__ = ["ESPRAttention", "FoldedESPRAttention", "rotate_qk"]


def _to_half_layout(rows: Tensor, m: int) -> Tensor:
    """Reorder dim -2 (length d_keep) as (0, 2, ..., 2m-2, 1, 3, ..., 2m-1, 2m, ..., d_keep-1): a strided copy,
    whose backward is one too (an index would scatter)."""
    planes = rows[..., : 2 * m, :].unflatten(-2, (m, 2)).transpose(-3, -2).flatten(-3, -2)
    return planes if rows.shape[-2] == 2 * m else torch.cat((planes, rows[..., 2 * m:, :]), dim=-2)


def _merge_masks(attn_mask: Tensor | None, causal: bool, n: int, device) -> tuple[Tensor | None, bool]:
    """SDPA (mask, is_causal) for an optional user mask (bool: True = attend, or additive float) and causality."""
    if not causal or attn_mask is None:
        return attn_mask, causal
    keep = torch.ones(n, n, dtype=torch.bool, device=device).tril()
    if attn_mask.dtype == torch.bool:
        return attn_mask & keep, False
    return attn_mask.masked_fill(~keep, float("-inf")), False


def _check_inputs(x: Tensor, r, d_model: int, d_c: int, dtype: torch.dtype) -> Tensor:
    """Positions r as a tensor of the rotation dtype (float32 unless the parameters are float64)."""
    if x.dim() != 3 or x.shape[-1] != d_model:
        raise ValueError(f"x must have shape (B, N, {d_model}), got {tuple(x.shape)}")
    r = as_positions(r, dtype, x.device)
    if r.shape != (*x.shape[:2], d_c):
        raise ValueError(f"r must have shape {(*x.shape[:2], d_c)} (B, N, d_c), got {tuple(r.shape)}")
    return r


class _PlaneRotation(torch.autograd.Function):
    """(a, b, theta) -> (a cos theta - b sin theta, a sin theta + b cos theta) in theta's dtype, q and k at once
    (a, b (..., 2, H, m): the q/k axis against theta's (..., 1, H, m)).  The backward rotates the incoming
    gradient back by -theta and takes theta's gradient as sum(a g_b - b g_a) over q and k, from the saved cos and
    sin: fewer kernels than autograd's chain through cos, sin and four products, and no recomputed cos, sin.
    Once differentiable: a second derivative (create_graph=True) raises instead of missing cos' and sin'
    dependence on theta."""

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor, theta: Tensor) -> tuple[Tensor, Tensor]:
        cos, sin = torch.cos(theta), torch.sin(theta)
        ctx.save_for_backward(a, b, cos, sin)
        return a * cos - b * sin, a * sin + b * cos  # a * cos promotes to theta's dtype within the kernel

    @staticmethod
    @once_differentiable
    def backward(ctx, g_x: Tensor, g_y: Tensor):
        a, b, cos, sin = ctx.saved_tensors
        g_a, g_b = g_x * cos + g_y * sin, g_y * cos - g_x * sin
        g_theta = None
        if ctx.needs_input_grad[2]:
            g_theta = (a * g_b - b * g_a).sum(-3, keepdim=True)
        return g_a.to(a.dtype), g_b.to(b.dtype), g_theta


def rotate_qk(qk: Tensor, r: Tensor, freqs: Tensor, m: int) -> Tensor:
    """The layer's rotation of projected queries and keys, in its precision: qk (B, N, 2, H, d_keep) in the
    attention dtype with the planes in half layout, r (B, N, d_c) in the rotation dtype, freqs (H, d_c, m)
    -> (B, N, 2, H, d_keep) in qk's dtype; angles and rotation in r's dtype with autocast off."""
    B, N, _, H, d_keep = qk.shape
    with autocast_off(qk.device):
        theta = plane_angles(r, freqs.to(r.dtype).transpose(0, 1).reshape(-1, H * m)).view(B, N, 1, H, m)
        parts = [*_PlaneRotation.apply(qk[..., :m], qk[..., m: 2 * m], theta)]
        parts += [qk[..., 2 * m:]] if d_keep > 2 * m else []
        return torch.cat(parts, dim=-1).to(qk.dtype)  # one cast back (a no-op in float32)


def _rotated_attention(x: Tensor, r: Tensor, weight: Tensor, bias: Tensor | None, freqs: Tensor, *,
                       m: int, d_keep: int, head_dim: int, scale: float, causal: bool,
                       attn_mask: Tensor | None, dropout_p: float) -> Tensor:
    """Shared fast kernel.  weight (H (2 d_keep + head_dim), D) with q, k rows in half layout, freqs (H, d_c, m).
    x (B, N, D), r (B, N, d_c) in the rotation dtype -> (B, N, H head_dim), before the output projection.
    The projection runs in the model's precision (autocast included); angles and rotation in r's dtype with
    autocast off, after which q and k return to the projection's dtype for the attention."""
    B, N, _ = x.shape
    H = freqs.shape[0]
    qk, v = F.linear(x, weight, bias).split((2 * H * d_keep, H * head_dim), dim=-1)
    q, k = rotate_qk(qk.view(B, N, 2, H, d_keep), r, freqs, m).transpose(1, 3).unbind(2)  # (B, H, N, d_keep) each
    v = v.view(B, N, H, head_dim).transpose(1, 2)
    mask, is_causal = _merge_masks(attn_mask, causal, N, x.device)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p,
                                         is_causal=is_causal, scale=scale)
    return out.transpose(1, 2).reshape(B, N, H * head_dim)


class ESPRAttention(nn.Module):
    """Multi-head attention whose queries and keys are rotated by R_sp(r) = R_STR(r) P (ESPR / STRING).

    Args:
        d_model, n_heads: model width D and number of heads H.
        d_c: number of position coordinates; forward takes r (B, N, d_c).
        head_dim: d_h (default d_model // n_heads).  n_planes: m rotating planes per head (default d_h // 2).
        theta, freq_init: frequency initialisation, see ``rotary.initial_freqs`` ("axial" = RoPE for d_c = 1).
        learn_freqs: frequencies are parameters (else a buffer).
        learn_basis: U = cayley(skew(W_U)) is learned (starts at I); False fixes U = I (the O(d) path).
        post_rotation: "free" P = U cayley(skew(W_P)) U^T in SO(d_h) (the ESPR class); "structured"
            P = U diag(I_2m, cayley(skew(W_null))) U^T in 𝒜 (the STRING class, T3.4 - invisible in the
            logits when project_active, by T3.6); "none" P = I.  W_P starts at 0, so P starts at I.
        generator_mode: "commuting" (L_k = U (⊕ freqs J ⊕ 0) U^T) or "free": L_k plus a learnable skew
            perturbation (non-commuting, eps_comm > 0); "free" runs the dense ``reference_forward``.
        project_active: apply Pi_act as in T4.3 and scale by 1/sqrt(2m) (default); False keeps the null
            block unrotated in the logits and scales by 1/sqrt(d_h).
        causal, scale (default 1/sqrt(2m) resp. 1/sqrt(d_h)), dropout (attention dropout), bias.
        generator: torch.Generator for random initialisation.  dtype: default float64.
    """

    def __init__(self, d_model: int, n_heads: int, d_c: int, *, head_dim: int | None = None,
                 n_planes: int | None = None, theta: float = 10000.0, freq_init="axial",
                 learn_freqs: bool = True, learn_basis: bool = True, post_rotation: str = "free",
                 generator_mode: str = "commuting", project_active: bool = True, causal: bool = False,
                 bias: bool = False, scale: float | None = None, dropout: float = 0.0,
                 generator: torch.Generator | None = None, device=None, dtype=None):
        super().__init__()
        dtype = torch.float64 if dtype is None else dtype
        if min(d_model, n_heads, d_c) < 1:
            raise ValueError(f"d_model, n_heads, d_c must be positive, got {d_model}, {n_heads}, {d_c}")
        if head_dim is None:
            if d_model % n_heads:
                raise ValueError(f"d_model = {d_model} is not divisible by n_heads = {n_heads}; pass head_dim")
            head_dim = d_model // n_heads
        m = head_dim // 2 if n_planes is None else n_planes
        if not 1 <= m <= head_dim // 2:
            raise ValueError(f"need 1 <= n_planes <= head_dim // 2 = {head_dim // 2}, got {m}")
        if post_rotation not in ("free", "structured", "none"):
            raise ValueError(f"post_rotation must be 'free', 'structured' or 'none', got {post_rotation!r}")
        if generator_mode not in ("commuting", "free"):
            raise ValueError(f"generator_mode must be 'commuting' or 'free', got {generator_mode!r}")
        self.d_model, self.n_heads, self.d_c, self.head_dim, self.n_planes = d_model, n_heads, d_c, head_dim, m
        self.post_rotation, self.generator_mode, self.project_active = post_rotation, generator_mode, project_active
        self.causal, self.dropout = causal, dropout
        self.d_keep = 2 * m if project_active else head_dim  # query/key width entering the logits
        self.scale = 1.0 / math.sqrt(self.d_keep) if scale is None else float(scale)
        fk = dict(device=device, dtype=dtype)
        H, d_null = n_heads, head_dim - 2 * m
        self.qkv = nn.Linear(d_model, 3 * H * head_dim, bias=bias, **fk)
        self.out_proj = nn.Linear(H * head_dim, d_model, bias=bias, **fk)
        freqs = initial_freqs(H, d_c, m, theta, freq_init, generator, dtype, device)
        if learn_freqs:
            self.freqs = nn.Parameter(freqs)
        else:
            self.register_buffer("freqs", freqs)
        self.basis_skew = nn.Parameter(torch.zeros(H, head_dim, head_dim, **fk)) if learn_basis else None
        post_dim = {"free": head_dim, "structured": d_null, "none": 0}[post_rotation]
        self.post_skew = nn.Parameter(torch.zeros(H, post_dim, post_dim, **fk)) if post_dim else None
        self.generator_perturbation = (nn.Parameter(torch.zeros(H, d_c, head_dim, head_dim, **fk))
                                       if generator_mode == "free" else None)
        self._fold_cache = ParameterCache()

    # ------------------------------------------------------------------ the parametrised matrices
    # All computed in the rotation dtype (float32 for bf16/fp16/float32 parameters) with autocast off.
    @property
    def rotation_dtype(self) -> torch.dtype:
        """The dtype positions, angles, basis, Cayley transforms and rotations are computed in."""
        return rotation_dtype(self.qkv.weight.dtype)

    def _eye(self) -> Tensor:
        return torch.eye(self.head_dim, dtype=self.rotation_dtype, device=self.qkv.weight.device).expand(
            self.n_heads, -1, -1)

    def _cayley_factors(self) -> tuple[Tensor | None, Tensor | None]:
        """(U, cayley(skew(post_skew))) in the rotation dtype, None where fixed at I; one batched solve when
        both are d_h x d_h."""
        rot = self.rotation_dtype
        with autocast_off(self.qkv.weight.device):
            W_U, W_P = self.basis_skew, self.post_skew
            if W_U is not None and W_P is not None and W_U.shape == W_P.shape:
                return cayley(skew(torch.cat((W_U, W_P)).to(rot)), check=False).split(self.n_heads)
            return tuple(None if W is None else cayley(skew(W.to(rot)), check=False) for W in (W_U, W_P))

    def _post_in_basis(self, Q: Tensor | None) -> Tensor | None:
        """Q = U^T P U (H, d_h, d_h) from the Cayley factor of post_skew, or None when P = I."""
        if Q is not None and self.post_rotation == "structured":  # diag(I_2m, Q_null)
            H, a, n = self.n_heads, 2 * self.n_planes, Q.shape[-1]
            eye_a = torch.eye(a, dtype=Q.dtype, device=Q.device).expand(H, a, a)
            top = torch.cat((eye_a, Q.new_zeros(H, a, n)), dim=-1)
            Q = torch.cat((top, torch.cat((Q.new_zeros(H, n, a), Q), dim=-1)), dim=-2)
        return Q

    def basis(self) -> Tensor:
        """U (H, d_h, d_h), orthogonal (rotation dtype)."""
        U = self._cayley_factors()[0]
        return self._eye() if U is None else U

    def post_rotation_matrix(self) -> Tensor:
        """P (H, d_h, d_h) in the original coordinates (rotation dtype)."""
        U, Q = self._cayley_factors()
        Q = self._post_in_basis(Q)
        if Q is None:
            return self._eye()
        with autocast_off(Q.device):
            return Q if U is None else U @ Q @ U.mT

    def generators(self) -> Tensor:
        """L (H, d_c, d_h, d_h) (rotation dtype); commuting unless generator_mode == "free"."""
        with autocast_off(self.qkv.weight.device):
            L = commuting_generators(self.basis(), self.freqs.to(self.rotation_dtype), check_orthogonal=False)
            return L if self.generator_perturbation is None else L + skew(self.generator_perturbation.to(L.dtype))

    def rotary(self) -> StructuredRotary:
        """The rotary part of the layer, R_STR(r), as a ``StructuredRotary`` over this layer's own basis and
        frequencies (shared, so gradients reach the layer): ``rotary().rotate_queries_or_keys(q, r)`` with
        q (B, H, N, d_h), r (B, N, d_c).  With P = I and Pi = I (post_rotation="none", project_active=False)
        the layer is this rotation of q and k followed by plain scaled dot-product attention."""
        return StructuredRotary.from_parameters(self.basis_skew, self.freqs, heads=True)

    def active_projector(self) -> Tensor:
        """Pi (H, d_h, d_h): Pi_act = U diag(I_2m, 0) U^T, or I when project_active is False (rotation dtype)."""
        if not self.project_active:
            return self._eye()
        with autocast_off(self.qkv.weight.device):
            return Pi_act(self.basis(), self.n_planes)

    def _qk_map(self) -> Tensor | None:
        """G (H, d_keep, w) with U^T Pi R_sp(r) Pi q = B(theta(r)) G q[:w] (rows in half layout; w = d_h, or
        d_keep when U = I); None if G only selects rows (U = I, P = I)."""
        U, Q = self._cayley_factors()
        Q = self._post_in_basis(Q)
        a = self.d_keep  # 2m with Pi_act (which keeps the first 2m coordinates in U's basis), else d_h
        if U is None and Q is None:
            return None
        with autocast_off(self.qkv.weight.device):
            if U is None:
                G = Q[:, :a, :a]
            else:
                G = U.mT[:, :a] if Q is None else Q[:, :a, :a] @ U.mT[:, :a]
            return _to_half_layout(G, self.n_planes)

    def _folded_qkv(self) -> tuple[Tensor, Tensor | None]:
        """Projection weight (H (2 d_keep + d_h), D) and bias with U, P and Pi folded into the q, k rows; folded
        in the rotation dtype, returned in the parameters' dtype."""
        H, hd, dk, m = self.n_heads, self.head_dim, self.d_keep, self.n_planes
        G = self._qk_map()
        w, b = self.qkv.weight, self.qkv.bias
        with autocast_off(w.device):
            def fold(t: Tensor) -> Tensor:  # (2 H hd, X) -> (2 H dk, X): q and k rows of every head at once
                rows = t.view(2, H, hd, -1)
                out = _to_half_layout(rows[:, :, :dk], m) if G is None else G @ rows[:, :, :G.shape[-1]].to(G.dtype)
                return out.reshape(2 * H * dk, -1).to(t.dtype)

            weight = torch.cat((fold(w[: 2 * H * hd]), w[2 * H * hd:]))
            bias = None if b is None else torch.cat((fold(b[: 2 * H * hd, None])[:, 0], b[2 * H * hd:]))
        return weight, bias

    def _cached_folded_qkv(self) -> tuple[Tensor, Tensor | None]:
        return self._fold_cache.get((self.qkv.weight, self.qkv.bias, self.basis_skew, self.post_skew),
                                    self._folded_qkv)

    def clear_cache(self) -> None:
        """Forget the cached folded projection (needed only after writing parameters through ``p.data``)."""
        self._fold_cache.clear()

    def train(self, mode: bool = True):
        self.clear_cache()
        return super().train(mode)

    def _apply(self, fn, *args, **kwargs):  # .to(), .half(), .cuda(): new parameter tensors
        self.clear_cache()
        return super()._apply(fn, *args, **kwargs)

    # ------------------------------------------------------------------ forward passes
    def forward(self, x: Tensor, r: Tensor, attn_mask: Tensor | None = None) -> Tensor:
        """x (B, N, d_model), r (B, N, d_c), attn_mask broadcastable to (B, H, N, N) (bool True = attend, or
        additive float)  ->  (B, N, d_model)."""
        r = _check_inputs(x, r, self.d_model, self.d_c, self.rotation_dtype)
        if self.generator_mode == "free":
            return self.reference_forward(x, r, attn_mask)
        weight, bias = self._cached_folded_qkv()
        out = _rotated_attention(x, r, weight, bias, self.freqs, m=self.n_planes, d_keep=self.d_keep,
                                 head_dim=self.head_dim, scale=self.scale, causal=self.causal,
                                 attn_mask=attn_mask, dropout_p=self.dropout if self.training else 0.0)
        return self.out_proj(out)

    def reference_forward(self, x: Tensor, r: Tensor, attn_mask: Tensor | None = None) -> Tensor:
        """The dense definition (matrix exponential per token and head; O(N d_h^3)).  Same signature as forward.
        The projections run in the model's precision; rotations, logits and weights in the rotation dtype."""
        r = _check_inputs(x, r, self.d_model, self.d_c, self.rotation_dtype)
        B, N, _ = x.shape
        H, hd = self.n_heads, self.head_dim
        qkv = self.qkv(x)
        with autocast_off(x.device):
            q, k, v = qkv.to(r.dtype).view(B, N, 3, H, hd).permute(2, 0, 3, 1, 4)  # (B, H, N, hd) each
            A_r = torch.einsum("bnk,hkij->bhnij", r, self.generators()).contiguous()  # A(r_i)
            R = torch.linalg.matrix_exp(A_r)  # R_STR(r_i)
            Pi = self.active_projector()[:, None]
            M = Pi @ R @ self.post_rotation_matrix()[:, None] @ Pi  # Pi R_sp(r_i) Pi, (B, H, N, hd, hd)
            q_t, k_t = (M @ q[..., None]).squeeze(-1), (M @ k[..., None]).squeeze(-1)
            logits = q_t @ k_t.mT * self.scale
            mask, is_causal = _merge_masks(attn_mask, self.causal, N, x.device)
            if is_causal:
                mask = torch.ones(N, N, dtype=torch.bool, device=x.device).tril()
            if mask is not None:
                logits = logits.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else logits + mask
            weights = F.dropout(torch.softmax(logits, dim=-1), self.dropout, self.training)
            heads = (weights @ v).transpose(1, 2).reshape(B, N, H * hd).to(qkv.dtype)
        return self.out_proj(heads)

    def fold_post_rotation(self) -> "FoldedESPRAttention":
        """Inference form: a detached copy with U, P and Pi_act folded into the query/key projection (folded in
        the rotation dtype, stored in the parameters' dtype)."""
        if self.generator_mode == "free":
            raise ValueError("non-commuting generators have no fixed block basis to fold into the projection")
        with torch.no_grad():
            weight, bias = self._folded_qkv()
            return FoldedESPRAttention(weight, bias, self.freqs.detach(), self.out_proj, d_model=self.d_model,
                                       n_planes=self.n_planes, d_keep=self.d_keep, head_dim=self.head_dim,
                                       scale=self.scale, causal=self.causal, dropout=self.dropout)

    def extra_repr(self) -> str:
        return (f"d_model={self.d_model}, n_heads={self.n_heads}, d_c={self.d_c}, head_dim={self.head_dim}, "
                f"n_planes={self.n_planes}, post_rotation={self.post_rotation!r}, "
                f"generator_mode={self.generator_mode!r}, learn_basis={self.basis_skew is not None}, "
                f"project_active={self.project_active}, causal={self.causal}")


class FoldedESPRAttention(nn.Module):
    """Inference form of ESPRAttention (from ``fold_post_rotation``): one projection whose query/key rows
    already contain U^T, P and Pi_act, then O(d_h) plane rotations per token.  Same forward signature."""

    def __init__(self, weight: Tensor, bias: Tensor | None, freqs: Tensor, out_proj: nn.Linear, *, d_model: int,
                 n_planes: int, d_keep: int, head_dim: int, scale: float, causal: bool, dropout: float):
        super().__init__()
        self.d_model, self.n_heads, self.d_c = d_model, freqs.shape[0], freqs.shape[1]
        self.n_planes, self.d_keep, self.head_dim = n_planes, d_keep, head_dim
        self.scale, self.causal, self.dropout = scale, causal, dropout
        self.weight = nn.Parameter(weight.detach().clone())
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone())
        self.register_buffer("freqs", freqs.detach().clone())
        self.out_proj = copy.deepcopy(out_proj)

    def forward(self, x: Tensor, r: Tensor, attn_mask: Tensor | None = None) -> Tensor:
        """x (B, N, d_model), r (B, N, d_c) -> (B, N, d_model)."""
        r = _check_inputs(x, r, self.d_model, self.d_c, rotation_dtype(self.weight.dtype))
        out = _rotated_attention(x, r, self.weight, self.bias, self.freqs, m=self.n_planes, d_keep=self.d_keep,
                                 head_dim=self.head_dim, scale=self.scale, causal=self.causal,
                                 attn_mask=attn_mask, dropout_p=self.dropout if self.training else 0.0)
        return self.out_proj(out)
