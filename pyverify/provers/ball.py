"""Ball arithmetic values (python-flint ``arb``/``arb_mat``): scalars, vectors and matrices of rigorous
enclosures, with the helpers every ball meaning of the vocabulary uses (``provers/interval.py`` for the
built-ins, a content package's or plugin's ``ball=`` meanings for theirs)."""

from __future__ import annotations

import math
from typing import Any

import torch

try:
    import flint
    from flint import arb, arb_mat
except ImportError:  # pragma: no cover - python-flint is a dependency; without it nothing is certified
    flint = arb = arb_mat = None


class Unsupported(Exception):
    pass


class Ball:
    """A scalar (0-d), vector (n) or matrix (m x n) of arb balls; vectors are stored as n x 1."""

    def __init__(self, m: "arb_mat", ndim: int):
        self.m, self.ndim = m, ndim

    @staticmethod
    def scalar(x: Any) -> "Ball":
        return Ball(arb_mat([[x if isinstance(x, arb) else arb(x)]]), 0)

    @staticmethod
    def from_tensor(t: torch.Tensor) -> "Ball | list":
        t = t.detach().cpu().double()
        if t.dim() == 3:  # a family of matrices (generators L): a list of balls
            return [Ball.from_tensor(x) for x in t]
        if t.dim() == 0:
            return Ball.scalar(float(t))
        if t.dim() == 1:
            return Ball(arb_mat([[float(v)] for v in t.tolist()]), 1)
        if t.dim() == 2:
            return Ball(arb_mat(t.tolist()), 2)
        raise Unsupported(f"tensors of {t.dim()} dimensions")

    def __float__(self) -> float:
        """Midpoint of a scalar ball: only for integer arguments (indices, sizes) of the expression."""
        return float(self.s().mid())

    def s(self) -> arb:
        if self.ndim != 0:
            raise Unsupported("expected a scalar")
        return self.m[0, 0]

    def entries(self) -> list[arb]:
        return [self.m[i, j] for i in range(self.m.nrows()) for j in range(self.m.ncols())]

    def map(self, f) -> "Ball":
        out = arb_mat(self.m.nrows(), self.m.ncols())
        for i in range(self.m.nrows()):
            for j in range(self.m.ncols()):
                out[i, j] = f(self.m[i, j])
        return Ball(out, self.ndim)


def lift(x: Any) -> Ball:
    if isinstance(x, (Ball, list)):
        return x
    if isinstance(x, torch.Tensor):
        return Ball.from_tensor(x)
    if isinstance(x, (int, float)):
        return Ball.scalar(float(x))
    raise Unsupported(f"value of type {type(x).__name__}")


def elementwise(a: Ball, b: Ball, f) -> Ball:
    if a.ndim == 0 and b.ndim != 0:
        return b.map(lambda y: f(a.s(), y))
    if b.ndim == 0 and a.ndim != 0:
        return a.map(lambda x: f(x, b.s()))
    if (a.m.nrows(), a.m.ncols()) != (b.m.nrows(), b.m.ncols()):
        raise Unsupported("broadcasting of unequal shapes")
    out = arb_mat(a.m.nrows(), a.m.ncols())
    for i in range(a.m.nrows()):
        for j in range(a.m.ncols()):
            out[i, j] = f(a.m[i, j], b.m[i, j])
    return Ball(out, max(a.ndim, b.ndim))


def frobenius(a: Ball) -> arb:
    return sum((x * x for x in a.entries()), arb(0)).nonnegative_part().sqrt()


def identity(n: int) -> arb_mat:
    return arb_mat([[1 if i == j else 0 for j in range(n)] for i in range(n)])


def extreme(balls: list[arb], which: str) -> arb:
    """Enclosure of the max (or min) of scalar balls: its bounds are the max (min) of their bounds,
    each rounded outwards to a double (arb's own max/min is rigorous too, but much looser)."""
    pick = max if which == "max" else min
    lo = pick(math.nextafter(float(b.lower()), -math.inf) for b in balls)
    hi = pick(math.nextafter(float(b.upper()), math.inf) for b in balls)
    return arb(lo).union(arb(hi))


def vector(entries: list) -> Ball:
    return Ball(arb_mat([[x] for x in entries]), 1)


__all__ = ["Ball", "Unsupported", "lift", "elementwise", "frobenius", "identity", "extreme", "vector", "arb", "arb_mat",
           "flint"]
