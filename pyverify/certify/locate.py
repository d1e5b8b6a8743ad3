"""Where a failing module's defect is: the rotation the layer applies, read off column by column at the
positions 0..n-1, and its logits, compared with the shapes common defects take. Each finding is a sentence
a user can act on; a correct layer gives none (every comparison is judged at the layer's precision)."""

from __future__ import annotations

import torch

from .module import BuiltLayer, RotarySpec
from .reference import plane_coordinates, declared_frequencies, reference_logits, reference_rotate


def _read_rotation(layer: BuiltLayer, positions: torch.Tensor, side: str, heads: int, d: int) -> torch.Tensor:
    """(heads, seq, d, d): the layer's rotation at each position, a fresh module per side."""
    basis = torch.eye(d, dtype=layer.dtype)[:, None, None, :].expand(d, heads, positions.shape[0], d).contiguous()
    return layer.rotate(layer.cold(), basis, positions, side).to(torch.float64).permute(1, 2, 3, 0)


def _reference(spec: RotarySpec, positions: torch.Tensor, side: str, heads: int, d: int) -> torch.Tensor:
    basis = torch.eye(d, dtype=torch.float64)[:, None, None, :].expand(d, heads, positions.shape[0], d)
    return reference_rotate(spec, basis, positions, side, post=False).permute(1, 2, 3, 0)


def _close(a: torch.Tensor, b: torch.Tensor, tol: float) -> bool:
    return bool((a - b).abs().max() <= tol)


def locate(layer: BuiltLayer, seq: int, u: float) -> list[str]:
    """Sentences naming the shape of the defect; empty when the layer's rotation and logits match."""
    spec = layer.spec(layer.prototype)
    x = layer.probe(layer.cold(), 1, seq, torch.Generator().manual_seed(7))
    q, k = (t.to(torch.float64) for t in layer.project(layer.cold(), x))
    heads, d = q.shape[1], q.shape[-1]
    positions = torch.arange(seq) if layer.adapter.positions == "integer" else torch.arange(seq, dtype=torch.float64)
    f = declared_frequencies(spec, heads, d)
    decay_max = 1.0
    if spec.decay is not None:
        zeta = torch.as_tensor(spec.decay).detach().to(torch.float64)
        decay_max = float(torch.maximum(zeta, 1 / zeta).max() ** (seq / spec.decay_scale))
    tol = 64 * u * (d + seq * float(f.abs().max()) + 4) * decay_max ** 2
    found: list[str] = []
    read = {s: _read_rotation(layer, positions, s, heads, d) for s in ("query", "key")}
    ref = {s: _reference(spec, positions, s, heads, d) for s in ("query", "key")}
    rotation_right = all(_close(read[s], ref[s], tol) for s in read)
    if not rotation_right:
        found += _rotation_findings(spec, read, ref, positions, heads, d, f, tol)
    logits = layer.logits(layer.cold(), x, positions).to(torch.float64)
    expected = reference_logits(spec, q, k, positions)
    scale = float(expected.abs().max().clamp_min(1e-300))
    if rotation_right and not _close(logits, expected, tol * scale):
        if _close(logits, expected.mT, tol * scale):
            found.append("the logits equal the reference with queries and keys exchanged (the score matrix is "
                         "transposed, k q^T for q k^T): check the order of the contraction")
        else:
            qr, kr = reference_rotate(spec, q, positions, "query"), reference_rotate(spec, k, positions, "key")
            sums = qr.sum(-1)[..., :, None] * kr.sum(-1)[..., None, :] * spec.scale
            if _close(logits, sums, tol * scale):
                found.append("the logits equal (sum of q)(sum of k): a product of sums instead of the inner "
                             "product q^T k — check the contraction (einsum indices)")
    if spec.post_rotation is not None:
        P = torch.as_tensor(spec.post_rotation).detach().to(torch.float64).expand(heads, d, d)
        defect = (P.mT @ P - torch.eye(d, dtype=torch.float64)).abs().amax((-2, -1))
        for h in (defect > tol).nonzero().flatten().tolist():
            found.append(f"head {h}'s post-rotation is not orthogonal (|P^T P - I| = {float(defect[h]):.3g}): "
                         "it does not drop out of the logits — check how it is parameterised or trained")
    warm = layer.cold()
    layer.logits(warm, x, (3 * positions + 1).flip(0))  # not a common shift: a served stale table shows
    if not _close(layer.logits(warm, x, positions).to(torch.float64), logits, tol * scale):
        found.append("the logits of a call depend on the call before it: a cache that does not key on the "
                     "positions (offsets) serves an earlier call's table")
    return found


def _rotation_findings(spec, read, ref, positions, heads, d, f, tol) -> list[str]:
    found = []
    m = f.shape[-1]
    if _close(read["query"], ref["query"], tol):
        if _close(read["key"], _reference(spec, -positions, "key", heads, d), tol):
            return ["the keys are rotated by -r while the queries are rotated by +r (a key-only sign flip): "
                    "check the sign of the key's angle or position"]
    if spec.decay is not None and _close(read["query"], ref["key"], tol) and _close(read["key"], ref["query"], tol):
        return ["the decay is applied to the wrong side: the query is divided and the key multiplied by "
                "zeta^(r/scale) — exchange them"]
    for side in ("query", "key"):
        gram = read[side].mT @ read[side]
        target = ref[side].mT @ ref[side]
        ratio = torch.diagonal(gram, dim1=-2, dim2=-1) / torch.diagonal(target, dim1=-2, dim2=-1)
        c = float(ratio.mean().sqrt())
        if abs(c - 1) > tol and _close(read[side], c * ref[side], tol * c):
            return [f"the rotated vectors are scaled by {c:.4g} (the rotation is not orthogonal): remove the factor"]
    a, b = plane_coordinates(spec, m)
    at_one = int((positions == 1).nonzero()[0]) if bool((positions == 1).any()) else None
    wrong = []
    for p in range(m):
        idx = torch.tensor([int(a[p]), int(b[p])])
        block = read["query"][..., idx[:, None], idx]
        if not _close(block, ref["query"][..., idx[:, None], idx], tol):
            turned = "" if at_one is None else (
                f" (turns {float(torch.atan2(block[0, at_one, 1, 0], block[0, at_one, 0, 0])):.4g} per position, "
                f"declared {float(f[0, p]):.4g})")
            wrong.append(f"plane {p} (coordinates {int(a[p])}, {int(b[p])}){turned}")
    if wrong and len(wrong) < m:
        found.append("the rotation differs from the declared frequencies in " + "; ".join(wrong)
                     + ": check how the frequency table is built")
    return found
