"""Roles and bindings: the shipped claims checked against the user's own code.

A **role** is one mechanism the registry's checks exercise, at the granularity a user's code has it (a
rotary embedding applied to a vector, the logits of a layer, a feature map): the name of the vocabulary
function that is its reference, the calling convention the user's callable must follow, and — for each
registry convention the mechanism has (and for its layouts) — how to turn a callable written under one
value into one computing under another. Roles are declared by a content package (or a user's plugin)
through ``pyverify.plugin.role``; this module names none.

A **binding** puts the user's callable in the role's place: with its declared conventions, layout and
precision. While it is active, every check that calls the role's function resolves it
(``vocabulary.resolve``) to the user's callable, adapted to the conventions in force for that claim:
no check is copied, and a convention declared wrongly is mapped wrongly, so it is refuted like a bug.
The precision a binding declares is the bound record's internal precision (``Function.precision``): the
engine's one precision model (``checks/precision.py``, ``engine/scoring.py``) judges its results at it.

A binding may also declare a **decay**: a per-plane factor the code applies on top of the role's mechanism
by design (xpos scales the query at position p by zeta_i^(p/s) in plane i and the key by its inverse). A
role that can take one says how to divide it out (``Role.decay``); the claims then judge the mechanism
underneath, and a decay applied otherwise than declared (on the wrong side, twice, not at all) is left
in the results, where it is refuted and named (``engine/diagnose.py``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from ..registry import CONVENTIONS
from . import vocabulary
from . import precision as precisions
from .precision import PRECISIONS
from .failures import guarded

Converter = Callable[[Callable, str, str], Callable]  # (fn computing under `have`, have, want) -> fn under `want`
LAYOUT = "layout"  # the pseudo-convention of a role's layouts (the order of its inputs' / output's axes)
DECAY_ATTRIBUTE = "pyverify_decay"  # a callable's own declaration of its decay (a Decay)
XPOS_ZETA_SHIFT = 0.4  # xpos's zeta_i = (2i + 0.4 d) / (1.4 d), i < d/2


@dataclass(frozen=True, eq=False)  # compared by identity: its zeta may be a tensor or a callable
class Decay:
    """A per-plane, position-dependent factor applied on top of a rotation: the query at position p scaled
    by zeta_i^(p / scale) in plane i, the key by zeta_i^(-p / scale), so a logit decays as
    zeta_i^((p_q - p_k) / scale). ``zeta``: a (planes,) tensor, or a callable giving it for a head size d."""

    zeta: Any
    scale: float
    name: str = "declared"

    @classmethod
    def xpos(cls, scale: float) -> "Decay":
        """xpos's decay (zeta_i = (2i + 0.4 d) / (1.4 d)) with scale base ``scale``."""
        def zeta(d: int) -> torch.Tensor:
            return (torch.arange(0, d, 2, dtype=torch.float64) + XPOS_ZETA_SHIFT * d) / ((1 + XPOS_ZETA_SHIFT) * d)
        return cls(zeta, float(scale), f"xpos:{scale:g}")

    def planes(self, d: int) -> torch.Tensor:
        """(d/2,) float64: zeta for vectors of size d."""
        zeta = self.zeta(d) if callable(self.zeta) else self.zeta
        zeta = torch.as_tensor(zeta).detach().to(torch.float64).reshape(-1)
        if zeta.numel() != d // 2:
            raise ValueError(f"the declared decay has {zeta.numel()} planes; vectors of size {d} have {d // 2}")
        return zeta

    def rates(self, d: int) -> torch.Tensor:
        """(d/2,) log(zeta_i) / scale: the query's factor in plane i at position p is exp(rate_i p)."""
        return self.planes(d).log() / self.scale

    def factor(self, positions: torch.Tensor, d: int, side: str) -> torch.Tensor:
        """(..., n, d/2) the factor of each plane at positions (..., n), on the ``side`` "query" or "key"."""
        sign = 1.0 if side == "query" else -1.0
        pos = torch.as_tensor(positions)
        pos = pos.to(torch.float64) if not pos.is_floating_point() else pos
        return torch.exp(sign * pos.unsqueeze(-1) * self.rates(d).to(pos.dtype))

    def describe(self) -> str:
        return self.name if self.name != "declared" else f"declared (scale {self.scale:g})"


def declared_decay(target: Any, where: str) -> Decay | None:
    """The decay a callable declares itself (``pyverify_decay``), if any."""
    decay = getattr(target, DECAY_ATTRIBUTE, None)
    if decay is not None and not isinstance(decay, Decay):
        raise BindingError(f"{where}: {DECAY_ATTRIBUTE} must be a pyverify Decay, not {type(decay).__name__}")
    return decay


def parse_decay(text: str, where: str) -> Decay:
    """``xpos:SCALE`` (xpos's decay with scale base SCALE), the form a binding option or entry takes."""
    kind, _, scale = str(text).partition(":")
    try:
        value = float(scale)
    except ValueError:
        value = float("nan")
    if kind != "xpos" or not value > 0 or value == float("inf"):
        raise BindingError(f"{where}: decay {text!r}: expected xpos:SCALE with a positive scale base, e.g. xpos:512")
    return Decay.xpos(value)


class BindingError(ValueError):
    """A binding that cannot be made: unknown role, bad target, convention or precision (bad input of the
    person running pyverify; ``origin`` says where it was written)."""


@dataclass(frozen=True)
class Role:
    name: str
    function: str  # the vocabulary function it stands for (its reference implementation)
    doc: str  # what the callable computes, with its calling convention
    # registry convention key (or "layout") -> (the value the reference computes under when a claim leaves
    # the key unset, converter)
    conventions: Mapping[str, tuple[str, Converter]] = field(default_factory=dict)
    layouts: tuple[str, ...] = ()  # accepted layout names, the first the reference's own
    owner: str = ""
    # (fn, decay, the binding's conventions) -> fn with the declared decay divided out, computing the role's
    # mechanism alone; None: the role takes no decay
    decay: Callable[[Callable, Decay, Mapping[str, str]], Callable] | None = None

    def values(self, key: str) -> tuple[str, ...]:
        return self.layouts if key == LAYOUT else CONVENTIONS[key]


ROLES: dict[str, Role] = {}


def register_role(name: str, function: str, doc: str, conventions: Mapping[str, tuple[str, Converter]] | None = None,
                  layouts: tuple[str, ...] = (), owner: str = "", decay: Callable | None = None) -> Role:
    if not isinstance(name, str) or not name.replace("_", "").isalnum():
        raise BindingError(f"role {name!r}: a name of letters, digits and underscores")
    if function not in vocabulary.VOCABULARY:
        raise BindingError(f"role {name}: {function!r} is not a function of the check language")
    if not isinstance(doc, str) or not doc.strip():
        raise BindingError(f"role {name}: `doc` must say what the bound callable computes and how it is called")
    table = dict(conventions or {})
    if layouts and LAYOUT not in table:
        raise BindingError(f"role {name}: layouts {layouts} need a converter under the key {LAYOUT!r}")
    for key, spec in table.items():
        if key != LAYOUT and key not in CONVENTIONS:
            raise BindingError(f"role {name}: unknown registry convention {key!r}; known: {', '.join(CONVENTIONS)}")
        if not (isinstance(spec, tuple) and len(spec) == 2 and callable(spec[1])):
            raise BindingError(f"role {name}: convention {key!r} needs (reference value, converter)")
        values = layouts if key == LAYOUT else CONVENTIONS[key]
        if spec[0] not in values:
            raise BindingError(f"role {name}: {key} value {spec[0]!r} is not one of {', '.join(values)}")
    taken = next((r.name for r in ROLES.values() if r.function == function and r.name != name), None)
    if taken:
        raise BindingError(f"role {name}: function {function} already has the role {taken}")
    if decay is not None and not callable(decay):
        raise BindingError(f"role {name}: `decay` is a callable (fn, decay, conventions) -> fn, or None")
    role = Role(name, function, doc.strip(), table, tuple(layouts), owner, decay)
    ROLES[name] = role
    return role


@dataclass(frozen=True)
class Binding:
    role: Role
    target: Callable
    spec: str  # module:attr as written
    conventions: Mapping[str, str]  # what the user's code computes under (layout included)
    precision: str = "float64"
    origin: str = "--bind"  # where it was declared (file:line, pyproject.toml, --bind)
    decay: Decay | None = None  # the decay the code applies by design, divided out before any claim judges it

    @property
    def dtype(self) -> torch.dtype:
        return PRECISIONS[self.precision]

    @property
    def computes_in(self) -> torch.dtype:
        """The precision the results are made in: the binding's, or the one the callable declares itself
        (``pyverify_precision``, e.g. a module function whose parameters hold float32 values), the lower."""
        return precisions.lowest([self.dtype, precisions.declared(self.target)])

    @property
    def layout(self) -> str | None:
        return self.conventions.get(LAYOUT)

    def describe(self) -> dict[str, Any]:
        return {"role": self.role.name, "function": self.role.function, "target": self.spec,
                "conventions": {k: v for k, v in self.conventions.items() if k != LAYOUT},
                "layout": self.layout or (self.role.layouts[0] if self.role.layouts else None),
                "precision": precisions.name(self.computes_in), "declared_in": self.origin,
                "decay": self.decay.describe() if self.decay is not None else None}

    def adapted(self, wanted: Mapping[str, str]) -> Callable:
        """The user's callable computing under the claim's conventions ``wanted`` (unset keys: the reference's)."""
        fn = _in_precision(self.target, self.dtype) if self.dtype != torch.float64 else self.target
        if self.decay is not None:  # in the code's own conventions, before any is mapped
            fn = self.role.decay(fn, self.decay, self.conventions)
        for key, (reference, convert) in self.role.conventions.items():
            have = self.conventions.get(key, reference)
            want = reference if key == LAYOUT else wanted.get(key, reference)
            if have != want:
                fn = convert(fn, have, want)
        return fn

    def substitute(self, record: vocabulary.Function, wanted: Mapping[str, str]) -> vocabulary.Function:
        impl = _recorded(self.spec, guarded(f"{record.name} (bound to {self.spec})", self.origin, self.adapted(wanted)))
        return BoundFunction(impl, f"{self.spec}, bound as {self.role.name} [{self.origin}]", name=record.name,
                             binding=self, wanted=tuple(sorted(wanted.items())),
                             # the results are cast back to the check's dtype: the arithmetic they were made
                             # in is what the precision model must judge them at
                             precision=self.computes_in if self.computes_in != torch.float64 else None)


@dataclass
class BoundFunction(vocabulary.Function):
    """A vocabulary record standing for the user's code: no exact meanings (those are the reference's),
    no convention keywords (the binding maps conventions itself)."""

    wanted: tuple = ()

    def __reduce__(self) -> tuple:
        return (_rebound, (self.name, self.wanted))


def _rebound(name: str, wanted: tuple) -> vocabulary.Function:
    """A bound record arriving in a worker process, which activated the same bindings."""
    return vocabulary.resolve([name], dict(wanted))[name]


def _in_precision(fn: Callable, dtype: torch.dtype) -> Callable:
    """``fn`` run in ``dtype``: floating tensor arguments cast to it, floating results cast back."""

    def cast(x: Any, to: torch.dtype) -> Any:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            return x.to(to)
        if isinstance(x, dict):
            return {k: cast(v, to) for k, v in x.items()}
        if isinstance(x, (tuple, list)):
            return type(x)(cast(v, to) for v in x)
        return x

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if _FULL_PRECISION:  # ``in_float64``: the same code on the arguments as they are
            return fn(*args, **kwargs)
        back = next((a.dtype for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor) and a.is_floating_point()),
                    torch.float64)
        return cast(fn(*cast(args, dtype), **cast(kwargs, dtype)), back)

    return call


_FULL_PRECISION = False


@contextlib.contextmanager
def in_float64():
    """Inside, a binding declared in a lower precision calls its code on float64 arguments, uncast: the same
    code on a higher-precision path, for a judge to measure what the declared precision costs (code that
    computes in float32 whatever it is given stays float32)."""
    global _FULL_PRECISION
    previous, _FULL_PRECISION = _FULL_PRECISION, True
    try:
        yield
    finally:
        _FULL_PRECISION = previous


# the calls of bound code made while ``recording()`` is active: (target, callable, args, kwargs, result)
_RECORD: list | None = None
HISTORY_RTOL = 1e-6  # one call's two results agree this well unless the call history changed the code's answer


def _recorded(spec: str, fn: Callable) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if _RECORD is not None and isinstance(out, torch.Tensor):
            _RECORD.append((spec, fn, args, kwargs, out.detach().clone()))
        return out

    return call


@contextlib.contextmanager
def recording():
    """Record the calls of bound code made inside (one instance's evaluation, for a diagnosis)."""
    global _RECORD
    _RECORD, calls = [], []
    try:
        yield calls
    finally:
        calls.extend(_RECORD)
        _RECORD = None


def history_dependence(calls: list) -> str | None:
    """Replay each recorded call of bound code right after another recorded call with other arguments: a
    result that differs from the one recorded for the same inputs depends on the call history (a cache keyed
    by less than its inputs). Returns a sentence naming the code, or None."""
    for k, (spec, fn, args, kwargs, out) in enumerate(calls):
        for j, (_, before, bargs, bkwargs, _) in enumerate(calls):
            if j == k or before is not fn:
                continue
            try:
                before(*bargs, **bkwargs)
                again = fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a replay that fails tells nothing
                continue
            if again.shape == out.shape and not torch.allclose(again.double(), out.double(), rtol=HISTORY_RTOL,
                                                              atol=HISTORY_RTOL * float(out.abs().max().clamp_min(1))):
                return (f"{spec} returned different values for the same inputs depending on the call made before "
                        "it: it depends on the call history (a cache or state kept between calls) — key the cache "
                        "by every input it depends on (positions, offsets, dtype) or check with it off.")
    return None


ACTIVE: dict[str, Binding] = {}  # function name -> its binding


def bind(role_name: str, target: Callable, spec: str, conventions: Mapping[str, str] | None = None,
         precision: str = "float64", origin: str = "--bind", decay: Decay | None = None) -> Binding:
    """Activate one binding (checked before anything runs). ``decay``: declared by the binding; else the
    one the callable declares itself (``pyverify_decay``), if any."""
    role = ROLES.get(role_name)
    if role is None:
        raise BindingError(f"{origin}: unknown role {role_name!r}; the roles are: {', '.join(sorted(ROLES)) or 'none'}")
    if not callable(target):
        raise BindingError(f"{origin}: {spec} is a {type(target).__name__}, not a callable")
    conventions = dict(conventions or {})
    for key, value in conventions.items():
        if key not in role.conventions:
            have = ", ".join(k for k in role.conventions) or "none"
            raise BindingError(f"{origin}: role {role.name} has no convention {key!r} (its conventions: {have})")
        if value not in role.values(key):
            raise BindingError(f"{origin}: {key} {value!r} is not one of {', '.join(role.values(key))}")
    if precision not in PRECISIONS:
        raise BindingError(f"{origin}: precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    if role.function in ACTIVE and ACTIVE[role.function].spec != spec:
        raise BindingError(f"{origin}: role {role.name} is already bound to {ACTIVE[role.function].spec} "
                           f"({ACTIVE[role.function].origin})")
    decay = decay if decay is not None else declared_decay(target, origin)
    if decay is not None and role.decay is None:
        raise BindingError(f"{origin}: role {role.name} takes no decay; {spec} declares one ({decay.describe()})")
    binding = Binding(role, target, spec, conventions, precision, origin, decay)
    ACTIVE[role.function] = binding
    vocabulary.SUBSTITUTES[role.function] = binding.substitute
    return binding


@contextlib.contextmanager
def suspended():
    """Inside, no binding is active: every function resolves to its reference (restored on exit)."""
    active, substitutes = dict(ACTIVE), {n: vocabulary.SUBSTITUTES.pop(n) for n in list(ACTIVE) if n in vocabulary.SUBSTITUTES}
    ACTIVE.clear()
    try:
        yield
    finally:
        ACTIVE.update(active)
        vocabulary.SUBSTITUTES.update(substitutes)


def unbind_all() -> None:
    for name in ACTIVE:
        vocabulary.SUBSTITUTES.pop(name, None)
    ACTIVE.clear()


def bindings_of(functions: Mapping[str, vocabulary.Function]) -> list[Binding]:
    """The bindings a compiled claim's functions exercise."""
    return [fn.binding for fn in functions.values() if fn.binding is not None]


def exercised(compiled: Mapping[str, Any]) -> dict[str, list[str]]:
    """claim id -> the roles of the active bindings its compiled check calls (claims calling none omitted)."""
    out = {}
    for cid, comp in compiled.items():
        roles = sorted({b.role.name for b in bindings_of(comp.functions)})
        if roles:
            out[cid] = roles
    return out
