"""The sampler interface and the reparameterisation helpers every sampler uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import torch


class SamplerError(ValueError):
    pass


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
