"""The result of checking one claim, the search budgets, per-claim seeds and JSON-stable rounding."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any

import torch

from ..registry import Verdict


@dataclass(frozen=True)
class Budget:
    instances: int
    restarts: int
    steps: int
    samples: int  # Monte-Carlo samples per instance for E(...)
    mc_instances: int
    necessity: bool
    polish: int = 0  # Adam steps climbing the tightness of a holding bound, once per claim (polish.py)


BUDGETS = {
    "quick": Budget(40, 0, 0, 4000, 3, False),  # random and degenerate instances only: the smoke level
    "default": Budget(256, 16, 12, 20000, 6, True, 20),
    "thorough": Budget(2048, 64, 150, 200000, 16, True, 200),
}


def claim_seed(seed: int, claim_id: str) -> int:
    """A per-claim seed: results of a claim do not depend on which other claims run."""
    return (seed * 1_000_003 + zlib.crc32(claim_id.encode())) % (2**62)


@dataclass
class Result:
    id: str
    verdict: Verdict
    expect: Verdict | None
    worst: float | None = None
    instances: int = 0
    elapsed_s: float = 0.0
    witness: dict | None = None
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def matches(self) -> bool:
        return self.expect is None or self.expect == self.verdict

    def as_dict(self) -> dict[str, Any]:
        d = {
            "id": self.id,
            "verdict": self.verdict.value,
            "expect": self.expect.value if self.expect is not None else None,
            "worst": round_floats(self.worst),
            "instances": self.instances,
            "elapsed_s": round(self.elapsed_s, 3),
            "message": self.message,
        }
        if self.witness is not None:
            d["witness"] = round_floats(self.witness)
        if self.details:
            d["details"] = round_floats(self.details)
        return d


def round_floats(x: Any, digits: int = 10) -> Any:
    """Round floats to `digits` significant digits, so JSON is byte-stable across thread counts."""
    if isinstance(x, float):
        if not math.isfinite(x) or x == 0:
            return x if math.isfinite(x) else str(x)
        return float(f"{x:.{digits}g}")
    if isinstance(x, complex):  # JSON has no complex numbers (eigenbases, U_c)
        return {"re": round_floats(x.real, digits), "im": round_floats(x.imag, digits)}
    if isinstance(x, dict):
        return {k: round_floats(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [round_floats(v, digits) for v in x]
    return x


def tensor_to_list(t: torch.Tensor) -> Any:
    return t.detach().cpu().tolist()


def values_json(values: dict) -> dict:
    out = {}
    for name, v in values.items():
        if isinstance(v, dict):
            out[name] = {k: tensor_to_list(x[0]) for k, x in v.items()}
        else:
            out[name] = tensor_to_list(v[0])
    return out
