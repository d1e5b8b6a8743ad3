"""The result of checking one claim — a verdict with typed evidence, built once and never changed —,
per-claim seeds and JSON-stable rounding."""

from __future__ import annotations

import dataclasses
import math
import zlib
from dataclasses import dataclass
from typing import Any, TypeVar

import torch

from ..registry import Verdict
from .evidence import Evidence, Witness

E = TypeVar("E", bound=Evidence)


def claim_seed(seed: int, claim_id: str) -> int:
    """A per-claim seed: results of a claim do not depend on which other claims run."""
    return (seed * 1_000_003 + zlib.crc32(claim_id.encode())) % (2**62)


@dataclass(frozen=True)
class Outcome:
    """What a judge decided: the verdict, the message that explains it, the worst figure (relative error,
    tightness, constant, slope) and the evidence it rests on."""

    verdict: Verdict
    message: str
    worst: float | None = None
    evidence: tuple[Evidence, ...] = ()

    def noting(self, text: str) -> "Outcome":
        """The same outcome, its message extended (a later step that failed after a confirmed refutation)."""
        return dataclasses.replace(self, message=self.message + text)


@dataclass(frozen=True)
class Result:
    """One claim's result. ``evidence`` in the order it was found; the JSON's ``witness`` and ``details``
    are derived from it (``Evidence.details``, ``Witness.witness``)."""

    id: str
    verdict: Verdict
    expect: Verdict | None
    worst: float | None = None
    instances: int = 0
    elapsed_s: float = 0.0
    message: str = ""
    evidence: tuple[Evidence, ...] = ()

    @property
    def matches(self) -> bool:
        return self.expect is None or self.expect == self.verdict

    def find(self, kind: type[E]) -> E | None:
        """The first evidence of this kind, if any."""
        return next((e for e in self.evidence if isinstance(e, kind)), None)

    @property
    def witness(self) -> dict[str, Any] | None:
        found = self.find(Witness)
        return found.witness() if found is not None else None

    @property
    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for e in self.evidence:
            out.update(e.details())
        return out

    def with_evidence(self, *more: Evidence) -> "Result":
        return dataclasses.replace(self, evidence=self.evidence + more)

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
        witness, details = self.witness, self.details
        if witness is not None:
            d["witness"] = round_floats(witness)
        if details:
            d["details"] = round_floats(details)
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
