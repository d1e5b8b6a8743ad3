"""The papers' hypotheses: families of skew generators (commuting, free, nearly commuting), post-rotations
(structured, Cayley) and orthogonal random features; registered with ``pyverify.plugin.sampler``."""

from __future__ import annotations

import math

import torch

from ..attention import random_features, rotations
from ..checks.samplers.base import Constraint, Derived, Param, Sampler
from ..checks.samplers.misc import Gaussian

_D = Param("d", "int", positional=True, lo=1, doc="dimension")
_DC = Param("dc", "int", positional=True, lo=1, doc="number of generators d_c")
_FAMILY = (Param("m", "int", Derived("d // 2", lambda p: p["d"] // 2), lo=0, doc="number of active planes"),
           Param("lam", "float", 2.0, lo=0, lo_open=True, doc="bound of the frequencies"),
           Param("U", "choice", "random", choices=("random", "identity"), doc="basis: random orthogonal or I"))
_PLANES_FIT = Constraint("2m <= d", ("m", "d"), lambda p: 2 * p["m"] <= p["d"])


class CommutingSkew(Sampler):
    """Commuting skew generators in joint block form: L_k = U (+_u lambda_ku J + 0) U^T.

    Parts: L (d_c, d, d), U (d, d), freqs (d_c, m). ``U=identity`` fixes U = I (RoPE-like).
    Instances satisfy: L_k skew, [L_k, L_l] = 0, joint block form with basis U.
    """

    name, hypothesis = "commuting_skew", "L_k skew, [L_k, L_l] = 0, joint block form with basis U"
    params = (_D, _DC, *_FAMILY)
    constraints = (_PLANES_FIT,)

    def _dims(self):
        return self.p["d"], self.p["dc"], self.p["m"]

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
        lam = self.p["lam"]
        if self.p["U"] == "identity":
            u = torch.eye(d, dtype=th["U"].dtype, device=th["U"].device).expand(th["U"].shape[0], d, d)
        else:
            u = torch.linalg.matrix_exp(rotations.skew(th["U"]) * 2.0)
        freqs = lam * torch.tanh(th["freqs"])
        return {"L": rotations.commuting_generators(u, freqs), "U": u, "freqs": freqs}

    def satisfied(self, v, tol=1e-9):
        L = v["L"]
        skew = (L + L.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol
        c = L.unsqueeze(1) @ L.unsqueeze(2) - L.unsqueeze(2) @ L.unsqueeze(1)
        return skew & (c.abs().flatten(1).amax(1) <= tol)

    def relaxed(self):
        d, dc, _ = self._dims()
        return SkewFamily({"d": d, "dc": dc, "hi": self.p["lam"]})

    def symbolic_instance(self, name, notes):
        import sympy as sp
        d, dc, m = self._dims()
        notes.append(f"{name}: basis U = I, free frequencies")
        lam = [[sp.Symbol(f"lam_{k}{u}", real=True) for u in range(m)] for k in range(dc)]
        J = sp.Matrix([[0, -1], [1, 0]])
        gens = []
        for k in range(dc):
            blocks = [lam[k][u] * J for u in range(m)] + ([sp.zeros(d - 2 * m, d - 2 * m)] if d > 2 * m else [])
            gens.append(sp.diag(*blocks))
        return {"L": gens, "U": sp.eye(d), "freqs": sp.Matrix(lam)}


class SkewFamily(Sampler):
    """d_c independent skew matrices (no commutation): the relaxation of ``commuting_skew``.
    Instances satisfy: L_k skew, |L_k|_2 <= hi.
    """

    name, hypothesis = "skew_family", "L_k skew, |L_k|_2 <= hi"
    params = (_D, _DC, Param("hi", "float", 2.0, lo=0, lo_open=True, doc="operator-norm bound"))

    def shapes(self):
        return {"raw": (self.p["dc"], self.p["d"], self.p["d"])}

    def value(self, th):
        s = rotations.skew(th["raw"])
        hi = self.p["hi"]
        n = torch.linalg.svdvals(s)[..., 0].clamp_min(1e-300)
        return {"L": s * (hi * torch.tanh(n) / n).unsqueeze(-1).unsqueeze(-1)}

    def satisfied(self, v, tol=1e-9):
        L = v["L"]
        return (L + L.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol


class NearCommutingSkew(CommutingSkew):
    """Commuting family plus a skew perturbation of operator norm exactly eps per generator.

    Parts: L (perturbed), L0 (commuting), E (unit perturbations), U, freqs.
    Instances satisfy: L_k = L0_k + eps E_k, L0 commuting skew, E_k skew, |E_k|_2 = 1.
    """

    name, hypothesis = "near_commuting_skew", "L_k = L0_k + eps E_k, L0 commuting skew, E_k skew, |E_k|_2 = 1"
    params = (_D, _DC, Param("eps", "float", positional=True, lo=0, doc="size of the perturbation"), *_FAMILY)

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "E": (dc, d, d)}

    def value(self, th):
        base = super().value(th)
        e = rotations.skew(th["E"])
        e = e / torch.linalg.svdvals(e)[..., 0].clamp_min(1e-300).unsqueeze(-1).unsqueeze(-1)
        eps = self.p["eps"]
        return {**base, "L0": base["L"], "E": e, "L": base["L"] + eps * e}

    def satisfied(self, v, tol=1e-9):
        L = v["L"]
        return (L + L.transpose(-1, -2)).abs().flatten(1).amax(1) <= tol

    def relaxed(self):
        return None

    symbolic_instance = Sampler.symbolic_instance  # the generic block form does not describe this family


class StructuredPost(CommutingSkew):
    """Commuting generators together with a post-rotation in the structured family 𝒜:
    P = U diag(I_2m, R_null) U^T (rotations.structured_post_rotation). ``leak`` > 0 moves P off 𝒜
    by exp(leak * E) with E skew, |E|_2 = 1 (a post-rotation *near* 𝒜).

    Instances satisfy: P = U diag(I_2m, R) U^T, R in SO(d - 2m) (times exp(leak E)).
    Parts: L, U, freqs (as commuting_skew), P, E (the leak direction), m."""

    name, hypothesis = "structured_post", "P = U diag(I_2m, R) U^T, R in SO(d - 2m) (times exp(leak E))"
    params = (_D, _DC, *_FAMILY, Param("leak", "float", 0.0, lo=0, doc="distance moved off the family"))

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "N": (d - 2 * m, d - 2 * m), "E": (d, d)}

    def value(self, th):
        base = super().value(th)
        d, dc, m = self._dims()
        P = rotations.structured_post_rotation(base["U"], m, th["N"])
        leak = self.p["leak"]
        e = rotations.skew(th["E"])
        e = e / torch.linalg.svdvals(e)[..., 0].clamp_min(1e-300).unsqueeze(-1).unsqueeze(-1)
        if leak:
            P = P @ torch.linalg.matrix_exp(leak * e)
        return {**base, "P": P, "E": e}

    def satisfied(self, v, tol=1e-9):
        d, dc, m = self._dims()
        dist = rotations.distance_to_structured(v["P"], v["U"], m)
        # the distance is a square root: rounding of order eps in dist^2 shows as sqrt(eps)
        return dist <= self.p["leak"] * math.sqrt(2 * d) + math.sqrt(tol)

    def relaxed(self):
        d, dc, m = self._dims()
        return CayleyPost({"d": d, "dc": dc, "m": m, "lam": self.p["lam"]})

    symbolic_instance = Sampler.symbolic_instance  # the generic block form does not describe this family


class CayleyPost(CommutingSkew):
    """Commuting generators with an arbitrary Cayley post-rotation P = cayley(S), S skew, |S|_2 <= rho.
    Instances satisfy: P = (I - S)(I + S)^{-1}, S skew, |S|_2 <= rho.
    """

    name, hypothesis = "cayley_post", "P = (I - S)(I + S)^{-1}, S skew, |S|_2 <= rho"
    params = (_D, _DC, *_FAMILY, Param("rho", "float", 1.0, lo=0, lo_open=True, doc="operator-norm bound of S"))

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "S": (d, d)}

    def value(self, th):
        base = super().value(th)
        rho = self.p["rho"]
        s = rotations.skew(th["S"])
        n = torch.linalg.svdvals(s)[..., 0].clamp_min(1e-300)
        s = s * (rho * torch.sigmoid(n) / n).unsqueeze(-1).unsqueeze(-1)
        return {**base, "S": s, "P": rotations.cayley(s)}

    def satisfied(self, v, tol=1e-9):
        eye = torch.eye(v["P"].shape[-1], dtype=v["P"].dtype, device=v["P"].device)
        return (v["P"].transpose(-1, -2) @ v["P"] - eye).abs().flatten(1).amax(1) <= tol

    symbolic_instance = Sampler.symbolic_instance  # the generic block form does not describe this family


class ORF(Gaussian):
    """Random variable: block-orthogonal Gaussian features (m, d) (random_features.gaussian_orthogonal).
    Instances satisfy: rows orthogonal in blocks of d, marginally N(0, I).
    """

    name, hypothesis = "orf", "rows orthogonal in blocks of d, marginally N(0, I)"
    params = (Param("m", "int", positional=True, lo=1, doc="number of features"),
              Param("d", "int", positional=True, lo=1, doc="dimension"))

    def shape(self):
        return (self.p["m"], self.p["d"])

    def draw(self, b, s, gen, ctx):
        m, d = self.shape()
        return random_features.gaussian_orthogonal(m, d, generator=gen, batch=(b, s)).to(**ctx)


HYPOTHESES = (CommutingSkew, SkewFamily, NearCommutingSkew, StructuredPost, CayleyPost, ORF)
