"""The 60-digit meanings of the vocabulary (numpy object arrays of mpmath numbers; ``provers/precise.py``).

Each meaning follows its torch implementation's definition, conventions and choices (sort order of
eigenvalues and singular values, the sign of MDS coordinates), so the two evaluate the same function;
``tests/test_vocabulary_backends.py`` checks every one against torch on random inputs.
"""

from __future__ import annotations

import mpmath
import numpy as np

from ..checks.vocabulary import precise_meaning
from .precise import as_int, elementwise

mp = mpmath.mp


def _arr(rows) -> np.ndarray:
    """An object array from nested lists (or an mpmath matrix)."""
    if isinstance(rows, mpmath.matrix):
        rows = rows.tolist()
    out = np.empty((len(rows), len(rows[0])) if rows and isinstance(rows[0], list) else (len(rows),), dtype=object)
    out[...] = rows
    return out


def _vec(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _mat(a: np.ndarray) -> mpmath.matrix:
    if a.ndim != 2:
        raise ValueError(f"expected a matrix, got {a.ndim} dimensions")
    return mp.matrix(a.tolist())


def _full(shape, value) -> np.ndarray:
    out = np.empty(tuple(as_int(s) for s in shape), dtype=object)
    out[...] = mp.mpf(value)
    return out


def _eye(n) -> np.ndarray:
    n = as_int(n)
    out = _full((n, n), 0)
    for i in range(n):
        out[i, i] = mp.mpf(1)
    return out


def _flat(x) -> list:
    return list(x.reshape(-1)) if isinstance(x, np.ndarray) else [x]


def _fsum(x):
    return mp.fsum(_flat(x))


def _l2(x):
    return mp.sqrt(mp.fsum(abs(v) ** 2 for v in _flat(x)))


def _svdvals(a: np.ndarray) -> np.ndarray:
    s = mp.svd_r(_mat(a), compute_uv=False) if not any(isinstance(v, mpmath.mpc) for v in _flat(a)) \
        else mp.svd_c(_mat(a), compute_uv=False)
    return _vec(sorted((s[i] for i in range(s.rows)), reverse=True))


def _symmetric_from_lower(a: np.ndarray) -> mpmath.matrix:
    """torch.linalg.eigvalsh / eigh read the lower triangle only."""
    n = a.shape[0]
    return mp.matrix([[a[max(i, j), min(i, j)] for j in range(n)] for i in range(n)])


def _eigh(a: np.ndarray) -> tuple[list, mpmath.matrix]:
    """Eigenvalues ascending and eigenvectors (columns), as torch.linalg.eigh."""
    w, q = mp.eigsy(_symmetric_from_lower(a))
    order = sorted(range(len(w)), key=lambda i: w[i])
    return [w[i] for i in order], mp.matrix([[q[r, i] for i in order] for r in range(q.rows)])


def _norm(x, convention: str = "operator-2"):
    if not isinstance(x, np.ndarray):
        return abs(x)
    if x.ndim == 1:
        return {"l1": lambda: mp.fsum(abs(v) for v in x), "linf": lambda: max(abs(v) for v in x)}.get(
            convention, lambda: _l2(x))()
    if convention == "euclidean":
        raise ValueError("norm of a matrix under the convention norm: euclidean")
    if convention == "operator-2":
        return _svdvals(x)[0]
    if convention == "frobenius":
        return _l2(x)
    if convention == "l1":
        return max(mp.fsum(abs(v) for v in x[:, j]) for j in range(x.shape[1]))
    return max(mp.fsum(abs(v) for v in x[i, :]) for i in range(x.shape[0]))


def _solve(a, b):
    am = _mat(a)
    if b.ndim == 1:
        return _vec(mp.lu_solve(am, mp.matrix(list(b))))
    cols = [mp.lu_solve(am, mp.matrix(list(b[:, j]))) for j in range(b.shape[1])]
    return _arr([[cols[j][i] for j in range(b.shape[1])] for i in range(b.shape[0])])


def _diag(x):
    if x.ndim == 1:
        out = _full((len(x), len(x)), 0)
        for i, v in enumerate(x):
            out[i, i] = v
        return out
    return _vec([x[i, i] for i in range(min(x.shape))])


def _generators(U, freqs):
    d, m = U.shape[-1], freqs.shape[-1]
    out = []
    for k in range(freqs.shape[0]):
        block = _full((d, d), 0)
        for u in range(m):
            block[2 * u, 2 * u + 1], block[2 * u + 1, 2 * u] = -freqs[k, u], freqs[k, u]
        out.append(U @ block @ U.T)
    return np.stack(out)


def _rstr_closed_form(U, freqs, r):
    d, m = U.shape[-1], freqs.shape[-1]
    theta = r @ freqs
    block = _eye(d)
    for u in range(m):
        c, s_ = mp.cos(theta[u]), mp.sin(theta[u])
        block[2 * u, 2 * u], block[2 * u, 2 * u + 1] = c, -s_
        block[2 * u + 1, 2 * u], block[2 * u + 1, 2 * u + 1] = s_, c
    return U @ block @ U.T


def _commutator_norms(L):
    L = np.stack(L) if isinstance(L, list) else L
    k = L.shape[0]
    return _arr([[_svdvals(L[a] @ L[b] - L[b] @ L[a])[0] for b in range(k)] for a in range(k)])


def _offdiag(a):
    out = a.copy()
    for i in range(min(a.shape)):
        out[i, i] = mp.mpf(0)
    return out


def _generator_sum(L, r):
    L = np.stack(L) if isinstance(L, list) else L
    return sum((r[k] * L[k] for k in range(L.shape[0])), _full(L.shape[1:], 0))


def _expm(a):
    return _arr(mp.expm(_mat(a)))


def _projector(U, cols):
    Uc = U[:, cols]
    return Uc @ Uc.T


def _displacement(ri, rj, convention: str = "rj-ri"):
    return rj - ri if convention == "rj-ri" else ri - rj


def _pairwise_distances(P):
    diff = P[:, None, :] - P[None, :, :]
    return elementwise(mp.sqrt)((diff * diff).sum(-1))


def _hellinger(mu, normalized=False, validate=False):
    D = _pairwise_distances(elementwise(mp.sqrt)(mu))
    return D / mp.sqrt(2) if normalized else D


def _gram(D, squared=False):
    D2 = D if squared else D * D
    n = D.shape[0]
    rows = D2.sum(1) / n
    cols = D2.sum(0) / n
    grand = _fsum(D2) / (n * n)
    B = -(D2 - rows[:, None] - cols[None, :] + grand) / 2
    return (B + B.T) / 2  # exact symmetry, as double_centred_gram


def _mds(D, d, rank=None, squared=False):
    n, d = D.shape[0], as_int(d)
    r = min(d, n) if rank is None else min(as_int(rank), d, n)
    w, q = _eigh(_gram(D, squared))
    top = list(range(n - 1, n - 1 - r, -1))  # descending, as classical_mds
    P = _full((n, d), 0)
    for c, i in enumerate(top):
        col = [q[row, i] for row in range(n)]
        pivot = max(range(n), key=lambda row: abs(col[row]))
        sign = -1 if col[pivot] < 0 else 1
        scale = mp.sqrt(max(w[i], mp.mpf(0)))
        for row in range(n):
            P[row, c] = sign * col[row] * scale
    return P


def _stress(P, D, normalized=True):
    E = _pairwise_distances(P)
    n = D.shape[0]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    num = mp.fsum((E[i, j] - D[i, j]) ** 2 for i, j in pairs)
    if not normalized:
        return num
    den = mp.fsum(D[i, j] ** 2 for i, j in pairs)
    if den == 0:
        raise ValueError("stress is undefined: D has no positive off-diagonal distance")
    return num / den


def _low_rank_factor(P, r):
    r = as_int(r)
    U, S, _ = mp.svd_r(_mat(P), full_matrices=False)
    order = sorted(range(len(S)), key=lambda i: S[i], reverse=True)[:r]
    cols = []
    for c in order:  # the sign convention of positional.low_rank_factor
        col = [U[i, c] for i in range(P.shape[0])]
        sign = -1 if col[max(range(len(col)), key=lambda i: abs(col[i]))] < 0 else 1
        cols.append([sign * v * S[c] for v in col])
    return _arr([[cols[c][i] for c in range(len(cols))] for i in range(P.shape[0])])


def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return _vec([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                 w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _qconj(q):
    return _vec([q[0], -q[1], -q[2], -q[3]])


def _qexp(u, rotor="exp_u"):
    if rotor == "exp_half_u":
        u = u / 2
    theta = _l2(u)
    s = mp.sin(theta) / theta if theta != 0 else mp.mpf(1)
    return _vec([mp.cos(theta)] + [s * v for v in u])


def _qlog(q, rotor="exp_u"):
    w, v = q[0], q[1:]
    s = _l2(v)
    factor = mp.atan2(s, w) / s if s > 0 else (1 / w if w > 0 else mp.mpf(0))
    u = v * factor
    return 2 * u if rotor == "exp_half_u" else u


def _d_geo(q, k):
    s = 1 if mp.fsum(q * k) >= 0 else -1
    return 4 * mp.atan2(_l2(q - s * k), _l2(q + s * k))


_MEANINGS = {
    "I": _eye,
    "zeros": lambda *shape: _full(shape, 0),
    "ones": lambda *shape: _full(shape, 1),
    "abs": elementwise(abs),
    "exp": elementwise(mp.exp),
    "log": elementwise(mp.log),
    "sqrt": elementwise(mp.sqrt),
    "sin": elementwise(mp.sin),
    "cos": elementwise(mp.cos),
    "tanh": elementwise(mp.tanh),
    "acos": elementwise(mp.acos),
    "sinc": elementwise(lambda t: mp.sin(t) / t if t != 0 else mp.mpf(1)),
    "atan2": lambda y, x: np.frompyfunc(mp.atan2, 2, 1)(y, x),
    "maximum": lambda a, b: np.frompyfunc(max, 2, 1)(a, b),
    "minimum": lambda a, b: np.frompyfunc(min, 2, 1)(a, b),
    "total": _fsum,
    "mean": lambda x: _fsum(x) / len(_flat(x)),
    "amax": lambda x: max(_flat(x)),
    "amin": lambda x: min(_flat(x)),
    "norm": _norm,
    "vnorm": _l2,
    "opnorm": lambda a: _svdvals(a)[0],
    "fro": _l2,
    "l1": lambda x: mp.fsum(abs(v) for v in _flat(x)),
    "linf": lambda x: max(abs(v) for v in _flat(x)),
    "expm": _expm,
    "inv": lambda a: _arr(mp.inverse(_mat(a))),
    "solve": _solve,
    "det": lambda a: mp.det(_mat(a)),
    "tr": lambda a: mp.fsum(a[i, i] for i in range(a.shape[0])),
    "comm": lambda a, b: a @ b - b @ a,
    "skew_part": lambda a: (a - a.T) / 2,
    "sym_part": lambda a: (a + a.T) / 2,
    "dot": lambda x, y: (x * y).sum(-1),
    "outer": lambda x, y: x[..., :, None] * y[..., None, :],
    "svdvals": _svdvals,
    "sigma_min": lambda a: _svdvals(a)[-1],
    "eigvalsh": lambda a: _vec(_eigh(a)[0]),
    "diag": _diag,
    "generators": _generators,
    "generator_sum": _generator_sum,
    "R_str": lambda L, r: _expm(_generator_sum(L, r)),
    "cayley": lambda S: _solve(_eye(S.shape[0]) + S, _eye(S.shape[0]) - S),
    "Pi_act": lambda U, m: _projector(U, slice(0, 2 * as_int(m))),
    "Pi_null": lambda U, m: _projector(U, slice(2 * as_int(m), None)),
    "displacement": _displacement,
    "rstr_closed_form": _rstr_closed_form,
    "rsp": lambda L, r, P, convention="right": (_expm(_generator_sum(L, r)) @ P if convention == "right"
                                                else P @ _expm(_generator_sum(L, r)) @ P.T),
    "commutator_norms": _commutator_norms,
    "max_comm": lambda L: max(_flat(_commutator_norms(L))),
    "offdiag": _offdiag,
    "diagonal": lambda a: _vec([a[i, i] for i in range(min(a.shape))]),
    "pairwise_distances": _pairwise_distances,
    "hellinger": _hellinger,
    "fisher_rao": lambda mu, validate=False: elementwise(lambda h: 4 * mp.asin(min(h / 2, mp.mpf(1))))(_hellinger(mu)),
    "gram": _gram,
    "mds": _mds,
    "stress": _stress,
    "low_rank_factor": _low_rank_factor,
    "qmul": _qmul,
    "qconj": _qconj,
    "qinv": lambda q: _qconj(q) / mp.fsum(v * v for v in q),
    "qexp": _qexp,
    "qlog": _qlog,
    "d_geo": _d_geo,
    "rotation_angle": lambda q: 2 * mp.atan2(_l2(q[1:]), abs(q[0])),
}
for _name, _fn in _MEANINGS.items():
    precise_meaning(_name)(_fn)
