"""The 60-digit meanings of the vocabulary (numpy object arrays of mpmath numbers; ``provers/precise.py``).

Each meaning follows its torch implementation's definition, conventions and choices (sort order of
eigenvalues and singular values, the sign of MDS coordinates), so the two evaluate the same function;
``tests/test_vocabulary_backends.py`` checks every one against torch on random inputs.
"""

from __future__ import annotations

import mpmath
import numpy as np

from ..checks.vocabulary import precise_meaning
from .precise_values import (array, commutator_norms, eigh, elementwise, expm, flat, fsum, full, identity, l2, matrix,
                             mp, solve, svdvals, vector)


def _norm(x, convention: str = "operator-2"):
    if not isinstance(x, np.ndarray):
        return abs(x)
    if x.ndim == 1:
        return {"l1": lambda: mp.fsum(abs(v) for v in x), "linf": lambda: max(abs(v) for v in x)}.get(
            convention, lambda: l2(x))()
    if convention == "euclidean":
        raise ValueError("norm of a matrix under the convention norm: euclidean")
    if convention == "operator-2":
        return svdvals(x)[0]
    if convention == "frobenius":
        return l2(x)
    if convention == "l1":
        return max(mp.fsum(abs(v) for v in x[:, j]) for j in range(x.shape[1]))
    return max(mp.fsum(abs(v) for v in x[i, :]) for i in range(x.shape[0]))


def _diag(x):
    if x.ndim == 1:
        out = full((len(x), len(x)), 0)
        for i, v in enumerate(x):
            out[i, i] = v
        return out
    return vector([x[i, i] for i in range(min(x.shape))])


def _offdiag(a):
    out = a.copy()
    for i in range(min(a.shape)):
        out[i, i] = mp.mpf(0)
    return out


def _displacement(ri, rj, convention: str = "rj-ri"):
    return rj - ri if convention == "rj-ri" else ri - rj


_MEANINGS = {
    "I": identity,
    "zeros": lambda *shape: full(shape, 0),
    "ones": lambda *shape: full(shape, 1),
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
    "total": fsum,
    "mean": lambda x: fsum(x) / len(flat(x)),
    "amax": lambda x: max(flat(x)),
    "amin": lambda x: min(flat(x)),
    "norm": _norm,
    "vnorm": l2,
    "opnorm": lambda a: svdvals(a)[0],
    "fro": l2,
    "l1": lambda x: mp.fsum(abs(v) for v in flat(x)),
    "linf": lambda x: max(abs(v) for v in flat(x)),
    "expm": expm,
    "inv": lambda a: array(mp.inverse(matrix(a))),
    "solve": solve,
    "det": lambda a: mp.det(matrix(a)),
    "tr": lambda a: mp.fsum(a[i, i] for i in range(a.shape[0])),
    "comm": lambda a, b: a @ b - b @ a,
    "sym_part": lambda a: (a + a.T) / 2,
    "dot": lambda x, y: (x * y).sum(-1),
    "outer": lambda x, y: x[..., :, None] * y[..., None, :],
    "svdvals": svdvals,
    "sigma_min": lambda a: svdvals(a)[-1],
    "eigvalsh": lambda a: vector(eigh(a)[0]),
    "diag": _diag,
    "displacement": _displacement,
    "max_comm": lambda L: max(flat(commutator_norms(L))),
    "offdiag": _offdiag,
    "diagonal": lambda a: vector([a[i, i] for i in range(min(a.shape))]),
    "rotation_angle": lambda q: 2 * mp.atan2(l2(q[1:]), abs(q[0])),
}
for _name, _fn in _MEANINGS.items():
    precise_meaning(_name)(_fn)
