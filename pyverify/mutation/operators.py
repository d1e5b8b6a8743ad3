"""Mutation operators: the errors a claim's own check admits, planted in its compiled form.

A mutant is the ``CompiledClaim`` with one change to its parsed expressions (or to its order's claimed
value); the text of the check is never re-read. Each operator names a class of error a careless reading of
a document makes, and which a check that tests the statement must notice:

* ``exponent``: a power's constant exponent tripled (``eps**2`` -> ``eps**6``), an order check's
  claimed order tripled (2 -> 6);
* ``constant``: a numeric constant halved (``C`` -> ``C/2``; integer arguments of calls, indices and
  ranges are sizes, not constants of the statement, and are left alone);
* ``bound``: one side of a relation scaled (``lhs <= rhs`` -> ``lhs <= rhs / 2``, ``lhs >= rhs`` ->
  ``lhs >= 2 rhs``, ``lhs == rhs`` -> ``lhs == rhs / 2``): the bound tightened, the identity broken
  (not for a side that is zero as written, which scaling leaves equal);
* ``term``: one operand of a sum or difference dropped;
* ``sign``: ``a - b`` -> ``a + b``, ``a + b`` -> ``a - b``, ``-x`` -> ``x``;
* ``relation``: a comparison flipped (``<=`` -> ``>=``, ``<`` -> ``>``, ``!=`` -> ``==``);
* ``hypothesis``: one ``assume`` dropped (the hypothesis widened to every instance the samplers draw).

A check of the ``constant`` kind ("lhs <= C rhs for some constant C") is blind, by its meaning, to any
change that multiplies a side by a fixed number; the ``constant`` and ``bound`` operators produce nothing
but such changes there and are not applied to it. Its exponents are mutated: a power of a *fixed* number is
one such multiplication, so a surviving exponent mutant there is exactly the finding "this check never
varies the quantity whose order it claims".
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..checks import dsl
from ..checks.claim import CompiledClaim, Expressions, RelationKind
from ..checks.vocabulary import VOCABULARY

OPERATORS = ("exponent", "constant", "bound", "term", "sign", "relation", "hypothesis")
EXPONENT_FACTOR = 3  # eps**2 -> eps**6: far outside any rounding, inside the language's MAX_POW for small exponents
FLIPPED = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "!=": "=="}


@dataclass(frozen=True)
class Mutant:
    """One planted error: its operator, where it was planted, what changed, and the mutated claim."""

    operator: str
    site: str  # "assert[0].rhs", "where D", "assume[1]", "order.claimed"
    change: str  # "0.1 ** 2 -> 0.1 ** 6"
    compiled: CompiledClaim = dataclasses.field(compare=False, repr=False)

    def as_dict(self) -> dict[str, str]:
        return {"operator": self.operator, "site": self.site, "change": self.change}


# ---------------------------------------------------------------- expression slots

@dataclass(frozen=True)
class _Slot:
    """A place in the compiled expressions holding one expression tree."""

    name: str
    tree: ast.expr
    put: Callable[[Expressions, ast.expr], Expressions]


def _slots(ex: Expressions) -> list[_Slot]:
    out: list[_Slot] = []
    for i, (name, tree) in enumerate(ex.where):
        out.append(_Slot(f"where {name}", tree, lambda e, t, i=i, name=name: dataclasses.replace(
            e, where=e.where[:i] + ((name, t),) + e.where[i + 1:])))
    for i, rel in enumerate(ex.relations):
        for side in ("lhs", "rhs"):
            out.append(_Slot(f"assert[{i}].{side}", getattr(rel, side), lambda e, t, i=i, side=side: dataclasses.replace(
                e, relations=_with(e.relations, i, _relation(e.relations[i], **{side: t})))))
    for i, rel in enumerate(ex.assumes):
        for side in ("lhs", "rhs"):
            out.append(_Slot(f"assume[{i}].{side}", getattr(rel, side), lambda e, t, i=i, side=side: dataclasses.replace(
                e, assumes=_with(e.assumes, i, _relation(e.assumes[i], **{side: t})))))
    if ex.quantity is not None:
        out.append(_Slot("assert", ex.quantity, lambda e, t: dataclasses.replace(e, quantity=t)))
    if ex.baseline is not None:
        out.append(_Slot("baseline", ex.baseline, lambda e, t: dataclasses.replace(e, baseline=t)))
    return out


def _with(items: tuple, i: int, item) -> tuple:
    return items[:i] + (item,) + items[i + 1:]


def _relation(rel: dsl.Relation, op: str | None = None, lhs: ast.expr | None = None,
              rhs: ast.expr | None = None) -> dsl.Relation:
    """A relation with one part replaced; its text is the mutated relation's, so messages show the mutant."""
    op, lhs, rhs = op or rel.op, lhs if lhs is not None else rel.lhs, rhs if rhs is not None else rel.rhs
    return dsl.Relation(op, lhs, rhs, _shown(op, lhs, rhs))


def _shown(op: str, lhs: ast.expr, rhs: ast.expr) -> str:
    return f"{ast.unparse(lhs)} {op} {ast.unparse(rhs)}"


# ---------------------------------------------------------------- node rewrites inside one tree

def _preorder(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None, str, int | None]]:
    """(node, parent, field, index in the field's list) in pre-order; the root's parent is None."""
    stack: list[tuple[ast.AST, ast.AST | None, str, int | None]] = [(tree, None, "", None)]
    while stack:
        node, parent, fld, idx = stack.pop()
        yield node, parent, fld, idx
        children = []
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                children += [(v, node, name, j) for j, v in enumerate(value) if isinstance(v, ast.AST)]
            elif isinstance(value, ast.AST):
                children.append((value, node, name, None))
        stack.extend(reversed(children))


def _replaced(tree: ast.expr, position: int, rewrite: Callable[[ast.AST], ast.AST]) -> ast.expr:
    """A copy of ``tree`` with its ``position``-th node (pre-order) replaced by ``rewrite(node)``."""
    fresh = copy.deepcopy(tree)
    for k, (node, parent, fld, idx) in enumerate(_preorder(fresh)):
        if k != position:
            continue
        new = rewrite(node)
        if parent is None:
            return ast.fix_missing_locations(new)  # type: ignore[return-value]
        if idx is None:
            setattr(parent, fld, new)
        else:
            getattr(parent, fld)[idx] = new
        return ast.fix_missing_locations(fresh)
    raise IndexError(position)


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    return None


def _const(value: float) -> ast.Constant:
    return ast.Constant(int(value) if float(value).is_integer() else value)


def _sizes(tree: ast.AST) -> set[int]:
    """ids of the nodes that are sizes or positions, not constants of the statement: indices and slices,
    a reduction's range, the arguments of a constructor (``I(2)``) and any integer argument of a call."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            out.update(id(n) for n in ast.walk(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            fn = VOCABULARY.get(node.func.id)
            for arg in node.args:
                if node.func.id == "range" or (fn is not None and fn.needs_ctx) or isinstance(_number(arg), int):
                    out.update(id(n) for n in ast.walk(arg))
        elif isinstance(node, ast.comprehension):
            out.update(id(n) for n in ast.walk(node.iter))
    return out


def _exponents(tree: ast.AST) -> set[int]:
    return {id(n.right) for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow)}


def _tree_changes(tree: ast.expr, kind: RelationKind) -> Iterator[tuple[str, str, ast.expr]]:
    """(operator, change, mutated tree) for every mutation point of one expression."""
    sizes, exponents = _sizes(tree), _exponents(tree)
    for k, (node, _, _, _) in enumerate(_preorder(tree)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            e = _number(node.right)
            if e and abs(e * EXPONENT_FACTOR) <= dsl.MAX_POW:
                new = ast.BinOp(node.left, ast.Pow(), _const(e * EXPONENT_FACTOR))
                yield "exponent", f"{ast.unparse(node)} -> {ast.unparse(new)}", _replaced(tree, k, lambda _n, new=new: new)
        value = _number(node)
        if value and id(node) not in sizes and id(node) not in exponents and kind is not RelationKind.constant:
            new_c = _const(value / 2)
            yield "constant", f"{ast.unparse(node)} -> {ast.unparse(new_c)}", _replaced(tree, k, lambda _n, c=new_c: c)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            shown = ast.unparse(node)
            yield "term", f"{shown} -> {ast.unparse(node.left)}", _replaced(tree, k, lambda n: n.left)
            right = node.right if isinstance(node.op, ast.Add) else ast.UnaryOp(ast.USub(), node.right)
            yield "term", f"{shown} -> {ast.unparse(right)}", _replaced(tree, k, lambda _n, r=right: r)
            swapped = ast.BinOp(node.left, ast.Sub() if isinstance(node.op, ast.Add) else ast.Add(), node.right)
            yield "sign", f"{shown} -> {ast.unparse(swapped)}", _replaced(tree, k, lambda _n, s=swapped: s)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            yield "sign", f"{ast.unparse(node)} -> {ast.unparse(node.operand)}", _replaced(tree, k, lambda n: n.operand)


# ---------------------------------------------------------------- the mutants of a claim

def _zero(node: ast.expr) -> bool:
    """A side that is zero as written (``0``, ``zeros(...)``, ``0 * x``): scaling it changes nothing."""
    if _number(node) == 0:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zeros":
        return True
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and (_zero(node.left) or _zero(node.right))


def _rebuilt(compiled: CompiledClaim, ex: Expressions, check=None) -> CompiledClaim:
    """The compiled claim with the expressions ``ex`` in every assignment (and ``check`` when given)."""
    def at(comp):
        if comp is None:
            return None
        return dataclasses.replace(comp, where=list(ex.where), relations=list(ex.relations), assumes=list(ex.assumes),
                                   quantity=ex.quantity, baseline=ex.baseline, vmap_refused=False, looped=set(),
                                   **({"check": check} if check is not None else {}))

    claim = compiled.claim.model_copy(update={"check": check}) if check is not None else compiled.claim
    return dataclasses.replace(compiled, claim=claim, expressions=ex,
                               assignments=tuple(at(c) for c in compiled.assignments), symbolic=at(compiled.symbolic))


def _relation_mutants(compiled: CompiledClaim) -> Iterator[Mutant]:
    ex = compiled.expressions
    for i, rel in enumerate(ex.relations):
        was = _shown(rel.op, rel.lhs, rel.rhs)
        if compiled.kind is not RelationKind.constant and not _zero(rel.rhs):
            factor = 2 if rel.op in (">=", ">") else 0.5
            scaled = ast.BinOp(_const(factor), ast.Mult(), copy.deepcopy(rel.rhs))
            new = _relation(rel, rhs=ast.fix_missing_locations(scaled))
            yield Mutant("bound", f"assert[{i}]", f"{was} -> {new.text}",
                         _rebuilt(compiled, dataclasses.replace(ex, relations=_with(ex.relations, i, new))))
        if rel.op in FLIPPED:
            new = _relation(rel, op=FLIPPED[rel.op])
            yield Mutant("relation", f"assert[{i}]", f"{was} -> {new.text}",
                         _rebuilt(compiled, dataclasses.replace(ex, relations=_with(ex.relations, i, new))))
    for i, rel in enumerate(ex.assumes):
        yield Mutant("hypothesis", f"assume[{i}]", f"dropped: {_shown(rel.op, rel.lhs, rel.rhs)}",
                     _rebuilt(compiled, dataclasses.replace(ex, assumes=ex.assumes[:i] + ex.assumes[i + 1:])))


def _order_mutants(compiled: CompiledClaim) -> Iterator[Mutant]:
    order = compiled.check.order
    if compiled.kind is not RelationKind.order or order is None:
        return
    claimed = order.claimed * EXPONENT_FACTOR if order.claimed else 1
    check = compiled.check.model_copy(update={"order": order.model_copy(update={"claimed": claimed})})
    yield Mutant("exponent", "order.claimed", f"{order.claimed:g} -> {claimed:g}",
                 _rebuilt(compiled, compiled.expressions, check))


def mutants(compiled: CompiledClaim) -> list[Mutant]:
    """Every mutant of the claim's check, in a fixed order (slot by slot, pre-order within a slot)."""
    out = list(_order_mutants(compiled))
    for slot in _slots(compiled.expressions):
        for operator, change, tree in _tree_changes(slot.tree, compiled.kind):
            out.append(Mutant(operator, slot.name, change, _rebuilt(compiled, slot.put(compiled.expressions, tree))))
    out += list(_relation_mutants(compiled))
    return out


def select(found: list[Mutant], cap: int) -> list[Mutant]:
    """At most ``cap`` mutants, taken in turn from each operator (in ``OPERATORS`` order) so that a small cap
    still plants every kind of error the check admits; within an operator, the first found first."""
    by_op = {op: [m for m in found if m.operator == op] for op in OPERATORS}
    out: list[Mutant] = []
    depth = 0
    while len(out) < cap and any(len(ms) > depth for ms in by_op.values()):
        for op in OPERATORS:
            if depth < len(by_op[op]) and len(out) < cap:
                out.append(by_op[op][depth])
        depth += 1
    return out
