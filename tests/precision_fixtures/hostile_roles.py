"""One correct implementation of every role of the papers (``pyverify/papers/roles.py``), written in the
styles that defeat batching — a per-instance ``torch.linalg.matrix_exp`` or ``eigh``, generators built by
index-put into preallocated tensors, Python loops over rows, tokens and planes, float32 cos/sin caches —
and, per role, one planted defect in the same code. ``scripts/role_matrix.py`` binds them all at once
(``pyverify check --bind ROLE=tests/precision_fixtures/hostile_roles.py:NAME,...``) over seeds, budgets
and precisions; ``tests/test_role_matrix.py`` runs a slice of it.

Every function computes in the dtype of its floating inputs (a binding with ``precision=float32`` or
``bfloat16`` casts them), except where torch has no kernel in that dtype on the CPU (``matrix_exp``,
``eigh`` in bfloat16) or where real code keeps a float32 cache (rotary angles): there it computes in
float32 and casts back, as real code does. The two makers of tensors from sizes alone
(``sinusoidal_encoding``) compute in ``HOSTILE_ROLES_DTYPE`` (float64 | float32 | bfloat16, default
float64), the precision the matrix declares for them.

The conventions each function follows (its ``--bind`` options) are in ``CONVENTIONS``; the defects and
what they get wrong in ``DEFECTS``.
"""

from __future__ import annotations

import math
import os

import torch

LOW = (torch.bfloat16, torch.float16)
MAKER_DTYPE = getattr(torch, os.environ.get("HOSTILE_ROLES_DTYPE", "float64"))
BASE = 10000.0


def _work(dtype: torch.dtype) -> torch.dtype:
    """The dtype of a kernel torch lacks in half precision on the CPU (matrix_exp, eigh), and of a cache."""
    return torch.float32 if dtype in LOW else dtype


def _size(n) -> int:
    return int(n.item()) if isinstance(n, torch.Tensor) else int(n)


def _inverse_frequencies(d: int, dtype: torch.dtype, exponent: float = 2.0) -> torch.Tensor:
    """10000^(-2i/d), i < d/2, one entry at a time into a preallocated vector."""
    out = torch.empty(d // 2, dtype=dtype)
    for i in range(d // 2):
        out[i] = BASE ** (-exponent * i / d)
    return out


# ------------------------------------------------------------------------------------------ rotation


def _generator(L: torch.Tensor, r: torch.Tensor, work: torch.dtype, transposed: bool = False) -> torch.Tensor:
    """sum_k r_k L_k, one generator at a time added into a preallocated matrix (the style vmap cannot batch)."""
    d_c, d = L.shape[-3], L.shape[-1]
    A = torch.zeros(d, d, dtype=work)
    for c in range(d_c):
        A += r[c].to(work) * (L[c].mT if transposed else L[c]).to(work)
    return A


def _rotations(L: torch.Tensor, r: torch.Tensor, transposed: bool = False) -> torch.Tensor:
    batch = torch.broadcast_shapes(L.shape[:-3], r.shape[:-1])
    d_c, d = L.shape[-3], L.shape[-1]
    Ls = L.expand(*batch, *L.shape[-3:]).reshape(-1, d_c, d, d)
    rs = r.expand(*batch, d_c).reshape(-1, d_c)
    work = _work(L.dtype)
    out = torch.empty(Ls.shape[0], d, d, dtype=work)
    for b in range(Ls.shape[0]):  # one matrix_exp per instance: never batched
        out[b] = torch.linalg.matrix_exp(_generator(Ls[b], rs[b], work, transposed))
    return out.reshape(*batch, d, d).to(L.dtype)


def rotation(L: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """R(L, r) = exp(sum_k r_k L_k): a per-instance matrix_exp of an index-put generator."""
    return _rotations(L, r)


def rotation_transposed_generator(L: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Planted defect: the generator indexed [j, i] for [i, j] (exp(-A) for skew L: turns the wrong way)."""
    return _rotations(L, r, transposed=True)


# --------------------------------------------------------------------------------- rotary embedding
# half-split pairing (coordinate i with i + d/2), declared: pairing=half; a float32 angle cache in half precision


def _rotary(x: torch.Tensor, pos: torch.Tensor, exponent: float = 2.0) -> torch.Tensor:
    d = x.shape[-1]
    h = d // 2
    cache = _work(x.dtype)
    inv_freq = _inverse_frequencies(d, cache, exponent)
    rows = x.reshape(-1, d)
    where = pos.expand(x.shape[:-1]).reshape(-1)
    out = torch.empty_like(rows)
    cos = torch.empty(rows.shape[0], h, dtype=x.dtype)
    sin = torch.empty(rows.shape[0], h, dtype=x.dtype)
    for t in range(rows.shape[0]):  # the cache, token by token, computed in float32 (or finer)
        angles = where[t].to(cache) * inv_freq
        cos[t], sin[t] = angles.cos(), angles.sin()
    first, second = rows[:, :h], rows[:, h:]
    out[:, :h] = first * cos - second * sin
    out[:, h:] = second * cos + first * sin
    return out.reshape(x.shape)


def rotary(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """RoPE in the half-split layout, token by token, angles from a cache in float32 (or finer)."""
    return _rotary(x, pos)


def rotary_wrong_frequency(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """Planted defect: frequencies 10000^(-i/d) (arange(d/2)/d where arange(0, d, 2)/d was meant)."""
    return _rotary(x, pos, exponent=1.0)


# ----------------------------------------------------------------------------------- rotary scores
# adjacent pairs, key-major scores (keys x queries), declared: layout=key-major


def _rope_adjacent(v: torch.Tensor, p: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """Vectors v (..., d) at positions p (...) rotated in adjacent planes, written into a preallocated output."""
    angle = p[..., None].to(inv_freq.dtype) * inv_freq
    c, s = angle.cos().to(v.dtype), angle.sin().to(v.dtype)
    out = torch.empty_like(v)
    out[..., 0::2] = c * v[..., 0::2] - s * v[..., 1::2]
    out[..., 1::2] = s * v[..., 0::2] + c * v[..., 1::2]
    return out


def _rotary_scores(q: torch.Tensor, k: torch.Tensor, pos: torch.Tensor, keys_at_query: bool = False) -> torch.Tensor:
    n, d = q.shape[-2], q.shape[-1]
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], pos.shape[:-1])
    qs = q.expand(*batch, n, d).reshape(-1, n, d)
    ks = k.expand(*batch, n, d).reshape(-1, n, d)
    ps = pos.expand(*batch, n).reshape(-1, n)
    inv_freq = _inverse_frequencies(d, _work(q.dtype))
    scale = 1.0 / math.sqrt(d)
    out = torch.empty(qs.shape[0], n, n, dtype=q.dtype)
    for b in range(qs.shape[0]):
        keys = _rope_adjacent(ks[b], ps[b], inv_freq)
        for i in range(n):  # query by query, a column of the key-major matrix each
            qi = _rope_adjacent(qs[b, i], ps[b, i], inv_freq)
            if keys_at_query:
                keys = _rope_adjacent(ks[b], ps[b, i].expand(n), inv_freq)
            out[b, :, i] = (keys @ qi) * scale
    return out.reshape(*batch, n, n)


def rotary_scores(q: torch.Tensor, k: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """rope(q) rope(k)^T / sqrt(d), one logit at a time, written keys x queries."""
    return _rotary_scores(q, k, pos)


def rotary_scores_keys_at_query_position(q: torch.Tensor, k: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """Planted defect: every key rotated at the query's position (the positions cancel out)."""
    return _rotary_scores(q, k, pos, keys_at_query=True)


# ------------------------------------------------------------------------------- structured rotary


def _structured(x, r, U, freqs, transposed_basis: bool = False) -> torch.Tensor:
    n, d = x.shape[-2], x.shape[-1]
    d_c, m = freqs.shape[-2], freqs.shape[-1]
    batch = torch.broadcast_shapes(x.shape[:-2], r.shape[:-2])
    xs = x.expand(*batch, n, d).reshape(-1, n, d)
    rs = r.expand(*batch, n, d_c).reshape(-1, n, d_c)
    work = _work(x.dtype)
    basis = torch.eye(d, dtype=work) if U is None else U.to(work)
    if transposed_basis:
        basis = basis.T
    out = torch.empty(xs.shape[0], n, d, dtype=work)
    planes = torch.arange(m)
    for b in range(xs.shape[0]):
        for i in range(n):  # per token: a generator by index-put, a matrix_exp, the basis change
            theta = rs[b, i].to(work) @ freqs.to(work)
            G = torch.zeros(d, d, dtype=work)
            G[2 * planes, 2 * planes + 1] = -theta
            G[2 * planes + 1, 2 * planes] = theta
            out[b, i] = basis @ (torch.linalg.matrix_exp(G) @ (basis.T @ xs[b, i].to(work)))
    return out.reshape(*batch, n, d).to(x.dtype)


def structured_rotary(x, r, U, freqs):
    """R(r_i) x_i = U exp(sum_u theta_u(r_i) J_u) U^T x_i, one token at a time."""
    return _structured(x, r, U, freqs)


def structured_rotary_transposed_basis(x, r, U, freqs):
    """Planted defect: U^T exp(...) U where U exp(...) U^T was meant."""
    return _structured(x, r, U, freqs, transposed_basis=True)


# -------------------------------------------------------------------------------- relative logits
# the reference conventions (rotation exp(+A), post-rotation on the right, scale 1/sqrt(tr Pi), query-major)


def _relative_logits(q, k, r_q, r_k, L, P=None, Pi=None, scale=None, post_on_left: bool = False):
    d = q.shape[-1]
    work = _work(q.dtype)
    eye = torch.eye(d, dtype=work)
    P = eye if P is None else P.to(work)
    Pi = eye if Pi is None else Pi.to(work)

    def rotated(z: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        rows, where = z.reshape(-1, d), r.expand(*z.shape[:-1], r.shape[-1]).reshape(-1, r.shape[-1])
        out = torch.empty(rows.shape[0], d, dtype=work)
        for t in range(rows.shape[0]):  # a matrix_exp per token
            R = torch.linalg.matrix_exp(_generator(L, where[t], work))
            M = P @ R if post_on_left else R @ P
            out[t] = Pi @ (M @ (Pi @ rows[t].to(work)))
        return out.reshape(*z.shape[:-1], d)

    logits = rotated(q, r_q) @ rotated(k, r_k).mT
    if scale is None:
        scale = 1.0 / torch.diagonal(Pi).sum().sqrt()
    return (logits * scale).to(q.dtype)


def relative_logits(q, k, r_q, r_k, L, P=None, Pi=None, scale=None):
    """(Pi R(r_i) P Pi q_i)^T (Pi R(r_j) P Pi k_j) / sqrt(tr Pi), a matrix_exp per token."""
    return _relative_logits(q, k, r_q, r_k, L, P, Pi, scale)


def relative_logits_post_on_left(q, k, r_q, r_k, L, P=None, Pi=None, scale=None):
    """Planted defect: the post-rotation applied before the positional rotation (P R for R P)."""
    return _relative_logits(q, k, r_q, r_k, L, P, Pi, scale, post_on_left=True)


# ------------------------------------------------------------------------------------------ scores
# key-major (keys x queries), declared: layout=key-major


def _scores(Q, K, tau, key_major: bool = True, divide: bool = True):
    n, m = Q.shape[-2], K.shape[-2]
    out = torch.empty(*Q.shape[:-2], m, n, dtype=Q.dtype) if key_major else torch.empty(*Q.shape[:-2], n, m,
                                                                                           dtype=Q.dtype)
    for i in range(n):  # query by query, index-put
        value = (K @ Q[..., i, :, None])[..., 0]
        value = value / tau if divide else value
        if key_major:
            out[..., :, i] = value
        else:
            out[..., i, :] = value
    return out


def scores(Q, K, tau=1.0):
    """Q K^T / tau, one logit at a time, written keys x queries."""
    return _scores(Q, K, tau)


def scores_query_major(Q, K, tau=1.0):
    """Planted defect: written queries x keys where keys x queries is declared (a transposition). The one claim
    exercising the role reads a 1 x 1 score matrix: no claim can see it (scripts/role_matrix.py, issue 23)."""
    return _scores(Q, K, tau, key_major=False)


def scores_temperature_dropped(Q, K, tau=1.0):
    """Planted defect: Q K^T without the division by the temperature."""
    return _scores(Q, K, tau, divide=False)


# ------------------------------------------------------------------------------------- GSM logits


def _geodesic_stable(a: torch.Tensor, b: torch.Tensor, factor: float = 4.0) -> torch.Tensor:
    """2 arccos|<a, b_j>| of one a (4,) and the rows b (m, 4) as 4 atan2(|a - s b|, |a + s b|), s = sign<a, b>:
    accurate at tiny angles."""
    s = torch.where(b @ a >= 0, 1.0, -1.0).to(a.dtype)[:, None]
    return factor * torch.atan2(torch.linalg.vector_norm(a - s * b, dim=-1), torch.linalg.vector_norm(a + s * b, dim=-1))


def _geodesic_arccos(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The textbook 2 arccos(min(|<a, b>|, 1)): loses half the digits near 0 (arccos' slope is infinite at 1)."""
    return 2.0 * torch.arccos((b @ a).abs().clamp(max=1.0))


def _gsm(q, k, tau, distance) -> torch.Tensor:
    n, m = q.shape[-2], k.shape[-2]
    qs = q / torch.linalg.vector_norm(q, dim=-1, keepdim=True)
    ks = k / torch.linalg.vector_norm(k, dim=-1, keepdim=True)
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    qs, ks = qs.expand(*batch, n, 4).reshape(-1, n, 4), ks.expand(*batch, m, 4).reshape(-1, m, 4)
    out = torch.empty(qs.shape[0], n, m, dtype=q.dtype)
    for b in range(qs.shape[0]):
        for i in range(n):  # query by query
            dist = distance(qs[b, i], ks[b])
            out[b, i] = -(dist * dist) / (2 * tau)
    return out.reshape(*batch, n, m)


def gsm_logits(q, k, tau):
    """-d_geo(q_i, k_j)^2 / (2 tau) of the normalised quaternions, pair by pair, the stable distance."""
    return _gsm(q, k, tau, _geodesic_stable)


def gsm_logits_arccos(q, k, tau):
    """Correct in exact arithmetic, not in floating point: the arccos distance (see _geodesic_arccos). Not a
    planted defect; the matrix reports what the float64 claims say of it."""
    return _gsm(q, k, tau, _geodesic_arccos)


def gsm_logits_half_distance(q, k, tau):
    """Planted defect: arccos|<q, k>| for 2 arccos|<q, k>| (the half angle between the rotors)."""
    return _gsm(q, k, tau, lambda a, b: _geodesic_stable(a, b, factor=2.0))


# ------------------------------------------------------------------------------- random features


def _features(x, W, norm_factor: float = 0.5):
    m, d = W.shape
    rows = x.reshape(-1, d)
    out = torch.empty(rows.shape[0], m, dtype=x.dtype)
    half_norm = torch.empty(rows.shape[0], 1, dtype=x.dtype)
    half_norm[:, 0] = norm_factor * (rows * rows).sum(-1)  # index-put into preallocated tensors
    out[:] = torch.exp(rows @ W.to(x.dtype).T - half_norm) / math.sqrt(m)
    return out.reshape(*x.shape[:-1], m)


def random_features(x, W):
    """exp(w_t . x - |x|^2 / 2) / sqrt(m), feature by feature."""
    return _features(x, W)


def random_features_full_norm(x, W):
    """Planted defect: exp(w_t . x - |x|^2) (the 1/2 of the Gaussian kernel's normaliser dropped)."""
    return _features(x, W, norm_factor=1.0)


# ------------------------------------------------------------------------------------------ rotor
# the half-angle convention exp(u/2), declared: rotor=exp(u/2)


def _rotor(u, conjugate: bool = False):
    rows = u.reshape(-1, 3)
    out = torch.empty(rows.shape[0], 4, dtype=u.dtype)
    for t in range(rows.shape[0]):
        half = 0.5 * torch.linalg.vector_norm(rows[t])
        # sin(h)/h with no 0/0 at the identity: the where keeps the gradient finite too
        safe = torch.where(half > 0, half, torch.ones_like(half))
        sinc = torch.where(half > 0, torch.sin(safe) / safe, torch.ones_like(half))
        out[t, 0] = torch.cos(half)
        out[t, 1:] = (-0.5 if conjugate else 0.5) * sinc * rows[t]
    return out.reshape(*u.shape[:-1], 4)


def rotor(u):
    """exp(u/2) = cos(|u|/2) + sin(|u|/2) u/|u|, row by row."""
    return _rotor(u)


def rotor_conjugated(u):
    """Planted defect: the vector part's sign flipped (the conjugate rotor, the inverse rotation)."""
    return _rotor(u, conjugate=True)


# --------------------------------------------------------------------------- sinusoidal encoding


def _sinusoidal(n, d, swapped: bool = False):
    n, d = _size(n), _size(d)
    cache = _work(MAKER_DTYPE)
    out = torch.empty(n, d, dtype=cache)
    w = _inverse_frequencies(d, cache)
    for i in range(n):  # position by position
        angle = torch.tensor(float(i), dtype=cache) * w
        out[i, 0::2] = angle.cos() if swapped else angle.sin()
        out[i, 1::2] = angle.sin() if swapped else angle.cos()
    return out.to(MAKER_DTYPE)


def sinusoidal_encoding(n, d):
    """P[i, 2k] = sin(w_k i), P[i, 2k+1] = cos(w_k i), w_k = 10000^(-2k/d), entry by entry."""
    return _sinusoidal(n, d)


def sinusoidal_encoding_swapped(n, d):
    """Planted defect: cos in the even columns, sin in the odd ones."""
    return _sinusoidal(n, d, swapped=True)


# ---------------------------------------------------------------------------------- MDS encoding


def _mds(D, d, rank=None, half: float = 0.5):
    d = _size(d)
    n = D.shape[-1]
    r = min(d, n) if rank is None else min(_size(rank), d, n)
    work = _work(D.dtype)
    mats = D.reshape(-1, n, n).to(work)
    out = torch.zeros(mats.shape[0], n, d, dtype=work)
    H = torch.full((n, n), -1.0 / n, dtype=work)
    for i in range(n):  # the centring matrix by index-put
        H[i, i] += 1.0
    for b in range(mats.shape[0]):  # one eigh per matrix
        B = -half * (H @ (mats[b] * mats[b]) @ H)
        evals, evecs = torch.linalg.eigh(0.5 * (B + B.T))
        for c in range(r):  # the r largest, one column at a time
            vec, lam = evecs[:, n - 1 - c], evals[n - 1 - c]
            if vec[vec.abs().argmax()] < 0:  # the largest-magnitude entry positive
                vec = -vec
            out[b, :, c] = vec * lam.clamp(min=0).sqrt()
    return out.reshape(*D.shape[:-2], n, d).to(D.dtype)


def mds_encoding(D, d, rank=None):
    """Classical MDS: the top eigenpairs of -1/2 H (D o D) H, one eigh per matrix."""
    return _mds(D, d, rank)


def mds_encoding_no_half(D, d, rank=None):
    """Planted defect: the Gram matrix -H (D o D) H without the 1/2 (every coordinate scaled by sqrt 2)."""
    return _mds(D, d, rank, half=1.0)


# role -> (correct function, its conventions); role -> (defect, what it gets wrong)
CONVENTIONS = {
    "rotation": ("rotation", {}),
    "rotary": ("rotary", {"pairing": "half"}),
    "rotary_scores": ("rotary_scores", {"layout": "key-major"}),
    "structured_rotary": ("structured_rotary", {}),
    "relative_logits": ("relative_logits", {}),
    "scores": ("scores", {"layout": "key-major"}),
    "gsm_logits": ("gsm_logits", {}),
    "random_features": ("random_features", {}),
    "rotor": ("rotor", {"rotor": "exp(u/2)"}),
    "sinusoidal_encoding": ("sinusoidal_encoding", {}),
    "mds_encoding": ("mds_encoding", {}),
}
DEFECTS = {
    "rotation": ("rotation_transposed_generator", "generator indexed [j, i]: exp(-A)"),
    "rotary": ("rotary_wrong_frequency", "frequencies 10000^(-i/d)"),
    "rotary_scores": ("rotary_scores_keys_at_query_position", "keys rotated at the query's position"),
    "structured_rotary": ("structured_rotary_transposed_basis", "U^T exp U for U exp U^T"),
    "relative_logits": ("relative_logits_post_on_left", "post-rotation on the left (P R for R P)"),
    "scores": ("scores_temperature_dropped", "Q K^T without / tau"),
    "gsm_logits": ("gsm_logits_half_distance", "half the geodesic distance"),
    "random_features": ("random_features_full_norm", "exp(w.x - |x|^2)"),
    "rotor": ("rotor_conjugated", "vector part's sign flipped"),
    "sinusoidal_encoding": ("sinusoidal_encoding_swapped", "sin and cos columns swapped"),
    "mds_encoding": ("mds_encoding_no_half", "Gram matrix without the 1/2"),
}
