"""The numeric context of a check: dtype, device and the random stream, in one typed value.

Every tensor the engine creates for a claim comes from its context (``torch.randn(..., **ctx)``: the
context is a mapping of exactly the keywords torch's factory functions take), and every random draw
from the context's generator, which lives on the context's device.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass(frozen=True)
class NumericContext(Mapping):
    dtype: torch.dtype = torch.float64
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    generator: torch.Generator | None = field(default=None, compare=False, repr=False)

    def seeded(self, seed: int) -> "NumericContext":
        """The same dtype and device with a fresh generator on that device, seeded."""
        return dataclasses.replace(self, generator=torch.Generator(device=self.device).manual_seed(seed))

    @property
    def gen(self) -> torch.Generator:
        if self.generator is None:
            raise ValueError("this numeric context has no random stream: use .seeded(seed)")
        return self.generator

    # the keywords of torch's factory functions
    def __getitem__(self, key: str) -> Any:
        if key == "dtype":
            return self.dtype
        if key == "device":
            return self.device
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(("dtype", "device"))

    def __len__(self) -> int:
        return 2


def on(device: str | torch.device = "cpu") -> NumericContext:
    """The float64 context of the checks on ``device``."""
    return NumericContext(torch.float64, torch.device(device))


# the independent one-instance path: a re-check, a certificate, a shrink run here whatever the device
CPU64 = NumericContext(torch.float64, torch.device("cpu"))
