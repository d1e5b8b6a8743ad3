"""Compile a claim's ``check`` block and evaluate it on batches of instances (torch, float64).

A claim's check is compiled once (``checks/claim.py``) into one ``Compiled`` per sweep assignment, which
shares the parsed expressions; ``Compiled.evaluate`` maps sampler parameters
``theta`` to the per-relation left and right sides for B instances at once (``torch.func.vmap`` over
a one-instance evaluator). ``Compiled.evaluate_one`` is the same computation for one instance without
vmap — the independent path the falsifier re-checks a counterexample on.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import itertools
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch.func import vmap

from .. import limits
from ..registry import Check
from . import dsl, looped, precision, vocabulary
from .kernels import KernelsInABatch
from .failures import PluginFailure
from .samplers import SAMPLERS, Sampler, SamplerError, parse_sampler
from .samplers.base import TensorKwargs

_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "**": operator.pow, "@": operator.matmul}


class CheckError(ValueError):
    """The check block cannot be compiled or run; becomes an ``error`` verdict.

    ``key`` is the path of the offending key inside ``check`` (``("given", "x")``), so the load-time
    validation (``checks/validate.py``) can point at its line."""

    def __init__(self, message: str, key: tuple[str, ...] = ()):
        super().__init__(message)
        self.key = key


def reserved_names() -> dict[str, str]:
    """Names a check may not bind (given, where, dims), each with what it would shadow."""
    out = {name: "a function of the language" for name in vocabulary.names()}
    out.update({name: "a sampler" for name in SAMPLERS})
    out.update({name: "a reserved word of the language" for name in (*dsl.REDUCERS, "range")})
    out.update({name: "a constant" for name in dsl.CONSTANTS})
    return out


class TorchBackend(dsl.Backend):
    special_forms = frozenset(vocabulary.SPECIAL_FORMS)

    def __init__(self, ctx: TensorKwargs, functions: Mapping[str, vocabulary.Function],
                 randoms: dict[str, torch.Tensor] | None = None, keep_samples: bool = False,
                 conventions: Mapping[str, str] | None = None, conditions: list | None = None,
                 precisions: set | None = None, amplifications: list | None = None, looped: set | None = None):
        self.ctx = ctx
        self.functions = functions
        self.randoms = randoms or {}
        self.keep_samples = keep_samples
        self.conventions = conventions or {}
        self.conditions = conditions  # collects the condition numbers of the calls that declare one
        # collects the measured condition numbers of the calls below float64 (``precision.amplification``)
        self.amplifications = amplifications
        # collects the floating-point types the calls computed in (their results', and declared ones)
        self.precisions = precisions if precisions is not None else set()
        # the functions that refused vmap in this check: called one instance at a time inside the batch
        self.looped = looped if looped is not None else set()

    def binop(self, op, a, b):
        if op == "@" and not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            raise dsl.DSLError("@ needs two tensors")
        if op == "@" and a.dtype != b.dtype and (a.is_complex() or b.is_complex()):
            # real @ complex (a real generator applied to a complex eigenbasis): promote, as * and + do
            dt = torch.promote_types(a.dtype, b.dtype)
            a, b = a.to(dt), b.to(dt)
        if op == "**" and isinstance(a, torch.Tensor) and a.dim() == 2 and a.shape[0] == a.shape[1] and isinstance(b, (int, float)) and float(b).is_integer() and b >= 0:
            return torch.linalg.matrix_power(a, int(b))
        return _BINOPS[op](a, b)

    def transpose(self, a):
        if not isinstance(a, torch.Tensor):
            return a
        return a if a.dim() < 2 else a.transpose(-1, -2)

    def index(self, a, idx):
        if isinstance(a, dict):
            raise dsl.DSLError("index a part of a composite hypothesis, e.g. gen.L[0]")
        return a[idx]

    def call(self, name, args, kwargs):
        fn = self.functions[name]
        for value in (*args, *kwargs.values()):
            if isinstance(value, dict):  # gen where gen.L was meant
                raise dsl.DSLError(f"{name}(...) was given a composite hypothesis (parts: {', '.join(value)}); "
                                   "pass one of its parts, e.g. gen.L")
        if fn.sizes:  # the constructors (I, zeros, ones)
            _check_elements(math.prod(abs(_size(a)) for a in args), f"{name}(...)")
        if fn.condition is not None and self.conditions is not None:
            self.conditions.append(fn.condition(*args).detach())
        context = (self.ctx,) if fn.needs_ctx else ()  # where a tensor made from numbers alone must go
        merged = {**fn.convention_kwargs(self.conventions), **kwargs}
        call_args = (*context, *args)
        # the reference alone on one instance: its kernels on the path they take in a batch, as under vmap
        # (torch's unbatched float64 matrix_exp errs by 1e-11 where the batched one is exact); the user's code,
        # bound or a plugin's, runs as it runs in use, and the second path judges its rounding (``engine/paths.py``)
        batched = fn.binding is None and fn.reference and not any(looped.wrapped(a) for a in args)
        found: set = set()
        runner = self._runner(name, fn, found)
        try:
            with KernelsInABatch() if batched else contextlib.nullcontext():
                out = runner(*call_args, **merged)
        except (RuntimeError, PluginFailure) as exc:
            if not self._loop_after(name, fn, exc, (*call_args, *merged.values())):
                raise
            runner = self._runner(name, fn, found)
            out = runner(*call_args, **merged)
        precision.collect(found, out)
        if fn.precision is not None:
            found.add(fn.precision)
        elif fn.opaque:  # code no exact meaning checks (user code): undeclared float32 internals are measured
            precision.undeclared_float32(found, out)
        self.precisions |= found
        computed_in = precision.lowest(found)
        amplified = None
        if precision.below_float64(computed_in) and isinstance(out, torch.Tensor) \
                and (self.amplifications is not None or precision.injecting()):
            # code below float64: its rounding, amplified as much as it amplifies a move of its arguments,
            # raises its precision's error model (``scoring.precision_tol``)
            amplified = precision.amplification(runner, call_args, merged, out, computed_in)
            if self.amplifications is not None:
                self.amplifications.append(amplified)
        precision.record(name, fn.torch, call_args, merged, out, computed_in)
        return precision.inject(out, computed_in, amplified)

    def _runner(self, name: str, fn: vocabulary.Function, found: set):
        """How ``fn`` is called: itself, or, once it has refused vmap, one instance at a time inside the batch
        (``looped.per_instance``), where each instance's result is examined for undeclared float32 as the
        one-instance path examines it."""
        if name not in self.looped:
            return fn.torch
        if fn.precision is None and fn.opaque:
            def observed(*args, **kwargs):
                out = fn.torch(*args, **kwargs)
                precision.undeclared_float32(found, out)
                return out
            return looped.per_instance(observed)
        return looped.per_instance(fn.torch)

    def _loop_after(self, name: str, fn: vocabulary.Function, exc: BaseException, values: tuple) -> bool:
        """Whether a call that failed under vmap is made again one instance at a time: the user's code (bound,
        or a plugin's opaque function) that refused the batching. A reference function that refuses it leaves
        the whole check to the one-instance path, where its kernels take their batched path."""
        if name in self.looped or not any(looped.wrapped(v) for v in values) or not batching_refused(exc):
            return False
        if fn.binding is None and not fn.opaque:
            return False
        self.looped.add(name)
        return True

    def reduce(self, name, values):
        if name == "sum":
            return functools.reduce(operator.add, values)
        if name == "prod":
            return functools.reduce(operator.mul, values)
        ts = [v if isinstance(v, torch.Tensor) else torch.as_tensor(v, **self.ctx) for v in values]
        stacked = torch.stack(torch.broadcast_tensors(*ts))
        return stacked.amax(0) if name == "max" else stacked.amin(0)

    def special(self, name: str, node: ast.Call, env: dict) -> Any:
        """E(expr): the mean of expr over the random hypotheses' samples (all of them with keep_samples)."""
        if name != "E" or len(node.args) != 1 or node.keywords:
            raise dsl.DSLError("E(expr) takes one expression")
        if not self.randoms:
            raise dsl.DSLError("E(...) needs a random hypothesis (gaussian(...), orf(...)) in `given`")
        inner = TorchBackend(self.ctx, self.functions, conventions=self.conventions, precisions=self.precisions,
                             looped=self.looped)

        def one(rv: dict) -> torch.Tensor:
            out = dsl.evaluate(node.args[0], {**env, **rv}, inner)
            return out if isinstance(out, torch.Tensor) else torch.as_tensor(out, **self.ctx)

        try:
            samples = vmap(one)(self.randoms)
        except (RuntimeError, PluginFailure) as exc:
            if not batching_refused(exc):
                raise
            # code vmap cannot batch (an in-place write of the samples into a preallocated tensor): sample by
            # sample (the expectation judge bounds how many); a genuine failure raises again there
            count = next(iter(self.randoms.values())).shape[0]
            samples = torch.stack([one({k: v[s] for k, v in self.randoms.items()}) for s in range(count)])
        return samples if self.keep_samples else samples.mean(0)


def batching_refused(exc: BaseException) -> bool:
    """Whether an exception raised under ``vmap`` may be the batching's own failure, to be answered by the
    one-at-a-time path: vmap's refusals, and any failure of the user's code (``PluginFailure``), since code
    that writes a batched value into a tensor it preallocated fails under vmap with a plain shape error
    ("output with shape [3] doesn't match the broadcast shape [16, 3]"). A genuine failure raises again on
    the one-at-a-time path, with its own message."""
    return isinstance(exc, PluginFailure) or "vmap" in str(exc) or "Batching rule" in str(exc)


def _size(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        return 1.0  # not a size: the constructor itself rejects it


def _check_elements(count: float, what: str) -> None:
    try:
        limits.ELEMENTS.check(count, what)
    except limits.CapExceeded as exc:
        raise dsl.DSLError(str(exc)) from None


def sampler_elements(sampler: Sampler) -> int:
    """Numbers drawn per instance by a sampler (its parameters, or one draw of a random hypothesis)."""
    try:
        shapes = list(sampler.shapes().values())
    except NotImplementedError:
        shapes = []
    if sampler.random and hasattr(sampler, "shape"):
        shapes.append(sampler.shape())
    return sum(math.prod(s) for s in shapes)


def bind_sampler(name: str, spec: str, dims: dict[str, Any], root: Path | None = None) -> Sampler:
    """``given name: spec`` at one sweep assignment, inside the element cap; CheckError at ``given.name``.
    ``root``: the registry's folder (files a hypothesis names are read below it)."""
    try:
        s = parse_sampler(spec, dims, root)
        limits.ELEMENTS.check(sampler_elements(s), f"given {name}")
    except SamplerError as exc:
        raise CheckError(f"given {name}: {exc}", ("given", name)) from None
    except limits.CapExceeded as exc:
        raise CheckError(str(exc), ("given", name)) from None
    return s


@dataclass(kw_only=True)
class Compiled:
    """A check compiled for one assignment of its sweep variables (``dims``), built by ``compile_claim``."""

    check: Check
    dims: dict[str, Any]
    givens: dict[str, Sampler]
    randoms: dict[str, Sampler]
    where: list[tuple[str, ast.expr]]
    relations: list[dsl.Relation]
    assumes: list[dsl.Relation]
    quantity: ast.expr | None = None  # for order / constant checks without a relation
    baseline: ast.expr | None = None
    text: str = ""
    conventions: Mapping[str, str] = field(default_factory=dict)
    functions: Mapping[str, vocabulary.Function] = field(default_factory=dict)  # resolved by compile_claim
    # set when vmap failed once: later batches go straight to the per-instance loop
    vmap_refused: bool = field(default=False, compare=False)
    # the functions that refused vmap: called one instance at a time inside the batch (``looped``)
    looped: set = field(default_factory=set, compare=False)

    @property
    def unbatchable(self) -> bool:
        """Whether an evaluation costs a call of some code per instance (the whole check, or one function,
        one instance at a time): the search and the Monte-Carlo judge then spend fewer evaluations."""
        return self.vmap_refused or bool(self.looped)

    # ------------------------------------------------------------------ sampling
    def init_theta(self, b: int, gen: torch.Generator, ctx: TensorKwargs, degenerate: int = 0) -> dict[str, dict[str, torch.Tensor]]:
        per_instance = sum(sampler_elements(s) for s in self.givens.values())
        try:
            limits.BATCH_ELEMENTS.check(b * per_instance, f"a batch of {b} instances")
        except limits.CapExceeded as exc:
            raise CheckError(str(exc)) from None
        theta = {}
        for name, s in self.givens.items():
            th = s.init(b, gen, ctx)
            if degenerate:
                dg = s.degenerate(degenerate, gen, ctx)
                th = {k: torch.cat([v[: b - degenerate], dg[k]]) if k in dg else v for k, v in th.items()}
            theta[name] = th
        return theta

    def draw_randoms(self, b: int, s: int, gen: torch.Generator, ctx: TensorKwargs) -> dict[str, torch.Tensor]:
        per_draw = sum(sampler_elements(r) for r in self.randoms.values())
        try:
            limits.BATCH_ELEMENTS.check(b * s * per_draw, f"{b} instances x {s} samples")
        except limits.CapExceeded as exc:
            raise CheckError(str(exc)) from None
        return {name: smp.draw(b, s, gen, ctx) for name, smp in self.randoms.items()}

    def values(self, theta: dict) -> dict[str, Any]:
        return {name: self.givens[name].value(theta[name]) for name in self.givens}

    # ------------------------------------------------------------------ evaluation
    def _one(self, values: dict, randoms: dict, ctx: TensorKwargs, keep_samples: bool, precisions: set) -> tuple:
        # the condition numbers only scale the default tolerance: an explicit `tol` needs none computed
        conditions: list[torch.Tensor] | None = [] if self.check.tol is None else None
        amplifications: list[torch.Tensor] | None = [] if self.check.tol is None else None
        backend = TorchBackend(ctx, self.functions, randoms, keep_samples, self.conventions, conditions, precisions,
                               amplifications, self.looped)
        env: dict[str, Any] = {**self.dims, **values}
        for name, node in self.where:
            env[name] = dsl.evaluate(node, env, TorchBackend(ctx, self.functions, randoms, conventions=self.conventions,
                                                            conditions=conditions, precisions=precisions,
                                                            amplifications=amplifications, looped=self.looped))
        out = []
        for rel in self.relations + self.assumes:
            for side in (rel.lhs, rel.rhs):
                v = dsl.evaluate(side, env, backend)
                out.append(v if isinstance(v, torch.Tensor) else torch.as_tensor(v, **ctx))
        if self.quantity is not None:
            v = dsl.evaluate(self.quantity, env, backend)
            out.append(v if isinstance(v, torch.Tensor) else torch.as_tensor(v, **ctx))
        if self.baseline is not None:
            v = dsl.evaluate(self.baseline, env, backend)
            out.append(v if isinstance(v, torch.Tensor) else torch.as_tensor(v, **ctx))
        out.append(torch.stack([_conditioning(conditions, ctx), _conditioning(amplifications, ctx)]))
        return tuple(out)

    def evaluate(self, theta: dict, ctx: TensorKwargs, randoms: dict | None = None, keep_samples: bool = False) -> "Sides":
        """Batched: theta (B, ...) -> Sides with tensors (B, ...)."""
        values = self.values(theta)
        if not values and not randoms:
            # no hypotheses: one instance (a statement about constants), nothing to batch over
            found: set = set()
            flat = tuple(x.unsqueeze(0) for x in self._one({}, {}, ctx, keep_samples, found))
            return Sides(self, flat, values, _precision(found, flat))
        found = set()
        fn = functools.partial(self._one, ctx=ctx, keep_samples=keep_samples, precisions=found)
        flat = None
        if not self.vmap_refused:
            try:
                flat = vmap(fn)(values, randoms or {})
            except (RuntimeError, PluginFailure) as exc:
                if not batching_refused(exc):
                    raise
                self.vmap_refused = True
        if flat is None:
            # a function without a batching rule (or with a data-dependent branch): the per-instance loop
            b = _batch_size(theta, randoms)
            ones = [self.evaluate_one(theta, i, ctx, randoms, keep_samples) for i in range(b)]
            flat = tuple(torch.stack([o.flat[j] for o in ones]) for j in range(len(ones[0].flat)))
            found.update(o.precision for o in ones)
        return Sides(self, flat, values, _precision(found, flat))

    def evaluate_values(self, values: dict, ctx: TensorKwargs) -> "Sides":
        """One fixed instance given by its values (an example of the check; batch axis of 1), without vmap."""
        one = {n: (v[0] if isinstance(v, torch.Tensor) else {k: x[0] for k, x in v.items()}) for n, v in values.items()}
        found: set = set()
        flat = self._one(one, {}, ctx, False, found)
        return Sides(self, tuple(x.unsqueeze(0) for x in flat), values, _precision(found, flat))

    def evaluate_one(self, theta: dict, i: int, ctx: TensorKwargs, randoms: dict | None = None, keep_samples: bool = False) -> "Sides":
        """Instance i alone, without vmap (the independent re-check path); tensors keep a batch of 1."""
        th = {n: {k: v[i: i + 1] for k, v in t.items()} for n, t in theta.items()}
        values = self.values(th)
        one = {n: (v[0] if isinstance(v, torch.Tensor) else {k: x[0] for k, x in v.items()}) for n, v in values.items()}
        rv = {n: v[i] for n, v in (randoms or {}).items()}
        found: set = set()
        flat = self._one(one, rv, ctx, keep_samples, found)
        return Sides(self, tuple(x.unsqueeze(0) for x in flat), values, _precision(found, flat))


MAX_CONDITIONING = 1e6  # the tolerance grows with the conditioning up to this factor, no further


def _conditioning(conditions: list | None, ctx: TensorKwargs) -> torch.Tensor:
    """The factor (0-d, in [1, MAX_CONDITIONING]) by which rounding in this instance's computation may
    exceed a well-conditioned one's: the largest condition number declared by the functions it called."""
    one = torch.ones((), **ctx)
    if not conditions:
        return one
    worst = torch.stack([c.to(one.dtype).reshape(()) for c in conditions]).amax()
    return torch.nan_to_num(worst, nan=MAX_CONDITIONING, posinf=MAX_CONDITIONING).clamp(1.0, MAX_CONDITIONING)


def _precision(found: set, flat: tuple) -> torch.dtype:
    """The lowest precision of an evaluation: its calls' and its sides' own floating-point types."""
    return precision.lowest([*found, *(precision.real(x.dtype) for x in flat)])


def _batch_size(theta: dict, randoms: dict | None) -> int:
    for t in theta.values():
        for v in t.values():
            return v.shape[0]
    for v in (randoms or {}).values():
        return v.shape[0]
    return 1


@dataclass
class Sides:
    compiled: Compiled
    flat: tuple
    values: dict
    # the lowest floating-point precision the evaluation computed in (``checks/precision.py``)
    precision: torch.dtype = torch.float64

    def relation_sides(self) -> list[tuple[dsl.Relation, torch.Tensor, torch.Tensor]]:
        rels = self.compiled.relations
        return [(r, self.flat[2 * i], self.flat[2 * i + 1]) for i, r in enumerate(rels)]

    def assume_sides(self) -> list[tuple[dsl.Relation, torch.Tensor, torch.Tensor]]:
        off = 2 * len(self.compiled.relations)
        return [(r, self.flat[off + 2 * i], self.flat[off + 2 * i + 1]) for i, r in enumerate(self.compiled.assumes)]

    @property
    def quantity(self) -> torch.Tensor | None:
        if self.compiled.quantity is None:
            return None
        return self.flat[2 * (len(self.compiled.relations) + len(self.compiled.assumes))]

    @property
    def baseline(self) -> torch.Tensor | None:
        if self.compiled.baseline is None:
            return None
        return self.flat[-2]

    @property
    def conditioning(self) -> torch.Tensor:
        """(B,) the conditioning factor of each instance's computation (``_conditioning``): the condition
        numbers its functions declare."""
        return self.flat[-1].reshape(-1, 2)[:, 0]  # the per-instance loop stacks it as (B, 1, 2)

    @property
    def amplification(self) -> torch.Tensor:
        """(B,) the largest condition number measured on its calls below float64 (``precision.amplification``);
        1 where every call computed in float64."""
        return self.flat[-1].reshape(-1, 2)[:, 1]


def sweep(check: Check) -> list[dict[str, Any]]:
    """All assignments of the sweep variables, smallest first (so witnesses come out small)."""
    dims = check.dims or {}
    if not dims:
        return [{}]
    keys = list(dims)
    lists = []
    for k in keys:
        v = dims[k]
        lists.append(list(v) if isinstance(v, list) else [v])
    count = math.prod(len(v) for v in lists)
    try:
        limits.ASSIGNMENTS.check(count, "dims (" + " x ".join(str(len(v)) for v in lists) + " values)")
    except limits.CapExceeded as exc:
        raise CheckError(str(exc), ("dims",)) from None
    combos = [dict(zip(keys, vals)) for vals in itertools.product(*lists)]
    return sorted(combos, key=lambda c: tuple(float(c[k]) for k in keys))
