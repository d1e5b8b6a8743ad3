"""The vocabulary of the check language: one record per function name, for every backend.

A record carries the function's torch implementation (required: it works on ONE instance, the engine
batches with ``torch.func.vmap``, and it is differentiable), its documentation, the registry conventions
that fill its keywords, and — where one exists — its SymPy meaning, its ball-arithmetic meaning and its
60-digit meaning. The provers register those with ``sympy_meaning`` / ``ball_meaning`` /
``precise_meaning`` (``provers/symbolic.py``, ``provers/interval.py``, ``provers/precise_meanings.py``);
registering a meaning for a name the vocabulary does not have is an error at import time, so the
backends cannot drift apart.

The mechanism entries call ``pyverify.attention`` directly, so a claim is checked against the
implementation users run, not a second copy of the mathematics.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from collections.abc import Iterable
from typing import Any, Callable

import torch

from ..attention import positional, quaternion, random_features, rotations


@dataclass
class Function:
    """One name of the check language with its meaning in each backend."""

    torch: Callable[..., Any]
    doc: str
    needs_ctx: bool = False  # constructors get dtype/device
    # registry convention key -> (keyword of the torch implementation, {registry value: keyword value});
    # the claim's conventions (Registry.conventions) fill these keywords unless the check passes them
    conventions: tuple = ()
    name: str = ""
    sympy: Callable[..., Any] | None = None  # on SymPy matrices/expressions (provers/symbolic.py)
    ball: Callable[..., Any] | None = None  # on python-flint balls (provers/interval.py)
    precise: Callable[..., Any] | None = None  # on 60-digit mpmath values (provers/precise_meanings.py)
    # the relative condition number of the result (0-d tensor >= 1) from the same arguments: rounding in
    # the inputs is amplified this much, so the default tolerance of a check that calls it scales with it
    condition: Callable[..., Any] | None = None

    def __reduce__(self) -> tuple:
        # implementations are often lambdas: a record is pickled as its name, looked up on arrival (a worker
        # process loads the same vocabulary and plugins)
        return (lookup, (self.name,))

    def backends(self) -> list[str]:
        return ["torch"] + [b for b in ("sympy", "ball", "precise") if getattr(self, b) is not None]

    def convention_kwargs(self, conventions: dict[str, str]) -> dict[str, Any]:
        out = {}
        for key, kwarg, table in self.conventions:
            if key in conventions:
                out[kwarg] = table[conventions[key]]
        return out


_ROTOR = ("rotor", "rotor", {"exp(u)": "exp_u", "exp(u/2)": "exp_half_u"})
_BRACKET = ("bracket", "convention", {"AB-BA": "commutator", "(AB-BA)/2": "half_commutator"})
_SIGN = ("feature_sign", "sign", {"plus": "plus", "minus": "minus"})


_PAIRING = ("pairing", "pairing", {"adjacent": "adjacent", "half": "half"})
_DISPLACEMENT = ("displacement", "convention", {"rj-ri": "rj-ri", "ri-rj": "ri-rj"})
_NORM = ("norm", "convention", {v: v for v in ("operator-2", "frobenius", "euclidean", "l1", "linf")})
_LOGIT_SCALE = ("logit_scale", "scaling", {"1/sqrt(2m)": "active", "1/sqrt(d)": "full"})


def _mat_or_vec_norm(x: torch.Tensor, convention: str = "operator-2") -> torch.Tensor:
    """T0.9's overloaded |.| under the document's `norm` convention: |a| of a scalar; of a vector the
    Euclidean norm (l1 / max-abs under `l1` / `linf`); of a matrix the operator 2-norm, the Frobenius
    norm, or the norm induced by l1 / linf. `euclidean` names a norm of vectors only: a matrix under it
    is an error (the document did not say which matrix norm; pin one in the claim's conventions)."""
    if x.dim() == 0:
        return x.abs()
    vector_ord = {"l1": 1, "linf": float("inf")}.get(convention, 2)
    if x.dim() == 1:
        return torch.linalg.vector_norm(x, ord=vector_ord)
    if convention == "euclidean":
        raise ValueError("norm of a matrix under the convention norm: euclidean (a norm of vectors); "
                         "pin norm: operator-2 or frobenius, or write opnorm(...) / fro(...)")
    matrix_ord = {"operator-2": 2, "frobenius": "fro", "l1": 1, "linf": float("inf")}[convention]
    return torch.linalg.matrix_norm(x, ord=matrix_ord)


def _displacement(ri: torch.Tensor, rj: torch.Tensor, convention: str = "rj-ri") -> torch.Tensor:
    """The relative position of j seen from i, as the document writes it (rj - ri or ri - rj)."""
    if convention not in ("rj-ri", "ri-rj"):
        raise ValueError(f"displacement: convention must be 'rj-ri' or 'ri-rj', got {convention!r}")
    return rj - ri if convention == "rj-ri" else ri - rj


def _opnorm(x: torch.Tensor) -> torch.Tensor:
    # svdvals has a well-defined gradient where the top singular value is simple; matrix_norm(ord=2) is the same
    return torch.linalg.svdvals(x)[..., 0]


def _kappa(a: torch.Tensor, *_: Any) -> torch.Tensor:
    """The 2-norm condition number sigma_max / sigma_min of a square matrix (inf when singular)."""
    s = torch.linalg.svdvals(a)
    return s[..., 0] / s[..., -1]


def _kappa_of_identity_plus(s: torch.Tensor) -> torch.Tensor:
    return _kappa(torch.eye(s.shape[-1], dtype=s.dtype, device=s.device) + s)


def _eye(ctx: dict, n: Any) -> torch.Tensor:
    return torch.eye(int(n), **ctx)


def _zeros(ctx: dict, *shape: Any) -> torch.Tensor:
    return torch.zeros(*[int(s) for s in shape], **ctx)


def _ones(ctx: dict, *shape: Any) -> torch.Tensor:
    return torch.ones(*[int(s) for s in shape], **ctx)


def _t(x: Any) -> torch.Tensor:
    return x if isinstance(x, torch.Tensor) else torch.as_tensor(x, dtype=torch.float64)


def _comm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b - b @ a


def _sym_part(m: torch.Tensor) -> torch.Tensor:
    return (m + m.transpose(-1, -2)) / 2


def _max_comm(L: torch.Tensor) -> torch.Tensor:
    """max_{k,l} ||[L_k, L_l]||_2 over a family L (d_c, d, d)."""
    c = L.unsqueeze(0) @ L.unsqueeze(1) - L.unsqueeze(1) @ L.unsqueeze(0)
    return torch.linalg.matrix_norm(c, ord=2).amax()


@functools.lru_cache(maxsize=16)
def _synthetic_mu_cached(n: int, V: int, N: int, regimes: int, seed: int) -> torch.Tensor:
    corpus = positional.synthetic_corpus(n=n, V=V, N=N, regimes=regimes, seed=seed)
    return positional.positional_distributions(corpus, n, V)


def _synthetic_mu(n, V, N, regimes, seed) -> torch.Tensor:
    """Empirical positional distributions (n, V) of the reconstructed synthetic corpus of PE Sec. 6.1.

    Deterministic in its integer arguments; cached because a check evaluates its `where` once per
    instance and sampling N sequences each time would dominate the run. A copy is returned so that no
    caller can alter the cached tensor.
    """
    return _synthetic_mu_cached(int(n), int(V), int(N), int(regimes), int(seed)).clone()


def _rotation_angle(q: torch.Tensor) -> torch.Tensor:
    """Rotation angle of a unit quaternion's rotation, in [0, pi], by atan2 (sign-invariant)."""
    w = q[..., 0].abs()
    v = torch.linalg.vector_norm(q[..., 1:], dim=-1)
    return 2 * torch.atan2(v, w)


VOCABULARY: dict[str, Function] = {
    # constructors
    "I": Function(_eye, "identity matrix I(n)", needs_ctx=True),
    "zeros": Function(_zeros, "zeros(m, n)", needs_ctx=True),
    "ones": Function(_ones, "ones(m, n)", needs_ctx=True),
    # elementwise
    "abs": Function(lambda x: _t(x).abs(), "absolute value"),
    "exp": Function(lambda x: torch.exp(_t(x)), "elementwise exponential"),
    "log": Function(lambda x: torch.log(_t(x)), "elementwise natural log"),
    "sqrt": Function(lambda x: torch.sqrt(_t(x)), "elementwise square root"),
    "sin": Function(lambda x: torch.sin(_t(x)), "sine"),
    "cos": Function(lambda x: torch.cos(_t(x)), "cosine"),
    "tanh": Function(lambda x: torch.tanh(_t(x)), "tanh"),
    "atan2": Function(lambda y, x: torch.atan2(_t(y), _t(x)), "atan2(y, x)"),
    "acos": Function(lambda x: torch.acos(_t(x)), "arccos (inaccurate near +-1; prefer atan2)"),
    "sinc": Function(lambda x: torch.sinc(_t(x) / torch.pi), "sin(x)/x, 1 at 0"),
    "maximum": Function(lambda a, b: torch.maximum(_t(a), _t(b)), "elementwise max"),
    "minimum": Function(lambda a, b: torch.minimum(_t(a), _t(b)), "elementwise min"),
    # reductions over the elements of one tensor
    "total": Function(lambda x: _t(x).sum(), "sum of all elements"),
    "mean": Function(lambda x: _t(x).mean(), "mean of all elements"),
    "amax": Function(lambda x: _t(x).amax(), "largest element"),
    "amin": Function(lambda x: _t(x).amin(), "smallest element"),
    # norms
    "norm": Function(_mat_or_vec_norm, "T0.9 overloaded norm |a|, |x|, |M| as the `norm` convention says",
                     conventions=(_NORM,)),
    "vnorm": Function(lambda x: torch.linalg.vector_norm(x), "Euclidean norm of all elements"),
    "opnorm": Function(_opnorm, "operator 2-norm (largest singular value)"),
    "fro": Function(lambda x: torch.linalg.matrix_norm(x, ord="fro"), "Frobenius norm"),
    "l1": Function(lambda x: x.abs().sum(), "l1 norm"),
    "linf": Function(lambda x: x.abs().amax(), "max-abs norm"),
    # linear algebra
    "expm": Function(torch.linalg.matrix_exp, "matrix exponential"),
    "inv": Function(torch.linalg.inv, "matrix inverse", condition=_kappa),
    "solve": Function(torch.linalg.solve, "solve(A, B) = A^{-1} B", condition=_kappa),
    "det": Function(torch.linalg.det, "determinant", condition=_kappa),
    "tr": Function(lambda m: torch.diagonal(m, dim1=-2, dim2=-1).sum(-1), "trace"),
    "comm": Function(_comm, "commutator [A, B] = AB - BA"),
    "skew_part": Function(rotations.skew, "(M - M^T)/2"),
    "sym_part": Function(_sym_part, "(M + M^T)/2"),
    "dot": Function(lambda x, y: (x * y).sum(-1), "inner product over the last axis"),
    "outer": Function(lambda x, y: x.unsqueeze(-1) * y.unsqueeze(-2), "outer product"),
    "svdvals": Function(torch.linalg.svdvals, "singular values, descending"),
    "sigma_min": Function(lambda m: torch.linalg.svdvals(m)[..., -1], "smallest singular value"),
    "eigvalsh": Function(torch.linalg.eigvalsh, "eigenvalues of a symmetric matrix, ascending"),
    "diag": Function(torch.diag, "diagonal matrix from a vector / diagonal of a matrix"),
    # structured positional rotations (attention/rotations.py)
    "generators": Function(lambda U, freqs: rotations.commuting_generators(U, freqs, check_orthogonal=False), "L_k = U (+_u lambda_ku J + 0) U^T"),
    "generator_sum": Function(rotations.generator_combination, "A(r) = sum_k r_k L_k"),
    "R_str": Function(rotations.rstr, "R_STR(r) = exp(A(r))"),
    "cayley": Function(rotations.cayley, "Cayley transform (I - S)(I + S)^{-1}", condition=_kappa_of_identity_plus),
    "rope": Function(rotations.rope, "RoPE rope(x, pos): planes of adjacent pairs or halves (`pairing`)",
                     conventions=(_PAIRING,)),
    "displacement": Function(_displacement, "relative position displacement(ri, rj): rj - ri or ri - rj",
                             conventions=(_DISPLACEMENT,)),
    "rstr_closed_form": Function(rotations.rstr_closed_form, "U (+ R_2(theta_u(r)) + I) U^T (T2.7)"),
    "rstr_apply": Function(rotations.rstr_apply, "fast path: R_STR(r) x in U's basis"),
    "Pi_act": Function(rotations.Pi_act, "projector onto the active subspace, Pi_act(U, m)"),
    "Pi_null": Function(rotations.Pi_null, "projector onto the null block, Pi_null(U, m)"),
    "rsp": Function(rotations.rsp, "R_sp(r) = R_STR(r) P"),
    "distance_to_structured": Function(rotations.distance_to_structured, "distance of P to the structured family"),
    "project_to_structured": Function(rotations.project_to_structured, "nearest structured post-rotation"),
    "mixing": Function(rotations.mixing, "eta_mix: size of the off-diagonal blocks of U^T P U"),
    "espr_logits": Function(rotations.espr_logits, "Tier 4 logits, scale 1/sqrt(2m) or 1/sqrt(d) (`logit_scale`)",
                            conventions=(_LOGIT_SCALE,)),
    "commutator_norms": Function(rotations.commutator_norms, "matrix of ||[L_a, L_b]||"),
    "max_comm": Function(_max_comm, "max_{k,l} ||[L_k, L_l]||"),
    # positive random features (attention/random_features.py)
    "phi": Function(random_features.positive_features, "positive random features exp(Wx - |x|^2/2)/sqrt(m)",
                    conventions=(_SIGN,)),
    "rf_variance": Function(random_features.positive_rf_variance, "analytic variance of the positive estimator",
                            conventions=(_SIGN,)),
    "softmax_kernel": Function(random_features.softmax_kernel, "SM(x, y) = exp(x.y): the exact kernel the random features estimate"),
    # quaternions (attention/quaternion.py)
    "qmul": Function(quaternion.qmul, "Hamilton product, scalar first"),
    "qexp": Function(quaternion.qexp, "exponential of a pure quaternion u (3,)", conventions=(_ROTOR,)),
    "qlog": Function(quaternion.qlog, "principal logarithm -> (3,)", conventions=(_ROTOR,)),
    "qconj": Function(quaternion.qconj, "quaternion conjugate"),
    "qinv": Function(quaternion.qinv, "quaternion inverse"),
    "bracket": Function(quaternion.bracket, "Lie bracket of pure quaternions", conventions=(_BRACKET,)),
    "bch2": Function(quaternion.bch_second_order, "u + v + [u,v]/2 (BCH to second order)", conventions=(_BRACKET,)),
    "rotation_matrix": Function(quaternion.rotation_matrix, "SO(3) matrix of a unit quaternion"),
    "sphere_log": Function(quaternion.sphere_log, "Riemannian log map on S^3"),
    "gsm_logits": Function(quaternion.gsm_logits, "-d_geo^2 / (2 tau)"),
    "gsm_weights": Function(quaternion.gsm_weights, "softmax of the GSM logits"),
    "gsm_attention": Function(quaternion.gsm_attention, "GSM attention"),
    "euclidean_logits": Function(quaternion.euclidean_logits, "Q K^T / tau"),
    "euclidean_attention": Function(quaternion.euclidean_attention, "softmax(Q K^T / tau) V"),
    "d_geo": Function(quaternion.geodesic_distance, "2 arccos |<q,k>|, stable"),
    "rotation_angle": Function(_rotation_angle, "angle of the rotation of a unit quaternion"),
    # positional encodings (attention/positional.py)
    # validate=False: the value checks of the user-facing function are data-dependent branches, which vmap
    # cannot batch; the samplers guarantee distributions
    "hellinger": Function(lambda mu, normalized=False, validate=False: positional.hellinger(mu, normalized=normalized, validate=False),
                          "Hellinger distance matrix of row distributions"),
    "mds": Function(positional.classical_mds, "Algorithm 1: classical MDS"),
    "stress": Function(positional.stress, "stress, equation (4)"),
    "sinusoidal": Function(positional.sinusoidal, "sinusoidal encoding (n, d)"),
    "pairwise_distances": Function(positional.pairwise_distances, "Euclidean distances between rows"),
    "gram": Function(positional.double_centred_gram, "B = -1/2 H (D o D) H, eq. (5)"),
    "fisher_rao": Function(lambda mu, validate=False: positional.fisher_rao(mu, validate=False), "Fisher-Rao geodesic distance matrix"),
    "low_rank_factor": Function(lambda P, r: positional.low_rank_factor(P, int(r))[0], "A of P ~ A B^T"),
    "synthetic_mu": Function(_synthetic_mu, "positional distributions (n, V) of the reconstructed synthetic corpus (n, V, N, regimes, seed)"),
    # --- extras: espr-derivation ---
    "relative_defect": Function(rotations.relative_defect, "T8'.7 integrand |Pi R_sp(r)^T R_sp(r + delta) Pi - Pi R_STR(delta) Pi| (P=, Pi=, convention=)"),
    "joint_block_U": Function(lambda L: rotations.joint_block_decomposition(L)[0], "T2.3 computed from L alone: orthogonal U of the joint block form"),
    "joint_block_lam": Function(lambda L: rotations.joint_block_decomposition(L)[1], "T2.3 computed from L alone: lambda (d_c, m) of the joint block form"),
    "joint_eigvecs": Function(rotations.joint_eigenbasis, "T2.1 computed from L alone: unitary U_c of common eigenvectors (complex)"),
    "ct": Function(lambda m: m.mH, "conjugate transpose M^*"),
    "re": Function(lambda x: torch.real(x) if x.is_complex() else x, "real part"),
    "im": Function(lambda x: torch.imag(x) if x.is_complex() else torch.zeros_like(x), "imaginary part"),
    "diagonal": Function(lambda m: torch.diagonal(m, dim1=-2, dim2=-1), "the diagonal of a matrix, as a vector"),
    "offdiag": Function(lambda m: m - torch.diag_embed(torch.diagonal(m, dim1=-2, dim2=-1)), "M with its diagonal set to 0"),
    # --- extras: espr-paper ---
    # --- extras: rgat ---
    "topk_candidates": Function(lambda s, k: quaternion.topk_candidates(s, int(k)), "candidate sets S_i: the k largest scores of each row (bool mask)"),
    "truncation_terms": Function(lambda P, v, S: quaternion.truncation_terms(P, v, S)._asdict(), "Lemma S7 terms: full, truncated, retained, dropped, mean_in, mean_out"),
    "truncated_attention": Function(quaternion.truncated_attention, "sparse output y~_i = sum_{j in S_i} P_ij v_j / p_i"),
    "truncation_bound": Function(quaternion.truncation_bound, "Corollary S8 right-hand side 2 V_max delta_i"),
    "rotor_projection": Function(quaternion.rotor_projection, "P_rot: scalar + bivector part (1, e12, e13, e23) of a multivector (8,) in the layout (1, e1, e2, e3, e12, e13, e23, e123), normalised -> (4,)"),
    # --- extras: pe-theory ---
    "violation_rate": Function(
        lambda P, include_self=0: positional.monotonicity_violation_rate(P, include_self=bool(include_self)),
        "PE Definition 9 / Sec. 6.6: share of the triples (i, j, k) with |i - j| < |i - k| where ||p_i - p_j|| > ||p_i - p_k|| (ties are not violations; include_self=1 keeps j = i)"),
}

for _name, _record in VOCABULARY.items():
    _record.name = _name

# Special forms: the evaluator hands them their unevaluated argument (a hook of dsl.evaluate).
SPECIAL_FORMS = {"E": "expectation over the random hypotheses (Monte Carlo)"}


def names() -> set[str]:
    return set(VOCABULARY) | set(SPECIAL_FORMS)


def resolve(called: Iterable[str]) -> dict[str, Function]:
    """The records of the functions a check calls: the one place a name of the language is bound to an
    implementation (a compiled check evaluates through this table in every backend). The special forms,
    which the backends evaluate themselves, have no record."""
    return {name: VOCABULARY[name] for name in called if name in VOCABULARY}


def lookup(name: str) -> Function:
    """The record of one function name (how a record travels to a worker process: by its name)."""
    return VOCABULARY[name]


def _meaning(backend: str, name: str) -> Callable:
    def register(fn: Callable) -> Callable:
        record = VOCABULARY.get(name)
        if record is None:
            raise KeyError(f"{backend} meaning for {name!r}, which is not in the vocabulary")
        if getattr(record, backend) is not None:
            raise KeyError(f"{name!r} already has a {backend} meaning")
        setattr(record, backend, fn)
        return fn
    return register


def sympy_meaning(name: str) -> Callable:
    """Decorator: the SymPy meaning of vocabulary function ``name``."""
    return _meaning("sympy", name)


def ball_meaning(name: str) -> Callable:
    """Decorator: the ball-arithmetic meaning of vocabulary function ``name``."""
    return _meaning("ball", name)


def precise_meaning(name: str) -> Callable:
    """Decorator: the 60-digit (mpmath) meaning of vocabulary function ``name``."""
    return _meaning("precise", name)
