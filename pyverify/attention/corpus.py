"""Positional token statistics of a corpus, and the synthetic corpus of the positional-encoding paper.

Source: "A theory of positional encodings" (seed ``002``), Section 2 (positional distributions
``mu_i(v) = Pr[t_i = v]``), Algorithm 1 line 1 (``mu_i(v) = |{s in D : s_i = v}| / |D|``) and
Section 6.1 (synthetic corpus: ``n = 32``, ``|V| = 200``, ``N = 5000`` sequences, three positional
regimes "initial, medial, terminal").

The paper does not give the generator of its synthetic corpus; :func:`synthetic_positional_law`
is our reconstruction (documented there), so figures computed on it are comparable with the
paper's tables in kind, not digit for digit.

All functions re-exported by :mod:`pyverify.attention.positional`.
"""

from __future__ import annotations

import torch

__all__ = ["positional_distributions", "synthetic_positional_law", "synthetic_corpus"]


def positional_distributions(
    corpus,
    n: int | None = None,
    V: int | None = None,
    *,
    smoothing: float = 0.0,
    ignore_index: int | None = None,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """Empirical token distribution at each position: ``corpus (..., N, L) -> mu (..., n, V)``.

    ``mu[i, v] = (count_i(v) + smoothing) / (count_i + smoothing * V)`` where ``count_i(v)`` is the
    number of sequences whose token at position ``i`` is ``v`` and ``count_i`` the number of
    counted tokens at position ``i``.  With ``smoothing=0`` (default, Algorithm 1 exactly) and no
    ignored tokens, ``count_i = N = |D|``.

    Args:
        corpus: integer tensor (or nested list) of token ids, shape ``(..., N, L)`` — ``N``
            sequences of length ``L``; leading dimensions are independent corpora.
        n: number of positions to use (the first ``n``; default ``L``).
        V: vocabulary size; ids must lie in ``[0, V)`` (default ``max id + 1``).
        smoothing: additive (Laplace) pseudo-count per (position, token); ``0`` means none.
        ignore_index: token id not counted (padding / special tokens, as the paper excludes
            [CLS], [SEP], [PAD] in Section 6.1); positions are normalised by their own count.
        dtype: floating dtype of the result (default float64).

    Raises:
        ValueError: bad shape, ids out of range, negative smoothing, or a position with no
            counted token while ``smoothing == 0`` (its distribution would be undefined).
    """
    tokens = torch.as_tensor(corpus)
    if tokens.dtype.is_floating_point or tokens.dtype.is_complex or tokens.dtype == torch.bool:
        raise ValueError(f"corpus must hold integer token ids, got dtype {tokens.dtype}")
    if tokens.dim() < 2:
        raise ValueError(f"corpus must have shape (..., N, L), got {tuple(tokens.shape)}")
    if tokens.shape[-2] == 0:
        raise ValueError("corpus has no sequences (N = 0)")
    L = tokens.shape[-1]
    n = L if n is None else int(n)
    if not 1 <= n <= L:
        raise ValueError(f"n must satisfy 1 <= n <= L = {L}, got {n}")
    if smoothing < 0:
        raise ValueError(f"smoothing must be >= 0, got {smoothing}")
    dtype = torch.float64 if dtype is None else dtype
    tokens = tokens[..., :n].long()
    valid = torch.ones_like(tokens, dtype=torch.bool) if ignore_index is None else tokens != ignore_index
    counted = tokens[valid]
    if V is None:
        V = int(counted.max()) + 1 if counted.numel() else 1
    V = int(V)
    if V < 1:
        raise ValueError(f"V must be >= 1, got {V}")
    if counted.numel() and (int(counted.min()) < 0 or int(counted.max()) >= V):
        raise ValueError(f"token ids must lie in [0, V={V}), found range [{int(counted.min())}, {int(counted.max())}]")

    # counts[..., i, v]: scatter the (valid) tokens of column i into bin v.
    index = torch.where(valid, tokens, torch.zeros_like(tokens)).transpose(-1, -2)  # (..., n, N)
    weight = valid.to(dtype).transpose(-1, -2)
    counts = torch.zeros(*index.shape[:-1], V, dtype=dtype, device=tokens.device).scatter_add(-1, index, weight)
    totals = counts.sum(-1, keepdim=True)
    if smoothing == 0 and bool((totals == 0).any()):
        empty = (totals[..., 0] == 0).nonzero()[0].tolist()
        raise ValueError(f"a position has no counted token (index {empty}); pass smoothing > 0 or a smaller n")
    return (counts + smoothing) / (totals + smoothing * V)


def _regime_prototypes(V: int, regimes: int, zipf_exponent: float, generator: torch.Generator) -> torch.Tensor:
    """One Zipf law per regime over its own random ranking of the vocabulary -> (regimes, V)."""
    ranks = torch.arange(1, V + 1, dtype=torch.float64, device="cpu")
    zipf = ranks.pow(-zipf_exponent)
    zipf = zipf / zipf.sum()
    prototypes = torch.empty(regimes, V, dtype=torch.float64, device="cpu")
    for r in range(regimes):
        perm = torch.randperm(V, generator=generator, device="cpu")
        prototypes[r, perm] = zipf
    return prototypes


def _law(n, V, regimes, zipf_exponent, drift, generator):
    if n < 1 or V < 1:
        raise ValueError(f"n and V must be >= 1, got n={n}, V={V}")
    if not 1 <= regimes <= n:
        raise ValueError(f"regimes must satisfy 1 <= regimes <= n, got {regimes}")
    if not 0.0 <= drift <= 1.0:
        raise ValueError(f"drift must lie in [0, 1], got {drift}")
    prototypes = _regime_prototypes(V, regimes, zipf_exponent, generator)
    position = torch.arange(n, device="cpu")
    regime = position * regimes // n                      # contiguous blocks of (almost) equal length
    mu = torch.empty(n, V, dtype=torch.float64, device="cpu")
    for r in range(regimes):
        members = (regime == r).nonzero().flatten()
        length = members.numel()
        t = (torch.zeros(length, dtype=torch.float64, device="cpu") if length == 1
             else torch.linspace(0, 1, length, dtype=torch.float64, device="cpu"))
        previous = prototypes[max(r - 1, 0)]
        following = prototypes[min(r + 1, regimes - 1)]
        # Within a regime the law drifts from its predecessor's flavour to its successor's:
        # smooth variation inside a block, a jump at each block boundary.
        neighbour = (1 - t)[:, None] * previous + t[:, None] * following
        mu[members] = (1 - drift) * prototypes[r] + drift * neighbour
    return mu, regime


def synthetic_positional_law(
    n: int = 32,
    V: int = 200,
    regimes: int = 3,
    *,
    seed: int = 0,
    zipf_exponent: float = 1.0,
    drift: float = 0.2,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """True positional laws of the synthetic corpus: ``-> (mu (n, V), regime (n,))``.

    Reconstruction of the paper's Section 6.1 corpus (its generator is not published):

    * positions are cut into ``regimes`` contiguous blocks of (almost) equal length
      (``regime[i] = floor(i * regimes / n)``: initial, medial, terminal for 3);
    * regime ``r`` has a prototype ``pi_r``: a Zipf law (exponent ``zipf_exponent``) over its own
      random ranking of the vocabulary, so prototypes are far apart in Hellinger distance;
    * position ``i`` with relative place ``t in [0, 1]`` inside its block has
      ``mu_i = (1 - drift) pi_r + drift ((1 - t) pi_{r-1} + t pi_{r+1})`` (indices clamped at the
      ends), i.e. smooth drift inside a regime and jumps between regimes.  The default
      ``drift = 0.2`` keeps the regimes distinct: every within-regime distance is below every
      between-regime one (with 0.3 the two sides of a boundary get as close as the ends of a block).

    ``seed`` fixes the prototypes; :func:`synthetic_corpus` with the same arguments samples from
    exactly this law.
    """
    generator = torch.Generator(device="cpu").manual_seed(int(seed))  # the law is drawn on the CPU
    mu, regime = _law(int(n), int(V), int(regimes), float(zipf_exponent), float(drift), generator)
    dtype = torch.float64 if dtype is None else dtype
    return mu.to(dtype=dtype, device=device), regime.to(device=device)


def synthetic_corpus(
    n: int = 32,
    V: int = 200,
    N: int = 5000,
    regimes: int = 3,
    seed: int = 0,
    *,
    zipf_exponent: float = 1.0,
    drift: float = 0.2,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Sample ``N`` sequences of length ``n`` from :func:`synthetic_positional_law`: ``-> (N, n)`` int64.

    Tokens at different positions are drawn independently (only the positional marginals
    ``mu_i`` enter the paper's construction).  Deterministic given ``seed``; sampling runs on the
    CPU generator and the result is moved to ``device``.
    """
    if int(N) < 1:
        raise ValueError(f"N must be >= 1, got {N}")
    generator = torch.Generator(device="cpu").manual_seed(int(seed))  # the law is drawn on the CPU
    mu, _ = _law(int(n), int(V), int(regimes), float(zipf_exponent), float(drift), generator)
    tokens = torch.multinomial(mu, int(N), replacement=True, generator=generator)  # (n, N)
    return tokens.transpose(0, 1).contiguous().to(device=device)
