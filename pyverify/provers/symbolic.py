"""SymPy proofs of identities: the check's relations evaluated on symbolic instances.

A claim opts in with ``check.symbolic`` (``{dims: {...}}`` picks the sweep values; default the smallest
combination). Each hypothesis gets a *generic* symbolic instance — a vector of free real symbols, a skew
matrix of free symbols, commuting generators in block form with free frequencies (basis U = I: the
scope says so) — and every ``==`` relation must simplify to zero. The scope of the proof (dimensions,
what was specialised) is reported with the verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.polys.rings import sring

from .. import limits
from ..checks import dsl
from ..checks.claim import CompiledClaim
from ..checks.samplers import SymbolicUnsupported
from ..checks.vocabulary import Function, sympy_meaning


@dataclass
class Outcome:
    proved: bool
    scope: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"proved": self.proved, "scope": self.scope, "message": self.message}


def _lowest_terms(e: sp.Expr) -> sp.Expr:
    """A rational function as P/Q in lowest terms, by polynomial-ring gcd alone (``sp.cancel`` also runs
    ``signsimp`` and ``factor_terms`` for a nicer form, which costs most of its time and proves nothing)."""
    p, q = e.as_numer_denom()
    ring, (num, den) = sring((p, q))
    if not ring.ngens:
        return e
    num, den = num.cancel(den)
    return num.as_expr() / den.as_expr()


def _canonical(x: Any) -> Any:
    """Keep rational-function entries in lowest terms after each operation (expressions stay small)."""
    def one(e):
        return _lowest_terms(e) if not e.is_Atom and e.is_rational_function() else e
    if isinstance(x, sp.MatrixBase):
        return x.applyfunc(one)
    return one(x) if isinstance(x, sp.Expr) else x


class SympyBackend(dsl.Backend):
    def __init__(self, functions: Mapping[str, Function], conventions: Mapping[str, str] | None = None):
        self.functions = functions  # the compiled check's table: the same records as in torch
        # the claim's conventions fill the same keywords as in torch (displacement(ri, rj) means one thing)
        self.conventions = conventions or {}

    def binop(self, op, a, b):
        if op == "@":
            return _canonical(a * b)
        if op == "*" and isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase):
            return _canonical(a.multiply_elementwise(b))
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b, "**": lambda: a ** b}
        return _canonical(ops[op]())

    def transpose(self, a):
        return a.T if isinstance(a, sp.MatrixBase) else a

    def index(self, a, idx):
        # torch semantics: M[i] of a matrix is its row i; a vector (n x 1) gives its entry
        if isinstance(a, sp.MatrixBase) and isinstance(idx, int) and a.shape[1] > 1:
            return a[idx, :]
        if isinstance(a, list):
            return a[idx]
        return a[idx]

    def reduce(self, name, values):
        out = values[0]
        for v in values[1:]:
            out = out + v if name == "sum" else out * v
        if name not in ("sum", "prod"):
            raise SymbolicUnsupported(f"reduction {name}")
        return out

    def call(self, name, args, kwargs):
        record = self.functions.get(name)
        fn = record.sympy if record is not None else None
        if fn is None or kwargs:
            raise SymbolicUnsupported(f"function {name} has no SymPy meaning here")
        return _canonical(fn(*args, **record.convention_kwargs(self.conventions)))


def expm(m: sp.Matrix) -> sp.Matrix:
    return sp.simplify(m.exp())


_SYMPY_MEANINGS = {
    "I": lambda n: sp.eye(int(n)),
    "zeros": lambda m, n=None: sp.zeros(int(m), int(n if n is not None else m)),
    "exp": sp.exp,
    "log": sp.log,
    "sqrt": sp.sqrt,
    "sin": sp.sin,
    "cos": sp.cos,
    "expm": expm,
    "inv": lambda m: m.inv(),
    "det": lambda m: m.det(),
    "tr": lambda m: m.trace(),
    "comm": lambda a, b: a * b - b * a,
    "sym_part": lambda m: (m + m.T) / 2,
    "dot": lambda x, y: (x.T * y)[0, 0],
    "outer": lambda x, y: x * y.T,
    "displacement": lambda ri, rj, convention="rj-ri": rj - ri if convention == "rj-ri" else ri - rj,
}
for _name, _fn in _SYMPY_MEANINGS.items():
    sympy_meaning(_name)(_fn)


def _is_zero(expr: Any) -> bool:
    if isinstance(expr, sp.MatrixBase):
        return all(_is_zero(e) for e in expr)
    num, _ = sp.fraction(_lowest_terms(expr) if expr.is_rational_function() else sp.together(expr))
    num = sp.expand(num)
    if num == 0:
        return True
    if num.has(sp.sin, sp.cos, sp.exp):
        return sp.simplify(sp.expand_trig(sp.trigsimp(num))) == 0
    return False


def prove(compiled: CompiledClaim, seconds: int = 60) -> Outcome:
    """SymPy on the check's identities at its symbolic assignment (``check.symbolic.dims``, default the
    smallest sweep assignment)."""
    comp = compiled.symbolic
    if comp is None:
        return Outcome(False, "", "not attempted: the check asks for no symbolic proof")
    dims = dict(comp.dims)
    notes: list[str] = []
    try:
        if comp.randoms:
            raise SymbolicUnsupported("random hypotheses")
        env: dict[str, Any] = dict(dims)
        for name, sampler in comp.givens.items():
            env[name] = sampler.symbolic_instance(name, notes)
        backend = SympyBackend(comp.functions, comp.conventions)
        # CPU time, not wall-clock time: whether a proof is found must not depend on the machine's load
        with limits.cpu_time_limit(seconds, TimeoutError):
            for name, node in comp.where:
                env[name] = dsl.evaluate(node, env, backend)
            for rel in comp.relations:
                if rel.op != "==":
                    raise SymbolicUnsupported(f"relation {rel.op} (only identities are proved symbolically)")
                lhs = dsl.evaluate(rel.lhs, env, backend)
                rhs = dsl.evaluate(rel.rhs, env, backend)
                if not _is_zero(lhs - rhs):
                    scope = _scope(dims, notes)
                    return Outcome(False, scope, f"{rel.text}: the difference does not simplify to zero")
    except SymbolicUnsupported as exc:
        return Outcome(False, _scope(dims, notes), f"not attempted: {exc}")
    except TimeoutError:
        return Outcome(False, _scope(dims, notes), f"SymPy did not finish within {seconds} s of CPU time")
    except Exception as exc:  # noqa: BLE001 - a failed symbolic attempt must not turn the claim into `error`
        return Outcome(False, _scope(dims, notes), f"SymPy could not evaluate the check: {type(exc).__name__}: {exc}")
    return Outcome(True, _scope(dims, notes), "every identity simplified to zero")


def _scope(dims: dict, notes: list[str]) -> str:
    parts = [", ".join(f"{k}={v}" for k, v in dims.items()) or "as stated"]
    parts.extend(notes)
    return "; ".join(parts)
