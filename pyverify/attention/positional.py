"""Hellinger geometry of positions, the classical-MDS encoding (Algorithm 1), stress, baselines.

Source: "A theory of positional encodings" (seed ``002``).  How the text was read:

* eq. (3) ``d_H(mu_i, mu_j) = (sum_v (sqrt mu_i(v) - sqrt mu_j(v))^2)^{1/2}`` — *without* the
  ``1/sqrt 2`` factor, which is what the stated range ``d_H in [0, sqrt 2]`` requires.  The factor
  is available as ``hellinger(mu, normalized=True)`` (range ``[0, 1]``).  Note: ``d_H`` is the
  chord between the points ``sqrt(mu_i)`` of the unit sphere, not the Fisher-Rao geodesic the
  paper calls it (that one is :func:`fisher_rao`); in particular ``d_H`` is always Euclidean-
  embeddable, so classical MDS with ``d >= rank(B)`` (``<= n - 1``) has stress exactly 0.
* eq. (4) ``stress(P) = sum_{i<j} (||p_i - p_j|| - d_H(mu_i, mu_j))^2 / sum_{i<j} d_H(mu_i, mu_j)^2``
  — the *normalised* raw stress (Kruskal's stress-1 squared, no square root).  The paper says it
  lies in ``[0, 1]``; that is false in general (its own tables report 18.98, 2.248, 1,134): it is
  1 at ``P = 0`` and unbounded above.  ``normalized=False`` gives the raw numerator.
* eq. (5) / Proposition 6 / Algorithm 1: ``B = -1/2 H (D o D) H`` with ``H = I - 11^T/n`` and
  ``D`` the matrix of distances (Algorithm 1's ``D_ij`` is the *squared* distance; here the
  distance matrix is the input and is squared inside, unless ``squared=True``).
* Section 6 does not say how RoPE and ALiBi were turned into positions; see :func:`rope_encoding`
  and :func:`alibi_encoding` for the choice made here.
* Definition 9 / Section 6.6: violation rate over ordered triples ``(i, j, k)`` with
  ``|i - j| < |i - k|``; see :func:`monotonicity_violation_rate`.

Shapes: ``n`` positions, ``V`` vocabulary, ``d`` embedding dimension; leading ``...`` are batch.
Everything is float64 unless the input has another floating dtype, follows the input's device and
is differentiable by autograd except where a docstring says otherwise.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch

from .corpus import positional_distributions, synthetic_corpus, synthetic_positional_law

__all__ = [
    "positional_distributions", "synthetic_corpus", "synthetic_positional_law",
    "hellinger", "fisher_rao", "pairwise_distances", "double_centred_gram", "classical_mds",
    "explained_variance", "low_rank_factor", "stress", "distance_stress", "information_optimal_encoding",
    "guttman_transform", "smacof", "SmacofResult", "monotonicity_violation_rate",
    "sinusoidal", "rope_encoding", "alibi_slopes", "alibi_distances", "alibi_encoding", "random_encoding",
]


# ----------------------------------------------------------------------------------------- helpers

def _safe_sqrt(x: torch.Tensor) -> torch.Tensor:
    """sqrt with gradient 0 (instead of inf/nan) where ``x <= 0``; exact values elsewhere.

    Needed for distances on the diagonal (``||p_i - p_i|| = 0``) and for zero probabilities: the
    true one-sided derivative there is infinite, and a NaN would poison the whole backward pass.
    """
    positive = x > 0
    return torch.where(positive, torch.sqrt(torch.where(positive, x, torch.ones_like(x))), torch.zeros_like(x))


def _as_float(x) -> torch.Tensor:
    t = torch.as_tensor(x)
    if not t.is_floating_point():
        t = t.to(torch.float64)
    return t


def _check_square(D: torch.Tensor, name: str = "D") -> int:
    if D.dim() < 2 or D.shape[-1] != D.shape[-2]:
        raise ValueError(f"{name} must have shape (..., n, n), got {tuple(D.shape)}")
    if D.shape[-1] < 1:
        raise ValueError(f"{name} must have n >= 1")
    return D.shape[-1]


def _check_dim(d, name: str = "d") -> int:
    if isinstance(d, bool) or int(d) != d or int(d) < 1:
        raise ValueError(f"{name} must be a positive integer, got {d!r}")
    return int(d)


def _upper_pairs(M: torch.Tensor) -> torch.Tensor:
    """Entries ``i < j`` of ``M (..., n, n)`` -> ``(..., n(n-1)/2)``."""
    n = M.shape[-1]
    i, j = torch.triu_indices(n, n, offset=1, device=M.device)
    return M[..., i, j]


# ------------------------------------------------------------------------------ distances and MDS

def hellinger(mu: torch.Tensor, *, normalized: bool = False, validate: bool = True) -> torch.Tensor:
    """Hellinger distances between positional distributions, eq. (3): ``mu (..., n, V) -> (..., n, n)``.

    ``D[i, j] = sqrt(sum_v (sqrt mu[i, v] - sqrt mu[j, v])^2)``, in ``[0, sqrt 2]`` (the paper's
    normalisation, default).  ``normalized=True`` multiplies by ``1/sqrt 2`` (range ``[0, 1]``).
    Computed from the differences (no ``2 - 2 BC`` cancellation); exactly symmetric with zero
    diagonal.  Gradient convention: 0 through entries with ``mu = 0`` (true derivative infinite).

    Raises:
        ValueError: wrong shape, or (``validate=True``) a negative entry or a row not summing to 1
            within ``sqrt(eps)``.
    """
    mu = _as_float(mu)
    if mu.dim() < 2:
        raise ValueError(f"mu must have shape (..., n, V), got {tuple(mu.shape)}")
    if validate:
        tol = math.sqrt(torch.finfo(mu.dtype).eps)
        if bool((mu < 0).any()):
            raise ValueError("mu must be non-negative (rows are probability distributions)")
        if bool(((mu.sum(-1) - 1).abs() > tol * max(1.0, mu.shape[-1] ** 0.5)).any()):
            raise ValueError("rows of mu must sum to 1 (rows are probability distributions)")
    root = _safe_sqrt(mu)
    diff = root.unsqueeze(-2) - root.unsqueeze(-3)                   # (..., n, n, V)
    D = _safe_sqrt((diff * diff).sum(-1))
    return D / math.sqrt(2.0) if normalized else D


def fisher_rao(mu: torch.Tensor, *, validate: bool = True) -> torch.Tensor:
    """Fisher-Rao geodesic distance ``2 arccos(sum_v sqrt(mu_i mu_j))``: ``(..., n, V) -> (..., n, n)``.

    Computed as ``4 arcsin(d_H / 2)`` (well conditioned near 0, unlike arccos).  This is the
    geodesic the paper attributes to ``d_H`` in Section 2 / 5.2; ``d_H`` itself is its chord.
    """
    return 4.0 * torch.asin((hellinger(mu, validate=validate) / 2.0).clamp(max=1.0))


def pairwise_distances(P: torch.Tensor) -> torch.Tensor:
    """Euclidean distances between rows: ``P (..., n, d) -> (..., n, n)``, ``||p_i - p_j||_2``.

    From the differences (not the Gram trick, which loses accuracy for close rows): ``torch.cdist``
    without its matrix-multiplication mode, which forms no (n, n, d) tensor of differences; gradient 0
    on the diagonal.
    """
    P = _as_float(P)
    if P.dim() < 2:
        raise ValueError(f"P must have shape (..., n, d), got {tuple(P.shape)}")
    return torch.cdist(P, P, compute_mode="donot_use_mm_for_euclid_dist")


def double_centred_gram(D: torch.Tensor, *, squared: bool = False) -> torch.Tensor:
    """Doubly-centred Gram matrix, eq. (5): ``D (..., n, n) -> B (..., n, n)``.

    ``B = -1/2 H (D o D) H`` with ``H = I - 11^T / n`` (``D o D`` replaced by ``D`` when
    ``squared=True``), evaluated as ``-1/2 (D2 - row means - column means + grand mean)``.
    """
    D = _as_float(D)
    _check_square(D)
    D2 = D if squared else D * D
    centred = D2 - D2.mean(-1, keepdim=True) - D2.mean(-2, keepdim=True) + D2.mean((-2, -1), keepdim=True)
    B = -0.5 * centred
    return 0.5 * (B + B.transpose(-1, -2))                            # exact symmetry for eigh


def _sorted_eigh(B: torch.Tensor):
    evals, evecs = torch.linalg.eigh(B)
    return evals.flip(-1), evecs.flip(-1)                             # descending, as in Prop. 6


def classical_mds(D: torch.Tensor, d: int, *, rank: int | None = None, squared: bool = False) -> torch.Tensor:
    """Algorithm 1 / Proposition 6: ``D (..., n, n) -> P (..., n, d)``, ``P = U_r diag(sqrt max(lambda, 0))``.

    ``B = double_centred_gram(D)`` is eigendecomposed with eigenvalues sorted decreasingly; the top
    ``r = min(d, rank, n)`` eigenpairs are kept, negative eigenvalues clipped to 0, and the result
    zero-padded to ``d`` columns (``rank`` gives the rank-``r`` encodings of Table 2 at width ``d``).
    Eigenvector signs are fixed so that each column's largest-magnitude entry is positive
    (coordinates are defined up to an orthogonal map anyway; distances are what is determined).

    Args:
        D: symmetric matrix of distances (of squared distances if ``squared=True``).
        d: output dimension.
        rank: optional truncation ``r <= d``.
    """
    D = _as_float(D)
    n = _check_square(D)
    d = _check_dim(d)
    r = min(d, n) if rank is None else min(_check_dim(rank, "rank"), d, n)
    tol = math.sqrt(torch.finfo(D.dtype).eps)
    if bool(((D - D.transpose(-1, -2)).abs() > tol * (1 + D.abs().amax())).any()):
        raise ValueError("D must be symmetric")
    evals, evecs = _sorted_eigh(double_centred_gram(D, squared=squared))
    evals, evecs = evals[..., :r], evecs[..., :, :r]
    pivot = evecs.abs().argmax(-2, keepdim=True)
    sign = torch.sign(torch.gather(evecs, -2, pivot))
    sign = torch.where(sign == 0, torch.ones_like(sign), sign)
    P = evecs * sign * _safe_sqrt(evals.clamp(min=0)).unsqueeze(-2)
    if r < d:
        P = torch.cat([P, P.new_zeros(*P.shape[:-1], d - r)], dim=-1)
    return P


def explained_variance(D: torch.Tensor, *, squared: bool = False) -> torch.Tensor:
    """Cumulative share of the clipped spectrum of ``B``: ``D (..., n, n) -> (..., n)``.

    Entry ``k-1`` is ``sum_{l<=k} max(lambda_l, 0) / sum_l max(lambda_l, 0)`` — "the first k
    eigenvectors capture x% of the positional variance" of Remark 8.
    """
    evals, _ = _sorted_eigh(double_centred_gram(D, squared=squared))
    positive = evals.clamp(min=0)
    return positive.cumsum(-1) / positive.sum(-1, keepdim=True)


def low_rank_factor(P: torch.Tensor, r: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Remark 8's ``P ~ A B^T``: ``P (..., n, d) -> A (..., n, r), B (..., d, r)``.

    Truncated SVD ``P = U S V^T``: ``A = U_r S_r``, ``B = V_r`` (orthonormal columns), the best
    rank-``r`` approximation (Eckart-Young); exact when ``r >= rank(P)``.  ``r(n + d)`` parameters. Signs: each column of ``A`` has its largest-magnitude entry positive.
    """
    P = _as_float(P)
    if P.dim() < 2:
        raise ValueError(f"P must have shape (..., n, d), got {tuple(P.shape)}")
    r = _check_dim(r, "r")
    if r > min(P.shape[-2:]):
        raise ValueError(f"r must be <= min(n, d) = {min(P.shape[-2:])}, got {r}")
    U, S, Vh = torch.linalg.svd(P, full_matrices=False)
    U, V = U[..., :, :r], Vh[..., :r, :].transpose(-1, -2)
    # the SVD fixes each pair of singular vectors up to a common sign; fix it (each column of U has its
    # largest-magnitude entry positive) so that A and B are functions of P, as in classical_mds
    pivot = U.abs().argmax(-2, keepdim=True)
    sign = torch.sign(torch.gather(U, -2, pivot))
    sign = torch.where(sign == 0, torch.ones_like(sign), sign)
    return U * sign * S[..., None, :r], V * sign


def distance_stress(E: torch.Tensor, D: torch.Tensor, *, normalized: bool = True) -> torch.Tensor:
    """Eq. (4) between two distance matrices: ``E (..., n, n), D (..., n, n) -> (...)``.

    ``sum_{i<j} (E_ij - D_ij)^2 / sum_{i<j} D_ij^2`` (``normalized=False``: numerator only).
    """
    E, D = _as_float(E), _as_float(D)
    n = _check_square(D)
    if E.shape[-2:] != (n, n):
        raise ValueError(f"E must have shape (..., {n}, {n}) like D, got {tuple(E.shape)}")
    du = _upper_pairs(D)
    numerator = ((_upper_pairs(E) - du) ** 2).sum(-1)
    if not normalized:
        return numerator
    denominator = (du * du).sum(-1)
    if bool((denominator == 0).any()):
        raise ValueError("stress is undefined: D has no positive off-diagonal distance")
    return numerator / denominator


def stress(P: torch.Tensor, D: torch.Tensor, *, normalized: bool = True) -> torch.Tensor:
    """Stress of an encoding, eq. (4): ``P (..., n, d), D (..., n, n) -> (...)`` (0-dim if unbatched).

    ``sum_{i<j} (||p_i - p_j|| - D_ij)^2 / sum_{i<j} D_ij^2`` with Euclidean row distances — the
    normalised raw stress the paper writes (no square root).  Returns a tensor so that it stays
    differentiable; ``float(stress(P, D))`` for a number.
    """
    P = _as_float(P)
    n = _check_square(_as_float(D))
    if P.dim() < 2 or P.shape[-2] != n:
        raise ValueError(f"P must have shape (..., {n}, d) to match D ({n}x{n}), got {tuple(P.shape)}")
    return distance_stress(pairwise_distances(P), D, normalized=normalized)


def information_optimal_encoding(corpus, n: int, V: int, d: int, *, rank: int | None = None,
                                 smoothing: float = 0.0, ignore_index: int | None = None,
                                 dtype: torch.dtype | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Algorithm 1 end to end: ``corpus (N, L) -> (P_MDS (n, d), stress)``."""
    mu = positional_distributions(corpus, n, V, smoothing=smoothing, ignore_index=ignore_index, dtype=dtype)
    D = hellinger(mu)
    P = classical_mds(D, d, rank=rank)
    return P, stress(P, D)


# -------------------------------------------------------------------------------------- SMACOF

def guttman_transform(X: torch.Tensor, D: torch.Tensor) -> torch.Tensor:
    """One Guttman transform (unit weights): ``X (..., n, d), D (..., n, n) -> (..., n, d)``.

    ``X+ = (1/n) B(X) X`` with ``B_ij = -D_ij / ||x_i - x_j||`` (``i != j``, 0 where the distance
    is 0) and ``B_ii = -sum_{j != i} B_ij``; the raw stress never increases (majorisation).
    """
    n = X.shape[-2]
    E = pairwise_distances(X)
    ratio = torch.where(E > 0, D / torch.where(E > 0, E, torch.ones_like(E)), torch.zeros_like(E))
    off_diagonal = 1 - torch.eye(n, dtype=X.dtype, device=X.device)
    Bm = -ratio * off_diagonal
    Bm = Bm - torch.diag_embed(Bm.sum(-1))
    return Bm @ X / n


class SmacofResult(NamedTuple):
    P: torch.Tensor          # (..., n, d) final configuration
    stress: torch.Tensor     # (...) eq. (4) stress of P
    history: torch.Tensor    # (iterations + 1, ...) stress after each Guttman transform (index 0: start)
    n_iter: int


def smacof(D: torch.Tensor, d: int, *, init: str | torch.Tensor = "mds", max_iter: int = 500,
           tol: float = 1e-10, generator: torch.Generator | None = None) -> SmacofResult:
    """Direct minimisation of eq. (4) by SMACOF (iterated Guttman transforms): ``D (..., n, n) -> P (..., n, d)``.

    Args:
        init: ``"mds"`` (start at :func:`classical_mds`, so the result's stress is never above
            the Algorithm 1 encoding's), ``"random"`` (standard normal, ``generator``), or a tensor
            ``(..., n, d)``.
        max_iter: maximum number of Guttman transforms.
        tol: stop once every batch entry's relative stress decrease is below ``tol``.
    """
    D = _as_float(D)
    _check_square(D)
    d = _check_dim(d)
    if isinstance(init, str):
        if init == "mds":
            X = classical_mds(D, d)
        elif init == "random":
            X = torch.randn(*D.shape[:-1], d, generator=generator, dtype=D.dtype,
                            device=D.device if generator is None else generator.device).to(D.device)
        else:
            raise ValueError(f"init must be 'mds', 'random' or a tensor, got {init!r}")
    else:
        X = _as_float(init).to(dtype=D.dtype, device=D.device)
        if X.shape != (*D.shape[:-1], d):
            raise ValueError(f"init must have shape {(*D.shape[:-1], d)}, got {tuple(X.shape)}")
    history = [stress(X, D)]
    iterations = 0
    for iterations in range(1, int(max_iter) + 1):
        X = guttman_transform(X, D)
        history.append(stress(X, D))
        decrease = history[-2] - history[-1]
        if bool((decrease <= tol * history[-2]).all()):
            break
    return SmacofResult(X, history[-1], torch.stack(history), iterations)


# ------------------------------------------------------------------------------- monotonicity

def monotonicity_violation_rate(P: torch.Tensor, *, positions: torch.Tensor | None = None,
                                reference: torch.Tensor | None = None, include_self: bool = False) -> torch.Tensor:
    """Share of triples violating Definition 9 (Section 6.6): ``P (..., n, d) -> (...)``.

    Over ordered triples ``(i, j, k)`` with ``R_ij < R_ik`` a violation is
    ``||p_i - p_j|| > ||p_i - p_k||`` (ties are not violations).  ``R`` is the sequence distance
    ``|pos_i - pos_j|`` (``positions`` default ``0..n-1``, the paper's choice) or a given
    ``reference (..., n, n)`` dissimilarity (e.g. Hellinger, hypothesis (A3)).  ``include_self``
    keeps the triples with ``j = i`` (never violations; Definition 9 formally contains them, the
    default drops them so that a random encoding scores ~50%).  Not differentiable (a count).
    """
    P = _as_float(P)
    if P.dim() < 2:
        raise ValueError(f"P must have shape (..., n, d), got {tuple(P.shape)}")
    n = P.shape[-2]
    if positions is not None and reference is not None:
        raise ValueError("give positions or reference, not both")
    if reference is None:
        pos = torch.arange(n, dtype=P.dtype, device=P.device) if positions is None else _as_float(positions).to(P.device)
        if pos.shape[-1] != n:
            raise ValueError(f"positions must have shape (..., {n}), got {tuple(pos.shape)}")
        R = (pos.unsqueeze(-1) - pos.unsqueeze(-2)).abs()
    else:
        R = _as_float(reference).to(P.device)
        if _check_square(R, "reference") != n:
            raise ValueError(f"reference must be (..., {n}, {n}), got {tuple(R.shape)}")
    E = pairwise_distances(P.detach())
    closer = R.unsqueeze(-1) < R.unsqueeze(-2)                       # [i, j, k]: R_ij < R_ik
    if not include_self:
        closer = closer & ~torch.eye(n, dtype=torch.bool, device=P.device).unsqueeze(-1)
    violated = closer & (E.unsqueeze(-1) > E.unsqueeze(-2))
    total = closer.sum((-3, -2, -1))
    if bool((total == 0).any()):
        raise ValueError("no triple with R_ij < R_ik: the violation rate is undefined")
    return violated.sum((-3, -2, -1)).to(P.dtype) / total.to(P.dtype)


# ---------------------------------------------------------------------------------- baselines

def _factory(dtype, device):
    return dict(dtype=torch.float64 if dtype is None else dtype, device=device)


def sinusoidal(n: int, d: int, *, base: float = 10000.0, start: int = 0,
               dtype: torch.dtype | None = None, device=None) -> torch.Tensor:
    """Vaswani encoding, eq. (2): ``-> P (n, d)``, interleaved ``P[i, 2k] = sin(w_k i)``, ``P[i, 2k+1] = cos(w_k i)``.

    ``w_k = base^{-2k/d}``, ``k = 0..d/2-1``, positions ``i = start .. start+n-1`` (the offset does
    not change any distance).  ``d`` must be even.
    """
    n, d = _check_dim(n, "n"), _check_dim(d)
    if d % 2:
        raise ValueError(f"sinusoidal encoding needs an even d, got {d}")
    i = torch.arange(start, start + n, dtype=torch.float64, device=device)
    w = base ** (-torch.arange(0, d, 2, dtype=torch.float64, device=device) / d)
    angle = i[:, None] * w[None, :]
    return torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(n, d).to(**_factory(dtype, device))


def rope_encoding(n: int, d: int, *, x: torch.Tensor | None = None, base: float = 10000.0, start: int = 0,
                  dtype: torch.dtype | None = None, device=None) -> torch.Tensor:
    """RoPE turned into absolute positions: ``p_i = R_Theta(i) x``; ``x (..., d) -> P (..., n, d)``.

    The paper does not say how it computes RoPE's stress; this is the natural reading — the
    positions a fixed content vector ``x`` takes under RoPE's rotations (adjacent pairs
    ``(2k, 2k+1)`` rotated by ``w_k i``, ``w_k = base^{-2k/d}``:
    ``(x0 cos - x1 sin, x0 sin + x1 cos)``).  Default ``x``: every coordinate ``1/sqrt 2``, so each
    pair has radius 1 and the distance matrix equals the sinusoidal one exactly; a random ``x``
    rescales each frequency by its pair radius.
    """
    n, d = _check_dim(n, "n"), _check_dim(d)
    if d % 2:
        raise ValueError(f"RoPE needs an even d, got {d}")
    if x is None:
        x = torch.full((d,), 1 / math.sqrt(2.0), **_factory(dtype, device))
    else:
        x = _as_float(x)
        if x.shape[-1] != d:
            raise ValueError(f"x must have shape (..., {d}), got {tuple(x.shape)}")
    i = torch.arange(start, start + n, dtype=torch.float64, device=x.device)
    w = base ** (-torch.arange(0, d, 2, dtype=torch.float64, device=x.device) / d)
    angle = (i[:, None] * w[None, :]).to(x.dtype)                      # (n, d/2)
    cos, sin = angle.cos(), angle.sin()
    x0, x1 = x[..., 0::2].unsqueeze(-2), x[..., 1::2].unsqueeze(-2)    # (..., 1, d/2)
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2)


def alibi_slopes(n_heads: int, *, dtype: torch.dtype | None = None, device=None) -> torch.Tensor:
    """ALiBi head slopes ``-> (n_heads,)``: ``2^{-8h/H}``, ``h = 1..H`` for ``H`` a power of two;
    otherwise the slopes of the largest power of two ``2^k < H`` followed by every other slope of
    ``2^{k+1}`` heads (Press et al.'s rule)."""
    H = _check_dim(n_heads, "n_heads")

    def geometric(h):
        return [2.0 ** (-8.0 * m / h) for m in range(1, h + 1)]

    if H & (H - 1) == 0:
        slopes = geometric(H)
    else:
        k = 2 ** int(math.floor(math.log2(H)))
        slopes = geometric(k) + geometric(2 * k)[0::2][: H - k]
    return torch.tensor(slopes, **_factory(dtype, device))


def alibi_distances(n: int, slope: float, *, dtype: torch.dtype | None = None, device=None) -> torch.Tensor:
    """ALiBi's penalty as a distance: ``-> (n, n)``, ``slope * |i - j|`` (the bias is ``-slope |i - j|``)."""
    i = torch.arange(_check_dim(n, "n"), **_factory(dtype, device))
    return slope * (i[:, None] - i[None, :]).abs()


def alibi_encoding(n: int, *, slope: float, d: int = 1, dtype: torch.dtype | None = None, device=None) -> torch.Tensor:
    """ALiBi as positions ``-> P (n, d)``: ``p_i = slope * i * e_1`` (Remark 8's rank-1 ``s v^T`` with ``s_i = i``).

    Its row distances are exactly :func:`alibi_distances` — the paper gives no other recipe
    (Section 6 does not say which slope it used; pass one of :func:`alibi_slopes`).
    """
    d = _check_dim(d)
    i = torch.arange(_check_dim(n, "n"), **_factory(dtype, device))
    P = torch.zeros(n, d, **_factory(dtype, device))
    P[:, 0] = slope * i                                               # fresh tensor: safe to fill
    return P


def random_encoding(n: int, d: int, *, std: float = 1.0, generator: torch.Generator | None = None,
                    dtype: torch.dtype | None = None, device=None) -> torch.Tensor:
    """Random Gaussian baseline ``-> P (n, d)`` with i.i.d. ``N(0, std^2)`` entries.

    ``std = 1`` by default (the scale that is consistent with the paper's 'random initialisation'
    stress figures; BERT's own ``N(0, 0.02^2)`` would give stress just below 1).
    """
    n, d = _check_dim(n, "n"), _check_dim(d)
    gen_device = device if generator is None else generator.device
    P = torch.randn(n, d, generator=generator, dtype=_factory(dtype, device)["dtype"], device=gen_device)
    return (std * P).to(device=device)
