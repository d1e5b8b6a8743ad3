"""Unit quaternions (Spin(3) in S^3), the sign-invariant geodesic distance, and GSM attention.

Mathematics: the RGAT supplement (definitions, algorithm sketch, Lemmas/Theorems S1-S14).

Conventions (all explicit keywords, defaults follow the RGAT document where it is self-consistent):

* quaternions are scalar-first ``(w, x, y, z)``, Hamilton product ``i j = k``;
* ``rotor="exp_u"`` (default, the document's definition): ``exp(u) = cos|u| + sin|u| u/|u|``, so |u| is
  HALF the rotation angle; ``rotor="exp_half_u"``: the rotor of u is ``exp(u/2)`` and |u| is the angle;
* ``bracket(convention="half_commutator")`` (default): ``(ab - ba)/2``, which is the cross product
  ``u x v`` of the document; ``convention="commutator"``: ``ab - ba = 2 u x v``.

The document pairs ``exp(u)`` with ``[u, v] = u x v`` and writes BCH as
``exp(u) exp(v) = exp(u + v + [u, v]/2 + ...)``.  That pairing is off by a factor 2 at second order:
``log(exp(u) exp(v)) = u + v + u x v + O(3)`` for ``rotor="exp_u"`` (``[u,v]/2`` with the full commutator),
and ``u + v + (u x v)/2 + O(3)`` only for ``rotor="exp_half_u"``.  ``bch_second_order`` leaves the
choice explicit; the tests show which pairing is consistent.

``geodesic_distance(q, k) = 2 arccos|<q, k>|`` is the rotation angle of ``q k^{-1}`` (in [0, pi]).  It is
computed as ``4 atan2(|q - s k|, |q + s k|)`` with ``s = sign(<q, k>)``: for unit q, k at spherical angle
``phi = arccos|<q,k>|`` one has ``|q - s k| = 2 sin(phi/2)`` and ``|q + s k| = 2 cos(phi/2)``.  No NaN for
``|<q,k>| >= 1`` after rounding, full relative accuracy at tiny angles, finite gradients everywhere
(at q = +-k, where d has a cone point, autograd returns the zero subgradient).
"""

from __future__ import annotations

from typing import Callable, Literal, NamedTuple

import torch
from torch import Tensor

__all__ = [
    "qmul", "qconj", "qinv", "qnormalize", "qexp", "qlog", "bracket", "bch_second_order",
    "rotation_matrix", "rotate", "geodesic_distance", "sphere_log",
    "rotor_projection", "gsm_logits", "gsm_weights", "gsm_attention",
    "euclidean_logits", "euclidean_attention",
    "topk_candidates", "truncated_attention", "truncation_terms", "truncation_bound", "TruncationTerms",
    "random_unit_quaternions", "random_small_generators",
]

Rotor = Literal["exp_u", "exp_half_u"]
BracketConvention = Literal["half_commutator", "commutator"]


def _check_last(t: Tensor, size: int, name: str) -> None:
    if t.ndim < 1 or t.shape[-1] != size:
        raise ValueError(f"{name} must have shape (..., {size}), got {tuple(t.shape)}")


def _check_rotor(rotor: str) -> None:
    if rotor not in ("exp_u", "exp_half_u"):
        raise ValueError(f"rotor must be 'exp_u' or 'exp_half_u', got {rotor!r}")


# ----------------------------------------------------------------------------- algebra

def qmul(a: Tensor, b: Tensor) -> Tensor:
    """Hamilton product.  a (..., 4), b (..., 4) -> (..., 4), scalar-first, broadcast."""
    _check_last(a, 4, "a")
    _check_last(b, 4, "b")
    aw, av = a[..., :1], a[..., 1:]
    bw, bv = b[..., :1], b[..., 1:]
    w = aw * bw - (av * bv).sum(dim=-1, keepdim=True)
    v = aw * bv + bw * av + torch.linalg.cross(*torch.broadcast_tensors(av, bv), dim=-1)
    return torch.cat([w, v], dim=-1)


def qconj(q: Tensor) -> Tensor:
    """Conjugate ``(w, -x, -y, -z)``.  q (..., 4) -> (..., 4)."""
    _check_last(q, 4, "q")
    return torch.cat([q[..., :1], -q[..., 1:]], dim=-1)


def qinv(q: Tensor) -> Tensor:
    """Inverse ``conj(q) / |q|^2``.  q (..., 4) -> (..., 4) (non-finite for q = 0)."""
    return qconj(q) / (q * q).sum(dim=-1, keepdim=True)


def qnormalize(q: Tensor) -> Tensor:
    """``q / |q|``.  q (..., 4) -> (..., 4) (non-finite for q = 0, which has no direction)."""
    _check_last(q, 4, "q")
    return q / torch.linalg.vector_norm(q, dim=-1, keepdim=True)


def qexp(u: Tensor, *, rotor: Rotor = "exp_u") -> Tensor:
    """Rotor of a generator.  u (..., 3) -> unit quaternion (..., 4).

    ``rotor="exp_u"``: ``cos|u| + sinc(|u|) u`` (|u| = half angle);  ``"exp_half_u"``: the same at u/2.
    """
    _check_last(u, 3, "u")
    _check_rotor(rotor)
    if rotor == "exp_half_u":
        u = 0.5 * u
    theta = torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    # torch.sinc(t) = sin(pi t)/(pi t): smooth at 0, so no 0/0 at the identity.
    return torch.cat([torch.cos(theta), torch.sinc(theta / torch.pi) * u], dim=-1)


def qlog(q: Tensor, *, rotor: Rotor = "exp_u", canonical_sign: bool = False) -> Tensor:
    """Principal logarithm, inverse of ``qexp`` (same ``rotor``).  q (..., 4) -> u (..., 3).

    Returns ``atan2(|v|, w) v/|v|`` for ``q = (w, v)`` (doubled for ``rotor="exp_half_u"``), so for
    ``rotor="exp_u"`` the result has norm in [0, pi] and ``qlog(qexp(u)) = u`` for |u| < pi.  The value
    depends only on the direction of q (a non-unit q is treated as q/|q|).  ``q = -1`` is the cut locus
    (no unique log); it is mapped to 0.  ``canonical_sign=True`` first replaces q by -q where w < 0
    (same rotation), which gives the shortest generator (|u| <= pi/2 for ``exp_u``).
    """
    _check_last(q, 4, "q")
    _check_rotor(rotor)
    if canonical_sign:
        q = torch.where(q[..., :1] < 0, -q, q)
    w, v = q[..., :1], q[..., 1:]
    s = torch.linalg.vector_norm(v, dim=-1, keepdim=True)
    angle = torch.atan2(s, w)
    positive = s > 0
    s_safe = torch.where(positive, s, torch.ones_like(s))
    w_safe = torch.where(w != 0, w, torch.ones_like(w))
    # On the real axis the limit of atan2(s, w)/s is 1/w (w > 0); both branches stay finite for autograd.
    factor = torch.where(positive, angle / s_safe, torch.where(w > 0, 1.0 / w_safe, torch.zeros_like(w)))
    u = factor * v
    return 2.0 * u if rotor == "exp_half_u" else u


def bracket(a: Tensor, b: Tensor, *, convention: BracketConvention = "half_commutator") -> Tensor:
    """Lie bracket.  a, b (..., 3) pure generators or (..., 4) quaternions -> same shape.

    ``"half_commutator"`` (default): ``(ab - ba)/2`` (= ``a x b`` on pure quaternions, the RGAT
    document's ``[u, v] = u x v``);  ``"commutator"``: ``ab - ba`` (= ``2 a x b``).
    """
    if convention not in ("half_commutator", "commutator"):
        raise ValueError(f"convention must be 'half_commutator' or 'commutator', got {convention!r}")
    if a.shape[-1] != b.shape[-1] or a.shape[-1] not in (3, 4):
        raise ValueError(f"a, b must both be (..., 3) or both (..., 4), got {tuple(a.shape)}, {tuple(b.shape)}")
    if a.shape[-1] == 3:
        half = torch.linalg.cross(*torch.broadcast_tensors(a, b), dim=-1)
    else:
        half = 0.5 * (qmul(a, b) - qmul(b, a))
    return half if convention == "half_commutator" else 2.0 * half


def bch_second_order(u: Tensor, v: Tensor, *, convention: BracketConvention = "half_commutator") -> Tensor:
    """Second-order BCH truncation ``u + v + [u, v]/2``.  u, v (..., 3) -> (..., 3).

    It approximates ``qlog(qmul(qexp(u), qexp(v)))`` to O(|u|^3 + |v|^3) only for consistent pairs:
    ``rotor="exp_u"`` with ``convention="commutator"``, ``rotor="exp_half_u"`` with ``"half_commutator"``.
    """
    _check_last(u, 3, "u")
    _check_last(v, 3, "v")
    return u + v + 0.5 * bracket(u, v, convention=convention)


def rotation_matrix(q: Tensor) -> Tensor:
    """Rotation ``x -> q x q^*`` of a unit quaternion.  q (..., 4) -> (..., 3, 3)."""
    _check_last(q, 4, "q")
    w, x, y, z = q.unbind(dim=-1)
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    return torch.stack([torch.stack(r, dim=-1) for r in rows], dim=-2)


def rotate(q: Tensor, x: Tensor) -> Tensor:
    """``q x q^*`` for a unit quaternion q and a vector x.  q (..., 4), x (..., 3) -> (..., 3)."""
    _check_last(x, 3, "x")
    pure = torch.cat([torch.zeros_like(x[..., :1]), x], dim=-1)
    return qmul(qmul(q, pure), qconj(q))[..., 1:]


# ----------------------------------------------------------------------------- geometry

def geodesic_distance(q: Tensor, k: Tensor, *, normalize: bool = False) -> Tensor:
    """Sign-invariant distance ``2 arccos|<q, k>|`` of unit quaternions.  q, k (..., 4) -> (...) in [0, pi].

    Computed as ``4 atan2(|q - s k|, |q + s k|)``, ``s = sign(<q, k>)`` (+1 at 0), see the module
    docstring.  The inputs are assumed unit; ``normalize=True`` divides them by their norms first
    (for non-unit inputs the formula is not the arccos one).
    """
    _check_last(q, 4, "q")
    _check_last(k, 4, "k")
    if normalize:
        q, k = qnormalize(q), qnormalize(k)
    dot = (q * k).sum(dim=-1, keepdim=True)
    s = torch.where(dot >= 0, torch.ones_like(dot), -torch.ones_like(dot))
    sk = s * k
    return 4.0 * torch.atan2(torch.linalg.vector_norm(q - sk, dim=-1), torch.linalg.vector_norm(q + sk, dim=-1))


def sphere_log(q: Tensor, r: Tensor, *, align_sign: bool = False) -> Tensor:
    """Riemannian log map of the unit sphere S^3 at q.  q, r (..., 4) -> tangent vector (..., 4).

    ``Log_q(r) = theta (r - c q)/|r - c q|`` with ``c = <q, r>``, ``theta = atan2(|r - c q|, c)`` the arc
    length (``= arccos c``).  Its norm is ``d_geo(q, r)/2`` only when ``<q, r> >= 0``;
    ``align_sign=True`` replaces r by ``sign(<q, r>) r`` first (as Theorem S10 does).  ``r = -q`` is the
    cut locus and is mapped to 0.
    """
    _check_last(q, 4, "q")
    _check_last(r, 4, "r")
    c = (q * r).sum(dim=-1, keepdim=True)
    if align_sign:
        r = torch.where(c < 0, -r, r)
        c = c.abs()
    t = r - c * q
    t_norm = torch.linalg.vector_norm(t, dim=-1, keepdim=True)
    positive = t_norm > 0
    t_safe = torch.where(positive, t_norm, torch.ones_like(t_norm))
    c_safe = torch.where(c != 0, c, torch.ones_like(c))
    factor = torch.where(positive, torch.atan2(t_norm, c) / t_safe,
                         torch.where(c > 0, 1.0 / c_safe, torch.zeros_like(c)))
    return factor * t


# ----------------------------------------------------------------------------- attention

def rotor_projection(mv: Tensor, *, indices: tuple[int, int, int, int] = (0, 4, 5, 6)) -> Tensor:
    """P_rot: keep the scalar + bivector components of a multivector and normalise.  mv (..., 8) -> (..., 4).

    ``indices`` names the positions of (scalar, three bivectors) in the caller's layout; the default
    assumes the basis order (1, e1, e2, e3, e12, e13, e23, e123).  The order and signs of the bivector
    components are a layout convention; GSM logits only use ``<q, k>``, which does not depend on it
    as long as queries and keys share the layout.
    """
    _check_last(mv, 8, "mv")
    if len(indices) != 4 or len(set(indices)) != 4 or not all(0 <= i < 8 for i in indices):
        raise ValueError(f"indices must be 4 distinct positions in 0..7, got {indices!r}")
    return qnormalize(mv[..., list(indices)])


def _check_tau(tau) -> None:
    if isinstance(tau, Tensor):
        try:
            bad = bool((tau <= 0).any())
        except RuntimeError:
            # under torch.func.vmap a value cannot be read (pyverify's samplers draw tau > 0 anyway)
            return
    else:
        bad = not tau > 0
    if bad:
        raise ValueError("temperature tau must be > 0")


def _check_seq(q: Tensor, k: Tensor, size: int | None) -> None:
    if q.ndim < 2 or k.ndim < 2:
        raise ValueError(f"queries and keys must be (..., n, d), got {tuple(q.shape)}, {tuple(k.shape)}")
    if size is not None:
        _check_last(q, size, "q")
        _check_last(k, size, "k")
    elif q.shape[-1] != k.shape[-1]:
        raise ValueError(f"query and key dims differ: {q.shape[-1]} vs {k.shape[-1]}")


def gsm_logits(q: Tensor, k: Tensor, *, tau, normalize: bool = True) -> Tensor:
    """GSM kernel logits ``l_ij = -d_geo(q_i, k_j)^2 / (2 tau)`` (algorithm sketch, step 3).

    q (..., n, 4), k (..., T, 4) -> (..., n, T).  ``tau`` (> 0, required): a float or a tensor that
    broadcasts against the logits, e.g. shape (H, 1, 1) for per-head temperatures tau_h.
    ``normalize`` (default True, step 1) projects q, k to S^3 first.
    """
    _check_seq(q, k, 4)
    _check_tau(tau)
    d = geodesic_distance(q.unsqueeze(-2), k.unsqueeze(-3), normalize=normalize)
    return -(d * d) / (2 * tau)


def gsm_weights(q: Tensor, k: Tensor, *, tau, normalize: bool = True, logits: Callable | None = None) -> Tensor:
    """Row-normalised GSM attention matrix ``P = softmax(gsm_logits)``.  -> (..., n, T), rows sum to 1.

    ``logits(q, k, tau=...)``: another implementation of the GSM logits of unit quaternions to use (q and k
    are projected to S^3 first where ``normalize``)."""
    if logits is None:
        return torch.softmax(gsm_logits(q, k, tau=tau, normalize=normalize), dim=-1)
    if normalize:
        q, k = qnormalize(q), qnormalize(k)
    return torch.softmax(logits(q, k, tau=tau), dim=-1)


def gsm_attention(q: Tensor, k: Tensor, v: Tensor, *, tau, normalize: bool = True,
                  renormalize_values: bool = False, weights: Callable | None = None) -> Tensor:
    """GSM attention ``y_i = sum_j P_ij v_j`` (steps 1-6).  q (..., n, 4), k (..., T, 4), v (..., T, d_v) -> (..., n, d_v).

    ``renormalize_values=True`` (step 6, values that are rotors, d_v = 4) maps the output back to S^3.
    """
    if v.ndim < 2 or v.shape[-2] != k.shape[-2]:
        raise ValueError(f"v must be (..., T, d_v) with T = {k.shape[-2]}, got {tuple(v.shape)}")
    y = (weights or gsm_weights)(q, k, tau=tau, normalize=normalize) @ v
    if renormalize_values:
        _check_last(v, 4, "v (rotor values)")
        y = qnormalize(y)
    return y


def euclidean_logits(Q: Tensor, K: Tensor, *, tau) -> Tensor:
    """Standard logits ``Q_i . K_j / tau`` (the baseline of Theorem S4).  Q (..., n, d), K (..., T, d) -> (..., n, T)."""
    _check_seq(Q, K, None)
    _check_tau(tau)
    return (Q @ K.transpose(-1, -2)) / tau


def euclidean_attention(Q: Tensor, K: Tensor, V: Tensor, *, tau, logits: Callable | None = None) -> Tensor:
    """Softmax attention with logits ``Q K^T / tau``.  -> (..., n, d_v). ``logits(Q, K, tau=...)``: another
    implementation of those logits to use."""
    if V.ndim < 2 or V.shape[-2] != K.shape[-2]:
        raise ValueError(f"V must be (..., T, d_v) with T = {K.shape[-2]}, got {tuple(V.shape)}")
    return torch.softmax((logits or euclidean_logits)(Q, K, tau=tau), dim=-1) @ V


# ----------------------------------------------------------------------------- truncation (S7, S8)

class TruncationTerms(NamedTuple):
    """The quantities of Lemma S7, all for query rows i.  Shapes: vectors (..., n, d_v), masses (..., n)."""
    full: Tensor            # y_i = sum_j P_ij v_j
    truncated: Tensor       # y~_i = mu_{S_i} (NaN where retained == 0)
    retained: Tensor        # p_i = sum_{j in S_i} P_ij
    dropped: Tensor         # delta_i = sum_{j not in S_i} P_ij  (= 1 - p_i when rows of P sum to 1)
    mean_in: Tensor         # mu_{S_i}
    mean_out: Tensor        # mu_{S_i^c} (0 where dropped == 0, the document's convention)


def _check_truncation(P: Tensor, v: Tensor, candidates: Tensor) -> None:
    if P.ndim < 2 or v.ndim < 2 or P.shape[-1] != v.shape[-2]:
        raise ValueError(f"P (..., n, T) and v (..., T, d_v) do not match: {tuple(P.shape)}, {tuple(v.shape)}")
    if candidates.dtype != torch.bool:
        raise ValueError("candidates must be a boolean mask (..., n, T)")
    torch.broadcast_shapes(P.shape, candidates.shape)


def truncation_terms(P: Tensor, v: Tensor, candidates: Tensor) -> TruncationTerms:
    """Decompose attention restricted to candidate sets.  P (..., n, T) row-stochastic,
    v (..., T, d_v), candidates bool (..., n, T) -> TruncationTerms.

    Lemma S7: ``full - truncated = dropped * (mean_out - mean_in)`` when the rows of P sum to 1.
    ``dropped`` is summed over the complement (not computed as 1 - p_i) to keep small masses accurate.
    """
    _check_truncation(P, v, candidates)
    P_in = torch.where(candidates, P, torch.zeros_like(P))
    P_out = P - P_in
    retained = P_in.sum(dim=-1)
    dropped = P_out.sum(dim=-1)
    mean_in = (P_in @ v) / retained.unsqueeze(-1)
    has_out = (dropped > 0).unsqueeze(-1)
    dropped_safe = torch.where(has_out, dropped.unsqueeze(-1), torch.ones_like(dropped.unsqueeze(-1)))
    mean_out = torch.where(has_out, (P_out @ v) / dropped_safe, torch.zeros_like(dropped_safe))
    return TruncationTerms(P @ v, mean_in, retained, dropped, mean_in, mean_out)


def truncated_attention(P: Tensor, v: Tensor, candidates: Tensor) -> Tensor:
    """Renormalised sparse output ``y~_i = sum_{j in S_i} P_ij v_j / p_i``.  -> (..., n, d_v); NaN rows where p_i = 0."""
    _check_truncation(P, v, candidates)
    P_in = torch.where(candidates, P, torch.zeros_like(P))
    return (P_in @ v) / P_in.sum(dim=-1, keepdim=True)


def truncation_bound(v: Tensor, dropped: Tensor) -> Tensor:
    """Corollary S8 right-hand side ``2 V_max delta_i``.  v (..., T, d_v), dropped (..., n) -> (..., n)."""
    v_max = torch.linalg.vector_norm(v, dim=-1).amax(dim=-1, keepdim=True)
    return 2.0 * v_max * dropped


def topk_candidates(scores: Tensor, k: int) -> Tensor:
    """Candidate sets of the k largest scores (logits or weights) of each row.  scores (..., n, T) -> bool (..., n, T)."""
    if not isinstance(k, int) or not 1 <= k <= scores.shape[-1]:
        raise ValueError(f"k must be an integer in [1, {scores.shape[-1]}], got {k!r}")
    idx = scores.topk(k, dim=-1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)


# ----------------------------------------------------------------------------- sampling

def _creation_kwargs(generator, dtype, device) -> dict:
    if device is None and generator is not None:
        device = generator.device
    return {"dtype": torch.float64 if dtype is None else dtype, "device": device}


def random_unit_quaternions(*shape: int, generator: torch.Generator | None = None,
                            dtype: torch.dtype | None = None, device=None) -> Tensor:
    """Haar-uniform unit quaternions (normalised 4-d Gaussians).  -> (*shape, 4)."""
    g = torch.randn(*shape, 4, generator=generator, **_creation_kwargs(generator, dtype, device))
    return qnormalize(g)


def random_small_generators(*shape: int, radius: float, generator: torch.Generator | None = None,
                            dtype: torch.dtype | None = None, device=None) -> Tensor:
    """Generators uniform in the ball ``|u| <= radius`` of R^3 (small-angle regime).  -> (*shape, 3)."""
    if not radius > 0:
        raise ValueError(f"radius must be > 0, got {radius!r}")
    kw = _creation_kwargs(generator, dtype, device)
    direction = torch.randn(*shape, 3, generator=generator, **kw)
    direction = direction / torch.linalg.vector_norm(direction, dim=-1, keepdim=True)
    r = radius * torch.rand(*shape, 1, generator=generator, **kw) ** (1.0 / 3.0)
    return r * direction
