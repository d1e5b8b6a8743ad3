"""Unit quaternions, small rotation generators, distributions, and random variables for E(...)."""

from __future__ import annotations

import torch

from ...attention import random_features
from .base import Sampler, _radius
from .linalg import Vec


class UnitQuat(Sampler):
    """Instances satisfy: q in S^3."""

    name = "unit_quat"

    def shapes(self):
        return {"raw": (4,)}

    def degenerate(self, b, gen, ctx):
        th = self.init(b, gen, ctx)
        th["raw"][: b // 3, 1:] *= 1e-6  # near +-1
        th["raw"][b // 3: 2 * b // 3, 0] *= 1e-6  # rotation angle near pi
        return th

    def value(self, th):
        return th["raw"] / torch.linalg.vector_norm(th["raw"], dim=-1, keepdim=True).clamp_min(1e-300)

    def satisfied(self, v, tol=1e-9):
        return (torch.linalg.vector_norm(v, dim=-1) - 1).abs() <= tol

    def relaxed(self):
        return Vec({"n": 4, "lo": 0.5, "hi": 1.5})


class SmallAngle(Sampler):
    """A rotation generator u in R^3 with |u| <= eps (eps may be a sweep variable).
    Instances satisfy: u in R^3, |u| <= eps.
    """

    name = "small_angle"

    def shapes(self):
        return {"dir": (3,), "rad": (1,)}

    def value(self, th):
        eps = float(self.args.get("eps", 0.1))
        lo = float(self.args.get("lo", 0.0)) * eps
        d = th["dir"] / torch.linalg.vector_norm(th["dir"], dim=-1, keepdim=True).clamp_min(1e-300)
        return d * _radius(th["rad"], lo, eps)

    def satisfied(self, v, tol=1e-9):
        return torch.linalg.vector_norm(v, dim=-1) <= float(self.args.get("eps", 0.1)) + tol


class Simplex(Sampler):
    """Probability vectors (softmax of free logits); rows=n gives an (n, V) matrix of distributions.
    Instances satisfy: entries >= 0, rows sum to 1.
    """

    name = "simplex"

    def shapes(self):
        v = int(self.args["V"])
        return {"logits": (int(self.args["rows"]), v)} if "rows" in self.args else {"logits": (v,)}

    def degenerate(self, b, gen, ctx):
        th = self.init(b, gen, ctx)
        th["logits"] = th["logits"] * 8.0  # near vertices
        return th

    def value(self, th):
        return torch.softmax(th["logits"] * float(self.args.get("spread", 1.0)), dim=-1)

    def satisfied(self, v, tol=1e-9):
        b = v.shape[0]
        ok = (v >= -tol).reshape(b, -1).all(1)
        return ok & ((v.sum(-1) - 1).abs() <= tol).reshape(b, -1).all(1)


class Gaussian(Sampler):
    """Random variable: standard normal draws of the given shape (not optimised).
    Instances satisfy: i.i.d. N(0, 1) entries.
    """

    name = "gaussian"
    random = True

    def shape(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self.args["shape"])

    def shapes(self):
        return {}

    def draw(self, b: int, s: int, gen: torch.Generator, ctx: dict) -> torch.Tensor:
        return torch.randn((b, s, *self.shape()), generator=gen, **ctx)


class ORF(Gaussian):
    """Random variable: block-orthogonal Gaussian features (m, d) (random_features.gaussian_orthogonal).
    Instances satisfy: rows orthogonal in blocks of d, marginally N(0, I).
    """

    name = "orf"

    def shape(self):
        return (int(self.args["m"]), int(self.args["d"]))

    def draw(self, b, s, gen, ctx):
        m, d = self.shape()
        w = torch.stack([random_features.gaussian_orthogonal(m, d, generator=gen) for _ in range(b * s)])
        return w.to(**ctx).reshape(b, s, m, d)
