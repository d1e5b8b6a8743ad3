"""Families of skew generators (commuting, free, nearly commuting) and post-rotations (structured, Cayley)."""

from __future__ import annotations

import math

import torch

from ...attention import rotations
from .base import Sampler, SamplerError


class CommutingSkew(Sampler):
    """Commuting skew generators in joint block form: L_k = U (+_u lambda_ku J + 0) U^T.

    Parts: L (d_c, d, d), U (d, d), freqs (d_c, m). ``U=identity`` fixes U = I (RoPE-like).
    Instances satisfy: L_k skew, [L_k, L_l] = 0, joint block form with basis U.
    """

    name = "commuting_skew"

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
        return SkewFamily({"d": d, "dc": dc, "hi": float(self.args.get("lam", 2.0))})


class SkewFamily(Sampler):
    """d_c independent skew matrices (no commutation): the relaxation of ``commuting_skew``.
    Instances satisfy: L_k skew, |L_k|_2 <= hi.
    """

    name = "skew_family"

    def shapes(self):
        d, dc = int(self.args["d"]), int(self.args["dc"])
        return {"raw": (dc, d, d)}

    def value(self, th):
        s = rotations.skew(th["raw"])
        hi = float(self.args.get("hi", 2.0))
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

    name = "near_commuting_skew"

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "E": (dc, d, d)}

    def value(self, th):
        base = super().value(th)
        e = rotations.skew(th["E"])
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

    Instances satisfy: P = U diag(I_2m, R) U^T, R in SO(d - 2m) (times exp(leak E)).
    Parts: L, U, freqs (as commuting_skew), P, E (the leak direction), m."""

    name = "structured_post"

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "N": (d - 2 * m, d - 2 * m), "E": (d, d)}

    def value(self, th):
        base = super().value(th)
        d, dc, m = self._dims()
        P = rotations.structured_post_rotation(base["U"], m, th["N"])
        leak = float(self.args.get("leak", 0.0))
        e = rotations.skew(th["E"])
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
    """Commuting generators with an arbitrary Cayley post-rotation P = cayley(S), S skew, |S|_2 <= rho.
    Instances satisfy: P = (I - S)(I + S)^{-1}, S skew, |S|_2 <= rho.
    """

    name = "cayley_post"

    def shapes(self):
        d, dc, m = self._dims()
        return {**super().shapes(), "S": (d, d)}

    def value(self, th):
        base = super().value(th)
        rho = float(self.args.get("rho", 1.0))
        s = rotations.skew(th["S"])
        n = torch.linalg.svdvals(s)[..., 0].clamp_min(1e-300)
        s = s * (rho * torch.sigmoid(n) / n).unsqueeze(-1).unsqueeze(-1)
        return {**base, "S": s, "P": rotations.cayley(s)}

    def satisfied(self, v, tol=1e-9):
        eye = torch.eye(v["P"].shape[-1], dtype=v["P"].dtype, device=v["P"].device)
        return (v["P"].transpose(-1, -2) @ v["P"] - eye).abs().flatten(1).amax(1) <= tol
