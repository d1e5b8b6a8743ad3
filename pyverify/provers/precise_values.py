"""Values of the 60-digit backend: numpy object arrays of mpmath numbers (so broadcasting, indexing and
``@`` behave as in torch) and mpmath scalars, with the linear algebra every 60-digit meaning of the
vocabulary uses (``provers/precise_meanings.py`` for the built-ins, a content package's or plugin's
``precise=`` meanings for theirs)."""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import torch

DIGITS = 60
mp = mpmath.mp


class Unsupported(Exception):
    pass


def to_precise(x: Any) -> Any:
    """A torch tensor / Python number as exact mpmath values (a float64 is an exact binary number)."""
    if isinstance(x, torch.Tensor):
        t = x.detach().cpu()
        if t.dim() == 0:
            return to_precise(t.item())
        if t.is_complex():
            flat = [mp.mpc(float(v.real), float(v.imag)) for v in t.reshape(-1).tolist()]
        else:
            flat = [mp.mpf(float(v)) for v in t.double().reshape(-1).tolist()]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(tuple(t.shape))
    if isinstance(x, bool):
        return x
    if isinstance(x, complex):
        return mp.mpc(x.real, x.imag)
    if isinstance(x, (int, float)):
        return mp.mpf(x)
    if isinstance(x, (np.ndarray, mpmath.mpf, mpmath.mpc, str)):
        return x
    raise Unsupported(f"value of type {type(x).__name__}")


def as_int(x: Any) -> int:
    """An index or size computed by the expression (an exact integer in every backend)."""
    if isinstance(x, np.ndarray) and x.shape == ():
        x = x.item()
    value = float(x)
    if not value.is_integer():
        raise Unsupported(f"a non-integer index or size {value}")
    return int(value)


def index(idx: Any) -> Any:
    if isinstance(idx, tuple):
        return tuple(index(i) for i in idx)
    if isinstance(idx, slice):
        return slice(*(None if v is None else as_int(v) for v in (idx.start, idx.stop, idx.step)))
    if idx is None or idx is Ellipsis:
        return idx
    return as_int(idx)


def elementwise(f):
    """f on every element of an array (or on a scalar)."""
    vf = np.frompyfunc(f, 1, 1)
    return lambda x: vf(x) if isinstance(x, np.ndarray) else f(x)


def matrix_power(a: np.ndarray, n: int) -> np.ndarray:
    out = np.eye(a.shape[0], dtype=object) * mp.mpf(1)
    base = a
    while n:
        if n & 1:
            out = out @ base
        base = base @ base
        n >>= 1
    return out


def array(rows) -> np.ndarray:
    """An object array from nested lists (or an mpmath matrix)."""
    if isinstance(rows, mpmath.matrix):
        rows = rows.tolist()
    out = np.empty((len(rows), len(rows[0])) if rows and isinstance(rows[0], list) else (len(rows),), dtype=object)
    out[...] = rows
    return out


def vector(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def matrix(a: np.ndarray) -> mpmath.matrix:
    if a.ndim != 2:
        raise ValueError(f"expected a matrix, got {a.ndim} dimensions")
    return mp.matrix(a.tolist())


def full(shape, value) -> np.ndarray:
    out = np.empty(tuple(as_int(s) for s in shape), dtype=object)
    out[...] = mp.mpf(value)
    return out


def identity(n) -> np.ndarray:
    n = as_int(n)
    out = full((n, n), 0)
    for i in range(n):
        out[i, i] = mp.mpf(1)
    return out


def flat(x) -> list:
    return list(x.reshape(-1)) if isinstance(x, np.ndarray) else [x]


def fsum(x):
    return mp.fsum(flat(x))


def l2(x):
    return mp.sqrt(mp.fsum(abs(v) ** 2 for v in flat(x)))


def svdvals(a: np.ndarray) -> np.ndarray:
    s = mp.svd_r(matrix(a), compute_uv=False) if not any(isinstance(v, mpmath.mpc) for v in flat(a)) \
        else mp.svd_c(matrix(a), compute_uv=False)
    return vector(sorted((s[i] for i in range(s.rows)), reverse=True))


def symmetric_from_lower(a: np.ndarray) -> mpmath.matrix:
    """torch.linalg.eigvalsh / eigh read the lower triangle only."""
    n = a.shape[0]
    return mp.matrix([[a[max(i, j), min(i, j)] for j in range(n)] for i in range(n)])


def eigh(a: np.ndarray) -> tuple[list, mpmath.matrix]:
    """Eigenvalues ascending and eigenvectors (columns), as torch.linalg.eigh."""
    w, q = mp.eigsy(symmetric_from_lower(a))
    order = sorted(range(len(w)), key=lambda i: w[i])
    return [w[i] for i in order], mp.matrix([[q[r, i] for i in order] for r in range(q.rows)])


def solve(a, b):
    am = matrix(a)
    if b.ndim == 1:
        return vector(mp.lu_solve(am, mp.matrix(list(b))))
    cols = [mp.lu_solve(am, mp.matrix(list(b[:, j]))) for j in range(b.shape[1])]
    return array([[cols[j][i] for j in range(b.shape[1])] for i in range(b.shape[0])])


def expm(a):
    return array(mp.expm(matrix(a)))


def commutator_norms(L):
    """The matrix of operator 2-norms ||[L_a, L_b]|| of a family of matrices."""
    L = np.stack(L) if isinstance(L, list) else L
    k = L.shape[0]
    return array([[svdvals(L[a] @ L[b] - L[b] @ L[a])[0] for b in range(k)] for a in range(k)])
