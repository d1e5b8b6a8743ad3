"""The adapter protocol for ``nn.Module`` layers, and the harness that runs one safely.

A user describes their layer by subclassing ``ModuleAdapter`` (about 25 lines; the worked example is
``examples/rotary_module.py``): how to build it (``factory``), how to read the queries and keys before the
rotation (``project``), how to rotate (``rotate``), the pre-softmax logits (``logits``) and what the layer
claims to compute, read from its own parameters (``spec`` -> ``RotarySpec``). pyverify handles the rest:

* **sequence layout** — ``layout`` names the axes of the tensors the adapter takes and returns
  (``"batch heads seq dim"`` or ``"batch seq heads dim"``); the harness works in (batch, heads, seq, dim);
* **positions** — ``positions = "integer"`` (a table-driven cache indexes by them) or ``"real"``; the
  probes draw them with the check language's ``int_position`` / ``scalar`` samplers;
* **caches** — every law is evaluated on a cold module (a fresh copy per call) and on a warm one (one copy
  that has served a call at other positions first), so a stale cache is a finding, not a crash;
* **dtype** — the module runs in its own dtype (or float64 on request); the global default dtype is
  restored after the factory and every call;
* **RNG** — the factory and every call run under ``torch.random.fork_rng``: the global generator is left
  as it was, and whether the factory drew from it is reported.

``functions(adapter, module)`` turns a built module into plain callables with their conventions, layout
and precision — the shape of a function binding — so a module can be bound to roles like a function.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch

from ..checks.precision import made_in_float32
from ..checks.roles import DECAY_ATTRIBUTE, Decay

LAYOUTS = {"batch heads seq dim": (0, 1, 2, 3), "batch seq heads dim": (0, 2, 1, 3)}
POSITION_KINDS = ("integer", "real")
PAIRINGS = ("half", "adjacent")


class AdapterError(ValueError):
    """The adapter or the module it builds does not follow the protocol (the message says which part)."""


@dataclass(frozen=True)
class RotarySpec:
    """What the layer claims to compute, read from its own parameters.

    frequencies: (planes,) or (heads, planes) — plane p turns by r * frequencies[p];
    pairing: "half" (plane p = coordinates (p, p + d/2)) or "adjacent" ((2p, 2p + 1));
    scale: the logit scale; post_rotation: (heads, d, d) or (d, d) applied to q and k after the rotation
    (None: none); decay: (planes,) xpos-like zeta — the query scaled by zeta^(r / decay_scale), the key by
    zeta^(-r / decay_scale) (None: no decay)."""

    frequencies: torch.Tensor
    pairing: str = "half"
    scale: float = 1.0
    post_rotation: torch.Tensor | None = None
    decay: torch.Tensor | None = None
    decay_scale: float = 1.0


class ModuleAdapter:
    """Subclass and fill in ``factory``, ``project``, ``rotate``, ``logits`` and ``spec``; every method but
    ``factory`` receives the module pyverify built (and loaded the checkpoint into)."""

    layout: str = "batch heads seq dim"
    positions: str = "integer"

    def factory(self) -> torch.nn.Module:
        raise NotImplementedError

    def project(self, module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(q, k) before the rotation, in ``layout``, for inputs x (batch, seq, features)."""
        raise NotImplementedError

    def rotate(self, module, x: torch.Tensor, positions: torch.Tensor, side: str) -> torch.Tensor:
        """x (in ``layout``) rotated at positions (seq,); side is "query" or "key"."""
        raise NotImplementedError

    def logits(self, module, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """The pre-softmax scores (batch, heads, seq_q, seq_k) of inputs x at positions (seq,)."""
        raise NotImplementedError

    def spec(self, module) -> RotarySpec:
        raise NotImplementedError

    def scores(self, module, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """Optional: the pre-softmax scores (batch, heads, seq, seq) of given q, k (in ``layout``, before the
        rotation) at positions (seq,) — the layer's own score computation, for binding the ``rotary_scores``
        role. Without it a module is bound as a rotation only."""
        raise NotImplementedError

    def probe(self, module, batch: int, seq: int, generator: torch.Generator, dtype: torch.dtype) -> torch.Tensor:
        """Probe inputs (batch, seq, features); default: the input size of the module's first Linear."""
        first = next((m for m in module.modules() if isinstance(m, torch.nn.Linear)), None)
        if first is None:
            raise AdapterError("the module has no nn.Linear to read its input size from: override probe()")
        return torch.randn(batch, seq, first.in_features, generator=generator, dtype=torch.float64).to(dtype)


@contextlib.contextmanager
def guarded() -> Iterator[dict[str, bool]]:
    """Run the user's code with the global RNG forked and the default dtype restored; says what it touched."""
    touched = {"rng": False, "default_dtype": False}
    dtype = torch.get_default_dtype()
    with torch.random.fork_rng(devices=[]):
        before = torch.get_rng_state()
        try:
            yield touched
        finally:
            touched["rng"] = not torch.equal(before, torch.get_rng_state())
            touched["default_dtype"] = torch.get_default_dtype() != dtype
            torch.set_default_dtype(dtype)


def _batching_refusal(exc: Exception) -> bool:
    """vmap's own refusal: left as it is, so that an engine batching a module's function falls back to one
    instance at a time instead of reading it as the user's code failing."""
    return isinstance(exc, RuntimeError) and ("vmap" in str(exc) or "Batching rule" in str(exc))


def _call(what: str, fn: Callable, *args) -> Any:
    try:
        with guarded(), torch.no_grad():
            return fn(*args)
    except AdapterError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's code failed: say where, as bad input
        if _batching_refusal(exc):
            raise
        raise AdapterError(f"{what} failed: {type(exc).__name__}: {exc}") from None


class BuiltLayer:
    """A module built by its adapter, checkpoint loaded, in one dtype; hands out cold copies and keeps
    the canonical (batch, heads, seq, dim) layout on the pyverify side."""

    def __init__(self, adapter: ModuleAdapter, state: dict[str, torch.Tensor] | None = None,
                 dtype: torch.dtype | None = None):
        if adapter.layout not in LAYOUTS:
            raise AdapterError(f"layout {adapter.layout!r}: expected one of {', '.join(map(repr, LAYOUTS))}")
        if adapter.positions not in POSITION_KINDS:
            raise AdapterError(f"positions {adapter.positions!r}: expected one of {', '.join(POSITION_KINDS)}")
        self.adapter = adapter
        try:
            with guarded() as touched:
                if dtype is not None:  # a module asked for in another dtype is built in it (its random init too)
                    torch.set_default_dtype(dtype)
                module = adapter.factory()
        except NotImplementedError:
            raise AdapterError("the adapter has no factory()") from None
        except Exception as exc:  # noqa: BLE001
            if _batching_refusal(exc):
                raise
            raise AdapterError(f"factory() failed: {type(exc).__name__}: {exc}") from None
        if not isinstance(module, torch.nn.Module):
            raise AdapterError(f"factory() returned {type(module).__name__}, not an nn.Module")
        self.construction = {"used_global_rng": touched["rng"],
                             "changed_default_dtype": touched["default_dtype"] and dtype is None}
        if state is not None:
            try:
                module.load_state_dict(state)
            except RuntimeError as exc:
                raise AdapterError(f"the checkpoint does not fit the module: {str(exc).splitlines()[0]}") from None
        self.own_dtype = next((t.dtype for t in [*module.parameters(), *module.buffers()] if t.is_floating_point()),
                              torch.get_default_dtype())
        self.dtype = self.own_dtype if dtype is None else dtype
        # the precision the parameters were stored in: a float32 checkpoint run in float64 is float32-rounded
        stored = [t.dtype for t in (state or {}).values() if isinstance(t, torch.Tensor) and t.is_floating_point()]
        self.prototype = module.to(self.dtype).eval()
        # ... or computed in: a table built in float32 and cast up (`arange(..., dtype=float32)`) holds only
        # float32 values, which a float64 computation of the same quantity almost never gives
        computed = [torch.float32 for t in [*self.prototype.parameters(), *self.prototype.buffers()]
                    if made_in_float32(t)]
        self.parameter_dtype = min([self.dtype, *stored, *computed], key=lambda d: torch.finfo(d).bits)

    def cold(self) -> torch.nn.Module:
        """A fresh copy, never called: its caches are empty."""
        return copy.deepcopy(self.prototype)

    @staticmethod
    def fresh_copy(module: torch.nn.Module) -> torch.nn.Module:
        return copy.deepcopy(module)

    def _to_adapter(self, t: torch.Tensor) -> torch.Tensor:
        return t.permute(LAYOUTS[self.adapter.layout])

    def _from_adapter(self, t: Any, what: str) -> torch.Tensor:
        if not isinstance(t, torch.Tensor) or t.dim() != 4:
            raise AdapterError(f"{what} returned {getattr(t, 'shape', type(t).__name__)}, not a 4-d tensor "
                               f"in the layout {self.adapter.layout!r}")
        return t.permute(LAYOUTS[self.adapter.layout])  # both layouts are their own inverse

    def probe(self, module, batch: int, seq: int, generator: torch.Generator) -> torch.Tensor:
        return _call("probe()", self.adapter.probe, module, batch, seq, generator, self.dtype)

    def project(self, module, x) -> tuple[torch.Tensor, torch.Tensor]:
        q, k = _call("project()", self.adapter.project, module, x)
        q, k = self._from_adapter(q, "project()"), self._from_adapter(k, "project()")
        for t in (q, k):
            if (t.shape[0], t.shape[2]) != (x.shape[0], x.shape[1]) or t.shape != q.shape:
                raise AdapterError(f"project() of inputs (batch {x.shape[0]}, seq {x.shape[1]}) returned q, k of shapes "
                                   f"{tuple(q.shape)}, {tuple(k.shape)} read in the layout {self.adapter.layout!r}: "
                                   "is the layout declared right?")
        return q, k

    def rotate(self, module, x, positions, side: str) -> torch.Tensor:
        out = _call(f"rotate(side={side!r})", self.adapter.rotate, module, self._to_adapter(x), positions, side)
        return self._from_adapter(out, "rotate()")

    def logits(self, module, x, positions) -> torch.Tensor:
        out = _call("logits()", self.adapter.logits, module, x, positions)
        if not isinstance(out, torch.Tensor) or out.dim() != 4 or out.shape[-1] != out.shape[-2]:
            raise AdapterError(f"logits() returned {getattr(out, 'shape', type(out).__name__)}, not "
                               "(batch, heads, seq, seq)")
        return out

    def scores(self, module, q, k, positions) -> torch.Tensor:
        out = _call("scores()", self.adapter.scores, module, self._to_adapter(q), self._to_adapter(k), positions)
        if not isinstance(out, torch.Tensor) or out.dim() != 4 or out.shape[-2:] != (q.shape[2], k.shape[2]):
            raise AdapterError(f"scores() returned {getattr(out, 'shape', type(out).__name__)}, not "
                               f"(batch, heads, {q.shape[2]}, {k.shape[2]})")
        return out

    def spec(self, module) -> RotarySpec:
        spec = _call("spec()", self.adapter.spec, module)
        if not isinstance(spec, RotarySpec):
            raise AdapterError(f"spec() returned {type(spec).__name__}, not a RotarySpec")
        if spec.pairing not in PAIRINGS:
            raise AdapterError(f"spec(): pairing {spec.pairing!r}, expected one of {', '.join(PAIRINGS)}")
        return spec


@dataclass(frozen=True)
class LayerFunction:
    """A module turned into a plain callable: what a function binding holds."""

    function: Callable
    conventions: dict[str, str]
    layout: str
    precision: str


def functions(adapter: ModuleAdapter, state: dict[str, torch.Tensor] | None = None,
              dtype: torch.dtype | None = None, cache: str = "warm") -> dict[str, LayerFunction]:
    """The layer's rotation and logits as callables — the shape a function binding takes:

    * ``rope`` (x (..., n, d), pos (..., n), head=0): one head's query-side rotation in the shape of pyverify's
      ``rope``; ``rotary_scores`` (q, k (..., n, d), pos (..., n), head=0): the layer's own pre-softmax scores
      of given queries and keys (only when the adapter has ``scores``);
    * ``rotary`` (x, positions, side) and ``logits`` (x, positions) on (batch, heads, seq, dim) tensors.

    ``cache="warm"`` (the default) calls one module for every call, as the layer serves calls in use, so a
    cache that the call history corrupts is seen by the checks that call it twice; ``"cold"``: a fresh copy
    per call. Integer-valued positions reach the module as integers (its position table); others as real
    numbers (a module without a real-position path fails there, naming the adapter method). Results come
    back in the caller's dtype; ``precision`` says the arithmetic they were made in."""
    if cache not in ("warm", "cold"):
        raise AdapterError(f"cache {cache!r}: expected 'warm' or 'cold'")
    layer = BuiltLayer(adapter, state, dtype)
    spec = layer.spec(layer.prototype)
    conventions = {"pairing": spec.pairing, "displacement": "rj - ri"}
    # the arithmetic the results are made in: the run dtype, or the coarser precision its parameters hold
    precision = str(min(layer.dtype, layer.parameter_dtype, key=lambda d: torch.finfo(d).bits)).removeprefix("torch.")
    serving = layer.cold()
    module = (lambda: serving) if cache == "warm" else layer.cold
    heads, _, size = layer.project(layer.cold(), layer.probe(layer.cold(), 1, 1, torch.Generator().manual_seed(0)))[0].shape[1:]

    def positions_of(pos: torch.Tensor) -> torch.Tensor:
        return pos.round().long() if bool((pos == pos.round()).all()) else pos.to(layer.dtype)

    def rows(x: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, pos = torch.as_tensor(x), torch.as_tensor(pos)
        if x.shape[-1] != size:
            raise ValueError(f"this module works on vectors of size {size}, got a tensor of shape {tuple(x.shape)}")
        lead, n = x.shape[:-2], x.shape[-2]
        return x.reshape(-1, n, size), pos.expand(*lead, n).reshape(-1, n)

    def one_head(x: torch.Tensor) -> torch.Tensor:
        return x.to(layer.dtype).expand(1, heads, *x.shape)

    def rope(x: torch.Tensor, pos: torch.Tensor, head: int = 0) -> torch.Tensor:
        xs, where = rows(x, pos)
        out = [layer.rotate(module(), one_head(r), positions_of(p), "query")[0, head] for r, p in zip(xs, where)]
        return torch.stack(out).reshape(x.shape).to(x.dtype)

    def rotary_scores(q: torch.Tensor, k: torch.Tensor, pos: torch.Tensor, head: int = 0) -> torch.Tensor:
        qs, where = rows(q, pos)
        ks, _ = rows(k, pos)
        out = [layer.scores(module(), one_head(a), one_head(b), positions_of(p))[0, head]
               for a, b, p in zip(qs, ks, where)]
        return torch.stack(out).reshape(*q.shape[:-1], q.shape[-2]).to(q.dtype)

    made = {
        "rope": LayerFunction(rope, conventions, "... seq dim", precision),
        "rotary": LayerFunction(lambda x, positions, side="query": layer.rotate(module(), x, positions, side),
                                conventions, "batch heads seq dim", precision),
        "logits": LayerFunction(lambda x, positions: layer.logits(module(), x, positions),
                                conventions, "batch heads seq seq", precision),
    }
    if type(adapter).scores is not ModuleAdapter.scores:
        made["rotary_scores"] = LayerFunction(rotary_scores, conventions, "... seq seq", precision)
    # the decay the adapter declares: a binding of these callables divides it out (``roles.Decay``)
    decay = None if spec.decay is None else Decay(torch.as_tensor(spec.decay).detach().to(torch.float64).reshape(-1),
                                                  float(spec.decay_scale),
                                                  f"the adapter's (scale base {float(spec.decay_scale):g})")
    for made_function in made.values():  # the callables say it themselves, as `plugin.computes_in` does
        made_function.function.pyverify_precision = precision
        if decay is not None:
            setattr(made_function.function, DECAY_ATTRIBUTE, decay)
    return made
