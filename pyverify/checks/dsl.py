"""The expression language of checks: parsed once with ``ast``, never ``eval``-ed.

An expression is Python *syntax* restricted to a whitelist:

* numbers (|c| <= 1e6), names bound by the check (``given``/``where``/``dims``/loop variables) and the
  constants ``pi``, ``e``, ``inf``;
* ``+ - * / ** @``, unary ``-``/``+``, comparisons (``== <= < >= > !=``, chained), ``and``;
* calls of whitelisted functions by plain name (``functions.FUNCTIONS``), keyword arguments allowed;
* ``x.T`` (transpose), ``g.part`` (a part of a composite hypothesis such as ``gen.U``);
* indexing with integer constants, loop variables and slices;
* ``sum(f(k) for k in range(n))`` (also ``prod``, ``max``, ``min``) over a range of a constant.

Evaluation is by a ``Backend`` (torch, SymPy, interval arithmetic), so one parsed expression serves all
three checkers. The torch backend evaluates one *instance*; batching is ``torch.func.vmap`` over it, so
``x @ y`` means the same thing for one instance and for a batch.
"""

from __future__ import annotations

import ast
import contextvars
import math
from dataclasses import dataclass
from typing import Any, Callable

from .. import limits

MAX_CONST = 1e6
MAX_POW = 16
MAX_LEN = 4000
MAX_NODES = 600
MAX_RANGE = 256
CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf}
COMPARE_OPS = {ast.Eq: "==", ast.LtE: "<=", ast.Lt: "<", ast.GtE: ">=", ast.Gt: ">", ast.NotEq: "!="}
BIN_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@"}
REDUCERS = ("sum", "prod", "max", "min")


class DSLError(ValueError):
    """An expression outside the language; the message says what and where (column)."""


# evaluations of a reduction's body so far enclosed: the product of the enclosing ranges' lengths
_REDUCTION_NEST: contextvars.ContextVar[int] = contextvars.ContextVar("reduction_nest", default=1)


@dataclass(frozen=True)
class Relation:
    op: str
    lhs: ast.expr
    rhs: ast.expr
    text: str


def _where(node: ast.AST) -> str:
    return f" (column {getattr(node, 'col_offset', 0) + 1})"


def parse(text: str, names: set[str], functions: set[str], *, allow_relations: bool = True) -> ast.expr:
    """Parse and validate; raise DSLError naming the offending construct."""
    if not isinstance(text, str) or not text.strip():
        raise DSLError("empty expression")
    if len(text) > MAX_LEN:
        raise DSLError(f"expression longer than {MAX_LEN} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise DSLError(f"syntax error at column {exc.offset}: {exc.msg}") from None
    except (RecursionError, MemoryError):  # CPython's parser on a deeply nested expression
        raise DSLError("expression nested too deeply for the parser") from None
    count = sum(1 for _ in ast.walk(tree))
    if count > MAX_NODES:
        raise DSLError(f"expression too large ({count} nodes > {MAX_NODES})")
    _Validator(names, functions, allow_relations).visit(tree.body)
    return tree.body


class _Validator(ast.NodeVisitor):
    def __init__(self, names: set[str], functions: set[str], allow_relations: bool):
        self.names = set(names) | set(CONSTANTS)
        self.functions = functions
        self.allow_relations = allow_relations
        self.depth = 0

    def generic_visit(self, node: ast.AST) -> None:
        raise DSLError(f"{type(node).__name__} is not allowed in the check language{_where(node)}")

    def _visit(self, node: ast.AST) -> None:
        self.depth += 1
        if self.depth > 60:
            raise DSLError("expression nested too deeply")
        super().visit(node)
        self.depth -= 1

    visit = _visit

    def visit_Constant(self, node: ast.Constant) -> None:
        v = node.value
        if isinstance(v, bool):  # True/False as keyword values (align_sign=True)
            return
        if not isinstance(v, (int, float, str)):
            raise DSLError(f"constant {v!r} is not allowed{_where(node)}")
        if isinstance(v, str):
            if len(v) > 40:
                raise DSLError(f"string constant too long{_where(node)}")
            return
        if abs(v) > MAX_CONST:
            raise DSLError(f"constant {v} exceeds the bound {MAX_CONST:g}{_where(node)}")

    def visit_Name(self, node: ast.Name) -> None:
        if node.id.startswith("_"):
            raise DSLError(f"name {node.id!r} is not allowed{_where(node)}")
        if node.id not in self.names:
            hint = " (a function must be called)" if node.id in self.functions else ""
            raise DSLError(f"unknown name {node.id!r}{hint}{_where(node)}")

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if type(node.op) not in BIN_OPS:
            raise DSLError(f"operator {type(node.op).__name__} is not allowed{_where(node)}")
        if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and isinstance(node.right.value, (int, float)):
            if abs(node.right.value) > MAX_POW:
                raise DSLError(f"exponent {node.right.value} exceeds {MAX_POW}{_where(node)}")
        self.visit(node.left)
        self.visit(node.right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            raise DSLError(f"operator {type(node.op).__name__} is not allowed{_where(node)}")
        self.visit(node.operand)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        if not isinstance(node.op, ast.And) or not self.allow_relations:
            raise DSLError(f"only `and` of relations is allowed at the top level{_where(node)}")
        for value in node.values:
            if not isinstance(value, ast.Compare):
                raise DSLError(f"`and` joins relations only{_where(value)}")
            self.visit(value)

    def visit_Compare(self, node: ast.Compare) -> None:
        if not self.allow_relations:
            raise DSLError(f"a relation is not allowed here{_where(node)}")
        for op in node.ops:
            if type(op) not in COMPARE_OPS:
                raise DSLError(f"comparison {type(op).__name__} is not allowed{_where(node)}")
        saved, self.allow_relations = self.allow_relations, False
        self.visit(node.left)
        for c in node.comparators:
            self.visit(c)
        self.allow_relations = saved

    def visit_Call(self, node: ast.Call) -> None:
        if not isinstance(node.func, ast.Name):
            raise DSLError(f"only whitelisted functions may be called, by plain name{_where(node)}")
        name = node.func.id
        if len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp):
            if name not in REDUCERS:
                raise DSLError(f"{name}(... for ...) is not allowed; use {', '.join(REDUCERS)}{_where(node)}")
            self._visit_generator(node.args[0])
            return
        if name not in self.functions:
            raise DSLError(f"function {name!r} is not in the whitelist{_where(node)}")
        saved, self.allow_relations = self.allow_relations, False
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise DSLError(f"*args is not allowed{_where(arg)}")
            self.visit(arg)
        for kw in node.keywords:
            if kw.arg is None or kw.arg.startswith("_"):
                raise DSLError(f"keyword argument not allowed{_where(node)}")
            self.visit(kw.value)
        self.allow_relations = saved

    def _visit_generator(self, gen: ast.GeneratorExp) -> None:
        if len(gen.generators) != 1:
            raise DSLError(f"one `for` per reduction{_where(gen)}")
        comp = gen.generators[0]
        if comp.ifs or comp.is_async or not isinstance(comp.target, ast.Name):
            raise DSLError(f"reduction must be `for NAME in range(N)`{_where(gen)}")
        it = comp.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and 1 <= len(it.args) <= 2 and not it.keywords):
            raise DSLError(f"reduction must iterate over range(...){_where(gen)}")
        for a in it.args:
            self.visit(a)
        var = comp.target.id
        if var.startswith("_"):
            raise DSLError(f"name {var!r} is not allowed{_where(gen)}")
        saved_names, saved_rel = set(self.names), self.allow_relations
        self.names.add(var)
        self.allow_relations = False
        self.visit(gen.elt)
        self.names, self.allow_relations = saved_names, saved_rel

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            raise DSLError(f"attribute {node.attr!r} is not allowed{_where(node)}")
        if node.attr != "T" and not isinstance(node.value, ast.Name):
            raise DSLError(f"only `.T` and parts of a named hypothesis (`gen.U`) are allowed{_where(node)}")
        self.visit(node.value)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.visit(node.value)
        self._visit_index(node.slice)

    def _visit_index(self, node: ast.AST) -> None:
        if isinstance(node, ast.Tuple):
            for elt in node.elts:
                self._visit_index(elt)
        elif isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.visit(part)
        else:
            self.visit(node)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        raise DSLError(f"tuples are only allowed as indices{_where(node)}")


def relations(tree: ast.expr, text: str) -> list[Relation]:
    """Split a validated top-level assertion into binary relations (chains become pairs)."""
    comps = tree.values if isinstance(tree, ast.BoolOp) else [tree]
    out = []
    for comp in comps:
        if not isinstance(comp, ast.Compare):
            raise DSLError("an assertion must be a relation (==, <=, <, >=, >, !=) or an `and` of relations")
        left = comp.left
        for op, right in zip(comp.ops, comp.comparators):
            seg = ast.get_source_segment(text.strip(), comp) or text
            out.append(Relation(COMPARE_OPS[type(op)], left, right, seg))
            left = right
    return out


class Backend:
    """How the evaluator computes: one implementation per operation.

    ``special_forms`` names the calls the backend evaluates itself from the unevaluated argument
    (``E(expr)``, an expectation over random hypotheses): the evaluator hands them to ``special``."""

    special_forms: frozenset[str] = frozenset()

    def special(self, name: str, node: ast.Call, env: dict[str, Any]) -> Any:
        raise DSLError(f"{name}(...) is not available here")

    def const(self, value: float) -> Any:
        return value

    def binop(self, op: str, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def neg(self, a: Any) -> Any:
        return -a

    def transpose(self, a: Any) -> Any:
        raise NotImplementedError

    def index(self, a: Any, idx: Any) -> Any:
        return a[idx]

    def call(self, name: str, args: list, kwargs: dict) -> Any:
        raise NotImplementedError

    def reduce(self, name: str, values: list) -> Any:
        raise NotImplementedError


def evaluate(node: ast.expr, env: dict[str, Any], backend: Backend) -> Any:
    """Evaluate a validated (non-relation) expression."""
    ev = lambda n: evaluate(n, env, backend)  # noqa: E731
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, (str, bool)) else backend.const(node.value)
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        return backend.const(CONSTANTS[node.id])
    if isinstance(node, ast.BinOp):
        left, right = ev(node.left), ev(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return backend.binop(BIN_OPS[type(node.op)], left, right)
    if isinstance(node, ast.UnaryOp):
        v = ev(node.operand)
        return backend.neg(v) if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Attribute):
        base = ev(node.value)
        if isinstance(base, dict):
            if node.attr not in base:
                raise DSLError(f"hypothesis has no part {node.attr!r} (parts: {', '.join(base)})")
            return base[node.attr]
        if node.attr == "T":
            return backend.transpose(base)
        raise DSLError(f"attribute {node.attr!r} of a non-composite value")
    if isinstance(node, ast.Subscript):
        return backend.index(ev(node.value), _index(node.slice, ev))
    if isinstance(node, ast.Call):
        name = node.func.id  # type: ignore[attr-defined]
        if name in backend.special_forms:
            return backend.special(name, node, env)
        if len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp):
            gen = node.args[0]
            comp = gen.generators[0]
            bounds = [int(_as_int(ev(a))) for a in comp.iter.args]  # type: ignore[attr-defined]
            rng = range(*bounds)
            if len(rng) > MAX_RANGE:
                raise DSLError(f"range of {len(rng)} exceeds {MAX_RANGE}")
            steps = _REDUCTION_NEST.get() * len(rng)
            if steps > limits.REDUCTION_STEPS.value:
                raise DSLError(limits.REDUCTION_STEPS.message(steps, f"{name}(... for ...) nested in reductions"))
            token = _REDUCTION_NEST.set(max(steps, 1))
            try:
                values = [evaluate(gen.elt, {**env, comp.target.id: k}, backend) for k in rng]  # type: ignore[attr-defined]
            finally:
                _REDUCTION_NEST.reset(token)
            if not values:
                raise DSLError("reduction over an empty range")
            return backend.reduce(name, values)
        args = [ev(a) for a in node.args]
        kwargs = {kw.arg: ev(kw.value) for kw in node.keywords}
        return backend.call(name, args, kwargs)
    raise DSLError(f"cannot evaluate {type(node).__name__}")


def _plain_number(v: Any) -> float | None:
    """The value of a Python or SymPy number (a tensor is not one: its powers are elementwise floats)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if getattr(v, "is_Number", False):
        try:
            return float(v)
        except (TypeError, ValueError, OverflowError):
            return None
    return None


def _check_power(base: Any, exponent: Any) -> None:
    """``9 ** 9 ** 9``: a power of plain numbers is computed exactly (Python or SymPy integers) and could
    run for hours in one step, where no time limit can interrupt it; refuse it by its size beforehand."""
    b, e = _plain_number(base), _plain_number(exponent)
    if b is None or e is None:
        return
    digits = limits.power_digits(b, e)
    if digits > limits.POWER_DIGITS.value:
        raise DSLError(limits.POWER_DIGITS.message(digits, f"power {b:g} ** {e:g}"))


def _as_int(v: Any) -> int:
    try:
        f = float(v)
    except TypeError:
        raise DSLError(f"expected an integer, got {type(v).__name__}") from None
    if f != int(f):
        raise DSLError(f"expected an integer, got {f}")
    return int(f)


def _index(node: ast.AST, ev: Callable) -> Any:
    if isinstance(node, ast.Tuple):
        return tuple(_index(e, ev) for e in node.elts)
    if isinstance(node, ast.Slice):
        parts = [None if p is None else _as_int(ev(p)) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)
    return _as_int(ev(node))
