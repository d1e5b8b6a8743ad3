"""Re-evaluation of one instance in 60-digit arithmetic (mpmath), through the vocabulary's records.

A float64 violation close to the tolerance may be rounding error of an ill-conditioned computation (a
determinant, an eigendecomposition) rather than a counterexample. Where ball arithmetic cannot decide
(a function without a ball meaning, or an enclosure too wide to say), the instance is evaluated again
here: the witness's float64 inputs are exact binary numbers, every operation is carried out with
``DIGITS`` significant digits, and the relation's violation is measured exactly as the float64 score
measures it, against the same tolerance. A violation that vanishes at 60 digits was rounding; one that
persists is confirmed in higher precision.

Values are numpy object arrays of mpmath numbers (so broadcasting, indexing and ``@`` behave as in
torch) and mpmath scalars. Each vocabulary function has its meaning here through ``precise_meaning``
(``provers/precise_meanings.py``); a function without one makes the evaluation ``unsupported``.
Functions whose float64 output is one choice among several (eigenvectors, SVD factors) make the same
choice here (order, sign), so both evaluations compute the same object.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..checks import dsl
from ..checks.vocabulary import Function
from . import precise_meanings  # noqa: F401 - registers the built-ins' 60-digit meanings
from .precise_values import DIGITS, Unsupported, index, matrix_power, mp, to_precise

MAX_ELEMENTS = 4096  # the inputs of one instance; 60-digit linear algebra is cubic and slow beyond this


class PreciseBackend(dsl.Backend):
    def __init__(self, functions: Mapping[str, Function], conventions: Mapping[str, str] | None = None):
        self.functions = functions  # the compiled check's table: the same records as in torch
        self.conventions = conventions or {}  # the claim's conventions fill the same keywords as in torch

    def const(self, value):
        # pi and e are the real constants here; every other literal is the number the check wrote
        if value == math.pi:
            return +mp.pi
        if value == math.e:
            return +mp.e
        return mp.mpf(value)

    def binop(self, op, a, b):
        a, b = to_precise(a), to_precise(b)
        if op == "**":
            if isinstance(a, np.ndarray) and a.ndim == 2 and a.shape[0] == a.shape[1] and not isinstance(b, np.ndarray) \
                    and float(b).is_integer() and float(b) >= 0:
                return matrix_power(a, int(b))
            return a ** b
        if op == "@":
            if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
                raise Unsupported("@ of a scalar")
            return a @ b
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[op]()

    def neg(self, a):
        return -to_precise(a)

    def transpose(self, a):
        a = to_precise(a)
        return a.swapaxes(-1, -2) if isinstance(a, np.ndarray) and a.ndim >= 2 else a

    def index(self, a, idx):
        if isinstance(a, dict):
            raise Unsupported("indexing a composite hypothesis")
        return to_precise(a)[index(idx)]

    def reduce(self, name, values):
        vals = [to_precise(v) for v in values]
        out = vals[0]
        for v in vals[1:]:
            if name == "sum":
                out = out + v
            elif name == "prod":
                out = out * v
            elif name in ("max", "min"):  # numpy compares object elements (and scalars) as Python does
                out = (np.maximum if name == "max" else np.minimum)(out, v)
            else:
                raise Unsupported(f"reduction {name}")
        return out

    def call(self, name, args, kwargs):
        record = self.functions.get(name)
        fn = record.precise if record is not None else None
        if fn is None:
            raise Unsupported(f"function {name}")
        args = [a if isinstance(a, (list, dict)) else to_precise(a) for a in args]
        kwargs = {k: v if isinstance(v, str) else to_precise(v) for k, v in kwargs.items()}
        return fn(*args, **{**record.convention_kwargs(self.conventions), **kwargs})


def _norm2(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return mp.sqrt(mp.fsum(abs(v) ** 2 for v in x.reshape(-1)))
    return abs(x)


def violation_score(op: str, lhs: Any, rhs: Any, tol: float) -> Any:
    """The float64 violation score (scoring.relation_terms) of one relation, in 60 digits: > 1 violates."""
    lhs, rhs = to_precise(lhs), to_precise(rhs)
    if op in ("==", "!="):
        diff = _norm2(np.asarray(lhs - rhs, dtype=object))
        err = diff / max(mp.mpf(1), _norm2(lhs), _norm2(rhs))
        return err / tol if op == "==" else tol / max(err, mp.mpf(10) ** -300)
    if op in ("<=", "<", ">=", ">"):
        a, b = (lhs, rhs) if op in ("<=", "<") else (rhs, lhs)
        a, b = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
        return max((x - y) / (tol * (1 + abs(x) + abs(y))) for x, y in zip(a.reshape(-1), b.reshape(-1)))
    raise Unsupported(f"relation {op}")


def needed_bindings(rel, where: dict) -> list[str]:
    """The ``where`` names a relation reads, directly or through other bindings, in definition order."""
    pending = {n.id for side in (rel.lhs, rel.rhs) for n in ast.walk(side) if isinstance(n, ast.Name)}
    needed: set[str] = set()
    while pending:
        name = pending.pop()
        if name in where and name not in needed:
            needed.add(name)
            pending |= {n.id for n in ast.walk(where[name]) if isinstance(n, ast.Name)}
    return [n for n in where if n in needed]


def relation_sides(rel, where: dict, env: dict, backend: dsl.Backend) -> tuple[Any, Any]:
    """Both sides of one relation in ``backend``, evaluating (into ``env``) only the ``where`` bindings it
    reads, so a function another relation needs cannot block this one."""
    for name in needed_bindings(rel, where):
        if name not in env:
            env[name] = dsl.evaluate(where[name], env, backend)
    return dsl.evaluate(rel.lhs, env, backend), dsl.evaluate(rel.rhs, env, backend)


def _size(sides) -> int:
    return sum(x[0].numel() for v in sides.values.values() for x in (v.values() if isinstance(v, dict) else [v]))


def _precise_env(comp, sides) -> dict[str, Any]:
    """The instance 0 of ``sides`` in mpmath numbers (exact: the float64 inputs are binary numbers), with the dims."""
    env: dict[str, Any] = {k: mp.mpf(v) if isinstance(v, (int, float)) else v for k, v in comp.dims.items()}
    for name, v in sides.values.items():
        env[name] = {k: to_precise(x[0]) for k, x in v.items()} if isinstance(v, dict) else to_precise(v[0])
    return env


def judge_signs(comp, sides, j: int, decide) -> bool | None:
    """``decide(lhs, rhs)`` on relation j's two sides at instance 0 in ``DIGITS``-digit arithmetic, broadcast
    to entries of one shape (lists of mpmath numbers, the bound's sides as ``lhs <= rhs``); None where the
    relation has no 60-digit meaning (or random hypotheses, or too large an instance)."""
    size = _size(sides)
    if comp.randoms or size > MAX_ELEMENTS:
        return None
    rel = comp.relations[j]
    backend = PreciseBackend(comp.functions, comp.conventions)
    with mp.workdps(DIGITS):
        try:
            env = _precise_env(comp, sides)
            lhs, rhs = (to_precise(x) for x in relation_sides(rel, dict(comp.where), env, backend))
            if rel.op in (">=", ">"):
                lhs, rhs = rhs, lhs
            a, b = np.broadcast_arrays(np.asarray(lhs, dtype=object), np.asarray(rhs, dtype=object))
            return decide(list(a.reshape(-1)), list(b.reshape(-1)))
        except (Unsupported, ValueError, ZeroDivisionError, ArithmeticError, TypeError, IndexError):
            return None


def reevaluate(comp, sides, tol: float, relations: list[int]) -> dict[str, Any]:
    """Judge the float64-violated ``relations`` of the instance in ``sides`` again at ``DIGITS`` digits.

    Status: 'confirmed' (some relation is violated beyond the tolerance at 60 digits), 'vanishes' (every
    judged relation holds within the tolerance at 60 digits: the float64 violation was rounding), or
    'unsupported: ...' (a function without a 60-digit meaning, or random hypotheses)."""
    if comp.randoms:
        return {"status": "unsupported: random hypotheses"}
    size = _size(sides)
    if size > MAX_ELEMENTS:
        return {"status": f"unsupported: an instance of {size} numbers is too large for {DIGITS} digits "
                          f"(at most {MAX_ELEMENTS})"}
    where = dict(comp.where)
    backend = PreciseBackend(comp.functions, comp.conventions)
    scores, reasons = [], []
    with mp.workdps(DIGITS):
        try:
            env = _precise_env(comp, sides)
        except Unsupported as exc:
            return {"status": f"unsupported: {exc}"}
        for j in relations:
            rel = comp.relations[j]
            try:
                scores.append(violation_score(rel.op, *relation_sides(rel, where, env, backend), tol))
            except Unsupported as exc:
                reasons.append(str(exc))
            except (ValueError, ZeroDivisionError, ArithmeticError, TypeError, IndexError) as exc:
                reasons.append(f"{type(exc).__name__}: {exc}")
    if any(s > 1 for s in scores):
        return {"status": "confirmed", "score": float(max(scores)), "digits": DIGITS}
    if scores and not reasons:
        return {"status": "vanishes", "score": float(max(scores)), "digits": DIGITS}
    return {"status": f"unsupported: {reasons[0] if reasons else 'no relation to judge'}"}


__all__ = ["reevaluate", "judge_signs", "PreciseBackend", "violation_score", "to_precise", "DIGITS"]
