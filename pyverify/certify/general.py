"""Certification of any rotary layer from its matrices, not only pyverify's ``ESPRAttention``.

A layer is described per head by named tensors (from an adapter function of the user's plugin, or from a
tensor file): generators ``L`` (H, d_c, d, d) — or a basis ``U`` (H, d, d) with frequencies ``freqs``
(H, d_c, m) —, a post-rotation ``P`` (H, d, d; default I), the active projector ``Pi_act`` (H, d, d;
default: read off the generators) and the ``scale`` of the logits (H,; default 1/sqrt(tr Pi_act)).
A missing head axis means one head.

Two score forms are supported: ``product`` (the logit is (Pi R(r_i) P q)^T (Pi R(r_j) P k), relative
only when the generators commute) and ``difference`` (R(r_j - r_i) inside the logit, which is a function
of the displacement for ANY generators, so a non-commuting family is not reported as breaking the
relative law). Each guarantee names the hypothesis that fails; measured translation defects and the
commutator bound are reported with the float64 rounding allowance they are compared with.
"""

from __future__ import annotations

from typing import Any

import torch

from ..attention import rotations
from .layer import TOL, HeadReport, _guarantee, observed_defect

FORMS = ("product", "difference")
KNOWN = ("L", "U", "freqs", "P", "Pi_act", "scale")


class LayerDescriptionError(ValueError):
    """The tensors do not describe a layer (missing generators, shapes that disagree)."""


def _per_head(t: torch.Tensor, rank: int, name: str) -> torch.Tensor:
    t = torch.as_tensor(t).detach().to(torch.float64)
    if t.dim() == rank:
        return t.unsqueeze(0)
    if t.dim() != rank + 1:
        raise LayerDescriptionError(f"{name}: expected {rank} dimensions (one head) or {rank + 1} (heads first), "
                                    f"got shape {tuple(t.shape)}")
    return t


def describe(tensors: dict[str, Any] | list[dict[str, Any]]) -> dict[str, torch.Tensor]:
    """Normalise an adapter's answer or a file's tensors to L, P, Pi (H, ...) and scale (H,)."""
    if isinstance(tensors, (list, tuple)):  # one dict per head
        heads = [describe(h) for h in tensors]
        if not heads:
            raise LayerDescriptionError("no heads")
        try:
            return {k: torch.cat([h[k] for h in heads]) for k in heads[0]}
        except RuntimeError as exc:
            raise LayerDescriptionError(f"heads disagree in shape: {exc}") from None
    if not isinstance(tensors, dict):
        raise LayerDescriptionError(f"expected a dict of named tensors (or a list of them), got {type(tensors).__name__}")
    unknown = [k for k in tensors if k not in KNOWN]
    if unknown:
        raise LayerDescriptionError(f"unknown tensor name(s) {', '.join(map(repr, unknown))}; known: {', '.join(KNOWN)}")
    if "L" in tensors:
        L = _per_head(tensors["L"], 3, "L")
    elif "U" in tensors and "freqs" in tensors:
        U, freqs = _per_head(tensors["U"], 2, "U"), _per_head(tensors["freqs"], 2, "freqs")
        try:
            L = rotations.commuting_generators(U, freqs, check_orthogonal=False)
        except ValueError as exc:
            raise LayerDescriptionError(f"U and freqs: {exc}") from None
    else:
        raise LayerDescriptionError("no generators: give L (H, d_c, d, d), or U (H, d, d) with freqs (H, d_c, m)")
    H, d = L.shape[0], L.shape[-1]
    if L.shape[-2] != d:
        raise LayerDescriptionError(f"L: generators must be square, got shape {tuple(L.shape)}")
    eye = torch.eye(d, dtype=torch.float64).expand(H, d, d)
    P = _per_head(tensors["P"], 2, "P") if "P" in tensors else eye
    if "Pi_act" in tensors:
        Pi = _per_head(tensors["Pi_act"], 2, "Pi_act")
    elif "U" in tensors and "freqs" in tensors:
        Pi = rotations.Pi_act(U, freqs.shape[-1])
    else:
        Pi = rotations.Pi_act_from_generators(L)
    for name, M in (("P", P), ("Pi_act", Pi)):
        if M.shape[-2:] != (d, d) or M.shape[0] not in (1, H):
            raise LayerDescriptionError(f"{name}: shape {tuple(M.shape)} does not fit {H} head(s) of size {d}")
    P, Pi = P.expand(H, d, d), Pi.expand(H, d, d)
    if "scale" in tensors:
        scale = torch.as_tensor(tensors["scale"]).detach().to(torch.float64).reshape(-1).expand(H)
    else:
        scale = torch.diagonal(Pi, dim1=-2, dim2=-1).sum(-1).clamp_min(1e-300).rsqrt()
    return {"L": L, "P": P, "Pi": Pi, "scale": scale}


def rounding_allowance(d: int, lambda_max: float, radius: float) -> float:
    """What float64 rounding may add to a measured defect of d x d rotations with |A(r)| <= 2 lambda_max
    radius: a matrix exponential and two products, each ~d eps relative to the generator's size."""
    return 64 * d * torch.finfo(torch.float64).eps * (1.0 + 2.0 * lambda_max * radius) ** 2


def logits(mats: dict[str, torch.Tensor], h: int, q, k, ri, rj, form: str) -> torch.Tensor:
    """One head's logit for batches of q, k (n, d) at positions ri, rj (n, d_c), in the given score form."""
    L, P, Pi, scale = mats["L"][h], mats["P"][h], mats["Pi"][h], mats["scale"][h]
    if form == "difference":  # (Pi P q)^T R(r_j - r_i) (Pi P k)
        qq, kk = q @ (Pi @ P).mT, k @ (Pi @ P).mT
        return torch.einsum("nd,nde,ne->n", qq, rotations.rstr(L, rj - ri), kk) * scale
    qi = (Pi @ rotations.rsp(L, ri, P) @ q[..., None]).squeeze(-1)
    kj = (Pi @ rotations.rsp(L, rj, P) @ k[..., None]).squeeze(-1)
    return (qi * kj).sum(-1) * scale


def translation_defect(mats, h: int, form: str, radius: float, n: int = 256, seed: int = 0) -> float:
    """max over random q, k (unit) and positions |r|_1 <= radius of |logit(r_i + t, r_j + t) - logit(r_i, r_j)|."""
    gen = torch.Generator().manual_seed(seed)
    d_c, d = mats["L"].shape[1], mats["L"].shape[-1]
    q, k = (torch.nn.functional.normalize(torch.randn(n, d, generator=gen, dtype=torch.float64), dim=-1) for _ in range(2))
    r = torch.randn(3, n, d_c, generator=gen, dtype=torch.float64)
    r = r / r.abs().sum(-1, keepdim=True).clamp_min(1e-300) * radius * torch.rand(3, n, 1, generator=gen, dtype=torch.float64) / 2
    ri, rj, t = r
    moved = logits(mats, h, q, k, ri + t, rj + t, form)
    return float((moved - logits(mats, h, q, k, ri, rj, form)).abs().max())


def measure_head(mats: dict[str, torch.Tensor], h: int) -> dict[str, Any]:
    L, P, Pi = mats["L"][h], mats["P"][h], mats["Pi"][h]
    d = L.shape[-1]
    eye = torch.eye(d, dtype=torch.float64)
    det = float(torch.linalg.det(P))
    Pn = eye - Pi
    return {
        "eps_comm": float(rotations.commutator_norms(L).max()) if L.shape[0] else 0.0,
        "lambda_max": float(torch.linalg.matrix_norm(L, ord=2).max()) if L.shape[0] else 0.0,
        "P_orthogonality_defect": float((P.T @ P - eye).abs().max()),
        "det_P": det,
        "P_is_reflection": det < 0,
        # the post-rotation drops out of the projected logits iff P Pi_act = Pi_act (then Pi_act P = Pi_act too)
        "post_rotation_leak": float(torch.linalg.matrix_norm(P @ Pi - Pi, ord=2)),
        "eta_mix": float(torch.linalg.matrix_norm(Pn @ P @ Pi, ord=2) + torch.linalg.matrix_norm(Pi @ P @ Pn, ord=2)),
        "Pi_projector_defect": float(torch.maximum((Pi @ Pi - Pi).abs().max(), (Pi - Pi.T).abs().max())),
        # the relative law of the product form needs R(r) to keep the active subspace: Pi_act L_k = L_k Pi_act
        "Pi_generator_defect": float((Pi @ L - L @ Pi).abs().max()) if L.shape[0] else 0.0,
        "d_act": float(torch.diagonal(Pi).sum()),
        "scale": float(mats["scale"][h]),
    }


def certify_layer(mats: dict[str, torch.Tensor], verdicts: dict[str, str], *, form: str = "product",
                  radius: float = 1.0) -> list[HeadReport]:
    if form not in FORMS:
        raise LayerDescriptionError(f"form must be one of {', '.join(FORMS)}, got {form!r}")
    reports = []
    for h in range(mats["L"].shape[0]):
        meas = measure_head(mats, h)
        rep = HeadReport(h, meas)
        allowance = rounding_allowance(mats["L"].shape[-1], meas["lambda_max"], radius)
        orthogonal = [] if meas["P_orthogonality_defect"] <= 1e-9 else [
            f"P orthogonal (|P^T P - I| = {meas['P_orthogonality_defect']:.3g})"]
        projector = [] if meas["Pi_projector_defect"] <= 1e-9 else [
            f"Pi_act an orthogonal projector (defect {meas['Pi_projector_defect']:.3g})"]
        invariant = [] if meas["Pi_generator_defect"] <= 1e-9 else [
            f"Pi_act commutes with the generators (defect {meas['Pi_generator_defect']:.3g})"]
        if form == "difference":
            rel = {"guarantee": "relative-law", "rests_on": None, "claim_verdict": None, "status": "holds",
                   "statement": "logits depend on r_j - r_i only (difference form: exact for any generators)",
                   "failing_hypotheses": []}
        else:
            rel = _guarantee("relative-law", "logits depend on r_j - r_i only (exact)", verdicts,
                             failing=([] if meas["eps_comm"] <= TOL else
                                      [f"commuting generators (eps_comm = {meas['eps_comm']:.3g})"]) + projector + invariant)
        rel["observed"] = translation_defect(mats, h, form, radius)
        rel["allowance"] = allowance
        rel["observed_within_bound"] = rel["observed"] <= allowance if rel["status"] == "holds" else None
        rep.guarantees.append(rel)
        rep.guarantees.append(_guarantee(
            "post-rotation-drops-out", "the post-rotation does not change the projected logits", verdicts,
            failing=orthogonal + projector + ([] if meas["post_rotation_leak"] <= 1e-6 else
                                              [f"P fixes the active subspace (|P Pi_act - Pi_act| = {meas['post_rotation_leak']:.3g})"])))
        if form == "product":
            bound = 0.5 * meas["eps_comm"] * radius * radius
            g = _guarantee("commutator-defect",
                           f"|R(r_i)^T R(r_j) - R(r_j - r_i)| <= 1/2 eps_comm |r_i|_1 |r_j|_1 = {bound:.4g} for |r|_1 <= {radius:g}",
                           verdicts, failing=[])
            g.update(bound=bound, observed=observed_defect(mats["L"][h], radius), allowance=allowance)
            g["observed_within_bound"] = g["observed"] <= bound + allowance
            rep.guarantees.append(g)
        reports.append(rep)
    return reports
