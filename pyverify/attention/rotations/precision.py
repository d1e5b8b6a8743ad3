"""The precision rule of the rotary layers: what is computed in which dtype, whatever autocast says.

Models are trained with bf16 or fp16 parameters, or with float32 parameters under ``torch.autocast``. Neither
precision can carry a rotation angle: bf16 has 8 significant bits, so beyond position 256 it cannot even
represent p + 1 (and p + 1000 is rounded to a multiple of 4 or 8), and an angle theta = p * freq of a few
hundred radians keeps no correct digit of its sine. The relative law (logits depend on r_j - r_i only) then
breaks at the level of the angle's rounding, far above the rounding of the attention itself. Hence the rule:

* positions, angles, the Cayley transforms, the basis, the folded projection and the rotation of q and k are
  computed in ``rotation_dtype(parameter dtype)``: float32 for bf16/fp16/float32 parameters, float64 for
  float64 parameters;
* autocast is switched off around those computations (``autocast_off``), since it would run their matmuls in
  bf16 again; the rotated q and k are cast back to the dtype the projection produced, so the attention
  itself runs in the precision the model asked for.

The residual defect of the relative law is then the rounding of the rotated q and k to the attention dtype,
the same as for RoPE with a float32 rotation (``tests/attention/test_layer_precision.py`` measures both).
"""

from __future__ import annotations

import contextlib

import torch
from torch import Tensor

__all__ = ["rotation_dtype", "autocast_off", "as_positions", "PRECISION_RULE"]

PRECISION_RULE = "positions, angles, basis, Cayley transforms and rotation in float32 (float64 for float64 parameters), autocast off"


def rotation_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype rotations are computed in for parameters (or activations) of ``dtype``: float32 for half
    precision and float32, float64 for float64."""
    if not dtype.is_floating_point:
        return torch.float32
    return torch.promote_types(dtype, torch.float32)


def autocast_off(device: torch.device | str):
    """A context in which autocast is disabled for ``device``'s type (a no-op where autocast does not exist)."""
    device_type = torch.device(device).type
    # autocast always exists on cpu and cuda: asking would cost a graph break under torch.compile, since
    # dynamo (torch 2.11, CUDA) cannot trace the question (seen on an H200 in benchmarks/gpu_check.sh)
    if device_type not in ("cpu", "cuda") and not torch.amp.is_autocast_available(device_type):
        return contextlib.nullcontext()
    return torch.autocast(device_type=device_type, enabled=False)


def as_positions(r, dtype: torch.dtype, device: torch.device) -> Tensor:
    """Positions as a floating tensor of the rotation dtype ``dtype`` on ``device``.  Integer positions are
    converted; float64 positions are rounded to float32 for a float32 rotation (exact for integers < 2^24)."""
    return torch.as_tensor(r, device=device).to(dtype)
