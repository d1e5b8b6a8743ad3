"""How many instances satisfy a claim's hypotheses, and how many of those are not the zero instance.

For the Lean faithfulness audit (``provers/lean/vacuity.py``): the instances the engine draws are models
of the Lean statement's hypotheses when the registry maps them onto the check's ``given``/``assume``; if no
draw satisfies the assumes, or only draws with every input ≈ 0 do, the hypotheses are suspect.
"""

from __future__ import annotations

import torch

from ..checks.compiled import compile_check, sweep
from ..registry import Claim
from .claim import relation_kind
from .scoring import score_sides

DRAWS = 512  # instances per sweep assignment (at most four assignments)
DEGENERATE = 64  # of which degenerate (zeros, repeated points): the zero instance is always among them
ZERO_DRAWS = 8  # of which exact zeros of the samplers' parameters (for vec/mat: the zero input)
ZERO = 1e-9  # an input this small (max-abs) counts as zero


def count_models(claim: Claim, conventions: dict[str, str], seed: int = 0) -> tuple[int, int, int] | None:
    """(draws per assignment, draws satisfying every assume, of those the ones with a non-zero input);
    None for a check without per-instance assumes (a measured order)."""
    check = claim.check
    kind = relation_kind(claim)
    if kind == "order":
        return None
    ctx = {"dtype": torch.float64, "device": torch.device("cpu")}
    satisfied = nonzero = 0
    gen = torch.Generator().manual_seed(seed)
    for dims in sweep(check)[:4]:
        compiled = compile_check(check, dims, kind, conventions)
        theta = compiled.init_theta(DRAWS, gen, ctx, degenerate=DEGENERATE)
        for parts in theta.values():  # the zero instance (of the samplers' parameters) is always drawn
            for v in parts.values():
                v[:ZERO_DRAWS] = 0
        randoms = compiled.draw_randoms(DRAWS, 1, gen, ctx) if compiled.randoms else None
        with torch.no_grad():
            sides = compiled.evaluate(theta, ctx, randoms)
            ok = score_sides(sides, check.tol, torch.float64).assume_ok
            big = _input_scale(sides.values, ok.shape[0]) > ZERO
        satisfied += int(ok.sum())
        nonzero += int((ok & big).sum())
    return DRAWS, satisfied, nonzero


def _input_scale(values: dict, b: int) -> torch.Tensor:
    """(B,) the largest |entry| over all inputs of each instance."""
    scale = torch.zeros(b, dtype=torch.float64)
    for v in values.values():
        for part in (v.values() if isinstance(v, dict) else [v]):
            if isinstance(part, torch.Tensor) and part.dim() > 0 and part.shape[0] == b and part[0].numel():
                scale = torch.maximum(scale, part.detach().abs().reshape(b, -1).amax(1).to(torch.float64))
    return scale
