"""Vectors, scalars and matrices with norm ranges and structure (symmetric, skew, PSD, orthogonal)."""

from __future__ import annotations

import torch

from ...attention import rotations
from .base import Sampler, _radius, _scale_to


class Vec(Sampler):
    """Instances satisfy: x in R^n with lo <= |x| <= hi."""

    name = "vec"

    def shapes(self):
        return {"dir": (int(self.args["n"]),), "rad": (1,)}

    def value(self, th):
        lo, hi = float(self.args.get("lo", 0.0)), float(self.args.get("hi", 2.0))
        d = th["dir"] / torch.linalg.vector_norm(th["dir"], dim=-1, keepdim=True).clamp_min(1e-300)
        return d * _radius(th["rad"], lo, hi)

    def satisfied(self, v, tol=1e-9):
        n = torch.linalg.vector_norm(v, dim=-1)
        return (n >= float(self.args.get("lo", 0.0)) - tol) & (n <= float(self.args.get("hi", 2.0)) + tol)

    def relaxed(self):
        if "lo" in self.args or float(self.args.get("hi", 2.0)) < 4:
            return Vec({"n": self.args["n"], "lo": 0.0, "hi": 8.0})
        return None


class Scalar(Sampler):
    """Instances satisfy: lo <= t <= hi."""

    name = "scalar"

    def shapes(self):
        return {"t": ()}

    def value(self, th):
        return _radius(th["t"], float(self.args.get("lo", 0.0)), float(self.args.get("hi", 1.0)))

    def satisfied(self, v, tol=1e-9):
        return (v >= float(self.args.get("lo", 0.0)) - tol) & (v <= float(self.args.get("hi", 1.0)) + tol)

    def relaxed(self):
        lo, hi = float(self.args.get("lo", 0.0)), float(self.args.get("hi", 1.0))
        w = max(hi - lo, 1.0)
        return Scalar({"lo": lo - 2 * w, "hi": hi + 2 * w})


class Mat(Sampler):
    """General matrix with operator norm in [lo, hi]; kind: general | sym | skew.
    Instances satisfy: M in R^{m x n} with lo <= |M|_2 <= hi.
    """

    name = "mat"
    kind = "general"

    def _mn(self):
        n = int(self.args["n"])
        return int(self.args.get("m", n)), n

    def shapes(self):
        return {"raw": self._mn(), "rad": ()}

    def _structure(self, raw):
        return raw

    def value(self, th):
        lo, hi = float(self.args.get("lo", 0.0)), float(self.args.get("hi", 2.0))
        return _scale_to(self._structure(th["raw"]), _radius(th["rad"], lo, hi), self.args.get("norm", "op"))

    def satisfied(self, v, tol=1e-9):
        n = torch.linalg.svdvals(v)[..., 0] if self.args.get("norm", "op") == "op" else torch.linalg.matrix_norm(v)
        ok = (n >= float(self.args.get("lo", 0.0)) - tol) & (n <= float(self.args.get("hi", 2.0)) + tol)
        return ok & self._structured(v, tol)

    def _structured(self, v, tol):
        return torch.ones(v.shape[0], dtype=torch.bool, device=v.device)

    def relaxed(self):
        return Mat(dict(self.args)) if self.kind != "general" else None


class Sym(Mat):
    """Instances satisfy: symmetric, lo <= |M|_2 <= hi."""

    name, kind = "sym", "sym"

    def _structure(self, raw):
        return (raw + raw.transpose(-1, -2)) / 2

    def _structured(self, v, tol):
        return (v - v.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol


class Skew(Mat):
    """Instances satisfy: skew-symmetric, lo <= |S|_2 <= hi."""

    name, kind = "skew", "skew"

    def _structure(self, raw):
        return rotations.skew(raw)

    def _structured(self, v, tol):
        return (v + v.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol


class PSD(Sampler):
    """Instances satisfy: symmetric positive semidefinite, |M|_2 <= hi."""

    name = "psd"

    def shapes(self):
        n = int(self.args["n"])
        return {"raw": (n, int(self.args.get("rank", n)))}

    def value(self, th):
        m = th["raw"] @ th["raw"].transpose(-1, -2)
        return _scale_to(m, torch.full(m.shape[:1], float(self.args.get("hi", 2.0)), dtype=m.dtype, device=m.device), "op")

    def satisfied(self, v, tol=1e-9):
        return torch.linalg.eigvalsh(v)[..., 0] >= -tol

    def relaxed(self):
        return Sym({"n": self.args["n"], "hi": self.args.get("hi", 2.0)})


class Orth(Sampler):
    """Orthogonal matrix exp(S) (times a reflection when det = -1).
    Instances satisfy: Q^T Q = I (det as given: 1, -1 or any).
    """

    name = "orth"

    def shapes(self):
        n = int(self.args["n"])
        return {"raw": (n, n)}

    def init(self, b, gen, ctx):
        th = super().init(b, gen, ctx)
        det = self.args.get("det", 1)
        if det == "any":
            th["sign"] = torch.where(torch.rand(b, generator=gen, **ctx) < 0.5, -1.0, 1.0).to(**ctx)
        return th

    def degenerate(self, b, gen, ctx):
        th = self.init(b, gen, ctx)
        th["raw"] = th["raw"] * 1e-3  # near the identity
        return th

    def value(self, th):
        q = torch.linalg.matrix_exp(rotations.skew(th["raw"]) * 2.0)
        det = self.args.get("det", 1)
        sign = th.get("sign")
        if det == -1 or sign is not None:
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
        return Mat({"n": self.args["n"], "hi": 2.0})
