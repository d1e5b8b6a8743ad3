"""Vectors, scalars and matrices with norm ranges and structure (symmetric, skew, PSD, orthogonal)."""

from __future__ import annotations

import torch

from .base import skew, Constraint, Derived, Param, Sampler, SymbolicUnsupported, _radius, _radius_scaled, _scale_to

LO_LE_HI = Constraint("lo <= hi", ("lo", "hi"), lambda p: p["lo"] <= p["hi"])


def _size(name: str, doc: str, **kw) -> Param:
    return Param(name, "int", lo=1, doc=doc, **kw)


def _toward_zero(theta: dict, factors: torch.Tensor, lo: float) -> dict | None:
    """A norm range [lo, hi] contains the multiples in (0, 1] of its instances only where lo = 0: the radius
    parameter scaled, the direction (or raw matrix) repeated."""
    if lo != 0:
        return None
    k = factors.shape[0]
    return {name: (_radius_scaled(v, factors) if name == "rad" else v.expand(k, *v.shape[1:]).clone())
            for name, v in theta.items()}


class Vec(Sampler):
    name, hypothesis = "vec", "x in R^n with lo <= |x| <= hi"
    params = (_size("n", "dimension", positional=True),
              Param("lo", "float", 0.0, lo=0, doc="smallest Euclidean norm"),
              Param("hi", "float", 2.0, lo=0, lo_open=True, doc="largest Euclidean norm"))
    constraints = (LO_LE_HI,)

    def shapes(self):
        return {"dir": (self.p["n"],), "rad": (1,)}

    def value(self, th):
        d = th["dir"] / torch.linalg.vector_norm(th["dir"], dim=-1, keepdim=True).clamp_min(1e-300)
        return d * _radius(th["rad"], self.p["lo"], self.p["hi"])

    def toward_zero(self, theta, factors):
        return _toward_zero(theta, factors, self.p["lo"])

    def satisfied(self, v, tol=1e-9):
        n = torch.linalg.vector_norm(v, dim=-1)
        return (n >= self.p["lo"] - tol) & (n <= self.p["hi"] + tol)

    def relaxed(self):
        if "lo" in self.args or self.p["hi"] < 4:
            return Vec({"n": self.p["n"], "lo": 0.0, "hi": 8.0})
        return None

    def symbolic_instance(self, name, notes):
        import sympy as sp
        return sp.Matrix(sp.symbols(f"{name}0:{self.p['n']}", real=True))


class Scalar(Sampler):
    name, hypothesis = "scalar", "lo <= t <= hi"
    params = (Param("lo", "float", 0.0, positional=True, doc="smallest value"),
              Param("hi", "float", 1.0, positional=True, doc="largest value"))
    constraints = (LO_LE_HI,)

    def shapes(self):
        return {"t": ()}

    def value(self, th):
        return _radius(th["t"], self.p["lo"], self.p["hi"])

    def toward_zero(self, theta, factors):
        if self.p["lo"] != 0:
            return None
        return {"t": _radius_scaled(theta["t"], factors)}

    def satisfied(self, v, tol=1e-9):
        return (v >= self.p["lo"] - tol) & (v <= self.p["hi"] + tol)

    def relaxed(self):
        lo, hi = self.p["lo"], self.p["hi"]
        w = max(hi - lo, 1.0)
        return Scalar({"lo": lo - 2 * w, "hi": hi + 2 * w})

    def symbolic_instance(self, name, notes):
        import sympy as sp
        return sp.Symbol(name, real=True)


_NORM_RANGE = (Param("lo", "float", 0.0, lo=0, doc="smallest norm"),
               Param("hi", "float", 2.0, lo=0, lo_open=True, doc="largest norm"),
               Param("norm", "choice", "op", choices=("op", "fro"), doc="which norm lo/hi bound"))


class Mat(Sampler):
    """General matrix with operator norm in [lo, hi]; kind: general | sym | skew.
    ``mat(rows, cols)``: rows first, as torch.randn(rows, cols) and numpy shapes are written (``mat(n)`` is
    square). Instances satisfy: M in R^{rows x cols} with lo <= |M|_2 <= hi.
    """

    name, hypothesis = "mat", "M in R^{rows x cols} (rows first, like torch.randn(rows, cols)) with lo <= |M| <= hi"
    kind = "general"
    params = (_size("rows", "rows (the first index)", positional=True),
              _size("cols", "columns (the second index)", default=Derived("rows", lambda p: p["rows"]), positional=True),
              *_NORM_RANGE)
    constraints = (LO_LE_HI,)

    def _mn(self):
        """(rows, columns)."""
        return self.p["rows"], self.p["cols"]

    def shapes(self):
        return {"raw": self._mn(), "rad": ()}

    def _structure(self, raw):
        return raw

    def degenerate(self, b, gen, ctx):
        """Saturated radii (the norm at its bounds), and — for square matrices of a kind that contains them
        — the extremal configurations of norm bounds: a third of the instances +-(a multiple of) I, where
        every direction attains the norm (e.g. the Neumann bound |(I+S)^{-1} S^N| <= rho^N / (1 - rho) is
        an equality at S = -rho I), and a third rank one, where one direction does."""
        th = super().degenerate(b, gen, ctx)
        m, n = self._mn()
        if m != n or self.kind == "skew" or b < 3:
            return th
        third = b // 3
        sign = torch.where(torch.arange(third, device=th["raw"].device) % 2 == 0, -1.0, 1.0).to(th["raw"].dtype)
        th["raw"][:third] = sign[:, None, None] * torch.eye(n, dtype=th["raw"].dtype, device=th["raw"].device)
        u = th["raw"][third: 2 * third, :, 0]
        th["raw"][third: 2 * third] = u.unsqueeze(-1) * u.unsqueeze(-2)  # symmetric rank one (of every kind here)
        return th

    def value(self, th):
        return _scale_to(self._structure(th["raw"]), _radius(th["rad"], self.p["lo"], self.p["hi"]), self.p["norm"])

    def toward_zero(self, theta, factors):
        return _toward_zero(theta, factors, self.p["lo"])

    def satisfied(self, v, tol=1e-9):
        n = torch.linalg.svdvals(v)[..., 0] if self.p["norm"] == "op" else torch.linalg.matrix_norm(v)
        ok = (n >= self.p["lo"] - tol) & (n <= self.p["hi"] + tol)
        return ok & self._structured(v, tol)

    def _structured(self, v, tol):
        return torch.ones(v.shape[0], dtype=torch.bool, device=v.device)

    def relaxed(self):
        if self.kind == "general":
            return None
        args = {k: v for k, v in self.args.items() if k != "n"}
        return Mat({**args, "rows": self.p["n"]})

    def symbolic_instance(self, name, notes):
        import sympy as sp
        m, n = self._mn()
        return sp.Matrix(m, n, lambda i, j: sp.Symbol(f"{name}_{i}{j}", real=True))


class Sym(Mat):
    name, hypothesis, kind = "sym", "symmetric, lo <= |M|_2 <= hi", "sym"
    params = (_size("n", "dimension", positional=True), *_NORM_RANGE)

    def _mn(self):
        return self.p["n"], self.p["n"]

    def _structure(self, raw):
        return (raw + raw.transpose(-1, -2)) / 2

    def _structured(self, v, tol):
        return (v - v.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol

    def symbolic_instance(self, name, notes):
        import sympy as sp
        n = self.p["n"]
        s = sp.zeros(n, n)
        for i in range(n):
            for j in range(i, n):
                s[i, j] = s[j, i] = sp.Symbol(f"{name}_{i}{j}", real=True)
        return s


class Skew(Mat):
    name, hypothesis, kind = "skew", "skew-symmetric, lo <= |S|_2 <= hi", "skew"
    params = Sym.params
    _mn = Sym._mn

    def _structure(self, raw):
        return skew(raw)

    def _structured(self, v, tol):
        return (v + v.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol

    def symbolic_instance(self, name, notes):
        import sympy as sp
        n = self.p["n"]
        s = sp.zeros(n, n)
        for i in range(n):
            for j in range(i + 1, n):
                v = sp.Symbol(f"{name}_{i}{j}", real=True)
                s[i, j], s[j, i] = -v, v
        return s


class PSD(Sampler):
    name, hypothesis = "psd", "symmetric positive semidefinite, |M|_2 <= hi"
    params = (_size("n", "dimension", positional=True),
              _size("rank", "rank of the random factor", default=Derived("n", lambda p: p["n"])),
              Param("hi", "float", 2.0, lo=0, lo_open=True, doc="operator norm"))

    def shapes(self):
        return {"raw": (self.p["n"], self.p["rank"])}

    def value(self, th):
        m = th["raw"] @ th["raw"].transpose(-1, -2)
        return _scale_to(m, torch.full(m.shape[:1], self.p["hi"], dtype=m.dtype, device=m.device), "op")

    def satisfied(self, v, tol=1e-9):
        return torch.linalg.eigvalsh(v)[..., 0] >= -tol

    def relaxed(self):
        return Sym({"n": self.p["n"], "hi": self.p["hi"]})


class Orth(Sampler):
    """Orthogonal matrix exp(S) (times a reflection when det = -1).
    Instances satisfy: Q^T Q = I (det as given: 1, -1 or any).
    """

    name, hypothesis = "orth", "Q^T Q = I (det as given: 1, -1 or any)"
    params = (_size("n", "dimension", positional=True),
              Param("det", "choice", 1, choices=(1, -1, "any"), doc="determinant"))

    def shapes(self):
        n = self.p["n"]
        return {"raw": (n, n)}

    def init(self, b, gen, ctx):
        th = super().init(b, gen, ctx)
        if self.p["det"] == "any":
            th["sign"] = torch.where(torch.rand(b, generator=gen, **ctx) < 0.5, -1.0, 1.0).to(**ctx)
        return th

    def degenerate(self, b, gen, ctx):
        th = self.init(b, gen, ctx)
        th["raw"] = th["raw"] * 1e-3  # near the identity
        return th

    def value(self, th):
        q = torch.linalg.matrix_exp(skew(th["raw"]) * 2.0)
        sign = th.get("sign")
        if self.p["det"] == -1 or sign is not None:
            flip = torch.ones(q.shape[-1], dtype=q.dtype, device=q.device)
            flip = flip.expand(*q.shape[:-1]).clone()
            s = torch.full(q.shape[:1], -1.0, dtype=q.dtype, device=q.device) if sign is None else sign
            flip[..., 0] = s
            q = q * flip.unsqueeze(-2)
        return q

    def satisfied(self, v, tol=1e-9):
        eye = torch.eye(v.shape[-1], dtype=v.dtype, device=v.device)
        return (v.transpose(-1, -2) @ v - eye).abs().flatten(1).amax(1) <= tol

    def relaxed(self):
        return Mat({"rows": self.p["n"], "hi": 2.0})

    def symbolic_instance(self, name, notes):
        raise SymbolicUnsupported("orthogonal matrices have no free symbolic parameterisation here")
