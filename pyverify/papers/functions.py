"""The papers' functions in the check language: the reference mechanisms of ``pyverify.attention`` (and the
few quantities the papers define on top of them), each registered through ``pyverify.plugin.function``
with the registry conventions that fill its keywords and its exact meanings (``exact.py``).

Their failures reach the engine as raised (``failures="as-raised"``): an eigensolver that does not converge
on one instance skips that instance, as the built-ins' failures do.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import torch

from .. import plugin
from ..attention import positional, quaternion, random_features, rotations
from ..checks.vocabulary import kappa
from .exact import BALL, PRECISE, SYMPY

_ROTOR = ("rotor", "rotor", {"exp(u)": "exp_u", "exp(u/2)": "exp_half_u"})
_BRACKET = ("bracket", "convention", {"AB-BA": "commutator", "(AB-BA)/2": "half_commutator"})
_SIGN = ("feature_sign", "sign", {"plus": "plus", "minus": "minus"})
_PAIRING = ("pairing", "pairing", {"adjacent": "adjacent", "half": "half"})
_LOGIT_SCALE = ("logit_scale", "scaling", {"1/sqrt(2m)": "active", "1/sqrt(d)": "full"})


def _kappa_of_identity_plus(s: torch.Tensor) -> torch.Tensor:
    """The Cayley transform solves with I + S: its condition number."""
    return kappa(torch.eye(s.shape[-1], dtype=s.dtype, device=s.device) + s)


@functools.lru_cache(maxsize=16)
def _synthetic_mu_cached(n: int, V: int, N: int, regimes: int, seed: int) -> torch.Tensor:
    corpus = positional.synthetic_corpus(n=n, V=V, N=N, regimes=regimes, seed=seed)
    return positional.positional_distributions(corpus, n, V)


def _synthetic_mu(ctx, n, V, N, regimes, seed) -> torch.Tensor:
    """Empirical positional distributions (n, V) of the reconstructed synthetic corpus of PE Sec. 6.1.

    Deterministic in its integer arguments; cached because a check evaluates its `where` once per
    instance and sampling N sequences each time would dominate the run. A copy is returned so that no
    caller can alter the cached tensor.
    """
    return _synthetic_mu_cached(int(n), int(V), int(N), int(regimes), int(seed)).to(device=ctx["device"], copy=True)


# the functions that make their tensors from numbers alone: they take the numeric context first (context=True)
MAKERS = frozenset({"sinusoidal", "synthetic_mu", "rope_frequencies"})
# name -> (torch implementation, doc, conventions, condition)
FUNCTIONS: dict[str, tuple[Callable[..., Any], str, tuple, Callable | None]] = {
    "skew_part": (rotations.skew, "(M - M^T)/2", (), None),
    # structured positional rotations (attention/rotations)
    "generators": (lambda U, freqs: rotations.commuting_generators(U, freqs, check_orthogonal=False),
                   "L_k = U (+_u lambda_ku J + 0) U^T", (), None),
    "generator_sum": (rotations.generator_combination, "A(r) = sum_k r_k L_k", (), None),
    "R_str": (rotations.rstr, "R_STR(r) = exp(A(r))", (), None),
    "cayley": (rotations.cayley, "Cayley transform (I - S)(I + S)^{-1}", (), _kappa_of_identity_plus),
    "rope": (rotations.rope, "RoPE rope(x, pos): planes of adjacent pairs or halves (`pairing`)", (_PAIRING,), None),
    "rope_frequencies": (lambda ctx, d: rotations.rope_frequencies(int(d), **ctx),
                         "RoPE frequencies 10000^(-2i/d), i = 0 .. d/2 - 1 (d/2,)", (), None),
    "rope_scores": (rotations.rope_scores, "rotary self-attention logits rope(q, pos) rope(k, pos)^T / sqrt(d)",
                    (_PAIRING,), None),
    "rstr_closed_form": (rotations.rstr_closed_form, "U (+ R_2(theta_u(r)) + I) U^T (T2.7)", (), None),
    "rstr_apply": (rotations.rstr_apply, "fast path: R_STR(r) x in U's basis", (), None),
    "Pi_act": (rotations.Pi_act, "projector onto the active subspace, Pi_act(U, m)", (), None),
    "Pi_null": (rotations.Pi_null, "projector onto the null block, Pi_null(U, m)", (), None),
    "rsp": (rotations.rsp, "R_sp(r) = R_STR(r) P", (), None),
    "distance_to_structured": (rotations.distance_to_structured, "distance of P to the structured family", (), None),
    "project_to_structured": (rotations.project_to_structured, "nearest structured post-rotation", (), None),
    "mixing": (rotations.mixing, "eta_mix: size of the off-diagonal blocks of U^T P U", (), None),
    "espr_logits": (rotations.espr_logits, "Tier 4 logits, scale 1/sqrt(2m) or 1/sqrt(d) (`logit_scale`)",
                    (_LOGIT_SCALE,), None),
    "commutator_norms": (rotations.commutator_norms, "matrix of ||[L_a, L_b]||", (), None),
    "relative_defect": (rotations.relative_defect, "T8'.7 integrand |Pi R_sp(r)^T R_sp(r + delta) Pi - Pi R_STR(delta) "
                        "Pi| (P=, Pi=, convention=)", (), None),
    "joint_block_U": (lambda L: rotations.joint_block_decomposition(L)[0],
                      "T2.3 computed from L alone: orthogonal U of the joint block form", (), None),
    "joint_block_lam": (lambda L: rotations.joint_block_decomposition(L)[1],
                        "T2.3 computed from L alone: lambda (d_c, m) of the joint block form", (), None),
    "joint_eigvecs": (rotations.joint_eigenbasis, "T2.1 computed from L alone: unitary U_c of common eigenvectors "
                      "(complex)", (), None),
    # positive random features (attention/random_features)
    "phi": (random_features.positive_features, "positive random features exp(Wx - |x|^2/2)/sqrt(m)", (_SIGN,), None),
    "rf_variance": (random_features.positive_rf_variance, "analytic variance of the positive estimator", (_SIGN,), None),
    "softmax_kernel": (random_features.softmax_kernel, "SM(x, y) = exp(x.y): the exact kernel the random features "
                       "estimate", (), None),
    # quaternions (attention/quaternion)
    "qmul": (quaternion.qmul, "Hamilton product, scalar first", (), None),
    "qexp": (quaternion.qexp, "exponential of a pure quaternion u (3,)", (_ROTOR,), None),
    "qlog": (quaternion.qlog, "principal logarithm -> (3,)", (_ROTOR,), None),
    "qconj": (quaternion.qconj, "quaternion conjugate", (), None),
    "qinv": (quaternion.qinv, "quaternion inverse", (), None),
    "bracket": (quaternion.bracket, "Lie bracket of pure quaternions", (_BRACKET,), None),
    "bch2": (quaternion.bch_second_order, "u + v + [u,v]/2 (BCH to second order)", (_BRACKET,), None),
    "rotation_matrix": (quaternion.rotation_matrix, "SO(3) matrix of a unit quaternion", (), None),
    "sphere_log": (quaternion.sphere_log, "Riemannian log map on S^3", (), None),
    "gsm_logits": (quaternion.gsm_logits, "-d_geo^2 / (2 tau)", (), None),
    "gsm_weights": (quaternion.gsm_weights, "softmax of the GSM logits", (), None),
    "gsm_attention": (quaternion.gsm_attention, "GSM attention", (), None),
    "euclidean_logits": (quaternion.euclidean_logits, "Q K^T / tau", (), None),
    "euclidean_attention": (quaternion.euclidean_attention, "softmax(Q K^T / tau) V", (), None),
    "d_geo": (quaternion.geodesic_distance, "2 arccos |<q,k>|, stable", (), None),
    "topk_candidates": (lambda s, k: quaternion.topk_candidates(s, int(k)),
                        "candidate sets S_i: the k largest scores of each row (bool mask)", (), None),
    "truncation_terms": (lambda P, v, S: quaternion.truncation_terms(P, v, S)._asdict(),
                         "Lemma S7 terms: full, truncated, retained, dropped, mean_in, mean_out", (), None),
    "truncated_attention": (quaternion.truncated_attention, "sparse output y~_i = sum_{j in S_i} P_ij v_j / p_i", (), None),
    "truncation_bound": (quaternion.truncation_bound, "Corollary S8 right-hand side 2 V_max delta_i", (), None),
    "rotor_projection": (quaternion.rotor_projection, "P_rot: scalar + bivector part (1, e12, e13, e23) of a "
                         "multivector (8,) in the layout (1, e1, e2, e3, e12, e13, e23, e123), normalised -> (4,)", (), None),
    # positional encodings (attention/positional)
    # validate=False: the value checks of the user-facing function are data-dependent branches, which vmap
    # cannot batch; the samplers guarantee distributions
    "hellinger": (lambda mu, normalized=False, validate=False: positional.hellinger(mu, normalized=normalized, validate=False),
                  "Hellinger distance matrix of row distributions", (), None),
    "mds": (positional.classical_mds, "Algorithm 1: classical MDS", (), None),
    "stress": (positional.stress, "stress, equation (4)", (), None),
    "sinusoidal": (lambda ctx, n, d, **kw: positional.sinusoidal(n, d, **kw, **ctx), "sinusoidal encoding (n, d)", (), None),
    "pairwise_distances": (positional.pairwise_distances, "Euclidean distances between rows", (), None),
    "gram": (positional.double_centred_gram, "B = -1/2 H (D o D) H, eq. (5)", (), None),
    "fisher_rao": (lambda mu, validate=False: positional.fisher_rao(mu, validate=False),
                   "Fisher-Rao geodesic distance matrix", (), None),
    "low_rank_factor": (lambda P, r: positional.low_rank_factor(P, int(r))[0], "A of P ~ A B^T", (), None),
    "synthetic_mu": (_synthetic_mu, "positional distributions (n, V) of the reconstructed synthetic corpus "
                     "(n, V, N, regimes, seed)", (), None),
    "violation_rate": (lambda P, include_self=0: positional.monotonicity_violation_rate(P, include_self=bool(include_self)),
                       "PE Definition 9 / Sec. 6.6: share of the triples (i, j, k) with |i - j| < |i - k| where "
                       "||p_i - p_j|| > ||p_i - p_k|| (ties are not violations; include_self=1 keeps j = i)", (), None),
}


# the functions defined through another function of the language: a binding of that one (its role) runs
# inside them too, so every claim on attention exercises the user's logits
THROUGH = {"euclidean_attention": {"logits": "euclidean_logits"}, "gsm_weights": {"logits": "gsm_logits"},
           "gsm_attention": {"weights": "gsm_weights"}}


def register() -> None:
    for name, (impl, doc, conventions, condition) in FUNCTIONS.items():
        plugin.function(name, impl, doc=doc, conventions=conventions, condition=condition, failures="as-raised",
                        sympy=SYMPY.get(name), ball=BALL.get(name), precise=PRECISE.get(name), context=name in MAKERS,
                        through=THROUGH.get(name))
