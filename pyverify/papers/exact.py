"""The exact meanings of the papers' functions: SymPy (symbolic proofs), ball arithmetic (interval
certificates) and 60-digit arithmetic (the rounding judgement), each following its torch
implementation's definition, conventions and choices, registered with the function
(``functions.py``); ``tests/test_vocabulary_backends.py`` checks every one against torch.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..provers import ball
from ..provers import precise_values as pv
from ..provers.interval import expm as ball_expm
from ..provers.symbolic import expm as sympy_expm

# ------------------------------------------------------------------------------------------------ SymPy
def _sympy_generator_sum(L, r):
    out = sp.zeros(*L[0].shape)
    for k, lk in enumerate(L):
        out += r[k] * lk
    return out


def _sympy_rstr(L, r):
    return sympy_expm(_sympy_generator_sum(L, r))


def _sympy_cayley(s: sp.Matrix) -> sp.Matrix:
    eye = sp.eye(s.shape[0])
    # (I - S)(I + S)^{-1} = adj(I + S)(I - S) / det(I + S): the factors commute; polynomials stay small
    return (eye + s).adjugate() * (eye - s) / (eye + s).det()


# ------------------------------------------------------------------------------------- ball arithmetic
def _ball_generator_sum(L: list, r: ball.Ball) -> ball.Ball:
    out = None
    for k, lk in enumerate(L):
        term = ball.elementwise(ball.Ball.scalar(r.m[k, 0]), lk, lambda a, b: a * b)
        out = term if out is None else ball.elementwise(out, term, lambda a, b: a + b)
    return out


def _ball_cayley(s: ball.Ball) -> ball.Ball:
    n = s.m.nrows()
    eye = ball.identity(n)
    return ball.Ball(ball.arb_mat.solve(eye + s.m, eye - s.m), 2)


def _ball_qmul(a: ball.Ball, b: ball.Ball) -> ball.Ball:
    w1, x1, y1, z1 = a.entries()
    w2, x2, y2, z2 = b.entries()
    return ball.vector([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _ball_d_geo(q: ball.Ball, k: ball.Ball) -> ball.Ball:
    """2 arccos|<q,k>| as 4 atan2(|q - s k|, |q + s k|) when the sign s of <q,k> is certain."""
    ip = sum((x * y for x, y in zip(q.entries(), k.entries())), ball.arb(0))
    if ip > 0 or ip < 0:
        s = 1 if ip > 0 else -1
        minus = ball.frobenius(ball.vector([x - s * y for x, y in zip(q.entries(), k.entries())]))
        plus = ball.frobenius(ball.vector([x + s * y for x, y in zip(q.entries(), k.entries())]))
        return ball.Ball.scalar(4 * ball.arb.atan2(minus, plus))
    return ball.Ball.scalar(2 * abs(ip).acos())


def _ball_hellinger(mu: ball.Ball) -> ball.Ball:
    n, v = mu.m.nrows(), mu.m.ncols()
    root = [[mu.m[i, j].sqrt() for j in range(v)] for i in range(n)]
    out = ball.arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            diffs = [root[i][t] - root[j][t] for t in range(v)]
            out[i, j] = ball.arb(0) if i == j else sum((d * d for d in diffs), ball.arb(0)).nonnegative_part().sqrt()
    return ball.Ball(out, 2)


def _ball_projector(u: ball.Ball, cols: range) -> ball.Ball:
    n = u.m.nrows()
    out = ball.arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            out[i, j] = sum((u.m[i, c] * u.m[j, c] for c in cols), ball.arb(0))
    return ball.Ball(out, 2)


def _ball_pi_act(u: ball.Ball, m: ball.Ball) -> ball.Ball:
    return _ball_projector(u, range(2 * int(float(m.s().mid()))))


def _ball_pi_null(u: ball.Ball, m: ball.Ball) -> ball.Ball:
    return _ball_projector(u, range(2 * int(float(m.s().mid())), u.m.nrows()))


# ------------------------------------------------------------------------------------------- 60 digits
def _precise_generators(U, freqs):
    d, m = U.shape[-1], freqs.shape[-1]
    out = []
    for k in range(freqs.shape[0]):
        block = pv.full((d, d), 0)
        for u in range(m):
            block[2 * u, 2 * u + 1], block[2 * u + 1, 2 * u] = -freqs[k, u], freqs[k, u]
        out.append(U @ block @ U.T)
    return np.stack(out)


def _precise_rstr_closed_form(U, freqs, r):
    d, m = U.shape[-1], freqs.shape[-1]
    theta = r @ freqs
    block = pv.identity(d)
    for u in range(m):
        c, s_ = pv.mp.cos(theta[u]), pv.mp.sin(theta[u])
        block[2 * u, 2 * u], block[2 * u, 2 * u + 1] = c, -s_
        block[2 * u + 1, 2 * u], block[2 * u + 1, 2 * u + 1] = s_, c
    return U @ block @ U.T


def _precise_generator_sum(L, r):
    L = np.stack(L) if isinstance(L, list) else L
    return sum((r[k] * L[k] for k in range(L.shape[0])), pv.full(L.shape[1:], 0))


def _precise_projector(U, cols):
    Uc = U[:, cols]
    return Uc @ Uc.T


def _precise_pairwise_distances(P):
    diff = P[:, None, :] - P[None, :, :]
    return pv.elementwise(pv.mp.sqrt)((diff * diff).sum(-1))


def _precise_hellinger(mu, normalized=False, validate=False):
    D = _precise_pairwise_distances(pv.elementwise(pv.mp.sqrt)(mu))
    return D / pv.mp.sqrt(2) if normalized else D


def _precise_gram(D, squared=False):
    D2 = D if squared else D * D
    n = D.shape[0]
    rows = D2.sum(1) / n
    cols = D2.sum(0) / n
    grand = pv.fsum(D2) / (n * n)
    B = -(D2 - rows[:, None] - cols[None, :] + grand) / 2
    return (B + B.T) / 2  # exact symmetry, as double_centred_gram


def _precise_mds(D, d, rank=None, squared=False):
    n, d = D.shape[0], pv.as_int(d)
    r = min(d, n) if rank is None else min(pv.as_int(rank), d, n)
    w, q = pv.eigh(_precise_gram(D, squared))
    top = list(range(n - 1, n - 1 - r, -1))  # descending, as classical_mds
    P = pv.full((n, d), 0)
    for c, i in enumerate(top):
        col = [q[row, i] for row in range(n)]
        pivot = max(range(n), key=lambda row: abs(col[row]))
        sign = -1 if col[pivot] < 0 else 1
        scale = pv.mp.sqrt(max(w[i], pv.mp.mpf(0)))
        for row in range(n):
            P[row, c] = sign * col[row] * scale
    return P


def _precise_stress(P, D, normalized=True):
    E = _precise_pairwise_distances(P)
    n = D.shape[0]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    num = pv.mp.fsum((E[i, j] - D[i, j]) ** 2 for i, j in pairs)
    if not normalized:
        return num
    den = pv.mp.fsum(D[i, j] ** 2 for i, j in pairs)
    if den == 0:
        raise ValueError("stress is undefined: D has no positive off-diagonal distance")
    return num / den


def _precise_low_rank_factor(P, r):
    r = pv.as_int(r)
    U, S, _ = pv.mp.svd_r(pv.matrix(P), full_matrices=False)
    order = sorted(range(len(S)), key=lambda i: S[i], reverse=True)[:r]
    cols = []
    for c in order:  # the sign convention of positional.low_rank_factor
        col = [U[i, c] for i in range(P.shape[0])]
        sign = -1 if col[max(range(len(col)), key=lambda i: abs(col[i]))] < 0 else 1
        cols.append([sign * v * S[c] for v in col])
    return pv.array([[cols[c][i] for c in range(len(cols))] for i in range(P.shape[0])])


def _precise_qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return pv.vector([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                      w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _precise_qconj(q):
    return pv.vector([q[0], -q[1], -q[2], -q[3]])


def _precise_qexp(u, rotor="exp_u"):
    if rotor == "exp_half_u":
        u = u / 2
    theta = pv.l2(u)
    s = pv.mp.sin(theta) / theta if theta != 0 else pv.mp.mpf(1)
    return pv.vector([pv.mp.cos(theta)] + [s * v for v in u])


def _precise_qlog(q, rotor="exp_u"):
    w, v = q[0], q[1:]
    s = pv.l2(v)
    factor = pv.mp.atan2(s, w) / s if s > 0 else (1 / w if w > 0 else pv.mp.mpf(0))
    u = v * factor
    return 2 * u if rotor == "exp_half_u" else u


def _precise_d_geo(q, k):
    s = 1 if pv.mp.fsum(q * k) >= 0 else -1
    return 4 * pv.mp.atan2(pv.l2(q - s * k), pv.l2(q + s * k))


SYMPY = {
    "skew_part": lambda m: (m - m.T) / 2,
    "generator_sum": _sympy_generator_sum,
    "R_str": _sympy_rstr,
    "cayley": _sympy_cayley,
}

BALL = {
    "cayley": _ball_cayley,
    "qmul": _ball_qmul,
    "qconj": lambda q: ball.vector([q.entries()[0]] + [-x for x in q.entries()[1:]]),
    "d_geo": _ball_d_geo,
    "hellinger": _ball_hellinger,
    "Pi_act": _ball_pi_act,
    "Pi_null": _ball_pi_null,
    "generator_sum": _ball_generator_sum,
    "R_str": lambda L, r: ball_expm(_ball_generator_sum(L, r)),
}

PRECISE = {
    "skew_part": lambda a: (a - a.T) / 2,
    "generators": _precise_generators,
    "generator_sum": _precise_generator_sum,
    "R_str": lambda L, r: pv.expm(_precise_generator_sum(L, r)),
    "cayley": lambda S: pv.solve(pv.identity(S.shape[0]) + S, pv.identity(S.shape[0]) - S),
    "Pi_act": lambda U, m: _precise_projector(U, slice(0, 2 * pv.as_int(m))),
    "Pi_null": lambda U, m: _precise_projector(U, slice(2 * pv.as_int(m), None)),
    "rstr_closed_form": _precise_rstr_closed_form,
    "rsp": lambda L, r, P, convention="right": (pv.expm(_precise_generator_sum(L, r)) @ P if convention == "right"
                                                else P @ pv.expm(_precise_generator_sum(L, r)) @ P.T),
    "commutator_norms": pv.commutator_norms,
    "pairwise_distances": _precise_pairwise_distances,
    "hellinger": _precise_hellinger,
    "fisher_rao": lambda mu, validate=False: pv.elementwise(lambda h: 4 * pv.mp.asin(min(h / 2, pv.mp.mpf(1))))(
        _precise_hellinger(mu)),
    "gram": _precise_gram,
    "mds": _precise_mds,
    "stress": _precise_stress,
    "low_rank_factor": _precise_low_rank_factor,
    "qmul": _precise_qmul,
    "qconj": _precise_qconj,
    "qinv": lambda q: _precise_qconj(q) / pv.mp.fsum(v * v for v in q),
    "qexp": _precise_qexp,
    "qlog": _precise_qlog,
    "d_geo": _precise_d_geo,
}
