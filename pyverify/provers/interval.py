"""Interval certification of a counterexample (python-flint ``arb``/``arb_mat``).

The witness's float64 input values are exact binary numbers; re-evaluating the relation in ball
arithmetic on them gives rigorous enclosures of both sides. The counterexample is *certified* when the
enclosure of its violation measure lies entirely beyond the tolerance, i.e. the violation is not a
rounding artefact of the float64 evaluation. Functions without a ball implementation make the status
``unsupported: ...`` (the float64 re-check still stands, and the report says which one it was).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from ..checks import dsl
from ..checks.vocabulary import Function, ball_meaning
from .ball import Ball, Unsupported, arb, arb_mat, elementwise as _elementwise, extreme as _extreme, flint, \
    frobenius as _fro, identity as _eye, lift as _lift, vector as _vec
from .precise import relation_sides


def _int_pow(x: arb, n: int) -> arb:
    """x ** n by repeated squaring: arb's own power returns nan for a ball around 0 (e.g. an entry
    that is zero up to rounding), where the product of balls stays a tight enclosure."""
    if n < 0:
        return 1 / _int_pow(x, -n)
    out, base = arb(1), x
    while n:
        if n & 1:
            out = out * base
        base = base * base
        n >>= 1
    return out


def _power(a: Ball, exponent: Any) -> Ball:
    """``a ** exponent`` with the float64 backend's meaning: a square matrix raised to a non-negative
    integer is the matrix power; otherwise the power is elementwise. (Constants reach this backend as
    exact scalar balls, so an exact integer ball stands for the integer the float64 backend sees.)"""
    if isinstance(exponent, (int, float)):
        exponent = Ball.scalar(float(exponent))
    b = _lift(exponent)
    if b.ndim != 0:
        raise Unsupported("tensor exponents")
    p = b.s()
    n = p.unique_fmpz() if p.is_exact() else None
    if n is None:
        return a.map(lambda x: x ** p)
    if a.ndim == 2 and a.m.nrows() == a.m.ncols() and int(n) >= 0:
        return Ball(a.m ** int(n), 2)
    return a.map(lambda x: _int_pow(x, int(n)))


class BallBackend(dsl.Backend):
    def __init__(self, functions: Mapping[str, Function], conventions: Mapping[str, str] | None = None):
        self.functions = functions  # the compiled check's table: the same records as in torch
        # the claim's conventions fill the same keywords as in torch (a ball `norm` must be the same norm)
        self.conventions = conventions or {}

    def const(self, value):
        return Ball.scalar(float(value))

    def binop(self, op, a, b):
        if op == "**":
            return _power(_lift(a), b)
        a, b = _lift(a), _lift(b)
        if isinstance(a, list) or isinstance(b, list):  # a family of matrices (gen.L): no ball arithmetic on it
            raise Unsupported(f"{op} on a family of matrices")
        if op == "+":
            return _elementwise(a, b, lambda x, y: x + y)
        if op == "-":
            return _elementwise(a, b, lambda x, y: x - y)
        if op == "*":
            return _elementwise(a, b, lambda x, y: x * y)
        if op == "/":
            return _elementwise(a, b, lambda x, y: x / y)
        if op == "@":
            if a.ndim == 1 and b.ndim == 1:
                return Ball.scalar((a.m.transpose() * b.m)[0, 0])
            if a.ndim == 1 and b.ndim == 2:
                return Ball((a.m.transpose() * b.m).transpose(), 1)
            return Ball(a.m * b.m, 1 if b.ndim == 1 else 2)
        raise Unsupported(op)

    def neg(self, a):
        a = _lift(a)
        if isinstance(a, list):
            raise Unsupported("negation of a family of matrices")
        return a.map(lambda x: -x)

    def transpose(self, a):
        a = _lift(a)
        if isinstance(a, list):
            raise Unsupported("transpose of a family of matrices")
        return a if a.ndim < 2 else Ball(a.m.transpose(), 2)

    def index(self, a, idx):
        if isinstance(a, list) and isinstance(idx, int):
            return a[idx]
        a = _lift(a)
        if isinstance(a, Ball) and a.ndim == 1 and isinstance(idx, int):
            return Ball.scalar(a.m[idx, 0])
        if isinstance(a, Ball) and a.ndim == 2 and isinstance(idx, tuple) and all(isinstance(i, int) for i in idx):
            return Ball.scalar(a.m[idx[0], idx[1]])
        raise Unsupported("this indexing")

    def reduce(self, name, values):
        vals = [_lift(v) for v in values]
        if name == "sum":
            out = vals[0]
            for v in vals[1:]:
                out = _elementwise(out, v, lambda x, y: x + y)
            return out
        if name in ("max", "min") and all(v.ndim == 0 for v in vals):
            return Ball.scalar(_extreme([v.s() for v in vals], name))
        raise Unsupported(f"reduction {name}")

    def call(self, name, args, kwargs):
        if kwargs:
            raise Unsupported(f"{name} with keyword arguments")
        record = self.functions.get(name)
        fn = record.ball if record is not None else None
        if fn is None:
            raise Unsupported(f"function {name}")
        return fn(*[a if isinstance(a, list) else _lift(a) for a in args], **record.convention_kwargs(self.conventions))


def _opnorm(a: Ball) -> Ball:
    """Rigorous enclosure of the operator 2-norm sqrt(lambda_max(G)), G = M^T M.

    Lower: the Rayleigh quotient of G at the float top eigenvector (<= lambda_max).  Upper: Gershgorin
    discs of Q^{-1} G Q with Q the float eigenvectors (similar to G, nearly diagonal, so the discs are
    tight even for the repeated eigenvalues that skew matrices always have)."""
    if a.ndim < 2:
        return Ball.scalar(_fro(a))
    g = a.m.transpose() * a.m
    n = g.nrows()
    mid = torch.tensor([[float(g[i, j].mid()) for j in range(n)] for i in range(n)], dtype=torch.float64, device="cpu")
    if not bool(torch.isfinite(mid).all()):
        raise Unsupported("operator norm of a matrix with unbounded entries")
    _, vecs = torch.linalg.eigh(mid)
    q = arb_mat(vecs.tolist())
    c = arb_mat.solve(q, g * q)
    upper = max(float((c[i, i] + sum((abs(c[i, j]) for j in range(n) if j != i), arb(0))).upper()) for i in range(n))
    v = arb_mat([[float(x)] for x in vecs[:, -1].tolist()])
    lower = float(((v.transpose() * g * v)[0, 0] / (v.transpose() * v)[0, 0]).lower())
    lam = arb((lower + upper) / 2, (upper - lower) / 2)
    return Ball.scalar(lam.sqrt())


def _norm(a: Ball, convention: str = "operator-2") -> Ball:
    """vocabulary._mat_or_vec_norm in balls, for the conventions with an enclosure here."""
    if a.ndim == 0:
        return Ball.scalar(abs(a.s()))
    if a.ndim == 1 and convention in ("operator-2", "frobenius", "euclidean"):
        return Ball.scalar(_fro(a))
    if a.ndim == 2 and convention in ("operator-2", "frobenius"):
        return Ball.scalar(_fro(a)) if convention == "frobenius" else _opnorm(a)
    raise Unsupported(f"norm of a {a.ndim}-d value under norm: {convention}")


def expm(a: Ball) -> Ball:
    return Ball(a.m.exp(), 2)


def _generator_sum(L: list, r: Ball) -> Ball:
    out = None
    for k, lk in enumerate(L):
        term = _elementwise(Ball.scalar(r.m[k, 0]), lk, lambda a, b: a * b)
        out = term if out is None else _elementwise(out, term, lambda a, b: a + b)
    return out


def _cayley(s: Ball) -> Ball:
    n = s.m.nrows()
    eye = _eye(n)
    return Ball(arb_mat.solve(eye + s.m, eye - s.m), 2)


def _qmul(a: Ball, b: Ball) -> Ball:
    w1, x1, y1, z1 = a.entries()
    w2, x2, y2, z2 = b.entries()
    return _vec([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                 w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _d_geo(q: Ball, k: Ball) -> Ball:
    """2 arccos|<q,k>| as 4 atan2(|q - s k|, |q + s k|) when the sign s of <q,k> is certain."""
    ip = sum((x * y for x, y in zip(q.entries(), k.entries())), arb(0))
    if ip > 0 or ip < 0:
        s = 1 if ip > 0 else -1
        minus = _fro(_vec([x - s * y for x, y in zip(q.entries(), k.entries())]))
        plus = _fro(_vec([x + s * y for x, y in zip(q.entries(), k.entries())]))
        return Ball.scalar(4 * arb.atan2(minus, plus))
    return Ball.scalar(2 * abs(ip).acos())


def _rotation_angle(q: Ball) -> Ball:
    w, *v = q.entries()
    return Ball.scalar(2 * arb.atan2(_fro(_vec(v)), abs(w)))


def _hellinger(mu: Ball) -> Ball:
    n, v = mu.m.nrows(), mu.m.ncols()
    root = [[mu.m[i, j].sqrt() for j in range(v)] for i in range(n)]
    out = arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            diffs = [root[i][t] - root[j][t] for t in range(v)]
            out[i, j] = arb(0) if i == j else sum((d * d for d in diffs), arb(0)).nonnegative_part().sqrt()
    return Ball(out, 2)


def _projector(u: Ball, cols: range) -> Ball:
    n = u.m.nrows()
    out = arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            out[i, j] = sum((u.m[i, c] * u.m[j, c] for c in cols), arb(0))
    return Ball(out, 2)


def _pi_act(u: Ball, m: Ball) -> Ball:
    return _projector(u, range(2 * int(float(m.s().mid()))))


def _pi_null(u: Ball, m: Ball) -> Ball:
    return _projector(u, range(2 * int(float(m.s().mid())), u.m.nrows()))


def _amax(a: Ball) -> Ball:
    return Ball.scalar(_extreme(a.entries(), "max"))


_BALL_MEANINGS = {
    "abs": lambda a: a.map(abs),
    "exp": lambda a: a.map(lambda x: x.exp()),
    "log": lambda a: a.map(lambda x: x.log()),
    "sqrt": lambda a: a.map(lambda x: x.sqrt()),
    "sin": lambda a: a.map(lambda x: x.sin()),
    "cos": lambda a: a.map(lambda x: x.cos()),
    "acos": lambda a: a.map(lambda x: x.acos()),
    "atan2": lambda y, x: _elementwise(y, x, lambda p, q: arb.atan2(p, q)),
    "norm": _norm,
    "vnorm": lambda a: Ball.scalar(_fro(a)),
    "fro": lambda a: Ball.scalar(_fro(a)),
    "opnorm": _opnorm,
    "expm": expm,
    "inv": lambda a: Ball(a.m.inv(), 2),
    "solve": lambda a, b: Ball(arb_mat.solve(a.m, b.m), b.ndim),
    "det": lambda a: Ball.scalar(a.m.det()),
    "tr": lambda a: Ball.scalar(a.m.trace()),
    "comm": lambda a, b: Ball(a.m * b.m - b.m * a.m, 2),
    "dot": lambda a, b: Ball.scalar((a.m.transpose() * b.m)[0, 0]),
    "rotation_angle": _rotation_angle,
    "amax": _amax,
    "l1": lambda a: Ball.scalar(sum((abs(x) for x in a.entries()), arb(0))),
    "displacement": lambda ri, rj, convention="rj-ri": _elementwise(
        rj, ri, (lambda a, b: a - b) if convention == "rj-ri" else (lambda a, b: b - a)),
    "I": lambda n: Ball(_eye(int(float(n.s().mid()))), 2),
}
for _name, _fn in _BALL_MEANINGS.items():
    ball_meaning(_name)(_fn)


def certify(comp, sides, tol: float, relations: list[int] | None = None) -> dict[str, Any]:
    """Ball re-evaluation of the witness against the tolerance the float64 check used.

    ``relations``: the indices of the relations the float64 check found violated (default: all). Each is
    judged on its own, evaluating only the ``where`` bindings it needs, so a function without a ball
    meaning elsewhere in the check does not block it. Status: 'certified' (some judged relation is
    violated beyond tolerance in exact arithmetic, or a strict one is met with equality exactly: then
    ``tie`` names it), 'not certified' (every judged relation could be
    evaluated and none is: the float64 violation was rounding), 'inconclusive: ...' (an enclosure too wide
    to say), or 'unsupported: ...'."""
    if flint is None:
        return {"status": "unsupported: python-flint is not installed"}
    if comp.randoms:  # a Monte-Carlo statement has no pointwise certificate
        return {"status": "unsupported: random hypotheses"}
    judged = list(range(len(comp.relations))) if relations is None else list(relations)
    old_prec = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        env = _ball_env(comp, sides)
    except (Unsupported, ValueError, ArithmeticError) as exc:
        flint.ctx.prec = old_prec
        return {"status": f"unsupported: {exc}"}
    where = dict(comp.where)
    backend = BallBackend(comp.functions, comp.conventions)
    margins, reasons, ties = [], [], []
    try:
        for j in judged:
            rel = comp.relations[j]
            try:
                lhs, rhs = relation_sides(rel, where, env, backend)
                margins.append(_margin(rel, _lift(lhs), _lift(rhs), tol))
                if rel.op in ("<", ">") and _exactly_equal_somewhere(_lift(lhs), _lift(rhs)):
                    ties.append(rel.text)
            except Unsupported as exc:
                reasons.append(str(exc))
            except (ValueError, ZeroDivisionError, ArithmeticError) as exc:
                reasons.append(f"{type(exc).__name__}: {exc}")
    finally:
        flint.ctx.prec = old_prec
    if ties:  # a strict relation met with equality, exactly: violated whatever the tolerance
        return {"status": "certified", "tie": ties[0], "margin_lower": 0.0, "margin_upper": 0.0, "precision_bits": 200}
    certified = [m for m in margins if m > 0]
    if certified or (margins and not reasons):
        best = max(certified or margins, key=lambda m: float(m.mid()))
        if certified or all(m < 0 for m in margins):
            status = "certified" if certified else "not certified"
        else:  # an enclosure that straddles the tolerance decides nothing (e.g. a near-singular solve)
            status = "inconclusive: the enclosure of the violation straddles the tolerance"
        return {"status": status, "margin_lower": float(best.lower()), "margin_upper": float(best.upper()),
                "precision_bits": 200}
    return {"status": f"unsupported: {reasons[0] if reasons else 'no relation to judge'}"}


def _ball_env(comp, sides) -> dict[str, Any]:
    """The instance 0 of ``sides`` as balls (exact: the float64 inputs are exact binary numbers), with the dims."""
    env: dict[str, Any] = dict(comp.dims)
    for name, v in sides.values.items():
        env[name] = {k: Ball.from_tensor(x[0]) for k, x in v.items()} if isinstance(v, dict) else Ball.from_tensor(v[0])
    return env


def judge_signs(comp, sides, j: int, decide) -> bool | None:
    """``decide(lhs, rhs)`` on relation j's two sides at instance 0 in 200-bit balls, broadcast to entries of
    one shape (lists of ``arb``, the bound's sides as ``lhs <= rhs``): True, False, or None where it cannot
    say; None too where the relation has no ball meaning."""
    if flint is None or comp.randoms:
        return None
    old_prec = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        rel = comp.relations[j]
        lhs, rhs = (_lift(x) for x in relation_sides(rel, dict(comp.where), _ball_env(comp, sides),
                                                     BallBackend(comp.functions, comp.conventions)))
        if rel.op in (">=", ">"):
            lhs, rhs = rhs, lhs
        left = _elementwise(lhs, rhs, lambda x, y: x).entries()
        right = _elementwise(lhs, rhs, lambda x, y: y).entries()
        return decide(left, right)
    except (Unsupported, ValueError, ZeroDivisionError, ArithmeticError):
        return None
    finally:
        flint.ctx.prec = old_prec


def _exactly_equal_somewhere(lhs: Ball, rhs: Ball) -> bool:
    """Are the two sides exactly equal at some entry (their difference an exact zero, radius 0)? Only exact
    enclosures certify a tie: integers, and the sums and products of float64 inputs 200 bits hold exactly;
    two enclosures of one irrational value overlap but never certify it (the 60-digit path rounds, so it
    cannot certify a tie either: 1 - exp(-700) is 1 there)."""
    diff = _elementwise(lhs, rhs, lambda x, y: x - y)
    return any(d.is_exact() and d.is_zero() for d in diff.entries())


def _margin(rel, lhs: Ball, rhs: Ball, tol: float):
    """Exact violation margin of one relation (> 0: violated beyond tolerance), as the float64 score sees it."""
    if rel.op == "==":
        diff = _fro(_elementwise(lhs, rhs, lambda x, y: x - y))
        denom = max(1.0, float(_fro(lhs).mid()), float(_fro(rhs).mid()))
        return diff / denom - tol
    if rel.op in ("<=", "<", ">=", ">"):
        a, b = (lhs, rhs) if rel.op in ("<=", "<") else (rhs, lhs)
        slack = _elementwise(a, b, lambda x, y: x - y * 1)
        scale = _elementwise(a, b, lambda x, y: 1 + abs(x) + abs(y))
        worst = None
        for s_, c_ in zip(slack.entries(), scale.entries()):
            m = s_ - tol * c_
            worst = m if worst is None or float(m.mid()) > float(worst.mid()) else worst
        return worst
    raise Unsupported(f"relation {rel.op}")


__all__ = ["certify", "judge_signs", "BallBackend", "Ball"]
