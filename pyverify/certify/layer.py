"""Certification of a trained ESPR attention layer: measure what the theorems assume, and state which
guarantees then hold — each resting on a registry claim (``rests_on``: the table a content package
registered for the layer) whose verdict the engine computes in this run.

``measure`` reads the parameters of ``ESPRAttention`` (a module or its state dict) per head:

* ``eps_comm`` = max_{k,l} |[L_k, L_l]|_2 (0 for commuting generators),
* ``lambda_max`` = max |lambda_ku| (frequencies), ``rho`` = |S|_2 of the Cayley post-rotation parameter,
* ``eta_mix`` = |B| + |C| of U^T P U, ``dist_A`` = Frobenius distance of P to the structured family,
* the orthogonality defects of U and P (rounding).

``certify`` turns these into guarantees: the exact relative law (needs eps_comm = 0), the post-rotation
dropping out of the logits (needs dist_A = 0), and for non-commuting generators the defect bound
|R(r_i)^T R(r_j) - R(r_j - r_i)| <= 1/2 eps_comm |r_i|_1 |r_j|_1 (the sharpened commutator bound).
A guarantee is reported only when the claim it rests on is `holds`/`symbolic`/`proved` in this run; each
hypothesis that fails is named. The measured defect on random positions is reported beside the bound.

Precision: the relative law is exact in real arithmetic; the layer computes in its own precision (bf16 or
fp16 parameters and attention, float32 rotation: ``rotations.precision``). The relative-law guarantee
therefore names that precision and measures, with the layer's own rotation code (``rotate_qk``), how far a
common shift of the positions moves a logit of unit q, k, against the rounding allowance of that arithmetic
(``precision_allowance``); beyond the allowance the guarantee does not hold at that precision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from .. import contributions
from ..attention import rotations
from ..attention.rotations.layer import rotate_qk
from ..attention.rotations.precision import PRECISION_RULE, as_positions, rotation_dtype

TOL = 1e-9
MECHANISM = "pyverify.attention.rotations.layer.ESPRAttention"  # whose registered guarantees certify reports


def rests_on() -> dict[str, str]:
    """Guarantee -> the id of the claim it rests on, as the installed content registered it for the layer
    (empty when none did: then no guarantee can be established)."""
    found = contributions.GUARANTEES.get(MECHANISM)
    return dict(found.rests_on) if found is not None else {}


def layer_matrices(state: dict[str, torch.Tensor], prefix: str = "") -> dict[str, Any]:
    """U (H,d,d), L (H,d_c,d,d), P (H,d,d), S (post-rotation parameter) from an ESPRAttention state dict."""
    def get(name):
        return state.get(prefix + name)

    freqs = get("freqs")
    if freqs is None:
        raise ValueError(f"no '{prefix}freqs' in the state dict: not an ESPRAttention layer (keys: {', '.join(list(state)[:8])} ...)")
    freqs = freqs.double()
    H, d_c, m = freqs.shape
    qkv = get("qkv.weight")
    basis = get("basis_skew")
    d = basis.shape[-1] if basis is not None else (qkv.shape[0] // (3 * H) if qkv is not None else 2 * m)
    eye = torch.eye(d, dtype=torch.float64).expand(H, d, d)
    U = rotations.cayley(rotations.skew(basis.double())) if basis is not None else eye
    L = rotations.commuting_generators(U, freqs, check_orthogonal=False)
    pert = get("generator_perturbation")
    if pert is not None:
        L = L + rotations.skew(pert.double())
    post = get("post_skew")
    S = rotations.skew(post.double()) if post is not None else None
    if S is None:
        P = eye
    else:
        Q = rotations.cayley(S)
        if Q.shape[-1] != d:  # structured mode: diag(I_2m, Q_null) in U's basis
            a = d - Q.shape[-1]
            full = torch.eye(d, dtype=torch.float64).repeat(H, 1, 1)
            full[:, a:, a:] = Q
            Q = full
        P = U @ Q @ U.transpose(-1, -2)
    return {"U": U, "L": L, "P": P, "S": S, "m": m, "d": d, "d_c": d_c, "heads": H}


@dataclass
class HeadReport:
    head: int
    measured: dict[str, float]
    guarantees: list[dict[str, Any]] = field(default_factory=list)


def measure(mats: dict[str, Any]) -> list[dict[str, float]]:
    U, L, P, S, m = mats["U"], mats["L"], mats["P"], mats["S"], mats["m"]
    eye = torch.eye(mats["d"], dtype=torch.float64)
    out = []
    for h in range(mats["heads"]):
        comm = rotations.commutator_norms(L[h])
        out.append({
            "eps_comm": float(comm.max()),
            "lambda_max": float(L[h].new_tensor(0) if L[h].numel() == 0 else torch.linalg.matrix_norm(L[h], ord=2).max()),
            "rho": float(torch.linalg.matrix_norm(S[h], ord=2)) if S is not None else 0.0,
            "eta_mix": float(rotations.mixing(P[h], U[h], m)),
            "dist_A": float(rotations.distance_to_structured(P[h], U[h], m)),
            "U_orthogonality_defect": float((U[h].T @ U[h] - eye).abs().max()),
            "P_orthogonality_defect": float((P[h].T @ P[h] - eye).abs().max()),
        })
    return out


def observed_defect(L: torch.Tensor, radius: float, n: int = 256, seed: int = 0) -> float:
    """max |R(r_i)^T R(r_j) - R(r_j - r_i)|_2 over random positions with |r|_1 <= radius."""
    gen = torch.Generator().manual_seed(seed)
    d_c = L.shape[0]
    r = torch.randn(2, n, d_c, generator=gen, dtype=torch.float64)
    r = r / r.abs().sum(-1, keepdim=True) * radius * torch.rand(2, n, 1, generator=gen, dtype=torch.float64)
    ri, rj = r[0], r[1]
    lhs = rotations.rstr(L, ri).transpose(-1, -2) @ rotations.rstr(L, rj)
    return float(torch.linalg.matrix_norm(lhs - rotations.rstr(L, rj - ri), ord=2).max())


def precision_allowance(attention: torch.dtype, rotation: torch.dtype, d_c: int, lambda_max: float,
                        radius: float, scale: float) -> float:
    """The largest change of a logit of unit q, k under a common shift t of the positions (|r|_1, |t|_1 <= radius)
    that rounding explains in the layer's arithmetic. With u_r, u_a the unit roundoffs of the rotation and
    attention dtypes: an angle sum_k r_k f_k at |r + t|_1 <= 2 radius, rounded to u_r with its positions, is off by
    at most (d_c + 2) u_r lambda_max 2 radius; cos, sin (2 ulp) and the plane products add at most 12 u_r; so a
    rotated unit vector is off by e_r <= 2 (that + 12 u_r), and by u_a more once cast to the attention dtype. Each
    logit is then within 2 e (1 + e) of the exact one, e = e_r + u_a, and a shift compares two logits."""
    u_r, u_a = torch.finfo(rotation).eps / 2, torch.finfo(attention).eps / 2
    e = 2 * ((d_c + 2) * u_r * lambda_max * 2 * radius + 12 * u_r) + u_a
    return 4 * scale * e * (1 + e)


def translation_defect_at_precision(freqs: torch.Tensor, attention: torch.dtype, radius: float, scale: float,
                                    n: int = 256, seed: int = 0) -> float:
    """max |logit(r_i + t, r_j + t) - logit(r_i, r_j)| over random unit q, k in the attention dtype and positions
    |r|_1, |t|_1 <= radius, q and k rotated by the layer's own code in its rotation dtype (one head's freqs
    (d_c, m)); the logits of the rotated, rounded vectors are formed in float64 (the attention's own rounding
    of the dot product is RoPE's too and not the rotation's)."""
    gen = torch.Generator().manual_seed(seed)
    d_c, m = freqs.shape
    rot = rotation_dtype(attention)
    qk = torch.nn.functional.normalize(torch.randn(1, n, 2, 1, 2 * m, generator=gen, dtype=torch.float64), dim=-1)
    qk = qk.to(attention)
    r = torch.randn(3, n, d_c, generator=gen, dtype=torch.float64)
    r = r / r.abs().sum(-1, keepdim=True).clamp_min(1e-300) * radius * torch.rand(3, n, 1, generator=gen, dtype=torch.float64)
    ri, rj, t = r

    def logits(pi: torch.Tensor, pj: torch.Tensor) -> torch.Tensor:
        qi = rotate_qk(qk, as_positions(pi[None], rot, qk.device), freqs[None], m)[0, :, 0, 0]
        kj = rotate_qk(qk, as_positions(pj[None], rot, qk.device), freqs[None], m)[0, :, 1, 0]
        return scale * (qi.double() * kj.double()).sum(-1)

    with torch.no_grad():
        return float((logits(ri + t, rj + t) - logits(ri, rj)).abs().max())


def _precision_of(state: dict[str, torch.Tensor], prefix: str, attention: torch.dtype | None) -> dict[str, Any]:
    params = state[prefix + "freqs"].dtype
    attention = params if attention is None else attention
    return {"parameters": str(params).removeprefix("torch."), "rotation": str(rotation_dtype(params)).removeprefix("torch."),
            "attention": str(attention).removeprefix("torch."), "rule": PRECISION_RULE}


def certify(state: dict[str, torch.Tensor], verdicts: dict[str, str], prefix: str = "", radius: float = 1.0,
            attention_dtype: torch.dtype | None = None) -> list[HeadReport]:
    """Per-head reports.  attention_dtype: the dtype the layer's attention runs in (default: the parameters';
    torch.bfloat16 for float32 parameters trained under bf16 autocast)."""
    mats = layer_matrices(state, prefix)
    precision = _precision_of(state, prefix, attention_dtype)
    attention = getattr(torch, precision["attention"])
    commuting = state.get(prefix + "generator_perturbation") is None  # the fast path the precision rule is about
    reports = []
    for h, meas in enumerate(measure(mats)):
        rep = HeadReport(h, meas)
        failing = [] if meas["eps_comm"] <= TOL else [f"commuting generators (eps_comm = {meas['eps_comm']:.3g})"]
        at = f"parameters {precision['parameters']}, rotation {precision['rotation']}, attention {precision['attention']}"
        rel = {"precision": precision}
        if commuting:
            freqs = state[prefix + "freqs"][h]
            scale = (2 * mats["m"]) ** -0.5
            rel["observed"] = translation_defect_at_precision(freqs, attention, radius, scale)
            rel["allowance"] = precision_allowance(attention, rotation_dtype(freqs.dtype), mats["d_c"],
                                                   float(freqs.double().abs().max()), radius, scale)
            rel["observed_within_bound"] = rel["observed"] <= rel["allowance"]
            if not rel["observed_within_bound"]:
                failing.append(f"the layer's arithmetic keeps the angles (a shift moves a logit by {rel['observed']:.3g} "
                               f"> rounding allowance {rel['allowance']:.3g})")
        rep.guarantees.append({**_guarantee(
            "relative-law", f"logits depend on r_j - r_i only (exact; at the layer's precision, {at}, up to rounding)",
            verdicts, failing=failing), **rel})
        rep.guarantees.append(_guarantee(
            "post-rotation-drops-out", "the post-rotation does not change the projected logits", verdicts,
            failing=[] if meas["dist_A"] <= 1e-6 else [f"P in the structured family (distance {meas['dist_A']:.3g})"]))
        bound = 0.5 * meas["eps_comm"] * radius * radius
        g = _guarantee("commutator-defect",
                       f"|R(r_i)^T R(r_j) - R(r_j - r_i)| <= 1/2 eps_comm |r_i|_1 |r_j|_1 = {bound:.4g} for |r|_1 <= {radius:g}",
                       verdicts, failing=[])
        g["bound"] = bound
        g["observed"] = observed_defect(mats["L"][h], radius)
        # the observed defect carries float64 rounding (~1e-15); beyond that it must respect the bound
        g["allowance"] = 1e-12
        g["observed_within_bound"] = g["observed"] <= bound + g["allowance"]
        rep.guarantees.append(g)
        reports.append(rep)
    return reports


def _guarantee(key: str, text: str, verdicts: dict[str, str], failing: list[str]) -> dict[str, Any]:
    cid = rests_on().get(key)
    verdict = verdicts.get(cid)
    sound = verdict in ("holds", "symbolic", "proved")
    status = "holds" if sound and not failing else ("hypothesis fails" if sound else "not established")
    return {"guarantee": key, "statement": text, "rests_on": cid, "claim_verdict": verdict,
            "failing_hypotheses": failing, "status": status}
