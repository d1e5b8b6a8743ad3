"""A claim's check compiled once: what every consumer of the check reads instead of its text.

``compile_claim`` parses every expression of a check once (names checked against what the check binds,
functions against the vocabulary), binds the samplers at every sweep assignment, decides the kind of
relation the check judges from the samplers it binds, and resolves the vocabulary functions the
expressions call. The engine, SymPy, the report's evidence and implementation view and the Lean audit
read the resulting ``CompiledClaim``; nothing re-parses check text.

The kind of relation: a check's ``relation`` when it names one (``identity`` and ``bound`` are both
judged pointwise), else ``expectation`` when a given hypothesis is a random variable (a sampler whose
class says ``random``), else pointwise.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from ..registry import Check, Claim
from . import dsl, vocabulary
from .compiled import CheckError, Compiled, bind_sampler, reserved_names, sweep
from .plugins import ensure_content
from .samplers import Sampler


class RelationKind(str, Enum):
    """What a check's assertion is judged as; each kind has its own judge in the engine."""

    pointwise = "relation"  # identities and bounds: every instance must satisfy them
    order = "order"  # a quantity's measured order in one parameter against the claimed one
    constant = "constant"  # "lhs <= C rhs for some constant C": the smallest constant, bounded along the sweep
    expectation = "expectation"  # a Monte-Carlo mean over random hypotheses
    exists = "exists"  # some instance satisfies every relation

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Expressions:
    """The parsed text of a check, shared by every sweep assignment."""

    where: tuple[tuple[str, ast.expr], ...]
    relations: tuple[dsl.Relation, ...]  # the assertion's binary relations (none for an order check)
    assumes: tuple[dsl.Relation, ...]
    quantity: ast.expr | None  # an order check's measured quantity
    baseline: ast.expr | None
    trivial: tuple[dsl.Relation, ...]  # an existence check's trivial subfamily


@dataclass(frozen=True)
class CompiledClaim:
    """A claim with its check compiled: the one form of a check every part of pyverify reads."""

    claim: Claim
    kind: RelationKind
    conventions: Mapping[str, str]  # in force for this claim: the registry's, then the check's own
    expressions: Expressions
    # one evaluator per sweep assignment, smallest first; an order check: at each sweep assignment, one per
    # value of its parameter (sweep-major: the parameter's values are consecutive)
    assignments: tuple[Compiled, ...]
    symbolic: Compiled | None  # the assignment a SymPy proof is attempted at (``check.symbolic``)
    functions: Mapping[str, vocabulary.Function]  # every vocabulary function the expressions call
    calls: tuple[str, ...]  # the functions named in given/where/assume/assert/baseline, first call first
    names: frozenset[str]  # every name the check binds: dims, given, where
    data_root: Path | None = None  # the registry's folder: an example's 'tensor_file(...)' is read below it

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def check(self) -> Check:
        return self.claim.check  # type: ignore[return-value]

    @property
    def relations(self) -> tuple[dsl.Relation, ...]:
        return self.expressions.relations

    def side_texts(self) -> list[tuple[str, str]]:
        """(left, right) expression text of each relation of the assertion, in the engine's order."""
        return [(ast.unparse(r.lhs), ast.unparse(r.rhs)) for r in self.expressions.relations]

    def trivial_marker(self, comp: Compiled) -> Compiled:
        """The evaluator of an existence check's trivial subfamily at one assignment (its ``trivial``
        relations in place of the assertion, no assumptions, no baseline)."""
        return dataclasses.replace(comp, relations=list(self.expressions.trivial), assumes=[], baseline=None,
                                   quantity=None, text=self.check.trivial or "")


def relation_kind(check: Check, givens: Mapping[str, Sampler]) -> RelationKind:
    """The kind of relation a check judges, from its ``relation`` or from the samplers it binds."""
    if check.relation in ("identity", "bound"):
        return RelationKind.pointwise
    if check.relation != "auto":
        return RelationKind(check.relation)
    return RelationKind.expectation if any(s.random for s in givens.values()) else RelationKind.pointwise


def _check_name(section: str, name: str, taken: set[str], reserved: Mapping[str, str]) -> None:
    """A bound name must be an identifier that shadows nothing: a typo must not change what is verified."""
    if not name.isidentifier() or name.startswith("_"):
        raise CheckError(f"{section}: {name!r} is not a usable name (an identifier not starting with _)", (section, name))
    shadowed = reserved.get(name)
    if shadowed is not None:
        raise CheckError(f"{section}: {name!r} would shadow {shadowed} of the check language; choose another name",
                         (section, name))
    if name in taken:
        raise CheckError(f"{section}: {name!r} is already bound (by dims, given or an earlier where)", (section, name))


def _parse(text: str, names: set[str], where: str, relations: bool, key: tuple[str, ...]) -> ast.expr:
    try:
        return dsl.parse(text, names, vocabulary.names(), allow_relations=relations)
    except dsl.DSLError as exc:
        raise CheckError(f"{where}: {exc}", key) from None


def _relations(text: str, names: set[str], where: str, key: tuple[str, ...]) -> list[dsl.Relation]:
    tree = _parse(text, names, where, relations=True, key=key)
    try:
        return dsl.relations(tree, text)
    except dsl.DSLError as exc:
        raise CheckError(f"{where}: {exc}", key) from None


def _assumes(check: Check) -> list[str]:
    a = check.assume
    if a is None:
        return []
    return [a] if isinstance(a, str) else list(a)


def _validation_points(check: Check) -> list[dict[str, Any]]:
    """Every sweep assignment the samplers must bind at (an order check's parameter at its first value),
    then the symbolic dimensions."""
    out = sweep(check)
    if check.order is not None:
        out = [{**dims, check.order.param: check.order.values[0]} for dims in out]
    if check.symbolic is not None and check.symbolic.dims:
        out.append(dict(check.symbolic.dims))
    return out


def _at(dims: dict[str, Any], points: list) -> str:
    return f" (with {', '.join(f'{k}={v}' for k, v in dims.items())})" if len(points) > 1 else ""


def _bind(check: Check, dims: dict[str, Any], points: list, root: Path | None) -> dict[str, Sampler]:
    try:
        return {name: bind_sampler(name, spec, dims, root) for name, spec in check.given.items()}
    except CheckError as exc:
        raise CheckError(f"{exc}{_at(dims, points)}", exc.key) from None


def _called(trees: list[ast.expr]) -> list[str]:
    """Vocabulary functions called in ``trees``, first call first (neither a reduction's ``range`` nor a
    special form such as ``E`` is a function of the vocabulary)."""
    known = vocabulary.VOCABULARY
    out: list[str] = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in known \
                    and node.func.id not in out:
                out.append(node.func.id)
    return out


def compile_claim(claim: Claim, conventions: Mapping[str, str] | None = None,
                  data_root: Path | None = None) -> CompiledClaim | None:
    """The claim's check compiled (None for a claim without a check, with a ``not_checkable`` reason or
    about other claims, ``entails``).

    Raises ``CheckError`` naming the offending key (``("given", "x")``) and, for a sweep, the assignment.
    ``conventions``: those the registry resolved for the claim; the check's own override them.
    ``data_root``: the registry's folder, below which ``tensor_file(...)`` reads."""
    check = claim.check
    if check is None or check.not_checkable or check.entails:  # a claim about claims: judged from their verdicts
        return None
    ensure_content()  # the installed content packages' functions and hypotheses are part of the language
    reserved = reserved_names()
    if check.symbolic is not None and check.symbolic.dims:
        stray = next((k for k in check.symbolic.dims if k not in (check.dims or {})), None)
        if stray:
            raise CheckError(f"symbolic.dims: {stray!r} is not a sweep variable of `dims` "
                             f"({', '.join(check.dims or {}) or 'none'})", ("symbolic", "dims", stray))
    try:
        points = _validation_points(check)
    except CheckError as exc:
        raise CheckError(str(exc), ("dims",)) from None
    first = points[0]
    known: set[str] = set()
    for name in first:
        _check_name("dims", name, known, reserved)
        known.add(name)
    givens: dict[str, Sampler] = {}
    for name, spec in check.given.items():
        try:
            _check_name("given", name, known, reserved)
        except CheckError as exc:
            raise CheckError(f"{exc}{_at(first, points)}", exc.key) from None
        givens[name] = _bind_one(name, spec, first, points, data_root)
        known.add(name)
    kind = relation_kind(check, givens)
    where = []
    for name, text in check.where.items():
        try:
            _check_name("where", name, known, reserved)
            where.append((name, _parse(text, known, f"where {name}", relations=False, key=("where", name))))
        except CheckError as exc:
            raise CheckError(f"{exc}{_at(first, points)}", exc.key) from None
        known.add(name)
    expressions = _expressions(check, kind, known, first, points, tuple(where))
    for dims in points[1:]:
        _bind(check, dims, points, data_root)
    conv = {**(conventions or {}), **check.conventions.given()}
    trees = [t for _, t in where] + [side for r in (*expressions.assumes, *expressions.relations)
                                     for side in (r.lhs, r.rhs)]
    trees += [t for t in (expressions.quantity, expressions.baseline) if t is not None]
    calls = _called(trees)
    functions = vocabulary.resolve(calls + _called([s for r in expressions.trivial for s in (r.lhs, r.rhs)]), conv)

    def at(dims: dict[str, Any]) -> Compiled:
        bound = givens if dims == first else _bind(check, dims, points, data_root)
        return Compiled(check=check, dims=dims, givens={n: s for n, s in bound.items() if not s.random},
                        randoms={n: s for n, s in bound.items() if s.random}, where=list(where),
                        relations=list(expressions.relations), assumes=list(expressions.assumes),
                        quantity=expressions.quantity, baseline=expressions.baseline, text=check.assert_ or "",
                        conventions=conv, functions=functions)

    if kind is RelationKind.order:
        # every assignment of the other sweep variables, one evaluator per value of the parameter at each
        assignments = tuple(at({**dims, check.order.param: v})  # type: ignore[union-attr]
                            for dims in sweep(check) for v in check.order.values)  # type: ignore[union-attr]
    else:
        assignments = tuple(at(dims) for dims in sweep(check))
    _kind_problems(check, kind, assignments[0])
    symbolic = None
    if check.symbolic is not None:
        symbolic = at(dict(check.symbolic.dims) if check.symbolic.dims else sweep(check)[0])
    names = frozenset(known)
    return CompiledClaim(claim, kind, conv, expressions, assignments, symbolic, functions, tuple(calls), names,
                         data_root)


def _bind_one(name: str, spec: str, dims: dict[str, Any], points: list, root: Path | None) -> Sampler:
    try:
        return bind_sampler(name, spec, dims, root)
    except CheckError as exc:
        raise CheckError(f"{exc}{_at(dims, points)}", exc.key) from None


def _expressions(check: Check, kind: RelationKind, known: set[str], first: dict, points: list,
                 where: tuple) -> Expressions:
    try:
        if not check.assert_:
            raise CheckError("check has no `assert`")
        quantity = None
        relations: list[dsl.Relation] = []
        if kind is RelationKind.order:
            quantity = _parse(check.assert_, known, "assert", relations=False, key=("assert",))
        else:
            relations = _relations(check.assert_, known, "assert", ("assert",))
        assumes = [r for text in _assumes(check) for r in _relations(text, known, "assume", ("assume",))]
        baseline = (_parse(check.baseline, known, "baseline", relations=False, key=("baseline",))
                    if check.baseline else None)
        trivial: list[dsl.Relation] = []
        if check.trivial is not None:
            if kind is not RelationKind.exists:
                raise CheckError("trivial: names the trivial witnesses of an existence check; it needs relation: exists",
                                 ("trivial",))
            trivial = _relations(check.trivial, known, "trivial", ("trivial",))
    except CheckError as exc:
        raise CheckError(f"{exc}{_at(first, points)}", exc.key) from None
    return Expressions(where, tuple(relations), tuple(assumes), quantity, baseline, tuple(trivial))


def _kind_problems(check: Check, kind: RelationKind, comp: Compiled) -> None:
    """What a kind of relation needs of its check, found before anything runs."""
    if kind is RelationKind.order and check.order is None:
        raise CheckError("relation: order needs `order: {param, values, claimed}`", ("relation",))
    if kind is RelationKind.expectation:
        if not comp.randoms:
            raise CheckError("an expectation check needs a random hypothesis (gaussian(...) or orf(...))", ("given",))
        if len(comp.relations) != 1:
            raise CheckError(f"an expectation check takes exactly one relation (got {len(comp.relations)}); "
                             "split it into separate claims", ("assert",))
    if check.examples and kind is not RelationKind.pointwise:
        raise CheckError("examples: only identity and bound checks take fixed instances", ("examples",))
