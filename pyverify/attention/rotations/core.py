"""Structured positional rotations (ESPR / STRING): commuting skew generators, R_STR, Cayley
post-rotations, active/null projectors and the structured family of post-rotations.

Mathematics: the ESPR derivation (tiers 0-8', seeds 000/001) and the ESPR paper (seed 004).
Notation follows them: d = d_h the head dimension, d_c the number of position coordinates, m the
number of rotating 2-D planes, d_null = d - 2m, J = [[0, -1], [1, 0]], R_2(t) = exp(t J).

Conventions (all fixed by keyword arguments where a choice exists):

* planes are the adjacent coordinate pairs (0, 1), (2, 3), ... of the basis U; a plane with angle t
  acts as y_{2u} = cos t x_{2u} - sin t x_{2u+1}, y_{2u+1} = sin t x_{2u} + cos t x_{2u+1};
* theta_u(r) = sum_k freqs[k, u] r_k  (T2.4, beta_u = freqs[:, u]);
* commutator [A, B] = AB - BA (T0.10); norms are operator 2-norms unless ``ord`` says otherwise;
* R_sp(r) = R_STR(r) P (T3.5 and the paper's eq. (19)); T8'.7 prints P R_STR(r) P^T instead, which
  ``rsp(..., convention="conjugate")`` gives.

Every function is differentiable with torch autograd except ``joint_block_decomposition``, follows
its inputs' device, and uses float64 when handed non-floating input.  This is the functional core;
the attention layer ``ESPRAttention`` (``layer.py``) is built on it, never the other way round.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

__all__ = [
    "skew", "free_generators", "commutator", "commutator_norms", "commuting_generators",
    "generator_combination", "A", "rstr", "R_str", "rstr_closed_form", "rotate_pairs", "rstr_apply",
    "rope_frequencies", "rope", "rope_scores", "Pi_act", "Pi_null", "Pi_act_from_generators",
    "joint_block_decomposition", "joint_eigenbasis", "cayley", "rsp", "R_sp", "structured_post_rotation",
    "project_to_structured", "distance_to_structured", "mixing", "espr_logits",
    "relative_defect",
]


# ----------------------------------------------------------------------------- input handling

def _floats(*xs) -> list[Tensor]:
    """Tensors of one common floating dtype (float64 if none is floating) on the first tensor's device."""
    tensors = [x for x in xs if isinstance(x, Tensor)]
    device = tensors[0].device if tensors else None
    dtype = None
    for t in tensors:
        if t.is_floating_point():
            dtype = t.dtype if dtype is None else torch.promote_types(dtype, t.dtype)
    dtype = dtype or torch.float64
    return [torch.as_tensor(x, dtype=dtype, device=device) for x in xs]


def _check_square(M: Tensor, name: str) -> None:
    if M.dim() < 2 or M.shape[-1] != M.shape[-2]:
        raise ValueError(f"{name} must have shape (..., d, d), got {tuple(M.shape)}")


def _check_orthogonal(U: Tensor) -> None:
    eye = torch.eye(U.shape[-1], dtype=U.dtype, device=U.device)
    with torch.no_grad():
        err = (U.mT @ U - eye).abs().amax().item() if U.numel() else 0.0
    tol = math.sqrt(torch.finfo(U.dtype).eps)
    if err > tol:
        raise ValueError(f"U must be orthogonal: max |U^T U - I| = {err:.3g} > {tol:.3g}")


def _check_planes(m: int, d: int) -> None:
    if not 0 <= 2 * m <= d:
        raise ValueError(f"need 0 <= 2m <= d, got m={m}, d={d}")


def _plane_basis(m: int, d: int, dtype, device) -> tuple[Tensor, Tensor]:
    """E (m, d, d): J placed on plane u; F (m, d, d): the identity of plane u (so E_u^2 = -F_u)."""
    E = torch.zeros(m, d, d, dtype=dtype, device=device)
    F = torch.zeros(m, d, d, dtype=dtype, device=device)
    u = torch.arange(m, device=device)
    E[u, 2 * u, 2 * u + 1] = -1.0
    E[u, 2 * u + 1, 2 * u] = 1.0
    F[u, 2 * u, 2 * u] = 1.0
    F[u, 2 * u + 1, 2 * u + 1] = 1.0
    return E, F


# ----------------------------------------------------------------------------- generators

def skew(M: Tensor) -> Tensor:
    """Skew-symmetric part (M - M^T)/2.  M (..., d, d) -> (..., d, d)."""
    (M,) = _floats(M)
    _check_square(M, "M")
    return 0.5 * (M - M.mT)


def free_generators(M: Tensor) -> Tensor:
    """Generators L_k = skew(M_k) from free matrices, in general NOT commuting (the ESPR class with
    eps_comm > 0).  M (..., d_c, d, d) -> L (..., d_c, d, d)."""
    if M.dim() < 3:
        raise ValueError(f"M must have shape (..., d_c, d, d), got {tuple(M.shape)}")
    return skew(M)


def commutator(X: Tensor, Y: Tensor) -> Tensor:
    """[X, Y] = XY - YX (T0.10).  X, Y (..., d, d) -> (..., d, d)."""
    X, Y = _floats(X, Y)
    return X @ Y - Y @ X


def commutator_norms(L: Tensor, ord=2) -> Tensor:
    """Matrix of eps_ab = ||[L_a, L_b]|| (T5.1; operator 2-norm by default, ord="fro" for Frobenius).
    L (..., d_c, d, d) -> (..., d_c, d_c); eps_comm of T6'.0 is its maximum."""
    (L,) = _floats(L)
    if L.dim() < 3:
        raise ValueError(f"L must have shape (..., d_c, d, d), got {tuple(L.shape)}")
    La, Lb = L.unsqueeze(-3), L.unsqueeze(-4)  # (..., d_c, 1, d, d), (..., 1, d_c, d, d)
    return torch.linalg.matrix_norm(La @ Lb - Lb @ La, ord=ord)


def commuting_generators(U: Tensor, freqs: Tensor, *, check_orthogonal: bool = True) -> Tensor:
    """Commuting skew generators L_k = U (⊕_u freqs[k, u] J ⊕ 0_{d-2m}) U^T (T1.1 in the form of T2.3).

    U (..., d, d) orthogonal, freqs (..., d_c, m) with 2m <= d  ->  L (..., d_c, d, d).
    Plane u is spanned by columns 2u, 2u+1 of U; the last d - 2m columns span the null block.
    """
    U, freqs = _floats(U, freqs)
    _check_square(U, "U")
    if freqs.dim() < 2:
        raise ValueError(f"freqs must have shape (..., d_c, m), got {tuple(freqs.shape)}")
    d, m = U.shape[-1], freqs.shape[-1]
    _check_planes(m, d)
    if check_orthogonal:
        _check_orthogonal(U)
    E, _ = _plane_basis(m, d, U.dtype, U.device)
    blocks = torch.einsum("...ku,uij->...kij", freqs, E)
    Ue = U.unsqueeze(-3)
    return Ue @ blocks @ Ue.mT


def generator_combination(L: Tensor, r: Tensor) -> Tensor:
    """A(r) = sum_k r_k L_k (T1.3).  L (..., d_c, d, d), r (..., d_c) -> (..., d, d)."""
    L, r = _floats(L, r)
    if L.dim() < 3 or r.dim() < 1 or L.shape[-3] != r.shape[-1]:
        raise ValueError(f"L (..., d_c, d, d) and r (..., d_c) disagree: {tuple(L.shape)} vs {tuple(r.shape)}")
    d_c, d = L.shape[-3], L.shape[-1]
    if L.dim() == 3:  # one shared family: a single matmul instead of a d_c-fold broadcast
        return (r @ L.reshape(d_c, d * d)).reshape(*r.shape[:-1], d, d)
    return (r[..., :, None, None] * L).sum(-3)


A = generator_combination


def rstr(L: Tensor, r: Tensor) -> Tensor:
    """R_STR(r) = exp(A(r)) by the dense matrix exponential (T1.6; the definition).
    L (..., d_c, d, d), r (..., d_c) -> (..., d, d)."""
    return torch.linalg.matrix_exp(generator_combination(L, r))


R_str = rstr  # the spelling used in claim checks


def rstr_closed_form(U: Tensor, freqs: Tensor, r: Tensor) -> Tensor:
    """R_STR(r) = U (⊕_u R_2(theta_u(r)) ⊕ I) U^T (T2.7), without a matrix exponential.
    U (d, d), freqs (d_c, m), r (..., d_c) -> (..., d, d)."""
    U, freqs, r = _floats(U, freqs, r)
    _check_square(U, "U")
    d, m = U.shape[-1], freqs.shape[-1]
    _check_planes(m, d)
    theta = r @ freqs  # (..., m)
    E, F = _plane_basis(m, d, U.dtype, U.device)
    # exp(t J) = cos t I_2 + sin t J on each plane
    B = torch.eye(d, dtype=U.dtype, device=U.device) + torch.einsum(
        "...u,uij->...ij", torch.sin(theta), E) + torch.einsum("...u,uij->...ij", torch.cos(theta) - 1, F)
    return U @ B @ U.mT


# ----------------------------------------------------------------------------- fast application

def rotate_pairs(x: Tensor, theta: Tensor) -> Tensor:
    """Rotate the adjacent pairs (2u, 2u+1), u < m, of x by the angles theta; coordinates >= 2m pass.
    x (..., d), theta (..., m) broadcastable, 2m <= d -> (..., d).  O(d) per vector."""
    x, theta = _floats(x, theta)
    d, m = x.shape[-1], theta.shape[-1]
    _check_planes(m, d)
    pairs = x[..., : 2 * m].unflatten(-1, (m, 2))
    x0, x1 = pairs[..., 0], pairs[..., 1]
    c, s = torch.cos(theta), torch.sin(theta)
    rotated = torch.stack((c * x0 - s * x1, s * x0 + c * x1), dim=-1).flatten(-2)
    return rotated if 2 * m == d else torch.cat((rotated, x[..., 2 * m:]), dim=-1)


def rstr_apply(x: Tensor, r: Tensor, U: Tensor | None, freqs: Tensor, *, inverse: bool = False) -> Tensor:
    """y_i = R_STR(r_i) x_i (R_STR(r_i)^T x_i if inverse) without forming R_STR: rotate in U's basis.

    x (..., n, d), r (..., n, d_c), U (d, d) orthogonal or None (= I), freqs (d_c, m)  ->  (..., n, d).
    Cost O(d^2) per token with U, O(d) with U = None.  RoPE is U = None, d_c = 1, freqs = rope_frequencies.
    """
    x, r, freqs = _floats(x, r, freqs)
    if r.shape[-1] != freqs.shape[-2]:
        raise ValueError(f"r (..., n, d_c) and freqs (d_c, m) disagree: {tuple(r.shape)} vs {tuple(freqs.shape)}")
    theta = r @ freqs
    if inverse:
        theta = -theta
    if U is None:
        return rotate_pairs(x, theta)
    U = torch.as_tensor(U, dtype=x.dtype, device=x.device)
    _check_square(U, "U")
    if U.shape[-1] != x.shape[-1]:
        raise ValueError(f"U is {tuple(U.shape)} but x has d = {x.shape[-1]}")
    return rotate_pairs(x @ U, theta) @ U.mT  # row vectors: coordinates in U's basis are x U


def rope_frequencies(d: int, theta: float = 10000.0, *, dtype=torch.float64, device=None) -> Tensor:
    """RoPE frequencies theta^{-2i/d}, i = 0, ..., d/2 - 1.  -> (d // 2,)."""
    return theta ** (-torch.arange(0, d // 2, dtype=dtype, device=device) * 2.0 / d)


def rope(x: Tensor, pos: Tensor, theta: float = 10000.0, pairing: str = "adjacent") -> Tensor:
    """Rotary position embedding with frequencies theta^{-2i/d}; plane i is the pair of coordinates
    (2i, 2i+1) (``pairing="adjacent"``, the RoFormer layout) or (i, i + d/2) (``"half"``, the split
    layout of many implementations).  x (..., n, d) with d even, pos (..., n) -> (..., n, d)."""
    x, pos = _floats(x, pos)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"rope needs an even last dimension, got d = {d}")
    if pairing not in ("adjacent", "half"):
        raise ValueError(f"rope: pairing must be 'adjacent' or 'half', got {pairing!r}")
    if pos.shape != x.shape[:-1]:
        torch.broadcast_shapes(pos.shape, x.shape[:-1])  # raises with a clear message on mismatch
    freqs = rope_frequencies(d, theta, dtype=x.dtype, device=x.device)
    if pairing == "adjacent":
        return rotate_pairs(x, pos[..., None] * freqs)
    # the half split is the adjacent layout after interleaving the two halves, rotated, then undone
    interleaved = torch.stack((x[..., : d // 2], x[..., d // 2:]), dim=-1).flatten(-2)
    rotated = rotate_pairs(interleaved, pos[..., None] * freqs).unflatten(-1, (d // 2, 2))
    return torch.cat((rotated[..., 0], rotated[..., 1]), dim=-1)


def rope_scores(q: Tensor, k: Tensor, pos: Tensor, theta: float = 10000.0, pairing: str = "adjacent") -> Tensor:
    """The pre-softmax logits of rotary self-attention, rope(q, pos) rope(k, pos)^T / sqrt(d): queries and keys
    of one sequence, each rotated at its own position.  q, k (..., n, d), pos (..., n) -> (..., n, n)."""
    q, k, pos = _floats(q, k, pos)
    return rope(q, pos, theta, pairing) @ rope(k, pos, theta, pairing).mT / math.sqrt(q.shape[-1])


# ----------------------------------------------------------------------------- projectors

def Pi_act(U: Tensor, m: int) -> Tensor:
    """Projector onto the active subspace U diag(I_2m, 0) U^T (T2.10).  U (..., d, d) -> (..., d, d)."""
    (U,) = _floats(U)
    _check_square(U, "U")
    _check_planes(m, U.shape[-1])
    Ua = U[..., : 2 * m]
    return Ua @ Ua.mT


def Pi_null(U: Tensor, m: int) -> Tensor:
    """Projector onto the null block U diag(0, I_{d-2m}) U^T (T2.10).  U (..., d, d) -> (..., d, d)."""
    (U,) = _floats(U)
    _check_square(U, "U")
    _check_planes(m, U.shape[-1])
    Un = U[..., 2 * m:]
    return Un @ Un.mT


def Pi_act_from_generators(L: Tensor, tol: float | None = None) -> Tensor:
    """Active projector read off the generators alone: the range of G = sum_k L_k^T L_k (equal to
    U diag(I_2m, 0) U^T for a commuting family without zero planes).  L (..., d_c, d, d) -> (..., d, d).
    Eigenvalues of G below tol (default 100 d eps lambda_max) count as null."""
    (L,) = _floats(L)
    G = (L.mT @ L).sum(-3)
    w, V = torch.linalg.eigh(G)
    if tol is None:
        tol = 100 * G.shape[-1] * torch.finfo(G.dtype).eps * w[..., -1:].clamp_min(0)
    keep = (w > tol).to(G.dtype)
    return (V * keep[..., None, :]) @ V.mT


def joint_block_decomposition(L: Tensor, tol: float | None = None, seed: int = 0, tries: int = 16) -> tuple[Tensor, Tensor]:
    """Lemma 1 / T2.3 computed: U orthogonal and lam (d_c, m) with U^T L_k U ≈ ⊕_u lam[k, u] J ⊕ 0.

    L (d_c, d, d) skew (not batched, not differentiable).  The common null space comes from
    G = sum_k L_k^T L_k (a plane is null only if every generator annihilates it, so this is robust).
    The planes come from a combination A = sum c_k L_k restricted to the active space: planes are
    {v, A v / |A v|} for eigenvectors v of A^T A.  Of ``tries`` random c the one whose pairs of
    eigenvalues are best separated (from each other and from 0) is used, so that no plane is nearly
    merged with another or with the null block.  The off-block residual U^T L_k U - blocks is small
    exactly when the L_k commute (measure it; it is not asserted here).
    """
    (L,) = _floats(L)
    L = L.detach()
    if L.dim() != 3:
        raise ValueError(f"L must have shape (d_c, d, d), got {tuple(L.shape)}")
    d_c, d = L.shape[0], L.shape[-1]
    G = (L.mT @ L).sum(0)
    wg, Vg = torch.linalg.eigh(G)
    if tol is None:
        tol = 100 * d * torch.finfo(L.dtype).eps * max(wg[-1].item(), 1e-300)
    act_space = Vg[:, wg > tol]
    null = Vg[:, wg <= tol]
    n_act = act_space.shape[1]
    gen = torch.Generator(device="cpu").manual_seed(seed)
    # all tries at once: (tries, d_c) combinations, one batched eigh
    c = torch.randn(max(1, tries), d_c, generator=gen, dtype=L.dtype, device="cpu").to(L.device)
    A_all = act_space.mT @ generator_combination(L, c) @ act_space
    w, V_all = torch.linalg.eigh(A_all.mT @ A_all)
    best = 0
    if n_act:
        pairs = w[:, 1::2]  # eigenvalues come in equal pairs
        gaps = torch.cat((pairs[:, :1], pairs[:, 1:] - pairs[:, :-1]), dim=1)
        best = int(gaps.min(dim=1).values.argmax())  # the first of equally good tries
    A_act, V = A_all[best], V_all[best]
    basis: list[Tensor] = []
    for i in range(n_act - 1, -1, -1):  # largest eigenvalues first; each plane appears twice in V
        v = V[:, i]
        for _ in range(2):  # Gram-Schmidt twice for stability
            for b in basis:
                v = v - (b @ v) * b
        if v.norm() < 0.5:
            continue
        v = v / v.norm()
        u = A_act @ v
        for b in basis:
            u = u - (b @ u) * b
        if u.norm() == 0:
            continue
        basis += [v, u / u.norm()]
    m = len(basis) // 2
    act = act_space @ torch.stack(basis, dim=1) if basis else act_space[:, :0]
    U = torch.cat((act, null), dim=1)
    if U.shape[1] != d:
        raise RuntimeError(f"joint_block_decomposition found {U.shape[1]} basis vectors for d = {d}; adjust tol")
    u = torch.arange(m, device=L.device)
    lam = (U.mT @ L @ U)[:, 2 * u + 1, 2 * u]  # block lam J has lam at (2u+1, 2u)
    return U, lam


def joint_eigenbasis(L: Tensor, **kwargs) -> Tensor:
    """T2.1 computed: a unitary U_c whose columns are common eigenvectors of the commuting skew L_k.

    L (d_c, d, d) -> U_c (d, d) complex.  From the real block form of :func:`joint_block_decomposition`
    (keyword arguments go there): a plane (U e_{2u}, U e_{2u+1}) on which L_k acts as lam_ku J gives the
    columns (x - i y)/sqrt 2 (eigenvalue +i lam_ku) and (x + i y)/sqrt 2 (eigenvalue -i lam_ku); a null
    direction gives itself (real, eigenvalue 0).
    """
    U, lam = joint_block_decomposition(L, **kwargs)
    m, d = lam.shape[-1], U.shape[-1]
    cdt = torch.complex128 if U.dtype == torch.float64 else torch.complex64
    F = torch.eye(d, dtype=cdt, device=U.device)
    h = 2 ** -0.5
    for u in range(m):
        F[2 * u: 2 * u + 2, 2 * u: 2 * u + 2] = torch.tensor([[h, h], [-1j * h, 1j * h]], dtype=cdt, device=U.device)
    return U.to(cdt) @ F


# ----------------------------------------------------------------------------- post-rotations

def cayley(S: Tensor, *, check: bool = True) -> Tensor:
    """Cayley transform P = (I - S)(I + S)^{-1} (T3.1), computed as the solve (I + S) P = I - S (the two
    factors commute).  Orthogonal for skew S; its own inverse map (T3.3).  S (..., d, d) -> (..., d, d).
    check=False skips the solver's singularity check (which makes a GPU wait for the host): the same
    arithmetic, for skew S, where I + S is always invertible (eigenvalues 1 + i lambda)."""
    (S,) = _floats(S)
    _check_square(S, "S")
    eye = torch.eye(S.shape[-1], dtype=S.dtype, device=S.device)
    if check:
        return torch.linalg.solve(eye + S, eye - S)
    return torch.linalg.solve_ex(eye + S, eye - S, check_errors=False)[0]


def rsp(L: Tensor, r: Tensor, P: Tensor, *, convention: str = "right") -> Tensor:
    """Post-rotated rotation R_sp(r).  convention="right": R_STR(r) P (T3.5, paper eq. 19);
    "conjugate": P R_STR(r) P^T (as printed in T8'.7).  L (..., d_c, d, d), r (..., d_c), P (..., d, d)."""
    R = rstr(L, r)
    P = torch.as_tensor(P, dtype=R.dtype, device=R.device)
    if convention == "right":
        return R @ P
    if convention == "conjugate":
        return P @ R @ P.mT
    raise ValueError(f"convention must be 'right' or 'conjugate', got {convention!r}")


R_sp = rsp


def _blocks(P: Tensor, U: Tensor, m: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """U^T P U = [[A, B], [C, D]] split at 2m (T5.8)."""
    P, U = _floats(P, U)
    _check_square(P, "P")
    _check_square(U, "U")
    _check_planes(m, U.shape[-1])
    Q = U.mT @ P @ U
    a = 2 * m
    return Q[..., :a, :a], Q[..., :a, a:], Q[..., a:, :a], Q[..., a:, a:]


def structured_post_rotation(U: Tensor, m: int, M_null: Tensor, *, param: str = "exp") -> Tensor:
    """An element U diag(I_2m, R_null) U^T of the structured family 𝒜 (T3.4, paper eq. 14).

    U (..., d, d) orthogonal, M_null (..., d_null, d_null) with d_null = d - 2m  ->  (..., d, d).
    param="exp": R_null = exp(skew(M_null)) (onto SO(d_null): any M_null is a valid sample);
    "cayley": R_null = cayley(skew(M_null)) (the set ℬ of T3.2); "matrix": M_null is R_null itself.
    """
    U, M_null = _floats(U, M_null)
    _check_square(U, "U")
    d = U.shape[-1]
    _check_planes(m, d)
    if M_null.shape[-2:] != (d - 2 * m, d - 2 * m):
        raise ValueError(f"M_null must be (..., {d - 2 * m}, {d - 2 * m}), got {tuple(M_null.shape)}")
    if param == "exp":
        R_null = torch.linalg.matrix_exp(skew(M_null))
    elif param == "cayley":
        R_null = cayley(skew(M_null))
    elif param == "matrix":
        R_null = M_null
    else:
        raise ValueError(f"param must be 'exp', 'cayley' or 'matrix', got {param!r}")
    Ua, Un = U[..., : 2 * m], U[..., 2 * m:]
    return Ua @ Ua.mT + Un @ R_null @ Un.mT


def project_to_structured(P: Tensor, U: Tensor, m: int) -> Tensor:
    """Nearest element of 𝒜 to P in Frobenius norm: R_null = the SO(d_null) Procrustes factor of the
    null block D of U^T P U.  P, U (..., d, d) -> (..., d, d)."""
    _, _, _, D = _blocks(P, U, m)
    if D.shape[-1] == 0:
        return structured_post_rotation(U, m, D, param="matrix")
    W, _, Vh = torch.linalg.svd(D)
    sign = torch.sign(torch.linalg.det(W @ Vh))  # flip the weakest direction if W Vh is a reflection
    fix = torch.cat((torch.ones_like(sign)[..., None].expand(*sign.shape, D.shape[-1] - 1), sign[..., None]), -1)
    return structured_post_rotation(U, m, (W * fix[..., None, :]) @ Vh, param="matrix")


def distance_to_structured(P: Tensor, U: Tensor, m: int) -> Tensor:
    """Frobenius distance from P to 𝒜 = {U diag(I_2m, R) U^T : R in SO(d_null)}; zero iff P in 𝒜.

    With U^T P U = [[A, B], [C, D]]: dist^2 = |A - I|^2 + |B|^2 + |C|^2 + min_R |D - R|^2, and
    min_R |D - R|^2 = |D|^2 + d_null - 2 (sum sigma(D) - 2 sigma_min(D) [det D < 0]) (Kabsch).
    P, U (..., d, d) -> (...,).  (Gradient is infinite exactly on 𝒜, as for any distance.)"""
    A_, B_, C_, D_ = _blocks(P, U, m)
    eye = torch.eye(A_.shape[-1], dtype=A_.dtype, device=A_.device)
    sq = (A_ - eye).square().sum((-2, -1)) + B_.square().sum((-2, -1)) + C_.square().sum((-2, -1))
    if D_.shape[-1]:
        sv = torch.linalg.svdvals(D_)
        best_trace = sv.sum(-1) - 2 * sv[..., -1] * (torch.linalg.det(D_) < 0).to(D_.dtype)
        sq = sq + D_.square().sum((-2, -1)) + D_.shape[-1] - 2 * best_trace
    return torch.sqrt(sq.clamp_min(0))


def mixing(P: Tensor, U: Tensor, m: int, *, kind: str = "sum", ord=2) -> Tensor:
    """Active/null leakage eta_mix of a post-rotation.  kind="sum": |B| + |C| (T5.8, paper eq. 26);
    "max": max(|Pi_null P Pi_act|, |Pi_act P Pi_null|) = max(|C|, |B|) (T6'.0).  P, U (..., d, d) -> (...,)."""
    _, B_, C_, _ = _blocks(P, U, m)
    if B_.numel() == 0:
        return torch.zeros(B_.shape[:-2], dtype=B_.dtype, device=B_.device)
    nb, nc = torch.linalg.matrix_norm(B_, ord=ord), torch.linalg.matrix_norm(C_, ord=ord)
    if kind == "sum":
        return nb + nc
    if kind == "max":
        return torch.maximum(nb, nc)
    raise ValueError(f"kind must be 'sum' or 'max', got {kind!r}")


# ----------------------------------------------------------------------------- logits

def espr_logits(q: Tensor, k: Tensor, r_q: Tensor, r_k: Tensor, L: Tensor, *, P: Tensor | None = None,
                Pi: Tensor | None = None, scale: float | Tensor | None = None,
                convention: str = "right", scaling: str = "active") -> Tensor:
    """Attention logits alpha_ij = (Pi R_sp(r_i) Pi q_i)^T (Pi R_sp(r_j) Pi k_j) * scale (T4.3-T4.4), dense.

    q (..., n, d), k (..., n', d), r_q (..., n, d_c), r_k (..., n', d_c), L (d_c, d, d), P (d, d) or None (= I),
    Pi (d, d) or None (= I)  ->  (..., n, n').  Without an explicit ``scale``: ``scaling="active"`` gives
    1/sqrt(d_act), d_act = tr(Pi) (= 2m; d when Pi is None), ``"full"`` gives 1/sqrt(d).
    """
    q, k, r_q, r_k, L = _floats(q, k, r_q, r_k, L)
    d = q.shape[-1]
    if k.shape[-1] != d or L.shape[-1] != d:
        raise ValueError(f"q, k and L disagree on d: {q.shape[-1]}, {k.shape[-1]}, {L.shape[-1]}")
    eye = torch.eye(d, dtype=q.dtype, device=q.device)
    P = eye if P is None else torch.as_tensor(P, dtype=q.dtype, device=q.device)
    Pi = eye if Pi is None else torch.as_tensor(Pi, dtype=q.dtype, device=q.device)

    def rotated(z: Tensor, r: Tensor) -> Tensor:
        R = rsp(L, r, P, convention=convention)  # (..., n, d, d)
        return ((R @ (z @ Pi.mT)[..., None]).squeeze(-1)) @ Pi.mT

    if scaling not in ("active", "full"):
        raise ValueError(f"espr_logits: scaling must be 'active' or 'full', got {scaling!r}")
    if scale is None and scaling == "full":
        scale = 1.0 / math.sqrt(d)
    if scale is None:
        scale = torch.diagonal(Pi, dim1=-2, dim2=-1).sum(-1)[..., None, None].rsqrt()
    return rotated(q, r_q) @ rotated(k, r_k).mT * scale


def relative_defect(L: Tensor, r: Tensor, delta: Tensor, *, P: Tensor | None = None,
                    Pi: Tensor | None = None, convention: str = "right", ord=2) -> Tensor:
    """|Pi R_sp(r)^T R_sp(r + delta) Pi - Pi R_STR(delta) Pi| (the integrand of IR_spec, T8'.7); zero for
    commuting generators and P in 𝒜.  L (d_c, d, d), r, delta (..., d_c) -> (...,)."""
    L, r, delta = _floats(L, r, delta)
    d = L.shape[-1]
    eye = torch.eye(d, dtype=L.dtype, device=L.device)
    P = eye if P is None else torch.as_tensor(P, dtype=L.dtype, device=L.device)
    Pi = eye if Pi is None else torch.as_tensor(Pi, dtype=L.dtype, device=L.device)
    lhs = rsp(L, r, P, convention=convention).mT @ rsp(L, r + delta, P, convention=convention)
    return torch.linalg.matrix_norm(Pi @ (lhs - rstr(L, delta)) @ Pi, ord=ord)
