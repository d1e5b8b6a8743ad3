"""The sampler interface, the declaration of sampler parameters, and the reparameterisation helpers.

Every sampler declares its parameters ONCE, as a tuple of ``Param`` records (name, type, default,
positional order, valid range or choices) plus ``Constraint`` records between parameters. Binding
(``Sampler.__post_init__``) checks the arguments against that declaration eagerly, the way Hypothesis
strategies check theirs: an unknown or misspelt keyword, a value of the wrong type or out of range is a
``SamplerError`` naming the accepted parameters, never a silently used default.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar

import torch


# dtype and device: the keywords of torch's factory functions (``torch.randn(..., **ctx)``); the engine's
# NumericContext is one
TensorKwargs = Mapping[str, Any]


class SamplerError(ValueError):
    pass


class SymbolicUnsupported(Exception):
    """No symbolic (SymPy) instance for this hypothesis or operation: the prover does not attempt it."""


class _Required:
    def __repr__(self) -> str:
        return "required"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Derived:
    """A default computed from the other parameters (``m = d // 2``); ``text`` is how docs show it."""

    text: str
    compute: Callable[[dict[str, Any]], Any]

    def __repr__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Param:
    """One declared sampler parameter.

    ``kind`` is ``int``, ``float``, ``str`` or ``choice`` (one of ``choices``); ``lo``/``hi`` bound the value
    (``lo_open`` makes the lower bound strict); ``positional`` parameters may be given by position, in
    declaration order; a ``variadic`` parameter takes all positional arguments as a list.
    """

    name: str
    kind: str
    default: Any = REQUIRED
    positional: bool = False
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    choices: tuple = ()
    variadic: bool = False
    doc: str = ""

    def describe(self) -> str:
        if self.kind == "choice":
            text = f"{self.name} in {{{', '.join(repr(c) for c in self.choices)}}}"
        else:
            text = f"{self.name}: {self.kind}"
            if self.lo is not None:
                text += f" {'>' if self.lo_open else '>='} {self.lo:g}"
            if self.hi is not None:
                text += f" <= {self.hi:g}"
        if self.variadic:
            text = f"*{text}"
        if self.default is not REQUIRED:
            text += f" = {self.default!r}"
        return text

    def check(self, sampler: str, value: Any) -> Any:
        """The value converted to the declared type; SamplerError when it does not fit."""
        if self.variadic:
            return [self._one(sampler, v) for v in value]
        return self._one(sampler, value)

    def _one(self, sampler: str, value: Any) -> Any:
        where = f"{sampler}: parameter {self.name}"
        if self.kind == "str":
            if not isinstance(value, str):
                raise SamplerError(f"{where} must be a string, got {value!r}")
            return value
        if self.kind == "choice":
            if isinstance(value, bool) or value not in self.choices:
                raise SamplerError(f"{where} = {value!r} is not one of {', '.join(repr(c) for c in self.choices)}")
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SamplerError(f"{where} must be {'an integer' if self.kind == 'int' else 'a number'}, got {value!r}")
        if self.kind == "int":
            if not isinstance(value, int):
                raise SamplerError(f"{where} must be an integer, got {value!r}")
        else:
            value = float(value)
        if self.lo is not None and (value < self.lo or (self.lo_open and value == self.lo)):
            raise SamplerError(f"{where} = {value!r} is out of range: {self.describe()}")
        if self.hi is not None and value > self.hi:
            raise SamplerError(f"{where} = {value!r} is out of range: {self.describe()}")
        return value


@dataclass(frozen=True)
class Constraint:
    """A condition between parameters (``lo <= hi``), checked after each parameter on its own."""

    text: str
    names: tuple[str, ...]  # the parameters it relates (shown with their values when it fails)
    holds: Callable[[dict[str, Any]], bool]


def bind(cls: type["Sampler"], args: dict[str, Any]) -> dict[str, Any]:
    """Every declared parameter of ``cls`` -> its value (given, or the default); SamplerError otherwise."""
    declared = {p.name: p for p in cls.params}
    for key in args:
        if key not in declared:
            close = difflib.get_close_matches(str(key), list(declared), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SamplerError(f"{cls.name}: unknown parameter {key!r}{hint}; accepted: {cls.signature()}")
    out: dict[str, Any] = {}
    for p in cls.params:
        if p.name in args:
            out[p.name] = p.check(cls.name, args[p.name])
        elif p.default is REQUIRED:
            raise SamplerError(f"{cls.name} needs parameter {p.name!r}; accepted: {cls.signature()}")
    for p in cls.params:  # derived defaults see every given value
        if p.name not in out:
            out[p.name] = p.check(cls.name, p.default.compute(out)) if isinstance(p.default, Derived) else p.default
    for c in cls.constraints:
        if not c.holds(out):
            shown = ", ".join(f"{k}={out[k]!r}" for k in c.names)
            raise SamplerError(f"{cls.name}: needs {c.text} (got {shown}); accepted: {cls.signature()}")
    return out


def skew(m: torch.Tensor) -> torch.Tensor:
    """The skew-symmetric part (M - M^T)/2 of square matrices (..., d, d): the reparameterisation of every
    skew and orthogonal hypothesis."""
    return 0.5 * (m - m.mT)


def _radius(t: torch.Tensor, lo: float, hi: float) -> torch.Tensor:
    return lo + (hi - lo) * torch.sigmoid(t)


def _radius_scaled(rad: torch.Tensor, factors: torch.Tensor) -> torch.Tensor:
    """The parameter ``rad`` (of ``_radius(rad, 0, hi)``, one instance) of each multiple of its radius by
    ``factors`` in (0, 1], one row per factor: the radius is hi * sigmoid(rad), so the sigmoid scales and
    hi drops out. The inverse of the sigmoid, clamped short of its ends."""
    factors = factors.to(rad)  # on the instance's device and dtype
    p = torch.sigmoid(rad.reshape(1, *rad.shape[1:])) * factors.reshape(-1, *([1] * (rad.dim() - 1)))
    p = p.clamp(torch.finfo(p.dtype).tiny, 1 - torch.finfo(p.dtype).eps)
    return torch.log(p) - torch.log1p(-p)


def _scale_to(m: torch.Tensor, radius: torch.Tensor, norm: str) -> torch.Tensor:
    """Rescale each matrix (B, a, b) to the given norm (B,)."""
    if norm == "fro":
        n = torch.linalg.matrix_norm(m, ord="fro")
    else:
        n = torch.linalg.svdvals(m)[..., 0]
    return m * (radius / n.clamp_min(1e-300)).unsqueeze(-1).unsqueeze(-1)


@dataclass
class Sampler:
    """Base: subclasses declare ``params``, set ``shapes`` (theta parts) and implement ``value``.

    ``args`` are the arguments as written (shown by ``describe``); ``p`` has every declared parameter,
    checked and with its default filled in — the only place a sampler reads its parameters from.
    """

    args: dict[str, Any] = field(default_factory=dict)
    # the registry's folder: files a hypothesis names (tensor_file) are read below it, never elsewhere
    root: Path | None = field(default=None, repr=False, compare=False)

    random: ClassVar[bool] = False
    name: ClassVar[str] = "sampler"
    hypothesis: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    constraints: ClassVar[tuple[Constraint, ...]] = ()

    def __post_init__(self) -> None:
        self.p = bind(type(self), self.args)

    @classmethod
    def signature(cls) -> str:
        return f"{cls.name}({', '.join(p.describe() for p in cls.params)})"

    @classmethod
    def positional(cls) -> tuple[Param, ...]:
        return tuple(p for p in cls.params if p.positional or p.variadic)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        raise NotImplementedError

    def init(self, b: int, gen: torch.Generator, ctx: TensorKwargs) -> dict[str, torch.Tensor]:
        return {k: torch.randn((b, *s), generator=gen, **ctx) for k, s in self.shapes().items()}

    def degenerate(self, b: int, gen: torch.Generator, ctx: TensorKwargs) -> dict[str, torch.Tensor]:
        """Boundary instances; default: large parameters (saturated radii)."""
        return {k: 4.0 * v for k, v in self.init(b, gen, ctx).items()}

    def value(self, theta: dict[str, torch.Tensor]) -> Any:
        raise NotImplementedError

    def toward_zero(self, theta: dict[str, torch.Tensor], factors: torch.Tensor) -> dict[str, torch.Tensor] | None:
        """The instance ``theta`` (a batch of one) with its value multiplied by each of ``factors`` (in (0, 1]),
        one row per factor, where the hypothesis contains every such multiple of its instances (a norm range
        that starts at 0); None for a hypothesis that does not (a unit sphere, an orthogonal group, a floor
        on the norm). A constant bound judged along these rays (``engine/relations/vanishing.py``) may only
        leave the hypothesis where this says it stays."""
        return None

    def satisfied(self, value: Any, tol: float = 1e-9) -> torch.Tensor:
        """(B,) bool: does each instance satisfy the hypothesis? (for the sampler tests)"""
        raise NotImplementedError

    def relaxed(self) -> "Sampler | None":
        return None

    def symbolic_instance(self, name: str, notes: list[str]) -> Any:
        """A generic SymPy instance of the hypothesis (free symbols); ``notes`` collects what was specialised."""
        raise SymbolicUnsupported(f"no symbolic instance for {self.name}")

    def describe(self) -> str:
        a = ", ".join(f"{k}={v}" for k, v in self.args.items())
        return f"{self.name}({a})"
