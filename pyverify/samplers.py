"""Hypothesis samplers: random, differentiable instances that satisfy a claim's hypotheses.

A sampler maps unconstrained parameters ``theta`` to a value that satisfies its hypothesis *by
construction* (a reparameterisation), so that the falsifier can run gradient ascent on ``theta`` and
never leave the hypothesis. Each sampler can also produce degenerate/boundary instances, and names a
``relaxed`` sampler (the hypothesis weakened) for the hypothesis-necessity analysis.

Shapes: ``theta`` tensors are (B, ...); values are (B, ...) — B instances. Random-variable samplers
(``gaussian``, ``orf``) are not optimised: they draw (B, S, ...) samples for ``E(...)``.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

import torch

from .attention import random_features, rotations


class SamplerError(ValueError):
    pass


def _skew(raw: torch.Tensor) -> torch.Tensor:
    return (raw - raw.transpose(-1, -2)) / 2


def _radius(t: torch.Tensor, lo: float, hi: float) -> torch.Tensor:
    return lo + (hi - lo) * torch.sigmoid(t)


def _scale_to(m: torch.Tensor, radius: torch.Tensor, norm: str) -> torch.Tensor:
    """Rescale each matrix (B, a, b) to the given norm (B,)."""
    if norm == "fro":
        n = torch.linalg.matrix_norm(m, ord="fro")
    else:
        n = torch.linalg.svdvals(m)[..., 0]
    return m * (radius / n.clamp_min(1e-300)).unsqueeze(-1).unsqueeze(-1)


@dataclass
class Sampler:
    """Base: subclasses set ``shapes`` (theta parts) and implement ``value``."""

    args: dict[str, Any] = field(default_factory=dict)

    random: ClassVar[bool] = False
    name = "sampler"
    hypothesis = ""

    def shapes(self) -> dict[str, tuple[int, ...]]:
        raise NotImplementedError

    def init(self, b: int, gen: torch.Generator, ctx: dict) -> dict[str, torch.Tensor]:
        return {k: torch.randn((b, *s), generator=gen, **ctx) for k, s in self.shapes().items()}

    def degenerate(self, b: int, gen: torch.Generator, ctx: dict) -> dict[str, torch.Tensor]:
        """Boundary instances; default: large parameters (saturated radii)."""
        return {k: 4.0 * v for k, v in self.init(b, gen, ctx).items()}

    def value(self, theta: dict[str, torch.Tensor]) -> Any:
        raise NotImplementedError

    def satisfied(self, value: Any, tol: float = 1e-9) -> torch.Tensor:
        """(B,) bool: does each instance satisfy the hypothesis? (for the sampler tests)"""
        raise NotImplementedError

    def relaxed(self) -> "Sampler | None":
        return None

    def describe(self) -> str:
        a = ", ".join(f"{k}={v}" for k, v in self.args.items())
        return f"{self.name}({a})"


class Vec(Sampler):
    name, hypothesis = "vec", "x in R^n with lo <= |x| <= hi"

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
    name, hypothesis = "scalar", "lo <= t <= hi"

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
    """General matrix with operator norm in [lo, hi]; kind: general | sym | skew."""

    name, hypothesis = "mat", "M in R^{m x n} with lo <= |M|_2 <= hi"
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
    name, hypothesis, kind = "sym", "symmetric, lo <= |M|_2 <= hi", "sym"

    def _structure(self, raw):
        return (raw + raw.transpose(-1, -2)) / 2

    def _structured(self, v, tol):
        return (v - v.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol


class Skew(Mat):
    name, hypothesis, kind = "skew", "skew-symmetric, lo <= |S|_2 <= hi", "skew"

    def _structure(self, raw):
        return _skew(raw)

    def _structured(self, v, tol):
        return (v + v.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol


class PSD(Sampler):
    name, hypothesis = "psd", "symmetric positive semidefinite, |M|_2 <= hi"

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
    """Orthogonal matrix exp(S) (times a reflection when det = -1)."""

    name, hypothesis = "orth", "Q^T Q = I (det as given: 1, -1 or any)"

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
        q = torch.linalg.matrix_exp(_skew(th["raw"]) * 2.0)
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


class CommutingSkew(Sampler):
    """Commuting skew generators in joint block form: L_k = U (+_u lambda_ku J + 0) U^T.

    Parts: L (d_c, d, d), U (d, d), freqs (d_c, m). ``U=identity`` fixes U = I (RoPE-like).
    """

    name, hypothesis = "commuting_skew", "L_k skew, [L_k, L_l] = 0, joint block form with basis U"

    def _dims(self):
        d, dc = int(self.args["d"]), int(self.args["dc"])
        m = int(self.args.get("m", d // 2))
        if 2 * m > d:
            raise SamplerError(f"commuting_skew: 2m = {2 * m} > d = {d}")
        return d, dc, m

    def shapes(self):
        d, dc, m = self._dims()
        return {"U": (d, d), "freqs": (dc, m)}

    def degenerate(self, b, gen, ctx):
        th = self.init(b, gen, ctx)
        d, dc, m = self._dims()
        if m >= 2:
            th["freqs"][:, :, 1] = th["freqs"][:, :, 0]  # repeated frequencies
        th["freqs"][: b // 2] *= 4.0  # large angles
        return th

    def value(self, th):
        d, dc, m = self._dims()
        lam = float(self.args.get("lam", 2.0))
        if self.args.get("U") == "identity":
            u = torch.eye(d, dtype=th["U"].dtype, device=th["U"].device).expand(th["U"].shape[0], d, d)
        else:
            u = torch.linalg.matrix_exp(_skew(th["U"]) * 2.0)
        freqs = lam * torch.tanh(th["freqs"])
        return {"L": rotations.commuting_generators(u, freqs), "U": u, "freqs": freqs}

    def satisfied(self, v, tol=1e-9):
        L = v["L"]
        skew = (L + L.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol
        c = L.unsqueeze(1) @ L.unsqueeze(2) - L.unsqueeze(2) @ L.unsqueeze(1)
        return skew & (c.abs().flatten(1).amax(1) <= tol)

    def relaxed(self):
        d, dc, _ = self._dims()
        return SkewFamily({"d": d, "dc": dc, "hi": float(self.args.get("lam", 2.0))})


class SkewFamily(Sampler):
    """d_c independent skew matrices (no commutation): the relaxation of ``commuting_skew``."""

    name, hypothesis = "skew_family", "L_k skew, |L_k|_2 <= hi"

    def shapes(self):
        d, dc = int(self.args["d"]), int(self.args["dc"])
        return {"raw": (dc, d, d)}

    def value(self, th):
        s = _skew(th["raw"])
        hi = float(self.args.get("hi", 2.0))
        n = torch.linalg.svdvals(s)[..., 0].clamp_min(1e-300)
        return {"L": s * (hi * torch.tanh(n) / n).unsqueeze(-1).unsqueeze(-1)}

    def satisfied(self, v, tol=1e-9):
        L = v["L"]
        return (L + L.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol


class NearCommutingSkew(CommutingSkew):
    """Commuting family plus a skew perturbation of operator norm exactly eps per generator.

    Parts: L (perturbed), L0 (commuting), E (unit perturbations), U, freqs.
    """

    name, hypothesis = "near_commuting_skew", "L_k = L0_k + eps E_k, L0 commuting skew, E_k skew, |E_k|_2 = 1"

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "E": (dc, d, d)}

    def value(self, th):
        base = super().value(th)
        e = _skew(th["E"])
        e = e / torch.linalg.svdvals(e)[..., 0].clamp_min(1e-300).unsqueeze(-1).unsqueeze(-1)
        eps = float(self.args["eps"])
        return {**base, "L0": base["L"], "E": e, "L": base["L"] + eps * e}

    def satisfied(self, v, tol=1e-9):
        L = v["L"]
        return (L + L.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol

    def relaxed(self):
        return None


class StructuredPost(CommutingSkew):
    """Commuting generators together with a post-rotation in the structured family 𝒜:
    P = U diag(I_2m, R_null) U^T (rotations.structured_post_rotation). ``leak`` > 0 moves P off 𝒜
    by exp(leak * E) with E skew, |E|_2 = 1 (a post-rotation *near* 𝒜).

    Parts: L, U, freqs (as commuting_skew), P, E (the leak direction), m."""

    name, hypothesis = "structured_post", "P = U diag(I_2m, R) U^T, R in SO(d - 2m) (times exp(leak E))"

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "N": (d - 2 * m, d - 2 * m), "E": (d, d)}

    def value(self, th):
        base = super().value(th)
        d, dc, m = self._dims()
        P = rotations.structured_post_rotation(base["U"], m, th["N"])
        leak = float(self.args.get("leak", 0.0))
        e = _skew(th["E"])
        e = e / torch.linalg.svdvals(e)[..., 0].clamp_min(1e-300).unsqueeze(-1).unsqueeze(-1)
        if leak:
            P = P @ torch.linalg.matrix_exp(leak * e)
        return {**base, "P": P, "E": e}

    def satisfied(self, v, tol=1e-9):
        d, dc, m = self._dims()
        dist = rotations.distance_to_structured(v["P"], v["U"], m)
        # the distance is a square root: rounding of order eps in dist^2 shows as sqrt(eps)
        return dist <= float(self.args.get("leak", 0.0)) * math.sqrt(2 * d) + math.sqrt(tol)

    def relaxed(self):
        d, dc, m = self._dims()
        return CayleyPost({"d": d, "dc": dc, "m": m, "lam": self.args.get("lam", 2.0)})


class CayleyPost(CommutingSkew):
    """Commuting generators with an arbitrary Cayley post-rotation P = cayley(S), S skew, |S|_2 <= rho."""

    name, hypothesis = "cayley_post", "P = (I - S)(I + S)^{-1}, S skew, |S|_2 <= rho"

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "S": (d, d)}

    def value(self, th):
        base = super().value(th)
        rho = float(self.args.get("rho", 1.0))
        s = _skew(th["S"])
        n = torch.linalg.svdvals(s)[..., 0].clamp_min(1e-300)
        s = s * (rho * torch.sigmoid(n) / n).unsqueeze(-1).unsqueeze(-1)
        return {**base, "S": s, "P": rotations.cayley(s)}

    def satisfied(self, v, tol=1e-9):
        eye = torch.eye(v["P"].shape[-1], dtype=v["P"].dtype, device=v["P"].device)
        return (v["P"].transpose(-1, -2) @ v["P"] - eye).abs().flatten(1).amax(1) <= tol


class UnitQuat(Sampler):
    name, hypothesis = "unit_quat", "q in S^3"

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
    """A rotation generator u in R^3 with |u| <= eps (eps may be a sweep variable)."""

    name, hypothesis = "small_angle", "u in R^3, |u| <= eps"

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
    """Probability vectors (softmax of free logits); rows=n gives an (n, V) matrix of distributions."""

    name, hypothesis = "simplex", "entries >= 0, rows sum to 1"

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
    """Random variable: standard normal draws of the given shape (not optimised)."""

    name, hypothesis = "gaussian", "i.i.d. N(0, 1) entries"
    random = True

    def shape(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self.args["shape"])

    def shapes(self):
        return {}

    def draw(self, b: int, s: int, gen: torch.Generator, ctx: dict) -> torch.Tensor:
        return torch.randn((b, s, *self.shape()), generator=gen, **ctx)


class ORF(Gaussian):
    """Random variable: block-orthogonal Gaussian features (m, d) (random_features.gaussian_orthogonal)."""

    name, hypothesis = "orf", "rows orthogonal in blocks of d, marginally N(0, I)"

    def shape(self):
        return (int(self.args["m"]), int(self.args["d"]))

    def draw(self, b, s, gen, ctx):
        m, d = self.shape()
        w = torch.stack([random_features.gaussian_orthogonal(m, d, generator=gen) for _ in range(b * s)])
        return w.to(**ctx).reshape(b, s, m, d)


SAMPLERS: dict[str, type[Sampler]] = {
    cls.name: cls
    for cls in (Vec, Scalar, Mat, Sym, Skew, PSD, Orth, CommutingSkew, SkewFamily, NearCommutingSkew,
                StructuredPost, CayleyPost, UnitQuat, SmallAngle, Simplex, Gaussian, ORF)
}

# Positional argument names of each sampler, so `vec(3)` means vec(n=3).
POSITIONAL = {
    "vec": ("n",), "scalar": ("lo", "hi"), "mat": ("n", "m"), "sym": ("n",), "skew": ("n",), "psd": ("n",),
    "orth": ("n",), "commuting_skew": ("d", "dc"), "skew_family": ("d", "dc"),
    "near_commuting_skew": ("d", "dc", "eps"), "structured_post": ("d", "dc"), "cayley_post": ("d", "dc"), "unit_quat": (), "small_angle": ("eps",), "simplex": ("V",),
    "gaussian": (), "orf": ("m", "d"),
}


def parse_sampler(text: str, constants: dict[str, Any]) -> Sampler:
    """``commuting_skew(d=6, dc=3)`` -> a Sampler. Arguments: numbers, strings, lists, sweep names."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise SamplerError(f"hypothesis {text!r}: syntax error at column {exc.offset}") from None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise SamplerError(f"hypothesis {text!r} must be a sampler call like vec(3)")
    name = node.func.id
    if name not in SAMPLERS:
        raise SamplerError(f"unknown sampler {name!r}; known: {', '.join(sorted(SAMPLERS))}")

    def value(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, str)) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -value(n.operand)
        if isinstance(n, ast.Name) and n.id in constants:
            return constants[n.id]
        if isinstance(n, (ast.List, ast.Tuple)):
            return [value(e) for e in n.elts]
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div, ast.Add, ast.Sub, ast.FloorDiv)):
            a, b = value(n.left), value(n.right)
            ops: dict[type, Callable] = {ast.Mult: lambda: a * b, ast.Div: lambda: a / b, ast.Add: lambda: a + b,
                                         ast.Sub: lambda: a - b, ast.FloorDiv: lambda: a // b}
            return ops[type(n.op)]()
        raise SamplerError(f"hypothesis {text!r}: argument must be a number, string, list or sweep name")

    args: dict[str, Any] = {}
    pos = POSITIONAL.get(name, ())
    if name == "gaussian":
        args["shape"] = [value(a) for a in node.args]
    else:
        if len(node.args) > len(pos):
            raise SamplerError(f"{name} takes at most {len(pos)} positional argument(s): {', '.join(pos)}")
        args.update({k: value(a) for k, a in zip(pos, node.args)})
    for kw in node.keywords:
        if kw.arg is None:
            raise SamplerError("**kwargs not allowed")
        args[kw.arg] = value(kw.value)
    sampler = SAMPLERS[name](args=args)
    try:
        sampler.shapes()
    except KeyError as exc:
        raise SamplerError(f"{name} needs argument {exc.args[0]!r}") from None
    return sampler


__all__ = ["Sampler", "SAMPLERS", "parse_sampler", "SamplerError", "math"]
