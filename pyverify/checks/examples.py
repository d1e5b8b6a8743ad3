"""``examples:`` of a check — fixed instances evaluated before the random ones (the regression form of a
witness; ``pyverify check ID --pin-witness`` writes them).

An example gives every hypothesis of ``given`` a concrete value: a number, a nested list, or a
``'tensor_file(...)'`` string (read like the sampler of that name, below the registry folder). An optional
``_dims`` mapping fixes the sweep variables; without it the first sweep assignment whose shapes fit is
used. The values are checked against the hypotheses' shapes and their conditions (an orthogonal U must
be orthogonal) when the registry loads, so a wrong example is a problem naming file, line and claim.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from .samplers import Sampler, SamplerError, parse_sampler

DIMS_KEY = "_dims"  # never a given name (those may not start with _)
CPU64 = {"dtype": torch.float64, "device": torch.device("cpu")}


class ExampleError(ValueError):
    """An example that does not fit its check; ``key`` is the path below ``check`` (for the line)."""

    def __init__(self, message: str, key: tuple[str, ...]):
        super().__init__(message)
        self.key = key


def _expected(sampler: Sampler) -> Any:
    """One instance's value of the hypothesis (its shape is what an example must have)."""
    gen = torch.Generator(device="cpu").manual_seed(0)  # examples run on the CPU64 path
    value = sampler.value(sampler.init(1, gen, CPU64))
    return {k: v[0] for k, v in value.items()} if isinstance(value, dict) else value[0]


def _tensor(raw: Any, spec_dims: dict, where: str, key: tuple[str, ...], root: Path | None) -> torch.Tensor:
    if isinstance(raw, str):
        if not raw.strip().startswith("tensor_file("):
            raise ExampleError(f"{where}: a string value must be 'tensor_file(...)', got {raw!r}", key)
        try:
            return parse_sampler(raw, spec_dims, root).tensor.to(torch.float64)
        except SamplerError as exc:
            raise ExampleError(f"{where}: {exc}", key) from None
    try:
        return torch.tensor(raw, dtype=torch.float64, device="cpu")
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ExampleError(f"{where}: not a number or a rectangular nested list ({exc})", key) from None


def _value(name: str, raw: Any, sampler: Sampler, dims: dict, i: int, root: Path | None) -> Any:
    """The example's value of one hypothesis, with the batch axis of one instance; shapes must fit."""
    key = ("examples", str(i), name)
    where = f"examples[{i}] {name}"
    expected = _expected(sampler)
    if isinstance(expected, dict):
        if not isinstance(raw, dict) or set(raw) != set(expected):
            raise ExampleError(f"{where}: hypothesis {sampler.name} is composite; give a mapping with the "
                               f"parts {', '.join(sorted(expected))}", key)
        parts = {k: _tensor(raw[k], dims, f"{where}.{k}", key, root) for k in expected}
        for k, t in parts.items():
            if t.shape != expected[k].shape:
                raise ExampleError(f"{where}.{k}: shape {tuple(t.shape)}, the hypothesis {sampler.name} "
                                   f"has shape {tuple(expected[k].shape)}", key)
        return {k: t.unsqueeze(0) for k, t in parts.items()}
    t = _tensor(raw, dims, where, key, root)
    if t.shape != expected.shape:
        raise ExampleError(f"{where}: shape {tuple(t.shape)}, the hypothesis {sampler.name} has shape "
                           f"{tuple(expected.shape)}", key)
    return t.unsqueeze(0)


def _try_assignment(example: dict, givens: dict[str, Sampler], dims: dict, i: int, root: Path | None) -> dict[str, Any]:
    values = {}
    for name, sampler in givens.items():
        values[name] = _value(name, example[name], sampler, dims, i, root)
        try:
            inside = bool(torch.as_tensor(sampler.satisfied(values[name]), device="cpu").all())
        except NotImplementedError:  # a hypothesis that is only a shape (nothing more to check)
            inside = True
        if not inside:
            raise ExampleError(f"examples[{i}] {name}: the value is not in the hypothesis "
                               f"{sampler.describe() if hasattr(sampler, 'describe') else sampler.name}",
                               ("examples", str(i), name))
    return values


def instance(example: dict, assignments: list[tuple[dict, dict[str, Sampler]]], i: int,
             root: Path | None = None) -> tuple[int, dict[str, Any]]:
    """(index of the sweep assignment, values with a batch axis of 1) for example ``i``.

    ``assignments``: per sweep assignment, its dims and its non-random hypotheses; ``root``: the
    registry's folder, below which a ``'tensor_file(...)'`` value is read."""
    if not isinstance(example, dict):
        raise ExampleError(f"examples[{i}]: an example is a mapping of hypothesis names to values", ("examples", str(i)))
    givens0 = assignments[0][1]
    fixed_dims = example.get(DIMS_KEY)
    names = [k for k in example if k != DIMS_KEY]
    missing = [n for n in givens0 if n not in example]
    unknown = [n for n in names if n not in givens0]
    if missing or unknown:
        raise ExampleError(f"examples[{i}]: every hypothesis of `given` needs a value (missing: "
                           f"{', '.join(missing) or 'none'}; not in `given`: {', '.join(unknown) or 'none'})",
                           ("examples", str(i)))
    candidates = list(enumerate(assignments))
    if fixed_dims is not None:
        if not isinstance(fixed_dims, dict):
            raise ExampleError(f"examples[{i}]: {DIMS_KEY} must map sweep variables to values", ("examples", str(i)))
        candidates = [(k, a) for k, a in candidates if all(a[0].get(n) == v for n, v in fixed_dims.items())]
        if not candidates:
            raise ExampleError(f"examples[{i}]: {DIMS_KEY} {fixed_dims} is no assignment of the sweep `dims`",
                               ("examples", str(i)))
    first_error = None
    for k, (dims, givens) in candidates:
        try:
            return k, _try_assignment(example, givens, dims, i, root)
        except ExampleError as exc:
            first_error = first_error or exc
    raise first_error


def check_examples(check, assignments: list[tuple[dict, dict[str, Sampler]]], root: Path | None = None) -> None:
    """Load-time: every example fits some sweep assignment (raises the first ExampleError)."""
    for i, example in enumerate(check.examples):
        instance(example, assignments, i, root)
