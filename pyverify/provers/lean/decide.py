"""Do a Lean statement's hypotheses leave a non-trivial model? Decided exactly where they translate.

For each choice of the variable sizes (``n``, ``ι``: 1, 2 and 3 coordinates) the real data become
real SymPy symbols and the hypotheses SymPy relations (``translate``). Then:

1. vanishing terms: ``t ≤ 0`` or ``t = 0`` with ``t ≥ 0`` by construction (``|a|``, ``‖v‖``, even powers,
   sums and maxima of those) becomes the equations that make ``t`` vanish; ``t < 0`` is unsatisfiable;
2. the linear relations are decided by SymPy's exact (rational) simplex: infeasible means the hypotheses
   are unsatisfiable; a datum whose every coordinate has equal minimum and maximum is forced to that
   value; all data forced is a single point (``≠`` relations are checked against the point, or against
   the whole set when it is larger);
3. nonlinear relations that remain: two distinct points meeting every relation exactly (drawn along the
   linear part's solutions; one nonlinear equation of degree ≤ 2 in a coordinate solved for it) show a
   non-trivial model; else *cannot decide*.

A hypothesis outside the fragment does not spoil a forced datum or unsatisfiability found from the
others (more hypotheses only shrink the set of models), but it does spoil a non-trivial verdict: then
the answer is *cannot decide*, naming the hypothesis. Forcing or unsatisfiability is reported only when
it holds at every size tried; a non-trivial verdict needs one size.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import sympy
from sympy.solvers.simplex import InfeasibleLPError, UnboundedLPError, lpmax, lpmin

from .binders import Node, binders_of, hypotheses_of, text
from .translate import Space, Translator, Untranslatable, Vec, data_space, size_variables

SIZES = (1, 2, 3)
MAX_SYMBOLS = 40  # beyond this many coordinates the exact simplex is not attempted
SAMPLES = 64  # rational points drawn along the linear solutions when nonlinear relations remain


@dataclass
class Decision:
    verdict: str  # non-trivial | forces-zero | single-point | forces-datum | unsatisfiable | cannot-decide
    reason: str
    forced: dict[str, str] = field(default_factory=dict)  # datum -> the value the hypotheses force
    translated: list[str] = field(default_factory=list)  # the hypotheses that took part

    @property
    def is_finding(self) -> bool:
        return self.verdict in ("forces-zero", "single-point", "forces-datum", "unsatisfiable")

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "reason": self.reason, "forced": self.forced}


class _Unsatisfiable(Exception):
    pass


def decide(node: Node) -> Decision | None:
    """The decision for a statement's proposition (``faithful.statement_prop``); None when it makes no
    hypothesis or has no real data."""
    hyps = hypotheses_of(node, cases=False)
    binders = [b for b in binders_of(node, universal_only=True)]
    type_names = {b.name for b in binders if b.role == "type"} | {b.type[-1].text for b in binders
                                                                   if b.role == "instance" and b.type}
    data = [b for b in binders if b.role == "data"]
    size_vars = sorted({v for b in data for v in size_variables(b)})
    probe = {v: 1 for v in size_vars}
    real = [b for b in data if data_space(b, probe, type_names) is not None]
    if not hyps or not real:
        return None
    per_size = []
    for k in SIZES if size_vars else (None,):
        sizes = {v: k for v in size_vars}
        per_size.append((k, _decide_at(hyps, {b.name: data_space(b, sizes, type_names) for b in real})))
    return _combine(per_size, size_vars)


def _decide_at(hyps: list[Node], spaces: dict[str, Space]) -> Decision:
    symbols: dict[str, list[sympy.Symbol]] = {}
    values = {}
    for name, space in spaces.items():
        if space.size is None:
            symbols[name] = [sympy.Symbol(name, real=True)]
            values[name] = symbols[name][0]
        else:
            symbols[name] = [sympy.Symbol(f"{name}[{i}]", real=True) for i in range(space.size)]
            values[name] = Vec(list(symbols[name]), space)
    tr = Translator(values)
    relations: list[tuple[sympy.Expr, str]] = []
    translated, untranslated = [], []
    for h in hyps:
        try:
            relations.extend(tr.proposition(h))
            translated.append(text(h.tokens))
        except Untranslatable as exc:
            untranslated.append(f"`{text(h.tokens)}` ({exc})")
    if not translated:
        return Decision("cannot-decide", "no hypothesis on the real data translates: " + _listed(untranslated))
    if sum(len(s) for s in symbols.values()) > MAX_SYMBOLS:
        return Decision("cannot-decide", f"more than {MAX_SYMBOLS} real coordinates")
    try:
        decision = _decide_relations(relations, symbols)
    except _Unsatisfiable as exc:
        decision = Decision("unsatisfiable", str(exc))
    decision.translated = translated
    if untranslated and decision.verdict == "non-trivial":
        return Decision("cannot-decide", "the translated hypotheses leave a non-trivial model, but not all "
                        "translate: " + _listed(untranslated), translated=translated)
    return decision


def _listed(untranslated: list[str]) -> str:
    more = f" and {len(untranslated) - 1} more" if len(untranslated) > 1 else ""
    return untranslated[0] + more


def _decide_relations(relations: list[tuple[sympy.Expr, str]], symbols: dict[str, list[sympy.Symbol]]) -> Decision:
    rels = _vanishing(relations)
    every = [s for group in symbols.values() for s in group]
    linear = [(e, op) for e, op in rels if _is_linear(e, every)]
    nonlinear = [(e, op) for e, op in rels if not _is_linear(e, every)]
    closure = [sympy.Eq(e, 0) if op == "==" else sympy.Le(e, 0) for e, op in linear if op != "!="]
    fixed = _fixed_by_equations([e for e, op in linear if op == "=="], every)
    if any(op in ("<=", "<") for _, op in linear):
        _feasible(linear, closure)
        for s in every:
            if s not in fixed:
                lo, hi = _range(s, closure)
                if lo is not None and lo == hi:
                    fixed[s] = lo
    for e, op in linear:
        if op == "!=":
            if len(fixed) == len(every) and e.subs(fixed) == 0:
                raise _Unsatisfiable(f"`{e} ≠ 0` fails at the only point the other hypotheses leave")
            lo, hi = _range(e, closure)
            if lo == hi == 0:
                raise _Unsatisfiable(f"`{e} ≠ 0` fails wherever the other hypotheses hold")
    forced = {name: _shown([fixed[s] for s in group]) for name, group in symbols.items()
              if group and all(s in fixed for s in group)}
    if len(fixed) == len(every):
        bad = [f"{e} {op} 0" for e, op in nonlinear if not _holds(e.subs(fixed), op)]
        if bad:
            raise _Unsatisfiable(f"the only point the linear hypotheses leave fails {bad[0]}")
        shown = ", ".join(f"{k} = {v}" for k, v in forced.items())
        if all(v == 0 for v in fixed.values()):
            return Decision("forces-zero", f"the hypotheses force every real input to zero ({shown})", forced)
        return Decision("single-point", f"the hypotheses leave a single point ({shown})", forced)
    zeros = {k: v for k, v in forced.items() if v == "0"}
    if zeros:
        caveat = "" if not nonlinear else " (if they can be met at all)"
        return Decision("forces-datum", f"the hypotheses force {', '.join(f'{k} = 0' for k in zeros)}{caveat}", zeros)
    if not nonlinear:
        return Decision("non-trivial", "the linear hypotheses leave more than one point (exact simplex)")
    witnesses = _witnesses(rels, every)
    if len(witnesses) >= 2:
        return Decision("non-trivial", "two distinct points meet every hypothesis exactly")
    return Decision("cannot-decide", "nonlinear hypotheses: no two exact witnesses found, nothing forced")


def _fixed_by_equations(eqs: list[sympy.Expr], symbols: list[sympy.Symbol]) -> dict[sympy.Symbol, sympy.Expr]:
    """The coordinates the linear equations fix (exact elimination); raises when they have no solution."""
    if not eqs:
        return {}
    solution = sympy.linsolve(eqs, symbols)
    if not solution:
        raise _Unsatisfiable("the hypotheses cannot all hold: the linear equations have no common solution")
    point = next(iter(solution))
    return {s: v for s, v in zip(symbols, point) if not sympy.sympify(v).free_symbols}


def _vanishing(relations: list[tuple[sympy.Expr, str]]) -> list[tuple[sympy.Expr, str]]:
    """``t ≤ 0``/``t = 0`` with ``t ≥ 0`` becomes the equations that make t vanish; ``t < 0`` with ``t ≥ 0``
    is unsatisfiable; ``-t ≤ 0`` with ``t ≥ 0`` holds always and is dropped."""
    out: list[tuple[sympy.Expr, str]] = []
    for e, op in relations:
        if e.is_nonnegative and op in ("<=", "=="):
            out.extend((z, "==") for z in _zeros_of(e))
        elif e.is_nonnegative and op == "<" or e.is_positive and op in ("<=", "=="):
            raise _Unsatisfiable(f"`{e} {op} 0` with a left side that is never negative")
        elif e.is_nonpositive and op == "<=":
            continue
        else:
            out.append((e, op))
    return out


def _zeros_of(t: sympy.Expr) -> list[sympy.Expr]:
    """Equations (each = 0) equivalent to ``t = 0`` for a ``t ≥ 0``."""
    if isinstance(t, sympy.Abs):
        return _zeros_of(t.args[0]) if t.args[0].is_nonnegative else [t.args[0]]
    if t.is_Pow and t.exp == sympy.Rational(1, 2) or t.is_Pow and t.exp.is_even and t.exp.is_positive:
        return _zeros_of(t.base) if t.base.is_nonnegative else [t.base]
    if isinstance(t, sympy.Max) and all(a.is_nonnegative for a in t.args) or \
            t.is_Add and all(a.is_nonnegative for a in t.args):
        return [z for a in t.args for z in _zeros_of(a)]
    if t.is_Mul:
        const, rest = t.as_independent(*t.free_symbols)
        if const.is_positive and rest != t:
            return _zeros_of(rest)
    return [t]


def _is_linear(e: sympy.Expr, symbols: list[sympy.Symbol]) -> bool:
    if not e.is_polynomial(*symbols):
        return False
    return sympy.Poly(e, *symbols).total_degree() <= 1 if e.free_symbols else True


def _feasible(linear: list[tuple[sympy.Expr, str]], closure: list) -> None:
    """Raise _Unsatisfiable when the linear relations (strict ones included) have no solution."""
    if not closure:
        return
    t = sympy.Symbol("slack", real=True)
    strict = [sympy.Le(e + t, 0) for e, op in linear if op == "<"]
    cons = [c for c in closure] + strict + [sympy.Le(t, 1), sympy.Ge(t, 0)]
    try:
        best, _ = lpmax(t, cons)
    except InfeasibleLPError:
        raise _Unsatisfiable("the hypotheses cannot all hold: the linear ones have no common solution "
                             "(exact simplex)") from None
    if strict and best <= 0:
        raise _Unsatisfiable("the hypotheses cannot all hold: the strict linear ones exclude each other "
                             "(exact simplex)")


def _range(e: sympy.Expr, closure: list) -> tuple[sympy.Expr | None, sympy.Expr | None]:
    """(min, max) of e over the closed linear set; None where unbounded."""
    if not closure:
        return (e, e) if not e.free_symbols else (None, None)
    out = []
    for f in (lpmin, lpmax):
        try:
            out.append(f(e, closure)[0])
        except UnboundedLPError:
            out.append(None)
    return out[0], out[1]


def _holds(value: sympy.Expr, op: str) -> bool:
    """Does ``value op 0`` hold, decided exactly (an undecided sign counts as failing)?"""
    value = sympy.nsimplify(value) if value.is_Float else value
    return {"==": value.is_zero, "!=": value.is_nonzero, "<=": value.is_nonpositive,
            "<": value.is_negative}[op] is True


def _witnesses(rels: list[tuple[sympy.Expr, str]], symbols: list[sympy.Symbol]) -> list[tuple]:
    """Distinct rational (or quadratic-surd) points meeting every relation exactly, drawn along the
    solutions of the linear equations; one remaining nonlinear equation of degree ≤ 2 in some coordinate
    is solved for that coordinate."""
    eqs = [e for e, op in rels if op == "==" and _is_linear(e, symbols)]
    solution = sympy.linsolve(eqs, symbols) if eqs else sympy.FiniteSet(tuple(symbols))
    if not solution:
        return []
    point_of = [sympy.sympify(p) for p in next(iter(solution))]
    param = dict(zip(symbols, point_of))
    curved = [e.subs(param) for e, op in rels if op == "==" and not _is_linear(e, symbols)]
    free = sorted(set().union(*(p.free_symbols for p in point_of)) & set(symbols), key=str)
    branches: list[tuple[sympy.Symbol | None, sympy.Expr | None]] = [(None, None)]
    if len(curved) == 1:
        branches = _solved_for_one(curved[0], free)
        if not branches:
            return []
    elif curved:
        return []
    rng = random.Random(0)
    found: set[tuple] = set()
    for k in range(SAMPLES):
        values = {s: sympy.Rational(rng.randint(-12, 12), 4) for s in free}
        target, root = branches[k % len(branches)]
        if target is not None:
            values[target] = sympy.nsimplify(root.subs(values))
            if not values[target].is_real:
                continue
        point = tuple(sympy.simplify(p.subs(values)) for p in point_of)
        subs = dict(zip(symbols, point))
        if all(_holds(sympy.simplify(e.subs(subs)), op) for e, op in rels):
            found.add(point)
            if len(found) >= 2:
                break
    return list(found)


def _solved_for_one(eq: sympy.Expr, free: list[sympy.Symbol]) -> list[tuple[sympy.Symbol, sympy.Expr]]:
    """The branches ``s = root(others)`` of one polynomial equation, for the first coordinate in which it
    has degree 1 or 2 (empty when there is none)."""
    for s in free:
        if s in eq.free_symbols and eq.is_polynomial(s) and sympy.degree(eq, s) in (1, 2):
            return [(s, r) for r in sympy.solve(eq, s)]
    return []


def _shown(values: list[sympy.Expr]) -> str:
    if all(v == 0 for v in values):
        return "0"
    return str(values[0]) if len(values) == 1 else "(" + ", ".join(str(v) for v in values) + ")"


def _combine(per_size: list[tuple[int | None, Decision]], size_vars: list[str]) -> Decision:
    """Forcing/unsatisfiable only when it holds at every size tried; non-trivial when one size shows it."""
    where = f" (decided for {', '.join(size_vars)} = {', '.join(str(k) for k, _ in per_size)})" if size_vars else ""
    verdicts = {d.verdict for _, d in per_size}
    first = per_size[0][1]
    if len(verdicts) == 1 and first.verdict != "cannot-decide":
        return Decision(first.verdict, first.reason + where, first.forced, first.translated)
    nontrivial = [d for _, d in per_size if d.verdict == "non-trivial"]
    if nontrivial:
        return Decision("non-trivial", nontrivial[0].reason + where, {}, nontrivial[0].translated)
    if verdicts <= {"unsatisfiable", "forces-zero", "single-point", "forces-datum"}:
        common = set.intersection(*(set(d.forced) for _, d in per_size)) if all(d.forced for _, d in per_size) else set()
        if "unsatisfiable" in verdicts and verdicts != {"unsatisfiable"} and common:
            return Decision("forces-datum", f"the hypotheses force {', '.join(sorted(common))} = 0 or cannot "
                            f"be met{where}", {k: "0" for k in common}, first.translated)
    if verdicts == {"cannot-decide"}:
        return Decision("cannot-decide", first.reason + where, translated=first.translated)
    reasons = "; ".join(f"size {k}: {d.verdict} ({d.reason})" for k, d in per_size)
    return Decision("cannot-decide", f"the sizes disagree or leave it open: {reasons}")
