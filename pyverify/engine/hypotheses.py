"""How many instances satisfy a claim's hypotheses, and how many of those are not the zero instance.

For the Lean faithfulness audit (``provers/lean/vacuity.py``): the instances the engine draws are models
of the Lean statement's hypotheses when the registry maps them onto the check's ``given``/``assume``; if no
draw satisfies the assumes, or only draws with every input ≈ 0 do, the hypotheses are suspect.
"""

from __future__ import annotations

import torch

from ..checks.claim import CompiledClaim, RelationKind
from .context import CPU64, NumericContext
from .falsify import slice_instances
from .scoring import score_sides

DRAWS = 512  # instances per sweep assignment (at most four assignments)
DEGENERATE = 64  # of which degenerate (zeros, repeated points): the zero instance is always among them
ZERO_DRAWS = 8  # of which exact zeros of the samplers' parameters (for vec/mat: the zero input)
ZERO = 1e-9  # an input this small (max-abs) counts as zero


def count_models(compiled: CompiledClaim, seed: int = 0) -> tuple[int, int, int, int] | None:
    """(draws per assignment, draws satisfying every assume, of those the ones with a non-zero input,
    draws whose evaluation raised); None for a check without per-instance assumes (a measured order).
    An instance that raises (a singular matrix inverted, say) is skipped and counted, as in the search:
    the batch is halved until the failing instances are isolated."""
    check = compiled.check
    if compiled.kind is RelationKind.order:
        return None
    ctx = CPU64.seeded(seed)
    gen = ctx.gen
    counts = [0, 0, 0]  # satisfied, nonzero, failed
    for assignment in compiled.assignments[:4]:
        theta = assignment.init_theta(DRAWS, gen, ctx, degenerate=DEGENERATE)
        for parts in theta.values():  # the zero instance (of the samplers' parameters) is always drawn
            for v in parts.values():
                v[:ZERO_DRAWS] = 0
        randoms = assignment.draw_randoms(DRAWS, 1, gen, ctx) if assignment.randoms else None
        _count_batch(assignment, theta, randoms, DRAWS, check.tol, ctx, counts)
    satisfied, nonzero, failed = counts
    return DRAWS, satisfied, nonzero, failed


def _count_batch(compiled, theta: dict, randoms: dict | None, size: int, tol, ctx: NumericContext, counts: list[int]) -> None:
    """Add the batch's (satisfied, nonzero, failed) to ``counts``; a raising batch is halved."""
    try:
        with torch.no_grad():
            sides = compiled.evaluate(theta, ctx, randoms)
            ok = score_sides(sides, tol, torch.float64).assume_ok
            big = _input_scale(sides.values, ok.shape[0], ok.device) > ZERO
    except RuntimeError:  # torch's LinAlgError is one; a malformed check raises a DSLError/CheckError
        if size == 1:
            counts[2] += 1
            return
        half = size // 2
        for lo, hi in ((0, half), (half, size)):
            part = {n: v[lo:hi] for n, v in randoms.items()} if randoms else randoms
            _count_batch(compiled, slice_instances(theta, lo, hi), part, hi - lo, tol, ctx, counts)
        return
    counts[0] += int(ok.sum())
    counts[1] += int((ok & big).sum())


def _input_scale(values: dict, b: int, device: torch.device) -> torch.Tensor:
    """(B,) the largest |entry| over all inputs of each instance."""
    scale = torch.zeros(b, dtype=torch.float64, device=device)
    for v in values.values():
        for part in (v.values() if isinstance(v, dict) else [v]):
            if isinstance(part, torch.Tensor) and part.dim() > 0 and part.shape[0] == b and part[0].numel():
                scale = torch.maximum(scale, part.detach().abs().reshape(b, -1).amax(1).to(torch.float64))
    return scale
