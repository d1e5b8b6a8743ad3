"""Unit quaternions, small rotation generators, distributions, and Gaussian random variables for E(...)."""

from __future__ import annotations

import torch

from .base import Param, Sampler, TensorKwargs, _radius, _radius_scaled
from .linalg import LO_LE_HI, Scalar, Vec


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

    name, hypothesis = "small_angle", "u in R^3, |u| <= eps"
    params = (Param("eps", "float", 0.1, positional=True, lo=0, lo_open=True, doc="largest angle |u|"),
              Param("lo", "float", 0.0, lo=0, hi=1, doc="smallest angle, as a fraction of eps"))

    def shapes(self):
        return {"dir": (3,), "rad": (1,)}

    def value(self, th):
        eps = self.p["eps"]
        lo = self.p["lo"] * eps
        d = th["dir"] / torch.linalg.vector_norm(th["dir"], dim=-1, keepdim=True).clamp_min(1e-300)
        return d * _radius(th["rad"], lo, eps)

    def toward_zero(self, theta, factors):
        if self.p["lo"] != 0:
            return None
        k = factors.shape[0]
        return {"dir": theta["dir"].expand(k, -1).clone(), "rad": _radius_scaled(theta["rad"], factors)}

    def satisfied(self, v, tol=1e-9):
        return torch.linalg.vector_norm(v, dim=-1) <= self.p["eps"] + tol


class Simplex(Sampler):
    """Probability vectors (softmax of free logits); rows=n gives an (n, V) matrix of distributions.
    Instances satisfy: entries >= 0, rows sum to 1.
    """

    name, hypothesis = "simplex", "entries >= 0, rows sum to 1"
    params = (Param("V", "int", positional=True, lo=1, doc="number of outcomes"),
              Param("rows", "int", None, lo=1, doc="number of distributions (an (n, V) matrix); none: one vector"),
              Param("spread", "float", 1.0, lo=0, lo_open=True, doc="scale of the logits"))

    def shapes(self):
        v, rows = self.p["V"], self.p["rows"]
        return {"logits": (rows, v)} if rows is not None else {"logits": (v,)}

    def degenerate(self, b, gen, ctx):
        th = self.init(b, gen, ctx)
        th["logits"] = th["logits"] * 8.0  # near vertices
        return th

    def value(self, th):
        return torch.softmax(th["logits"] * self.p["spread"], dim=-1)

    def satisfied(self, v, tol=1e-9):
        b = v.shape[0]
        ok = (v >= -tol).reshape(b, -1).all(1)
        return ok & ((v.sum(-1) - 1).abs() <= tol).reshape(b, -1).all(1)


class IntPosition(Sampler):
    """Integer positions lo..hi, as a table-driven rotary cache indexes them: one (n=0) or n of them.
    Instances satisfy: integer-valued, lo <= r <= hi.
    """

    name, hypothesis = "int_position", "r integer, lo <= r <= hi"
    params = (Param("lo", "int", 0, positional=True, doc="smallest position"),
              Param("hi", "int", 64, positional=True, doc="largest position"),
              Param("n", "int", 0, lo=0, doc="how many positions (0: one scalar position)"))
    constraints = (LO_LE_HI,)

    def shapes(self):
        return {"t": (self.p["n"],) if self.p["n"] else ()}

    def value(self, th):
        # rounding has no gradient: the ascent phase leaves integer positions where the draw put them
        lo, hi = self.p["lo"], self.p["hi"]
        return torch.round(_radius(th["t"], lo - 0.5, hi + 0.5)).clamp(lo, hi)

    def satisfied(self, v, tol=1e-9):
        ok = (v == torch.round(v)) & (v >= self.p["lo"]) & (v <= self.p["hi"])
        return ok.reshape(v.shape[0], -1).all(1)

    def relaxed(self):
        return Scalar({"lo": float(self.p["lo"]), "hi": float(self.p["hi"])}) if not self.p["n"] else None


class Gaussian(Sampler):
    """Random variable: standard normal draws of the given shape (not optimised).
    Instances satisfy: i.i.d. N(0, 1) entries.
    """

    name, hypothesis = "gaussian", "i.i.d. N(0, 1) entries"
    params = (Param("shape", "int", [], variadic=True, lo=1, doc="shape of one draw"),)
    random = True

    def shape(self) -> tuple[int, ...]:
        return tuple(self.p["shape"])

    def shapes(self):
        return {}

    def draw(self, b: int, s: int, gen: torch.Generator, ctx: TensorKwargs) -> torch.Tensor:
        return torch.randn((b, s, *self.shape()), generator=gen, **ctx)
