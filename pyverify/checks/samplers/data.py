"""``tensor_file("weights.safetensors", key="blocks.0.attn.freqs")``: a fixed tensor of the user's model.

The tensor is a constant instance (no parameters, so no gradient moves it); the other hypotheses of the
check are still drawn at random around it. Files are read without running code: safetensors, ``.npy`` /
``.npz`` with ``allow_pickle=False``, ``.pt`` / ``.pth`` with ``torch.load(weights_only=True)``; a file
carrying pickled objects is refused. Paths are relative to the registry's folder and may not leave it
(no absolute paths, no ``..`` out of it), and a file larger than ``MAX_BYTES`` is refused.
"""

from __future__ import annotations

import functools
from pathlib import Path

import torch

from .base import Param, Sampler, SamplerError

MAX_BYTES = 256 * 2**20


def _resolve(text: str, root: Path | None) -> Path:
    if root is None:
        raise SamplerError("tensor_file: no registry folder to read it from")
    root = Path(root).resolve()
    if Path(text).is_absolute():
        raise SamplerError(f"tensor_file: {text!r} is absolute; give a path relative to the registry folder {root}")
    path = (root / text).resolve()
    if not path.is_relative_to(root):
        raise SamplerError(f"tensor_file: {text!r} leaves the registry folder {root}")
    if not path.is_file():
        raise SamplerError(f"tensor_file: {text!r}: no such file under {root}")
    if path.stat().st_size > MAX_BYTES:
        raise SamplerError(f"tensor_file: {text!r} is larger than {MAX_BYTES // 2**20} MiB")
    return path


def _pick(tensors: dict, key: str, text: str) -> torch.Tensor:
    if not key:
        if len(tensors) != 1:
            raise SamplerError(f"tensor_file: {text!r} holds {len(tensors)} tensors; name one with key= "
                               f"({', '.join(sorted(map(str, tensors))[:8])})")
        key = next(iter(tensors))
    if key not in tensors:
        raise SamplerError(f"tensor_file: {text!r} has no tensor {key!r} (has: {', '.join(sorted(map(str, tensors))[:8])})")
    value = tensors[key]
    if not isinstance(value, torch.Tensor):
        raise SamplerError(f"tensor_file: {text!r} entry {key!r} is not a tensor")
    return value


def read_tensors(path: Path, text: str | None = None) -> dict:
    """Every entry of a tensor file, read without running code (a file carrying pickled objects is
    refused). Also the reader of ``pyverify certify --tensors``."""
    import numpy as np

    text = text or str(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".safetensors":
            from safetensors.torch import load_file

            return load_file(str(path), device="cpu")
        if suffix in (".npz", ".npy"):
            loaded = np.load(path, allow_pickle=False)
            arrays = {"": loaded} if suffix == ".npy" else {k: loaded[k] for k in loaded.files}
            return {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}
        if suffix in (".pt", ".pth"):
            obj = torch.load(path, map_location="cpu", weights_only=True)
            return {"": obj} if isinstance(obj, torch.Tensor) else dict(obj.state_dict() if hasattr(obj, "state_dict") else obj)
    except Exception as exc:  # noqa: BLE001 - pickled objects, corrupt archives: refused, never run
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise SamplerError(f"tensor_file: {text!r} refused (only plain tensors are read, no pickled objects): {first}") from None
    raise SamplerError(f"tensor_file: {text!r}: unknown format (.safetensors, .npz, .npy, .pt, .pth)")


@functools.lru_cache(maxsize=32)
def _load(path: Path, mtime: float, key: str, text: str) -> torch.Tensor:
    return _pick(read_tensors(path, text), key, text).detach().to(torch.float64)


class TensorFile(Sampler):
    name = "tensor_file"
    hypothesis = "the fixed tensor stored in a file beside the registry"
    params = (Param("path", "str", positional=True, doc="file relative to the registry folder"),
              Param("key", "str", "", positional=True, doc="the tensor's name inside the file"))

    def __post_init__(self) -> None:
        super().__post_init__()
        path = _resolve(self.p["path"], self.root)
        self.tensor = _load(path, path.stat().st_mtime, self.p["key"], self.p["path"])

    def shapes(self):
        return {"batch": (0,)}  # nothing to optimise: only carries the batch size

    def value(self, theta):
        b = theta["batch"].shape[0]
        t = self.tensor.to(dtype=theta["batch"].dtype, device=theta["batch"].device)
        return t.expand(b, *t.shape)

    def satisfied(self, value, tol: float = 1e-9):
        return torch.ones(value.shape[0], dtype=torch.bool, device=value.device)
